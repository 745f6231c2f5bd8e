// generateRestoreText streams the payload as text; it must stay byte for byte what
// formatRestore(generateRules(...)) prints, which the conformance vectors pin to kube-proxy.
import { describe, expect, it } from "vitest";
import { parseRules } from "../src/format/parse.js";
import { formatRestore } from "../src/format/restore.js";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { type GenerateOptions, generateRules } from "../src/iptables/output/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import type { ClusterModel } from "../src/model/types.js";
import { listVectors, loadVector, readJson, type Vector } from "./support/fixtures.js";
import { randomCluster } from "./support/random-cluster.js";
import { natChainsOf } from "./support/rule-sets.js";

function expectSame(model: ClusterModel, options: GenerateOptions = {}): string {
  const text = generateRestoreText(model, options);
  expect(text).toBe(formatRestore(generateRules(model, options)));
  return text;
}

describe("generateRestoreText, kube-proxy v1.30 vectors", () => {
  it.each(listVectors("kube-proxy"))("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    // The vectors also pin the text to kube-proxy itself, not only to formatRestore.
    expect(expectSame(modelFromInput(v as unknown as ClusterInput))).toBe(v.expected.restore);
  });
});

describe("generateRestoreText, kube-proxy v1.22 vectors", () => {
  it.each(listVectors("kube-proxy-v1.22"))("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    const model = modelFromInput(v as unknown as ClusterInput, { config: { profile: "v1.22" } });
    expect(expectSame(model)).toBe(v.expected.restore);
  });
});

describe("generateRestoreText, random clusters", () => {
  // Enough seeds for IPv6, large-cluster mode and every service type to come up.
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("seed %i", (seed) => {
    const cluster = randomCluster(seed, { largeRate: seed % 10 === 0 ? 1 : 0.03 });
    expectSame(modelFromInput(cluster));
    expectSame(modelFromInput(cluster, { config: { profile: "v1.22" } }));
  });

  it("deletes the same stale chains when given the kernel's chains", () => {
    let deleted = 0;
    for (let seed = 100; seed < 110; seed++) {
      const before = modelFromInput(randomCluster(seed));
      const after = modelFromInput(randomCluster(seed + 50, { family: before.config.ipFamily }));
      // The kernel's chains: those of the previous payload (some still in use, most stale), plus
      // non-service chains that must be left alone.
      const existingChains = [...natChainsOf(generateRules(before)), "KUBE-MARK-DROP", "OTHER-CHAIN"];
      const text = expectSame(after, { existingChains });
      deleted += text.split("\n-X ").length - 1;
    }
    // The stale-chain path has actually been exercised.
    expect(deleted).toBeGreaterThan(0);
  });

  it("handles a model without service ports", () => {
    const model = modelFromInput(randomCluster(1));
    expectSame({ ...model, servicePorts: [] });
  });
});

describe("IPv4-compatible IPv6 addresses", () => {
  it("keeps ::a.b.c.d in an IPv6 slice as the IPv6 address Go reads (ipaddr.js would map it to IPv4)", () => {
    const v = loadVector("kube-proxy", "feature-ipv6-clusterip-nodeport");
    const input = structuredClone(v) as unknown as ClusterInput & {
      endpointSlices: { endpoints: { addresses: string[] }[] }[];
    };
    const slice = input.endpointSlices[0];
    if (slice === undefined) throw new Error("fixture changed: no slice");
    (slice.endpoints[0] as { addresses: string[] }).addresses = ["::10.244.1.5"];
    const text = expectSame(modelFromInput(input));
    expect(text).toContain("--to-destination [::af4:105]:8080");
    expect(text).toContain("-s ::af4:105 -j KUBE-MARK-MASQ");
    // Both endpoints are still there.
    expect(text.match(/^:KUBE-SEP-/gm)).toHaveLength(2);
  });
});

describe("comments around a service port name that needs escaping", () => {
  // Every comment kube-proxy writes for one port, read back from the text: the argument after
  // each --comment, in order.
  function commentsOf(text: string): string[] {
    const parsed = parseRules(text);
    expect(parsed.problems).toEqual([]);
    const out: string[] = [];
    for (const table of parsed.ruleSet.tables)
      for (const entry of table.entries) {
        if (entry.kind !== "rule") continue;
        const at = entry.args.indexOf("--comment");
        // Chain names in comments differ with the name's hash.
        if (at >= 0) out.push((entry.args[at + 1] as string).replace(/(KUBE-[A-Z]+-)[A-Z2-7]{16}/g, "$1*"));
      }
    return out;
  }

  it.each([
    "feature-lb-source-ranges-etp-local",
    "feature-lb-source-ranges",
    "feature-etp-local-lb",
    "feature-lb-source-ranges-no-endpoints",
  ])("%s: the same comments whether the namespace is plain or holds quote, backslash and blank", (name) => {
    const model = modelFromInput(loadVector("kube-proxy", name) as unknown as ClusterInput);
    const rename = (namespace: string): ClusterModel => ({
      ...model,
      servicePorts: model.servicePorts.map((p) => ({ ...p, namespace })),
    });
    const hostile = 'we"ird\\ ns';
    const plain = commentsOf(expectSame(rename("weird-ns")));
    const escaped = commentsOf(expectSame(rename(hostile)));
    expect(plain.filter((c) => c.startsWith("weird-ns/")).length).toBeGreaterThan(1);
    expect(escaped).toEqual(plain.map((c) => c.replaceAll("weird-ns", hostile)));
  });
});
