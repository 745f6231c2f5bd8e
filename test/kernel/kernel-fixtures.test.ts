// The real kernel as the judge (DESIGN.md, testing layer 3). Everything is loaded into private
// network namespaces made by the harness; nothing here touches the host's tables.
//
// (a) harness self-check: the vectors were made by loading `expected.full` and saving; doing the
//     same here must give `expected.save` byte for byte, on both backends. If this fails, the
//     harness (or this machine's iptables) is wrong, not the library.
// (b) our save text, loaded into the kernel and read back, must come back unchanged, per table.
//     Random models are seeded; a failure names the seed (`randomCluster(seed, options)`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { ClusterInput, RuleSet } from "../../src/index.js";
import type { IPFamily } from "../../src/ir/types.js";
import type { KubeProxyVector as Vector } from "../support/corpora.js";
import { kubeProxyVectors } from "../support/corpora.js";
import { type RandomClusterOptions, randomCluster } from "../support/random-cluster.js";
import {
  type Backend,
  type BatchResult,
  kernelSkipReason,
  loadAndSaveMany,
  splitTables,
  tablesOf,
  testRestore,
} from "./harness.js";

const BACKENDS: readonly Backend[] = ["nft", "legacy"];
/** Random models loaded into the kernel per backend (all features, family drawn per model). */
const LOAD_MODELS = 300;
/** Random all-feature models checked with `iptables-restore --test`, half of each family. */
const TEST_MODELS = 1000;
/** First seed; set KUBE_IPTABLES_SEED to explore other models (every failure prints its seed). */
const BASE_SEED = Number(process.env.KUBE_IPTABLES_SEED ?? 20_240_601);

// Throws (failing this file) when CI is set and the kernel is out of reach; see the harness.
const skip = kernelSkipReason();

// ---- the library, while it is being written --------------------------------------------------

/** The part of the public API this suite uses. */
interface Api {
  modelFromKubernetes(input: ClusterInput, options?: { family?: IPFamily }): unknown;
  generateRules(model: unknown): RuleSet;
  generateState(model: unknown): RuleSet;
  formatRestore(ruleSet: RuleSet): string;
  formatSave(state: RuleSet): string;
  /** Used when present: builds the model strictly, so an invalid random cluster is reported. */
  prepareCluster?(
    input: ClusterInput,
    options: { family: IPFamily; strict: boolean },
  ): { model: unknown; problems: readonly { severity: string; path: string; message: string }[] };
}

/**
 * The public API, or null while src/index.ts (or a module it needs, or one of these exports) is
 * not written yet: then the round-trip tests are `todo`, never silently green. Any other import
 * error (a syntax error, a throw at load time) is a real failure.
 */
async function loadApi(): Promise<Api | null> {
  // A computed specifier keeps the type checker from failing on a module not yet written.
  const specifier = "../../src/index.js";
  let mod: Record<string, unknown>;
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
  } catch (e) {
    if (/Cannot find module|ERR_MODULE_NOT_FOUND|Failed to load url|Does the file exist/.test(String(e))) {
      console.warn(`kernel round-trip tests are todo: ${String(e).split("\n")[0]}`);
      return null;
    }
    throw e;
  }
  const names = ["modelFromKubernetes", "generateRules", "generateState", "formatRestore", "formatSave"];
  const missing = names.filter((n) => typeof mod[n] !== "function");
  if (missing.length > 0)
    console.warn(`kernel round-trip tests are todo: src/index.ts lacks ${missing.join(", ")}`);
  return missing.length === 0 ? (mod as unknown as Api) : null;
}

const api = await loadApi();

// ---- inputs ----------------------------------------------------------------------------------

interface Case {
  /** How to find it again: vector name, example file, or `seed N`. */
  readonly label: string;
  readonly input: ClusterInput;
  readonly family: IPFamily;
  /** A generated cluster: it must be valid input, so a validation error fails it. */
  readonly generated?: boolean;
}

function vectorCase(vector: Vector): Case & { readonly vector: Vector } {
  const name = vector.name;
  const input = {
    config: vector.config,
    services: vector.services,
    endpointSlices: vector.endpointSlices,
  } as ClusterInput;
  return { label: name, input, family: input.config?.ipFamily ?? "IPv4", vector };
}

const allVectors = kubeProxyVectors("kube-proxy");

/** Every feature and seed vector, every 15th random one, and two IPv6 random ones by name. */
function selfCheckVectors(): (Case & { readonly vector: Vector })[] {
  const extra = new Set(["random-006", "random-053"]);
  return allVectors
    .filter(
      (v, i) =>
        v.name.startsWith("feature-") ||
        v.name.startsWith("seed-") ||
        extra.has(v.name) ||
        (v.name.startsWith("random-") && i % 15 === 0),
    )
    .map((v) => vectorCase(v));
}

function exampleCases(): Case[] {
  const dir = fileURLToPath(new URL("../../examples", import.meta.url));
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  } catch {
    return [];
  }
  return files.sort().map((f) => {
    const input = parseYaml(readFileSync(join(dir, f), "utf8")) as ClusterInput;
    return { label: `examples/${f}`, input, family: input.config?.ipFamily ?? "IPv4" };
  });
}

function randomCases(count: number, offset: number, options: RandomClusterOptions): Case[] {
  return Array.from({ length: count }, (_, i) => {
    const seed = BASE_SEED + offset + i;
    const input = randomCluster(seed, options);
    return {
      label: `seed ${seed}: randomCluster(${seed}, ${JSON.stringify(options)})`,
      input,
      generated: true,
      family: input.config.ipFamily ?? "IPv4",
    };
  });
}

// ---- comparison ------------------------------------------------------------------------------

/** The first differing line of two texts, for a failure message that fits on a screen. */
function firstDifference(kernel: string, ours: string): string {
  const a = kernel.split("\n");
  const b = ours.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}\n    kernel: ${a[i] ?? "<end>"}\n    ours:   ${b[i] ?? "<end>"}`;
  }
  return "identical";
}

/** Per-table differences between what the kernel printed and what we printed, as messages. */
function compareTables(label: string, result: BatchResult, ours: string): string[] {
  if (!result.ok) return [`${label}: the kernel refused our save text: ${result.error.trim()}`];
  const expected = splitTables(ours);
  const problems: string[] = [];
  for (const table of Object.keys(expected)) {
    const kernel = result.byTable[table] ?? "";
    if (kernel !== expected[table])
      problems.push(
        `${label}: table ${table} differs at ${firstDifference(kernel, expected[table] as string)}`,
      );
  }
  return problems;
}

/** Fails with the first few problems (all of them would drown the seed that matters). */
function expectNoProblems(problems: readonly string[]): void {
  if (problems.length > 0) {
    expect.fail(`${problems.length} problem(s); first ones:\n${problems.slice(0, 5).join("\n\n")}`);
  }
}

/** Our texts for one case. */
interface Rendered {
  readonly label: string;
  readonly family: IPFamily;
  readonly save: string;
  readonly restore: string;
}

/**
 * The model of a generated cluster, refusing it if the library finds any error in it: the
 * generator promises API-valid input, and a lenient build would silently drop the bad objects.
 */
function strictModel(lib: Api, c: Case): unknown {
  if (lib.prepareCluster === undefined) return lib.modelFromKubernetes(c.input, { family: c.family });
  const { model, problems } = lib.prepareCluster(c.input, { family: c.family, strict: true });
  const errors = problems.filter((p) => p.severity === "error");
  if (model === null || errors.length > 0) {
    throw new Error(`not valid input: ${errors.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  }
  return model;
}

/** Builds our texts for every case, once; a throw becomes a problem naming the case. */
function renderAll(lib: Api, cases: readonly Case[]): { rendered: Rendered[]; problems: string[] } {
  const rendered: Rendered[] = [];
  const problems: string[] = [];
  for (const c of cases) {
    try {
      const model = c.generated
        ? strictModel(lib, c)
        : lib.modelFromKubernetes(c.input, { family: c.family });
      const state = lib.generateState(model);
      rendered.push({
        label: c.label,
        family: state.family,
        save: lib.formatSave(state),
        restore: lib.formatRestore(lib.generateRules(model)),
      });
    } catch (e) {
      problems.push(`${c.label}: could not generate: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { rendered, problems };
}

/** Loads our save text of every rendered case on one backend; returns the problems, never rejects. */
async function roundTrip(rendered: readonly Rendered[], backend: Backend): Promise<string[]> {
  const problems: string[] = [];
  try {
    for (const family of ["IPv4", "IPv6"] as const) {
      const mine = rendered.filter((r) => r.family === family);
      const results = await loadAndSaveMany(
        mine.map((r) => r.save),
        { family, backend },
      );
      for (const [i, r] of mine.entries())
        problems.push(...compareTables(r.label, results[i] as BatchResult, r.save));
    }
  } catch (e) {
    problems.push(`${backend}: the batch itself failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return problems;
}

// ---- (a) the harness against the vectors -------------------------------------------------------

describe.skipIf(skip !== null)(`kernel harness self-check${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const cases = selfCheckVectors();
  const saved = new Map<string, BatchResult>();

  beforeAll(async () => {
    const jobs = BACKENDS.flatMap((backend) =>
      (["IPv4", "IPv6"] as const).map(async (family) => {
        const mine = cases.filter((c) => c.family === family);
        const results = await loadAndSaveMany(
          mine.map((c) => c.vector.expected.full),
          { family, backend },
        );
        for (const [i, c] of mine.entries()) saved.set(`${backend} ${c.label}`, results[i] as BatchResult);
      }),
    );
    await Promise.all(jobs);
  });

  it("covers both families", () => {
    expect(cases.some((c) => c.family === "IPv6")).toBe(true);
    expect(cases.filter((c) => c.label.startsWith("feature-")).length).toBeGreaterThanOrEqual(70);
  });

  for (const backend of BACKENDS) {
    it.each(cases.map((c) => [c.label, c] as const))(
      `${backend}: load expected.full of %s, save = expected.save`,
      (_, c) => {
        const result = saved.get(`${backend} ${c.label}`);
        expect(result?.ok ? "" : result?.error).toBe("");
        if (result?.ok) {
          expect(tablesOf(c.vector.expected.full)).toEqual(Object.keys(result.byTable));
          expect(result.save).toBe(c.vector.expected.save);
        }
      },
    );

    it(`${backend}: every vector's restore payload passes iptables-restore --test`, async () => {
      const problems: string[] = [];
      for (const family of ["IPv4", "IPv6"] as const) {
        const mine = cases.filter((c) => c.family === family);
        for (const f of await testRestore(
          mine.map((c) => c.vector.expected.restore),
          { family, backend },
        )) {
          problems.push(`${mine[f.index]?.label} line ${f.line}: ${f.message}`);
        }
      }
      expectNoProblems(problems);
    });
  }

  it("testRestore finds each bad text in a batch and names its line", async () => {
    const good = "*filter\n:KUBE-X - [0:0]\n-A KUBE-X -j ACCEPT\nCOMMIT\n";
    const badTarget = "*filter\n:KUBE-Y - [0:0]\n-A KUBE-Y -j KUBE-MISSING\nCOMMIT\n";
    const badChain = "*nat\n-A KUBE-Z -j ACCEPT\nCOMMIT\n";
    const texts = [good, badTarget, good, badChain, good];
    // One shard, so the resume-after-failure path runs; then one shard per text.
    for (const shards of [1, texts.length]) {
      const failures = await testRestore(texts, { family: "IPv4", backend: "legacy", shards });
      expect(failures.map((f) => [f.index, f.line])).toEqual([
        [1, 3],
        [3, 2],
      ]);
    }
  });
});

// ---- (b) our save text survives the kernel ------------------------------------------------------

describe.skipIf(skip !== null)("kernel round trip of our output", () => {
  if (api === null) {
    it.todo(
      "vectors: formatSave(generateState(model)) loads and saves back unchanged (src/index.ts not there yet)",
    );
    it.todo(`${LOAD_MODELS} random models load and save back unchanged, nft and legacy`);
    it.todo(`${TEST_MODELS} random all-feature models pass iptables-restore --test`);
    return;
  }
  const lib = api;
  const groups = [
    {
      name: "every vector and example",
      cases: () => [...allVectors.map((v) => vectorCase(v)), ...exampleCases()],
    },
    {
      name: `${LOAD_MODELS} random all-feature models and 50 ClusterIP-only ones`,
      cases: () => [
        ...randomCases(LOAD_MODELS, 0, {}),
        ...randomCases(50, LOAD_MODELS, { clusterIPOnly: true }),
      ],
    },
  ];
  const renderProblems: string[] = [];
  // Started together in beforeAll: loads wait on the kernel far more than they use the CPU, so
  // all four (group × backend) overlap; each test below then awaits its own.
  const loads = new Map<string, Promise<string[]>>();

  beforeAll(() => {
    for (const group of groups) {
      const { rendered, problems } = renderAll(lib, group.cases());
      renderProblems.push(...problems);
      for (const backend of BACKENDS) loads.set(`${backend} ${group.name}`, roundTrip(rendered, backend));
    }
  });

  it("every vector, example and random model renders", () => {
    expectNoProblems(renderProblems);
  });

  for (const backend of BACKENDS) {
    for (const group of groups) {
      it(`${backend}: ${group.name} load and save back unchanged`, async () => {
        expectNoProblems((await loads.get(`${backend} ${group.name}`)) ?? ["not started"]);
      });
    }
  }

  it(`${TEST_MODELS} random all-feature models (half IPv4, half IPv6) pass iptables-restore --test (restore and save texts)`, async () => {
    const problems: string[] = [];
    for (const family of ["IPv4", "IPv6"] as const) {
      const offset = 10_000 + (family === "IPv6" ? TEST_MODELS : 0);
      const { rendered, problems: failed } = renderAll(
        lib,
        randomCases(TEST_MODELS / 2, offset, { family, maxServices: 10 }),
      );
      problems.push(...failed);
      const texts = rendered.flatMap((r) => [
        { label: `${r.label} (restore)`, text: r.restore },
        { label: `${r.label} (save)`, text: r.save },
      ]);
      for (const backend of BACKENDS) {
        for (const f of await testRestore(
          texts.map((t) => t.text),
          { family, backend },
        )) {
          problems.push(`${backend}: ${texts[f.index]?.label} line ${f.line}: ${f.message}`);
        }
      }
    }
    expectNoProblems(problems);
  });
});
