// The incremental engine against the real kernel, in a private network namespace: load OLD's
// full state with iptables-restore, apply our delta with iptables-restore --noflush, and
// iptables-save must print NEW's state. nf_tables and legacy backends. Also an engine started
// from a node's dump (`createSync(config, { current })`): another cluster's rules with Docker's
// chains and stale kube-proxy chains in the kernel, and after our delta, this cluster's rules
// with Docker's still there. The diff's delta between the same two states goes the same way.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffRules, formatDelta } from "../../src/diff/index.js";
import { parseRules, parseRulesOrThrow } from "../../src/format/parse.js";
import { formatRestore } from "../../src/format/restore.js";
import { formatSave } from "../../src/format/save.js";
import { generateState } from "../../src/iptables/output/rules.js";
import type { RuleSet } from "../../src/ir/types.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { createSync } from "../../src/sync/index.js";
import { listVectors, readJson } from "../support/fixtures.js";
import { EMPTY_TABLES, foreign, inject, STALE_CHAIN } from "../support/foreign-rules.js";
import { randomCluster, seededRng } from "../support/random-cluster.js";
import type { ClusterInput, EndpointSlice, ProxyConfigInput, Service } from "../support/stored-types.js";
import { type Backend, binary, kernelSkipReason } from "./harness.js";

const skip = kernelSkipReason();
// One visible line when the suite cannot run here (the harness throws instead under CI).
const BACKENDS: readonly Backend[] = ["nft", "legacy"];

interface Case {
  name: string;
  family: "IPv4" | "IPv6";
  /** OLD's full state as a restore file for an empty kernel. */
  old: string;
  /** Our delta, for iptables-restore --noflush. */
  delta: string;
  /** NEW's state as our save emitter prints it. */
  expected: string;
  /** Only on this backend (the dump was made by it), else on both. */
  backend?: Backend;
}

function caseOf(name: string, prev: RuleSet, next: RuleSet, delta: string): Case {
  return { name, family: next.family, old: formatRestore(prev), delta, expected: formatSave(next) };
}

// The harness restores one text; a delta needs a second, --noflush restore on top. Same safety
// as the harness: every iptables call runs inside a network namespace that `unshare -n` makes
// for that case alone and that disappears with it.
const TWO_PASS = `
r=$1 s=$2; shift 2
for base in "$@"; do
  unshare -n sh -c '
    r=$1 s=$2 b=$3
    "$r" -w 60 < "$b.old" || exit 3
    "$r" -w 60 --noflush < "$b.delta" || exit 4
    for t in filter nat; do "$s" -t "$t" || exit 5; done
  ' sh "$r" "$s" "$base" > "$base.out" 2> "$base.err"
  echo $? > "$base.rc"
done
`;

function runTwoPass(
  cases: readonly Case[],
  family: "IPv4" | "IPv6",
  backend: Backend,
): { ok: boolean; save: string; error: string }[] {
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-sync-"));
  try {
    const bases = cases.map((c, i) => {
      const base = join(dir, String(i));
      writeFileSync(`${base}.old`, c.old);
      writeFileSync(`${base}.delta`, c.delta);
      return base;
    });
    const env = {
      ...process.env,
      PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin`,
      LC_ALL: "C",
      XTABLES_LOCKFILE: join(dir, "xtables.lock"),
    };
    const r = spawnSync(
      "sh",
      ["-c", TWO_PASS, "sh", binary(family, backend, "restore"), binary(family, backend, "save"), ...bases],
      { env, encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`shell failed: ${r.stderr}`);
    return bases.map((base) => {
      const rc = readFileSync(`${base}.rc`, "utf8").trim();
      const save = readFileSync(`${base}.out`, "utf8")
        .split("\n")
        .filter((l) => !l.startsWith("#"))
        .join("\n");
      return { ok: rc === "0", save, error: `exit ${rc}: ${readFileSync(`${base}.err`, "utf8")}` };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sequenceCases(): Case[] {
  const out: Case[] = [];
  for (const v of listVectors("kube-proxy-sequences")) {
    const seq = readJson<{
      config: ClusterInput["config"];
      steps: { services: Service[]; endpointSlices: EndpointSlice[] }[];
    }>(v.path);
    const sync = createSync(seq.config);
    let prev = sync.state;
    seq.steps.forEach((step, i) => {
      const r = sync.update(step.services, step.endpointSlices);
      if (i > 0 && r.deltaText !== "") {
        out.push(caseOf(`${v.name} step ${i}`, prev, r.state, r.deltaText));
        out.push(caseOf(`${v.name} step ${i}, diff`, prev, r.state, formatDelta(diffRules(prev, r.state))));
      }
      prev = r.state;
    });
  }
  return out;
}

function randomCases(count: number): Case[] {
  const out: Case[] = [];
  for (let seed = 1; seed <= count; seed++) {
    const rng = seededRng(seed);
    const base = randomCluster(seed, { largeRate: 0.05 });
    const sync = createSync(base.config);
    let prev = sync.state;
    let services: readonly Service[] = base.services;
    let slices: readonly EndpointSlice[] = base.endpointSlices;
    for (let step = 0; step < 3; step++) {
      if (step > 0) {
        // Drop a service, drop a slice, and bring in another cluster's objects under new names.
        const donor = randomCluster(seed * 100 + step, {
          family: base.config.ipFamily ?? "IPv4",
          maxServices: 3,
        });
        const tag = `-k${step}`;
        services = [
          ...services.filter((_, i) => i !== rng.int(0, services.length)),
          ...donor.services.map((s) => ({
            ...s,
            metadata: { ...s.metadata, name: `${s.metadata.name}${tag}` },
          })),
        ];
        slices = [
          ...slices.filter((_, i) => i !== rng.int(0, slices.length)),
          ...donor.endpointSlices.map((s) => ({
            ...s,
            metadata: {
              ...s.metadata,
              name: `${s.metadata.name}${tag}`,
              labels: {
                ...s.metadata.labels,
                "kubernetes.io/service-name": `${s.metadata.labels?.["kubernetes.io/service-name"]}${tag}`,
              },
            },
          })),
        ];
      }
      const r = sync.update(services, slices);
      if (step > 0 && r.deltaText !== "") {
        out.push(caseOf(`random ${seed} step ${step}`, prev, r.state, r.deltaText));
        // The diff's delta between the same two states (service chains edited in place or
        // rewritten, whichever is shorter) must hold in the kernel too.
        out.push(
          caseOf(`random ${seed} step ${step}, diff`, prev, r.state, formatDelta(diffRules(prev, r.state))),
        );
      }
      prev = r.state;
    }
  }
  return out;
}

/**
 * The diff's delta when one endpoint of a Service moves: its per-service chain is edited in
 * place (`-D` by number, `-I`), not flushed, whenever that is shorter; the kernel must agree.
 */
function endpointMoveCases(): Case[] {
  const out: Case[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const base = randomCluster(seed, { largeRate: 0 });
    const at = base.endpointSlices.findIndex((s) => (s.endpoints ?? []).length >= 3);
    if (at < 0) continue;
    const slice = base.endpointSlices[at] as EndpointSlice;
    const endpoints = [...(slice.endpoints ?? [])];
    const first = endpoints[0] as (typeof endpoints)[number];
    const moved = base.config.ipFamily === "IPv6" ? "fd00:ffff::1" : "198.19.255.1";
    endpoints[0] = { ...first, addresses: [moved] };
    const slices = base.endpointSlices.map((s, i) => (i === at ? { ...slice, endpoints } : s));
    const prev = generateState(modelFromInput(base));
    const next = generateState(modelFromInput({ ...base, endpointSlices: slices }));
    const delta = formatDelta(diffRules(prev, next));
    if (delta !== "") out.push(caseOf(`random ${seed} endpoint moved, diff`, prev, next, delta));
  }
  return out;
}

/**
 * Engines started from a dump: the dump is OLD (loaded as it is), the first delta goes to the
 * target cluster, and a second update (back to the dump's cluster) goes on from there.
 */
function adoptionCases(): Case[] {
  const out: Case[] = [];
  const stateOf = (c: ClusterInput) => generateState(modelFromInput(c));
  const add = (
    name: string,
    config: ProxyConfigInput,
    dump: string,
    kube: boolean,
    targets: ClusterInput[],
  ) => {
    const family = (config.ipFamily ?? "IPv4") as "IPv4" | "IPv6";
    const current = parseRulesOrThrow(dump, { family });
    const sync = createSync(config, { current });
    let old = dump;
    targets.forEach((t, i) => {
      const r = sync.update(t.services ?? [], t.endpointSlices ?? []);
      const want = formatSave(
        parseRulesOrThrow(inject(formatSave(stateOf({ ...t, config })), foreign(family, kube)), { family }),
      );
      out.push({ name: `${name} update ${i}`, family, old, delta: r.deltaText, expected: want });
      old = formatSave(r.state);
    });
  };
  for (const v of listVectors("kube-proxy-sequences")) {
    const seq = readJson<{
      config: ClusterInput["config"];
      steps: { services: Service[]; endpointSlices: EndpointSlice[]; expected: { save: string } }[];
    }>(v.path);
    const first = seq.steps[0] as (typeof seq.steps)[number];
    const last = seq.steps[seq.steps.length - 1] as (typeof seq.steps)[number];
    const family = (seq.config?.ipFamily ?? "IPv4") as "IPv4" | "IPv6";
    const dump = inject(inject(first.expected.save, foreign(family, true)), STALE_CHAIN);
    add(`${v.name} from its first step's dump`, seq.config ?? {}, dump, true, [last, first]);
  }
  for (let seed = 1; seed <= 20; seed++) {
    const a = randomCluster(seed, { largeRate: 0 });
    const family = (a.config.ipFamily ?? "IPv4") as "IPv4" | "IPv6";
    const b = randomCluster(seed + 500, { family, largeRate: 0 });
    const dump = inject(inject(formatSave(stateOf(a)), foreign(family, true)), STALE_CHAIN);
    add(`random ${seed} from A's dump`, a.config, dump, true, [b, a]);
    if (seed <= 4)
      add(`random ${seed} from Docker alone`, a.config, inject(EMPTY_TABLES, foreign(family, false)), false, [
        b,
      ]);
  }
  return out;
}

/**
 * Engines started from every dump of the iptables-save fixtures (kube-proxy's, kubelet's and
 * other chains in all five tables, as the kernel printed them), each loaded on the backend that
 * made it; filter and nat are compared.
 */
function fixtureDumpCases(): Case[] {
  const out: Case[] = [];
  listVectors("iptables-save").forEach((v, i) => {
    const fixture = readJson<{ family: "ipv4" | "ipv6"; backend: Backend; save: string; setup?: unknown }>(
      v.path,
    );
    // Dumps that need objects made before the restore (nfacct) do not load in a bare namespace.
    if (fixture.setup !== undefined) return;
    const family = fixture.family === "ipv4" ? "IPv4" : "IPv6";
    // Loaded without -c, the kernel starts every counter at zero: so does the node's dump here.
    const dump = fixture.save
      .replace(/^(:\S+ \S+) \[\d+:\d+\]$/gm, "$1 [0:0]")
      .replace(/^\[\d+:\d+\] /gm, "");
    const parsed = parseRules(dump, { family });
    if (parsed.problems.some((p) => p.severity === "error")) return;
    const cluster = randomCluster(i + 1, { family, largeRate: 0 });
    const r = createSync(cluster.config, { current: parsed.ruleSet }).update(
      cluster.services,
      cluster.endpointSlices,
    );
    const tables = ["filter", "nat"].map(
      (name) => r.state.tables.find((t) => t.name === name) ?? { name, chains: [], entries: [] },
    );
    out.push({
      name: `${v.name} adopted`,
      family,
      old: dump,
      delta: r.deltaText,
      expected: formatSave({ family, tables }, { backend: fixture.backend, tables: ["filter", "nat"] }),
      backend: fixture.backend,
    });
  });
  return out;
}

describe.skipIf(skip !== null)(
  `sync deltas in the kernel${skip === null ? "" : ` (skipped: ${skip})`}`,
  () => {
    const cases = [
      ...sequenceCases(),
      ...randomCases(50),
      ...endpointMoveCases(),
      ...adoptionCases(),
      ...fixtureDumpCases(),
    ];
    for (const backend of BACKENDS) {
      for (const family of ["IPv4", "IPv6"] as const) {
        const mine = cases.filter((c) => c.family === family && (c.backend ?? backend) === backend);
        it.runIf(mine.length > 0)(
          `${backend} ${family}: ${mine.length} deltas`,
          () => {
            const results = runTwoPass(mine, family, backend);
            results.forEach((r, i) => {
              const c = mine[i] as Case;
              if (!r.ok) throw new Error(`${c.name}: ${r.error}`);
              expect(r.save, c.name).toBe(c.expected);
            });
          },
          300_000,
        );
      }
    }
  },
);

it.skipIf(skip === null)(`kernel sync tests skipped: ${skip ?? ""}`, () => {});
