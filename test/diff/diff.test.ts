// diffRules / formatDelta / summarizeDiff / runDiff: a restore-form state and its save-form twin
// are equal; the delta applied to OLD gives NEW exactly; the summary names the Service.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runDiff } from "../../src/cli/diff.js";
import {
  canonicalKey,
  commonSubsequence,
  deltaOf,
  diffRules,
  formatDelta,
  generatedState,
  isKubeProxyChain,
  kubeProxyChainsOf,
  summarizeDiff,
} from "../../src/diff/index.js";
import {
  type ClusterInput,
  formatSave,
  generateRules,
  generateState,
  parseRules,
  parseRulesOrThrow,
  type Rule,
  type RuleSet,
} from "../../src/index.js";
import { canonicalizeRule, formatCanonicalRule } from "../../src/iptables/canonical/canonicalize.js";
import { tokenizeLine, tokenizesTo } from "../../src/iptables/parse/tokenize.js";
import { applyRestore } from "../../src/iptables/state.js";
import type { IPFamily } from "../../src/ir/types.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import {
  kubeProxyVector,
  kubeProxyVectors,
  type SequenceVector,
  saveFixtures,
  sequenceVectors,
} from "../support/corpora.js";
import { randomCluster, seededRng } from "../support/random-cluster.js";

type Sequence = SequenceVector;
const sequences = sequenceVectors();
const stateOf = (c: ClusterInput) => generateState(modelFromInput(c));

describe("diffRules", () => {
  it("sees no difference between a generated state and the kernel's save of it", () => {
    for (const v of kubeProxyVectors("kube-proxy").slice(0, 40)) {
      const vec = v;
      const ours = stateOf(vec as unknown as ClusterInput);
      const kernel = parseRulesOrThrow(vec.expected.save, { family: ours.family });
      expect(diffRules(ours, kernel).tables, v.name).toEqual([]);
    }
  });

  it("delta between kube-proxy's kernel states of a sequence, applied, gives the next state", () => {
    for (const seq of sequences) {
      for (let i = 1; i < seq.steps.length; i++) {
        const prev = parseRulesOrThrow((seq.steps[i - 1] as Sequence["steps"][number]).expected.save);
        const step = seq.steps[i] as Sequence["steps"][number];
        const next = stateOf({
          config: seq.config,
          services: step.services,
          endpointSlices: step.endpointSlices,
        });
        const diff = diffRules(prev, next);
        const applied = applyRestore(prev, deltaOf(diff), { noflush: true });
        expect(diffRules(applied, next).tables, `${seq.name} step ${i}`).toEqual([]);
      }
    }
  });

  it("delta between random clusters, applied, gives NEW exactly", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const a = randomCluster(seed);
      const b = randomCluster(seed + 1000, { family: (a.config.ipFamily ?? "IPv4") as "IPv4" | "IPv6" });
      const old = stateOf(a);
      const next = stateOf({ ...b, config: a.config });
      const applied = applyRestore(old, deltaOf(diffRules(old, next)), { noflush: true });
      expect(formatSave(applied), `seed ${seed}`).toBe(formatSave(next));
    }
  });

  it("edits shared chains rule by rule, deletes removed chains last", () => {
    const seq = sequences.find((s) => s.name === "seq-add-delete-service") as Sequence;
    const [s0, s1, s2] = seq.steps as [
      Sequence["steps"][number],
      Sequence["steps"][number],
      Sequence["steps"][number],
    ];
    const st = (s: Sequence["steps"][number]) =>
      stateOf({ config: seq.config, services: s.services, endpointSlices: s.endpointSlices });
    const added = formatDelta(diffRules(st(s0), st(s1)));
    expect(added).not.toMatch(/^:KUBE-SERVICES/m);
    expect(added).toMatch(/^-I KUBE-SERVICES 1 .*default\/api:grpc cluster IP/m);
    const removed = formatDelta(diffRules(st(s1), st(s2)));
    const lines = removed.split("\n");
    const lastRule = Math.max(...lines.map((l, i) => (l.startsWith("-D") ? i : -1)));
    const firstX = lines.findIndex((l) => l.startsWith("-X"));
    expect(firstX).toBeGreaterThan(lastRule);
    expect(summarizeDiff(diffRules(st(s1), st(s2)))).toMatch(
      /^default\/web:http: -\d+ rules; chains removed .*KUBE-SEP-/m,
    );
    expect(summarizeDiff(diffRules(st(s1), st(s1)))).toBe("no changes\n");
  });

  it("edits a service chain in place when one endpoint changes, and rewrites it when that is shorter", () => {
    // Three ready endpoints of one Service; then the first moves to a new address; then all go.
    const slice = (ips: string[]) => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "web-a", namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    });
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "ns" },
      spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    };
    const config = { hostname: "node-a" };
    const st = (ips: string[], more: string[] = []) =>
      stateOf({
        config,
        services: [service] as NonNullable<ClusterInput["services"]>,
        endpointSlices: [slice([...ips, ...more])] as NonNullable<ClusterInput["endpointSlices"]>,
      });
    const many = Array.from({ length: 12 }, (_, i) => `10.1.0.${i + 10}`);
    const old = st(["10.1.0.1", "10.1.0.2", "10.1.0.3"], many);
    const moved = st(["10.1.0.9", "10.1.0.2", "10.1.0.3"], many);
    const delta = formatDelta(diffRules(old, moved));
    const svc = /-j (KUBE-SVC-\w+)/.exec(delta) ?? /^-[DIA] (KUBE-SVC-\w+)/m.exec(delta);
    expect(svc).not.toBeNull();
    const chain = (svc as RegExpExecArray)[1] as string;
    // Not flushed: no declaration of the chain, its old rule deleted by number, the new inserted.
    expect(delta).not.toMatch(new RegExp(`^:${chain} `, "m"));
    expect(delta).toMatch(new RegExp(`^-D ${chain} \\d+$`, "m"));
    expect(delta).toMatch(new RegExp(`^(-I ${chain} \\d+|-A ${chain}) -m `, "m"));
    expect(formatSave(applyRestore(old, deltaOf(diffRules(old, moved)), { noflush: true }))).toBe(
      formatSave(moved),
    );
    // Every endpoint replaced: flushing and refilling is shorter than a -D and -I per rule.
    const replaced = st(["10.2.0.1", "10.2.0.2", "10.2.0.3"]);
    const all = formatDelta(diffRules(old, replaced));
    expect(all).toMatch(new RegExp(`^:${chain} - \\[0:0\\]$`, "m"));
    expect(all).not.toMatch(new RegExp(`^-D ${chain} `, "m"));
    expect(formatSave(applyRestore(old, deltaOf(diffRules(old, replaced)), { noflush: true }))).toBe(
      formatSave(replaced),
    );
  });

  it("compares a generated side by its save text exactly as by its rules, building them only if a chain differs", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const a = randomCluster(seed);
      const family = (a.config.ipFamily ?? "IPv4") as IPFamily;
      const b = { ...randomCluster(seed + 2000, { family }), config: a.config };
      const models = [modelFromInput(a), modelFromInput(b)] as const;
      const states = models.map((m) => generateState(m));
      const [dumpA, dumpB] = states.map((s) => parseRulesOrThrow(formatSave(s), { family }));
      const pairs: [RuleSet, RuleSet, RuleSet, RuleSet, string][] = [];
      const gen = (i: 0 | 1) => generatedState(models[i]).state;
      // Dump vs cluster, cluster vs dump, cluster vs cluster; changed and unchanged.
      pairs.push([dumpA as RuleSet, gen(1), dumpA as RuleSet, states[1] as RuleSet, "dump A / cluster B"]);
      pairs.push([gen(0), dumpB as RuleSet, states[0] as RuleSet, dumpB as RuleSet, "cluster A / dump B"]);
      pairs.push([gen(0), gen(1), states[0] as RuleSet, states[1] as RuleSet, "cluster A / cluster B"]);
      pairs.push([dumpA as RuleSet, gen(0), dumpA as RuleSet, states[0] as RuleSet, "dump A / cluster A"]);
      for (const [x, y, rx, ry, what] of pairs) {
        const owned = kubeProxyChainsOf(generateRules(models[0]));
        for (const options of [{}, { chains: owned }]) {
          const fast = diffRules(x, y, options);
          const slow = diffRules(rx, ry, options);
          expect(formatDelta(fast), `seed ${seed} ${what}`).toBe(formatDelta(slow));
          expect(summarizeDiff(fast), `seed ${seed} ${what}`).toBe(summarizeDiff(slow));
        }
      }
      // The owned chains equal kubeProxyChainsOf(payload)'s on every chain either side holds.
      const { owned } = generatedState(models[0]);
      const byPayload = kubeProxyChainsOf(generateRules(models[0]));
      for (const s of states)
        for (const t of s.tables)
          for (const c of t.chains) expect(owned(t.name, c.name)).toBe(byPayload(t.name, c.name));
    }
    // Nothing differs: the generated side's rules are never built.
    const a = randomCluster(7);
    const model = modelFromInput(a);
    const { state } = generatedState(model);
    const spy = vi.spyOn(state, "tables", "get");
    const dump = parseRulesOrThrow(formatSave(generateState(model)), { family: state.family });
    expect(diffRules(dump, state).tables).toEqual([]);
    expect(spy).not.toHaveBeenCalled();
  });

  it("finds each chain's rules however its runs interleave and its chains are declared", () => {
    // diffRules matches runs of rules to their chain by position first: a state whose chains
    // are declared in another order (one twice), whose runs are split and shuffled (each
    // chain's own rules staying in order), must compare exactly as the tidy one does.
    const rng = seededRng(77);
    const pick = (n: number) => rng.int(0, n - 1);
    const chance = (p: number) => rng.int(0, 999) < p * 1000;
    for (let seed = 1; seed <= 30; seed++) {
      const a = randomCluster(seed);
      const tidy = stateOf(a);
      const other = stateOf({ ...randomCluster(seed + 500, { family: tidy.family }), config: a.config });
      const messy: RuleSet = {
        family: tidy.family,
        tables: tidy.tables.map((t) => {
          const chains = [...t.chains];
          for (let i = chains.length - 1; i > 0; i--) {
            const j = pick(i + 1);
            [chains[i], chains[j]] = [chains[j] as (typeof chains)[0], chains[i] as (typeof chains)[0]];
          }
          if (chains.length > 0) chains.push({ ...(chains[pick(chains.length)] as (typeof chains)[0]) });
          const runs = new Map<string, Rule[][]>();
          for (const e of t.entries) {
            if (e.kind !== "rule") continue;
            const list = runs.get(e.chain) ?? [];
            if (list.length === 0 || chance(0.3)) list.push([]);
            (list[list.length - 1] as Rule[]).push(e);
            runs.set(e.chain, list);
          }
          // Interleave the chains' runs at random, each chain's runs in their own order.
          const queues = [...runs.values()];
          const entries: Rule[] = [];
          while (queues.length > 0) {
            const i = pick(queues.length);
            const q = queues[i] as Rule[][];
            entries.push(...(q.shift() as Rule[]));
            if (q.length === 0) queues.splice(i, 1);
          }
          return { name: t.name, chains, entries };
        }),
      };
      expect(diffRules(tidy, messy).tables, `seed ${seed}`).toEqual([]);
      const fromTidy = diffRules(tidy, other);
      const fromMessy = diffRules(messy, other);
      const shape = (d: typeof fromTidy) =>
        d.tables.map((t) => ({
          name: t.name,
          added: [...t.chainsAdded].sort(),
          removed: [...t.chainsRemoved].sort(),
          chains: t.chains.map((c) => [c.chain, c.status, c.addedRules, c.removedRules]).sort(),
        }));
      expect(shape(fromMessy), `seed ${seed}`).toEqual(shape(fromTidy));
    }
  });

  it("empties the built-in chains of a table NEW lacks, so its user chains can be deleted", () => {
    // A node's dump holds tables a cluster's state has none of (Cilium's mangle chains). The
    // delta cannot drop a table under --noflush: it must delete the built-in chains' rules,
    // or `-X` of the chains they jump to fails (EBUSY) and the whole restore with it.
    const old = parseRulesOrThrow(
      [
        "*mangle",
        ":PREROUTING DROP [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        ":CILIUM_PRE_mangle - [0:0]",
        '-A PREROUTING -m comment --comment "cilium-feeder: CILIUM_PRE_mangle" -j CILIUM_PRE_mangle',
        "-A PREROUTING -m pkttype --pkt-type multicast -j ACCEPT",
        "-A OUTPUT -m owner --uid-owner 1000 -j MARK --set-xmark 0x10/0xffffffff",
        "-A CILIUM_PRE_mangle -m socket --transparent -j MARK --set-xmark 0x200/0xffffffff",
        "COMMIT",
        "",
      ].join("\n"),
    );
    const next = parseRulesOrThrow("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n");
    const applied = applyRestore(old, deltaOf(diffRules(old, next)), { noflush: true });
    const mangle = formatSave({ family: "IPv4", tables: applied.tables.filter((t) => t.name === "mangle") });
    expect(mangle).not.toMatch(/^-A |CILIUM|DROP/m);
    expect(formatSave({ family: "IPv4", tables: applied.tables.filter((t) => t.name === "filter") })).toBe(
      formatSave(next),
    );
    // The summary names the chain that goes, not the built-in ones that are only emptied.
    const summary = summarizeDiff(diffRules(old, next));
    expect(summary).toMatch(/chains removed CILIUM_PRE_mangle/);
    expect(summary).toMatch(/^mangle PREROUTING: -2 rules$/m);
    expect(summary).not.toMatch(/chains removed [^\n]*(PREROUTING|OUTPUT)/);
  });

  it("names the Service of its external, firewall and XLB chains, whose comments name it after 'for' or not at all", () => {
    // A NodePort Service added (a real pair of dumps of one node, before and after its Services
    // got endpoints, listed KUBE-EXT chains apart from their Service): and under v1.22, a
    // Local LoadBalancer Service's KUBE-XLB and KUBE-FW chains.
    const svc = (type: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name: "web", namespace: "shop" },
      spec: {
        type,
        clusterIP: "10.96.0.20",
        ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080 }],
        ...extra,
      },
      ...(type === "LoadBalancer" ? { status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } } } : {}),
    });
    const slice = {
      metadata: { name: "web-1", namespace: "shop", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.1.5"], conditions: { ready: true }, nodeName: "node-a" }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    };
    const summary = (config: Record<string, unknown>, service: unknown) =>
      summarizeDiff(
        diffRules(
          stateOf({ config, services: [], endpointSlices: [] } as unknown as ClusterInput),
          stateOf({ config, services: [service], endpointSlices: [slice] } as unknown as ClusterInput),
        ),
      );
    const config = { hostname: "node-a", detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] } };
    const nodePort = summary(config, svc("NodePort"));
    expect(nodePort).toMatch(
      /^shop\/web:http: \+\d+ rules; chains added (?=.*KUBE-EXT-)(?=.*KUBE-SVC-)(?=.*KUBE-SEP-)/m,
    );
    expect(nodePort).not.toMatch(/^nat KUBE-EXT/m);
    const xlb = summary(
      { ...config, profile: "v1.22" },
      svc("LoadBalancer", {
        externalTrafficPolicy: "Local",
        healthCheckNodePort: 32000,
        loadBalancerSourceRanges: ["198.51.100.0/24"],
      }),
    );
    expect(xlb).not.toMatch(/^nat KUBE-(XLB|FW)/m);
    expect(xlb).toMatch(/^shop\/web:http: .*chains added (?=.*KUBE-FW-)(?=.*KUBE-XLB-)/m);
  });

  it("leaves chains kube-proxy does not own alone", () => {
    const seq = sequences[0] as Sequence;
    const s = seq.steps[0] as Sequence["steps"][number];
    const ours = stateOf({ config: seq.config, services: s.services, endpointSlices: s.endpointSlices });
    const dump = `${s.expected.save.replace("*filter\n", "*filter\n").replace(/^COMMIT$/m, ":DOCKER - [0:0]\n-A DOCKER -j RETURN\nCOMMIT")}`;
    const node = parseRulesOrThrow(dump);
    expect(diffRules(node, ours, { chains: isKubeProxyChain }).tables).toEqual([]);
    expect(diffRules(node, ours).tables).not.toEqual([]);
  });
});

describe("commonSubsequence", () => {
  // The length of a longest common subsequence, the slow and obvious way.
  function lcsLength(a: readonly string[], b: readonly string[]): number {
    let prev = new Array<number>(b.length + 1).fill(0);
    for (const x of a) {
      const row = [0];
      for (let j = 0; j < b.length; j++)
        row.push(x === b[j] ? (prev[j] as number) + 1 : Math.max(prev[j + 1] as number, row[j] as number));
      prev = row;
    }
    return prev[b.length] as number;
  }

  it("returns a longest common subsequence, call after call of every size (its table is reused)", () => {
    const rng = seededRng(11);
    for (let round = 0; round < 400; round++) {
      const n = rng.int(0, round % 3 === 0 ? 90 : 12);
      const m = rng.int(0, round % 3 === 0 ? 45 : 12);
      const alphabet = rng.int(1, 8);
      const a = Array.from({ length: n }, () => String(rng.int(1, alphabet)));
      const b = Array.from({ length: m }, () => String(rng.int(1, alphabet)));
      const pairs = commonSubsequence(a, b);
      pairs.forEach(([i, j], k) => {
        expect(a[i]).toBe(b[j]);
        if (k > 0) {
          const [pi, pj] = pairs[k - 1] as [number, number];
          expect(i > pi && j > pj).toBe(true);
        }
      });
      // Exact below the table's limit (n · m ≤ 4096); above it, exact for unique keys only.
      if (n * m <= 4096) expect(pairs.length, `${a.join(",")} / ${b.join(",")}`).toBe(lcsLength(a, b));
    }
  });
});

describe("runDiff", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-diff-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    const o = vi.spyOn(process.stdout, "write").mockImplementation((t) => {
      out += String(t);
      return true;
    });
    const e = vi.spyOn(process.stderr, "write").mockImplementation((t) => {
      err += String(t);
      return true;
    });
    try {
      const code = await runDiff(args);
      return { code, out, err };
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
  }
  const seq = sequences.find((s) => s.name === "seq-add-delete-service") as Sequence;
  const s0 = seq.steps[0] as Sequence["steps"][number];
  const s1 = seq.steps[1] as Sequence["steps"][number];
  const cluster0 = join(dir, "c0.json");
  const cluster1 = join(dir, "c1.json");
  const save0 = join(dir, "s0.txt");
  writeFileSync(
    cluster0,
    JSON.stringify({ config: seq.config, services: s0.services, endpointSlices: s0.endpointSlices }),
  );
  writeFileSync(
    cluster1,
    JSON.stringify({ config: seq.config, services: s1.services, endpointSlices: s1.endpointSlices }),
  );
  writeFileSync(save0, `# Generated by iptables-save\n:DOCKER - [0:0]\n`.slice(0, 0) + s0.expected.save);

  it("cluster vs cluster: a summary by Service, and a restore delta", async () => {
    // Exit 1: the sides differ (as diff(1)).
    const r = await run([cluster0, cluster1]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^default\/api:grpc: \+\d+ rules; chains added /m);
    const d = await run([cluster0, cluster1, "--format", "restore"]);
    expect(d.code).toBe(1);
    expect(d.out).toMatch(/^\*nat$/m);
  });

  it("node dump vs cluster: what kube-proxy would change", async () => {
    expect((await run([save0, cluster0])).out).toBe("no changes\n");
    expect((await run([save0, cluster1])).out).toMatch(/default\/api:grpc/);
  });

  it("node dump vs cluster: a stale chain another program's rule still jumps to is kept", async () => {
    // `-X` of a chain a rule still references fails (EBUSY), and the whole restore with it.
    const stale = (s1.expected.save.match(/^:KUBE-SVC-\w+/gm) ?? [])
      .map((l) => l.slice(1))
      .find((c) => !s0.expected.save.includes(c));
    expect(stale).toBeDefined();
    // DOCKER's rule comes after the chain lines, as iptables-save prints it (a jump to a chain
    // not yet declared is refused).
    const dump = s1.expected.save
      .replace(/^\*nat\n/m, "*nat\n:DOCKER - [0:0]\n")
      .replace(/(\*nat\n[\s\S]*?)^COMMIT$/m, `$1-A DOCKER -p tcp -m tcp --dport 9999 -j ${stale}\nCOMMIT`);
    const dumpFile = join(dir, "docker-pins-stale.txt");
    writeFileSync(dumpFile, dump);
    const d = await run([dumpFile, cluster0, "--format", "restore"]);
    expect(d.code).toBe(1);
    expect(d.out).not.toContain(`-X ${stale}`);
    const node = parseRulesOrThrow(dump);
    const applied = applyRestore(node, parseRulesOrThrow(d.out, { noflush: true }), { noflush: true });
    expect(formatSave(applied)).toContain(`:${stale} - [0:0]`);
    expect((await run([dumpFile, cluster0])).out).toMatch(/default\/api:grpc: -\d+ rules?$/m);
  });

  it("node dump vs cluster: a fixed chain the payload does not declare is another component's", async () => {
    // Without localhostNodePorts kube-proxy writes no filter KUBE-FIREWALL; kubelet fills it.
    const input = { services: s0.services, endpointSlices: s0.endpointSlices };
    const config = { ...seq.config, localhostNodePorts: false };
    const cluster = join(dir, "c0-no-localhost.json");
    writeFileSync(cluster, JSON.stringify({ config, ...input }));
    const model = modelFromInput({ config, ...input });
    const payload = generateRules(model);
    expect(payload.tables.some((t) => t.chains.some((c) => c.name === "KUBE-FIREWALL"))).toBe(false);
    // The node: the state after kube-proxy's sync, plus kubelet's rule in KUBE-FIREWALL.
    const dump = formatSave(generateState(model)).replace(
      /^-A KUBE-FORWARD /m,
      '-A KUBE-FIREWALL -m comment --comment "kubelet drop" -m mark --mark 0x8000/0x8000 -j DROP\n$&',
    );
    expect(dump).toContain("-A KUBE-FIREWALL");
    const dumpFile = join(dir, "kubelet-firewall.txt");
    writeFileSync(dumpFile, dump);
    expect((await run([dumpFile, cluster])).out).toBe("no changes\n");
    expect((await run([dumpFile, cluster, "--all-chains"])).out).toMatch(/KUBE-FIREWALL/);

    const owned = kubeProxyChainsOf(payload);
    expect(owned("filter", "KUBE-FIREWALL")).toBe(false);
    expect(owned("filter", "KUBE-SERVICES")).toBe(true);
    expect(owned("nat", "KUBE-SEP-STALE0000000000")).toBe(true);
    expect(owned("nat", "POSTROUTING")).toBe(false);
    // Where the payload declares the chain, kube-proxy owns it.
    const withLocalhost = generateRules(modelFromInput({ config: seq.config, ...input }));
    expect(kubeProxyChainsOf(withLocalhost)("filter", "KUBE-FIREWALL")).toBe(true);
  });

  it("two node dumps: chains kube-proxy does not own are named on stderr when they differ", async () => {
    const base = s0.expected.save;
    const other = base.replace(/^\*nat\n/m, "*nat\n:CNI-X - [0:0]\n-A CNI-X -j RETURN\n");
    const oldFile = join(dir, "node-before.txt");
    const newFile = join(dir, "node-after.txt");
    writeFileSync(oldFile, base);
    writeFileSync(newFile, other);
    const r = await run([oldFile, newFile]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("no changes\n");
    expect(r.err).toBe(
      "kube-iptables: note: 1 chain that kube-proxy does not own differs too (nat CNI-X); --all-chains compares them\n",
    );
    // The same dumps: no note. With --all-chains the chain is compared, and no note either.
    expect((await run([oldFile, oldFile])).err).toBe("");
    const all = await run([oldFile, newFile, "--all-chains"]);
    expect(all.out).toBe("nat CNI-X: +1 rule; chains added CNI-X\n");
    expect(all.err).toBe("");
    // A name holding a terminal escape is printed escaped, in the summary as in the note.
    const escaped = join(dir, "node-escape.txt");
    writeFileSync(escaped, base.replace(/^\*nat\n/m, "*nat\n:CNI-\u001b[2J - [0:0]\n"));
    const e = await run([oldFile, escaped]);
    expect(e.err).toContain("(nat CNI-\\u001b[2J)");
    const eAll = await run([oldFile, escaped, "--all-chains"]);
    expect(eAll.out).toBe("nat CNI-\\u001b[2J: chains added CNI-\\u001b[2J\n");
  });

  it("without --family, the cluster side takes the family of the dump it is compared with", async () => {
    // A dual-stack vector whose cluster file says IPv4: its IPv6 node's dump.
    const v = kubeProxyVector("kube-proxy", "feature-dualstack-from-ipv4");
    const cluster = join(dir, "dual.json");
    writeFileSync(
      cluster,
      JSON.stringify({ config: v.config, services: v.services, endpointSlices: v.endpointSlices }),
    );
    const input = {
      config: { ...v.config, ipFamily: "IPv6" },
      services: v.services,
      endpointSlices: v.endpointSlices,
    };
    const dump6 = join(dir, "dual-ipv6.txt");
    writeFileSync(dump6, formatSave(generateState(modelFromInput(input as ClusterInput))));
    for (const args of [
      [cluster, dump6],
      [dump6, cluster],
    ]) {
      const r = await run(args);
      expect(r.err).toBe("");
      expect(r.out).toBe("no changes\n");
    }
    // An explicit --family still wins: the IPv6 dump does not read as IPv4.
    expect((await run([cluster, dump6, "--family", "IPv4"])).code).toBe(2);
  });

  it("a side may be a directory of cluster files, read as one cluster", async () => {
    // The node's config in one file, the Services and the slices of step 1 in two others.
    const side = join(dir, "step1");
    mkdirSync(side);
    writeFileSync(join(side, "node.yaml"), `config: ${JSON.stringify(seq.config)}\n`);
    writeFileSync(join(side, "services.json"), JSON.stringify({ services: s1.services }));
    writeFileSync(join(side, "slices.json"), JSON.stringify({ endpointSlices: s1.endpointSlices }));
    writeFileSync(join(side, "README.txt"), "not a manifest: skipped\n");
    const fromDir = await run([cluster0, side, "--format", "restore"]);
    const fromFile = await run([cluster0, cluster1, "--format", "restore"]);
    expect(fromDir.err).toBe("");
    expect(fromDir.out).toBe(fromFile.out);
    expect(fromDir.out).toMatch(/default\/api:grpc/);
    expect((await run([side, cluster1])).out).toBe("no changes\n");
    expect((await run([save0, side])).out).toMatch(/default\/api:grpc/);
    // A problem names the file it is in, once.
    const bad = join(dir, "bad-side");
    mkdirSync(bad);
    writeFileSync(join(bad, "node.yaml"), `config: ${JSON.stringify(seq.config)}\n`);
    writeFileSync(
      join(bad, "services.json"),
      // (A missing namespace is no problem: the object is read in namespace default.)
      JSON.stringify({
        services: [{ ...(s1.services[0] as object), metadata: { name: "X_1", namespace: "default" } }],
      }),
    );
    const r = await run([cluster0, bad]);
    expect(r.err).toMatch(/^kube-iptables: \S*services\.json: services\[0\]\.metadata/m);
    expect(r.err).not.toMatch(/bad-side: .*services\.json/);
    // An empty directory is named as such.
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const e = await run([cluster0, empty]);
    expect(e.code).toBe(2);
    expect(e.err).toMatch(/empty: no \.json, \.yaml or \.yml files/);
  });

  it("exit codes", async () => {
    await expect(run([cluster0])).rejects.toThrow(/two files/);
    await expect(run([cluster0, cluster1, "--format", "x"])).rejects.toThrow(/--format/);
    expect((await run([cluster0, join(dir, "missing.json")])).code).toBe(2);
    writeFileSync(join(dir, "bad.txt"), "*nat\n-A NOPE -j ACCEPT\nCOMMIT\n");
    expect((await run([cluster0, join(dir, "bad.txt")])).code).toBe(2);
  });
});

describe("canonicalKey", () => {
  // The quick save printer answers for kube-proxy's shapes; its keys must be the canonicalizer's.
  function slowKey(rule: Rule, family: IPFamily): string {
    const c = canonicalizeRule(rule.args, family);
    return formatCanonicalRule("", c);
  }
  it("equals the canonicalizer's key on every rule of every fixture payload and state", () => {
    let rules = 0;
    for (const v of kubeProxyVectors("kube-proxy")) {
      const model = modelFromInput(v as unknown as ClusterInput);
      const family = model.config.ipFamily;
      for (const set of [generateRules(model), generateState(model)])
        for (const table of set.tables)
          for (const entry of table.entries) {
            if (entry.kind !== "rule") continue;
            rules++;
            expect(canonicalKey(entry, family), entry.args.join(" ")).toBe(slowKey(entry, family));
          }
    }
    expect(rules).toBeGreaterThan(10_000);
  });

  // diffRules takes a chain as unchanged when OLD's rules read as NEW's keys (tokenizesTo): sound
  // only if a canonical key, read back, has itself as key.
  it("is a fixed point: a key read back as a rule has that key", () => {
    let checked = 0;
    const check = (rule: Rule, family: IPFamily) => {
      const key = canonicalKey(rule, family);
      if (!key.startsWith("-A ")) return;
      const args = tokenizeLine(key, 3, key.length, false);
      expect(tokenizesTo(key, 3, key.length, args), key).toBe(true);
      expect(canonicalKey({ kind: "rule", op: "-A", chain: rule.chain, args }, family), key).toBe(key);
      checked++;
    };
    for (const v of saveFixtures()) {
      const family: IPFamily = v.family === "ipv4" ? "IPv4" : "IPv6";
      if (v.backend !== "nft") continue;
      for (const text of [v.input, v.save]) {
        if (text === undefined) continue;
        const parsed = parseRules(text, { family });
        if (parsed.problems.length > 0) continue;
        for (const t of parsed.ruleSet.tables)
          for (const e of t.entries) if (e.kind === "rule" && e.args.length > 0) check(e, family);
      }
    }
    for (let seed = 1; seed <= 40; seed++) {
      const state = stateOf(randomCluster(seed));
      for (const t of state.tables) for (const e of t.entries) if (e.kind === "rule") check(e, state.family);
    }
    expect(checked).toBeGreaterThan(5_000);
  });
});

describe("tokenizesTo", () => {
  const text = fc
    .array(fc.constantFrom("a", "b", "-", " ", " ", "\t", '"', "\\", "'", "é", "\ud83d", "\ude00", "x y"), {
      maxLength: 30,
    })
    .map((c) => c.join(""));
  it("answers whether tokenizeLine gives exactly these arguments", () => {
    fc.assert(
      fc.property(
        text,
        fc.nat(),
        fc.constantFrom("same", "drop", "add", "change", "cut", "grow"),
        (line, at, how) => {
          const args = tokenizeLine(line, 0, line.length, false);
          expect(tokenizesTo(line, 0, line.length, args)).toBe(true);
          const other = args.slice();
          const i = args.length === 0 ? 0 : at % args.length;
          if (how === "drop") other.splice(i, 1);
          if (how === "add") other.splice(i, 0, "a");
          if (how === "change" && other.length > 0)
            other[i] = `${other[i]}`.replace(/^./, (c) => (c === "a" ? "b" : "a"));
          if (how === "cut" && other.length > 0) other[i] = `${other[i]}`.slice(0, -1);
          if (how === "grow" && other.length > 0) other[i] = `${other[i]}a`;
          const same = other.length === args.length && other.every((x, j) => x === args[j]);
          expect(tokenizesTo(line, 0, line.length, other), JSON.stringify([line, other])).toBe(same);
        },
      ),
      { seed: 20261123, numRuns: 5000 },
    );
  });
});
