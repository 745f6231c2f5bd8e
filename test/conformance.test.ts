// Conformance: every vector of fixtures/kube-proxy (made by the real kube-proxy v1.30.5 and the
// real iptables-save) must come out byte for byte in both forms.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { formatSave } from "../src/format/save.js";
import { generateRules, stateAfterFullSync } from "../src/iptables/output/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";

const vectors = listVectors("kube-proxy");

describe("kube-proxy v1.30 vectors", () => {
  it.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    const payload = generateRules(modelFromInput(v as unknown as ClusterInput));
    expect(formatRestore(payload)).toBe(v.expected.restore);
    expect(formatSave(stateAfterFullSync(payload))).toBe(v.expected.save);
  });
});
