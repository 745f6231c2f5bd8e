// Conformance of the nftables mode: every vector of fixtures/kube-proxy-nft (the real
// kube-proxy v1.30.5 nftables proxier, loaded with the real nft 1.0.6). The transaction must
// come out byte for byte; the ruleset (`nft list table`) too, except the order of the elements
// inside each set, map and anonymous map, which the kernel lists in its own hash order. A vector
// the real nft refused (nftError) must come with a problem that says why.
import { describe, expect, it } from "vitest";
import { type ClusterInput, generateNftables } from "../../src/index.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { formatNftDump, formatNftRuleset, formatNftTransaction } from "../../src/nftables/index.js";
import { nftVectors } from "../support/corpora.js";
import { sortNftElements } from "../support/nft-elements.js";

describe("kube-proxy v1.30.5 nftables vectors", () => {
  it.each(nftVectors())("$name", (v) => {
    const table = generateNftables(modelFromInput(v as unknown as ClusterInput));
    expect(formatNftTransaction(table)).toBe(v.expected.transaction);
    // knftables' Fake.Dump() of the same table (the form of kube-proxy's golden tests).
    expect(formatNftDump(table)).toBe(v.expected.dump);
    if (v.expected.ruleset !== undefined)
      expect(sortNftElements(formatNftRuleset(table))).toBe(sortNftElements(v.expected.ruleset));
    if (v.expected.nftError !== undefined) {
      // The real nft refused it: we say so, with the input that causes it.
      expect(table.problems.map((p) => p.path)).toContain("config.detectLocal.prefix");
    } else if (v.expected.loadNote === undefined) {
      expect(table.problems).toEqual([]);
    }
  });
});
