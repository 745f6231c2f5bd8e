// Conformance: every vector of fixtures/kube-proxy (made by the real kube-proxy v1.30.5 and the
// real iptables-save) must come out byte for byte in both forms.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules } from "../src/generate/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";

const vectors = listVectors("kube-proxy");

describe("kube-proxy v1.30 vectors, restore form", () => {
  it.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    const model = modelFromInput(v as unknown as ClusterInput);
    expect(formatRestore(generateRules(model))).toBe(v.expected.restore);
  });
});
