// The incremental engine against the real kernel, in a private network namespace: load OLD's
// full state with iptables-restore, apply our delta with iptables-restore --noflush, and
// iptables-save must print NEW's state. nf_tables and legacy backends.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatRestore } from "../../src/format/restore.js";
import { formatSave } from "../../src/format/save.js";
import type { RuleSet } from "../../src/ir/types.js";
import type { ClusterInput, EndpointSlice, Service } from "../../src/kube/types.js";
import { createSync } from "../../src/sync/index.js";
import { listVectors, readJson } from "../support/fixtures.js";
import { randomCluster, seededRng } from "../support/random-cluster.js";
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
      if (i > 0 && r.deltaText !== "") out.push(caseOf(`${v.name} step ${i}`, prev, r.state, r.deltaText));
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
      if (step > 0 && r.deltaText !== "")
        out.push(caseOf(`random ${seed} step ${step}`, prev, r.state, r.deltaText));
      prev = r.state;
    }
  }
  return out;
}

describe.skipIf(skip !== null)(
  `sync deltas in the kernel${skip === null ? "" : ` (skipped: ${skip})`}`,
  () => {
    const cases = [...sequenceCases(), ...randomCases(50)];
    for (const backend of BACKENDS) {
      for (const family of ["IPv4", "IPv6"] as const) {
        const mine = cases.filter((c) => c.family === family);
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
