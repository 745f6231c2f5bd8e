// Conformance: every vector of fixtures/kube-proxy (kube-proxy v1.30.5) and of
// fixtures/kube-proxy-v1.22 (v1.22.17), made by the real kube-proxy and the real iptables-save,
// must come out byte for byte in every form, on every path that prints it: the restore payload
// (formatRestore(generateRules) and the streamed generateRestoreText), the save text
// (formatSave(generateState) and the streamed generateSaveText), and the full state in
// kube-proxy's argument order.
import { describe, expect, it } from "vitest";
import {
  type ClusterInput,
  formatRestore,
  formatSave,
  generateRestoreText,
  generateRules,
  generateSaveText,
  generateState,
  type Rule,
  type RuleSet,
} from "../../src/index.js";
import { isBuiltinChain } from "../../src/ir/types.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { type KubeProxyCorpus, type KubeProxyVector, kubeProxyVectors } from "../support/corpora.js";

function modelOf(v: KubeProxyVector) {
  const input = v as unknown as ClusterInput;
  // The v1.22 vectors are read as they are: fields with no 1.22 meaning are ignored by the profile.
  return v.profile === "v1.22"
    ? modelFromInput(input, { config: { profile: "v1.22" } })
    : modelFromInput(input);
}

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

const CORPORA: readonly (readonly [KubeProxyCorpus, minimum: number])[] = [
  ["kube-proxy", 228],
  ["kube-proxy-v1.22", 70],
];

for (const [corpus, minimum] of CORPORA) {
  describe(`${corpus} vectors`, () => {
    const vectors = kubeProxyVectors(corpus);

    it("holds all vectors", () => {
      expect(vectors.length).toBeGreaterThanOrEqual(minimum);
    });

    it.each(vectors)("$name", (v) => {
      const model = modelOf(v);
      const payload = generateRules(model);
      expect(formatRestore(payload)).toBe(v.expected.restore);
      expect(generateRestoreText(model)).toBe(v.expected.restore);
      const state = generateState(model);
      expect(formatSave(state)).toBe(v.expected.save);
      expect(generateSaveText(model)).toBe(v.expected.save);
      expect(fullForm(state)).toBe(v.expected.full);
    });
  });
}
