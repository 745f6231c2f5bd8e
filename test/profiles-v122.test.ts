// Profile v1.22: every vector of fixtures/kube-proxy-v1.22 (made by the real kube-proxy v1.22 and
// the real iptables-save) must come out byte for byte, in restore form and in save form. The
// fixtures are read as they are: fields with no 1.22 meaning are ignored by the profile itself.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules, generateState } from "../src/iptables/output/rules.js";
import { isBuiltinChain, type Rule, type RuleSet } from "../src/ir/types.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";

const vectors = listVectors("kube-proxy-v1.22");

function modelOf(v: Vector) {
  return modelFromInput(v as unknown as ClusterInput, { config: { profile: "v1.22" } });
}

// The save emitter is written in parallel; the save half runs as soon as it exists.
const savePath = new URL("../src/format/save.ts", import.meta.url);
const formatSave: ((rules: RuleSet) => string) | null = existsSync(savePath)
  ? ((await import("../src/format/save.js")) as { formatSave: (rules: RuleSet) => string }).formatSave
  : null;

describe("kube-proxy v1.22 vectors, restore form", () => {
  it("holds all vectors", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(70);
  });
  it.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    expect(formatRestore(generateRules(modelOf(v)))).toBe(v.expected.restore);
  });
});

/**
 * The vectors' `full` form: the state in kube-proxy's argument order, laid out as iptables-save
 * lays out a table (built-in chains first, then user chains by name; rules grouped by chain).
 * It checks generateState (jumps, ensured chains, payload) independently of the save emitter.
 */
function fullForm(state: RuleSet): string {
  const tables = state.tables.map((t) => {
    const builtins = t.chains.filter((c) => isBuiltinChain(t.name, c.name));
    const users = t.chains
      .filter((c) => !isBuiltinChain(t.name, c.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const chains = [...builtins, ...users];
    const rules = t.entries.filter((e): e is Rule => e.kind === "rule");
    const entries = chains.flatMap((c) => rules.filter((r) => r.chain === c.name));
    return { name: t.name, chains, entries };
  });
  return formatRestore({ family: state.family, tables });
}

describe("kube-proxy v1.22 vectors, full state in kube-proxy order", () => {
  it.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    expect(fullForm(generateState(modelOf(v)))).toBe(v.expected.full);
  });
});

describe.skipIf(formatSave === null)("kube-proxy v1.22 vectors, save form", () => {
  it.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    expect((formatSave as (rules: RuleSet) => string)(generateState(modelOf(v)))).toBe(v.expected.save);
  });
});
