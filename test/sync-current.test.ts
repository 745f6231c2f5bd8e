// createSync(config, { current }): the first update starts from a node's iptables-save dump
// (another cluster's rules, other programs' chains, stale per-service chains) and its delta,
// applied to that dump, gives the desired state with everything that is not kube-proxy's kept.
// Later updates go on incrementally from there.
import { describe, expect, it } from "vitest";
import { KubeIptablesError } from "../src/errors.js";
import { parseRules, parseRulesOrThrow } from "../src/format/parse.js";
import { formatSave } from "../src/format/save.js";
import { generateState, isServiceChain } from "../src/iptables/output/rules.js";
import { applyRestore } from "../src/ir/state.js";
import { isBuiltinChain, type RuleSet } from "../src/ir/types.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput, EndpointSlice, ProxyConfigInput, Service } from "../src/kube/types.js";
import { createSync } from "../src/sync/index.js";
import { listVectors, readJson } from "./support/fixtures.js";
import { EMPTY_TABLES, foreign, inject, STALE, STALE_CHAIN } from "./support/foreign-rules.js";
import { randomCluster } from "./support/random-cluster.js";

type Family = "IPv4" | "IPv6";

/** A state as `table → chain → rule lines` of its save text. */
function chainsOf(state: RuleSet): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let table = new Map<string, string[]>();
  for (const line of formatSave(state).split("\n")) {
    if (line.startsWith("*")) {
      table = new Map();
      out.set(line.slice(1), table);
    } else if (line.startsWith(":")) table.set(line.slice(1, line.indexOf(" ")), []);
    else if (line.startsWith("-A ")) table.get(line.slice(3, line.indexOf(" ", 3)))?.push(line);
  }
  return out;
}

const stateOf = (c: ClusterInput): RuleSet => generateState(modelFromInput(c));
const save = (s: RuleSet): string => formatSave(s);
const normalize = (text: string, family: Family): string => save(parseRulesOrThrow(text, { family }));

interface Seq {
  name: string;
  config: ProxyConfigInput;
  steps: { services: Service[]; endpointSlices: EndpointSlice[]; expected: { save: string } }[];
}
const sequences = listVectors("kube-proxy-sequences").map((v) => readJson<Seq>(v.path));

describe("createSync from the node's current rules", () => {
  it("turns another cluster's kernel dump (plus Docker's rules and stale chains) into this one's", () => {
    let checked = 0;
    for (const seq of sequences) {
      const family = (seq.config.ipFamily ?? "IPv4") as Family;
      const last = seq.steps[seq.steps.length - 1] as Seq["steps"][number];
      // The kernel's own dump of the sequence's first step, with other programs' rules added.
      const dump = inject(
        inject((seq.steps[0] as Seq["steps"][number]).expected.save, foreign(family)),
        STALE_CHAIN,
      );
      const current = parseRulesOrThrow(dump, { family });
      const sync = createSync(seq.config, { current });
      expect(sync.state).toBe(current);
      const r = sync.update(last.services, last.endpointSlices);
      const want = normalize(
        inject(
          save(stateOf({ config: seq.config, services: last.services, endpointSlices: last.endpointSlices })),
          foreign(family),
        ),
        family,
      );
      const applied = applyRestore(current, r.delta, { noflush: true });
      expect(save(applied), seq.name).toBe(want);
      expect(save(r.state), seq.name).toBe(want);
      expect(r.stats.initial).toBe(true);
      // Other programs' chains are never named; the stale chain goes, after every -D.
      expect(r.deltaText).not.toMatch(/DOCKER|KUBE-SEP-B{16}/);
      const lines = r.deltaText.split("\n");
      expect(lines).toContain(`-X ${STALE}`);
      const lastRule = Math.max(...lines.map((l, i) => (/^-[DAI] /.test(l) ? i : -1)));
      expect(lines.findIndex((l) => l.startsWith("-X"))).toBeGreaterThan(lastRule);
      // Then incrementally: back to the first step, on top of what the node now holds.
      const first = seq.steps[0] as Seq["steps"][number];
      const back = sync.update(first.services, first.endpointSlices);
      expect(back.stats.initial).toBe(false);
      const again = applyRestore(applied, back.delta, { noflush: true });
      const wantBack = normalize(
        inject(
          save(
            stateOf({ config: seq.config, services: first.services, endpointSlices: first.endpointSlices }),
          ),
          foreign(family),
        ),
        family,
      );
      expect(save(again), `${seq.name} back`).toBe(wantBack);
      expect(save(back.state), `${seq.name} back`).toBe(wantBack);
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("random clusters: from A's state with foreign rules to B's, then on to C's", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const a = randomCluster(seed);
      const family = (a.config.ipFamily ?? "IPv4") as Family;
      const b = { ...randomCluster(seed + 500, { family }), config: a.config };
      const c = { ...randomCluster(seed + 900, { family }), config: a.config };
      const current = parseRulesOrThrow(inject(save(stateOf(a)), foreign(family)), { family });
      const sync = createSync(a.config, { current });
      const rb = sync.update(b.services, b.endpointSlices);
      const kb = applyRestore(current, rb.delta, { noflush: true });
      const wantB = normalize(inject(save(stateOf(b)), foreign(family)), family);
      expect(save(kb), `seed ${seed} B`).toBe(wantB);
      expect(save(rb.state), `seed ${seed} B`).toBe(wantB);
      const rc = sync.update(c.services, c.endpointSlices);
      const kc = applyRestore(kb, rc.delta, { noflush: true });
      const wantC = normalize(inject(save(stateOf(c)), foreign(family)), family);
      expect(save(kc), `seed ${seed} C`).toBe(wantC);
      expect(save(sync.state), `seed ${seed} C`).toBe(wantC);
    }
  });

  it("creates kube-proxy's chains and jumps on a node that has none, above Docker's jumps", () => {
    for (const family of ["IPv4", "IPv6"] as const) {
      const cluster = randomCluster(7, { family });
      const current = parseRulesOrThrow(inject(EMPTY_TABLES, foreign(family, false)), { family });
      const r = createSync(cluster.config, { current }).update(cluster.services, cluster.endpointSlices);
      expect(r.deltaText).toMatch(
        /^-I PREROUTING 1 -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m,
      );
      const applied = applyRestore(current, r.delta, { noflush: true });
      const want = normalize(inject(save(stateOf(cluster)), foreign(family, false)), family);
      expect(save(applied), family).toBe(want);
      expect(save(r.state), family).toBe(want);
    }
  });

  it("an empty kernel, or one with a table missing, gets the full state", () => {
    const cluster = randomCluster(9);
    const family = (cluster.config.ipFamily ?? "IPv4") as Family;
    const filterOnly = parseRulesOrThrow(
      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n",
      { family },
    );
    for (const current of [{ family, tables: [] }, filterOnly]) {
      const r = createSync(cluster.config, { current }).update(cluster.services, cluster.endpointSlices);
      expect(save(applyRestore(current, r.delta, { noflush: true }))).toBe(save(stateOf(cluster)));
      expect(save(r.state)).toBe(save(stateOf(cluster)));
    }
  });

  it("on every kernel dump of the iptables-save fixtures, touches only kube-proxy's chains", () => {
    let checked = 0;
    for (const v of listVectors("iptables-save")) {
      const fixture = readJson<{ family: "ipv4" | "ipv6"; save: string }>(v.path);
      const family: Family = fixture.family === "ipv4" ? "IPv4" : "IPv6";
      const parsed = parseRules(fixture.save, { family });
      if (parsed.problems.some((p) => p.severity === "error")) continue;
      const current = parsed.ruleSet;
      const cluster = randomCluster(checked + 1, { family });
      const r = createSync(cluster.config, { current }).update(cluster.services, cluster.endpointSlices);
      const applied = applyRestore(current, r.delta, { noflush: true });
      expect(save(r.state), v.name).toBe(save(applied));
      const before = chainsOf(current);
      const after = chainsOf(applied);
      const desired = chainsOf(r.state);
      const declared = new Set(r.ruleSet.tables.flatMap((t) => t.chains.map((c) => `${t.name} ${c.name}`)));
      for (const table of new Set([...before.keys(), ...after.keys()])) {
        const b = before.get(table) ?? new Map<string, string[]>();
        const a = after.get(table) ?? new Map<string, string[]>();
        for (const chain of new Set([...b.keys(), ...a.keys()])) {
          const where = `${v.name} ${table} ${chain}`;
          const was = b.get(chain);
          const is = a.get(chain);
          if (table !== "filter" && table !== "nat") expect(is, where).toEqual(was);
          else if (declared.has(`${table} ${chain}`))
            expect(is, where).toEqual(desired.get(table)?.get(chain));
          else if (isBuiltinChain(table, chain)) {
            // What was there stays, in order, at the end; above it only kube-proxy's jumps.
            expect((is ?? []).slice((is ?? []).length - (was ?? []).length), where).toEqual(was ?? []);
            for (const line of (is ?? []).slice(0, (is ?? []).length - (was ?? []).length))
              expect(line, where).toMatch(/ -j KUBE-[A-Z-]+$/);
          } else if (table === "nat" && isServiceChain(chain)) {
            if (is !== undefined) expect(is, where).toEqual(was);
          } else if (was !== undefined) expect(is, where).toEqual(was);
          else expect(is, where).toEqual([]); // a jump target kube-proxy ensures
        }
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  });

  it("writes nothing when the node already holds the desired rules", () => {
    const seq = sequences[0] as Seq;
    const step = seq.steps[0] as Seq["steps"][number];
    const family = (seq.config.ipFamily ?? "IPv4") as Family;
    const current = parseRulesOrThrow(inject(step.expected.save, foreign(family)), { family });
    const r = createSync(seq.config, { current }).update(step.services, step.endpointSlices);
    expect(r.deltaText).toBe("");
    expect(save(r.state)).toBe(save(current));
  });

  it("starting from the state it assumes by default gives the same kernel state", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const a = randomCluster(seed);
      const plain = createSync(a.config);
      const before = plain.state;
      const adopted = createSync(a.config, { current: before });
      const x = plain.update(a.services, a.endpointSlices);
      const y = adopted.update(a.services, a.endpointSlices);
      expect(save(y.state), `seed ${seed}`).toBe(save(x.state));
      expect(save(applyRestore(before, y.delta, { noflush: true })), `seed ${seed}`).toBe(save(x.state));
    }
  });

  it("rejects rules of the other family or a payload instead of a state, naming the place", () => {
    const v4 = parseRulesOrThrow("*nat\n:KUBE-X - [0:0]\n-X KUBE-X\nCOMMIT\n", { family: "IPv4" });
    expect(() => createSync({ hostname: "n", ipFamily: "IPv6" }, { current: v4 })).toThrow(KubeIptablesError);
    try {
      createSync({ hostname: "n" }, { current: v4 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(KubeIptablesError);
      expect((e as KubeIptablesError).path).toBe("current.tables[0].entries[0]");
    }
    try {
      createSync({ hostname: "n", ipFamily: "IPv6" }, { current: { family: "IPv4", tables: [] } });
      expect.unreachable();
    } catch (e) {
      expect((e as KubeIptablesError).path).toBe("current.family");
    }
  });
});
