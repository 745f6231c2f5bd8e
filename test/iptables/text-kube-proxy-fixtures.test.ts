// Every kube-proxy vector (v1.30 and v1.22): the `full` restore text, loaded on an empty
// kernel and saved, must equal the real `iptables-save` output byte for byte; and kube-proxy's
// own `restore` payload must load with --noflush onto a kernel holding only built-in chains.
import { describe, expect, it } from "vitest";
import { formatSave, parseRules, type RuleSet } from "../../src/index.js";
import { tryApplyRestore } from "../../src/iptables/state.js";
import type { IPFamily } from "../../src/ir/types.js";
import { kubeProxyVectors } from "../support/corpora.js";

/**
 * A kernel with the filter and nat tables holding only their built-in chains, plus the chain
 * kube-proxy 1.22 creates with EnsureChain before its restore (`iptablesEnsureChains`): its
 * restore payload jumps to nat's KUBE-MARK-DROP without declaring it.
 */
function builtinsOnly(family: IPFamily): RuleSet {
  return {
    family,
    tables: [
      { name: "filter", chains: [], entries: [] },
      { name: "nat", chains: [{ name: "KUBE-MARK-DROP", policy: null }], entries: [] },
    ],
  };
}

for (const folder of ["kube-proxy", "kube-proxy-v1.22"] as const) {
  describe(folder, () => {
    const vectors = kubeProxyVectors(folder);
    it("has vectors", () => {
      expect(vectors.length).toBeGreaterThan(0);
    });
    for (const v of vectors) {
      it(v.name, () => {
        const family = (v.config.ipFamily as IPFamily | undefined) ?? "IPv4";
        const full = parseRules(v.expected.full, { family });
        expect(full.problems).toEqual([]);
        const state = tryApplyRestore(undefined, full.ruleSet, { noflush: false });
        expect(state.problems).toEqual([]);
        expect(formatSave(state.ruleSet, { tables: ["filter", "nat"] })).toBe(v.expected.save);

        // kube-proxy runs iptables-restore --noflush: its payload may name chains it does not declare.
        const payload = parseRules(v.expected.restore, { family, noflush: true });
        expect(payload.problems).toEqual([]);
        const after = tryApplyRestore(builtinsOnly(family), payload.ruleSet, { noflush: true });
        expect(after.problems).toEqual([]);
      });
    }
  });
}
