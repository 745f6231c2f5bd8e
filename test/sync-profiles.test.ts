// The incremental engine reads objects and builds rules the way each profile says: its first
// update must equal a full generation under the same profile (v1.22 layout, latest's duplicate
// choice), and so must an update after a change.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules } from "../src/iptables/output/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput, EndpointSlice, ProxyConfigInput, Service } from "../src/kube/types.js";
import { createSync } from "../src/sync/index.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";

function full(input: ClusterInput, profile: "v1.22" | "latest"): string {
  return formatRestore(generateRules(modelFromInput(input, { config: { profile } })));
}

describe("createSync follows the profile", () => {
  it.each(listVectors("kube-proxy-v1.22"))("v1.22 $name", ({ path }) => {
    const v = readJson<Vector>(path);
    const config = { ...(v.config as ProxyConfigInput), profile: "v1.22" as const };
    const sync = createSync(config);
    const result = sync.update(v.services as Service[], v.endpointSlices as EndpointSlice[]);
    expect(formatRestore(result.ruleSet)).toBe(full(v as unknown as ClusterInput, "v1.22"));
    // The first delta is joined from the blocks' text; the rules' print must say the same.
    expect(result.deltaText).toBe(formatRestore(result.delta));
  });

  it("latest prefers a non-terminating duplicate endpoint, also incrementally", () => {
    const service: Service = {
      metadata: { name: "web", namespace: "default" },
      spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    };
    const slice = (name: string, terminating: boolean): EndpointSlice => ({
      metadata: { name, namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      // A terminating copy that no longer serves: if it won, the Service would have no endpoints.
      endpoints: [
        {
          addresses: ["10.244.1.5"],
          conditions: { ready: !terminating, serving: !terminating, terminating },
        },
      ],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    });
    const config: ProxyConfigInput = { hostname: "node-a", profile: "latest" };
    const input = { config, services: [service], endpointSlices: [slice("a", true), slice("b", false)] };
    const sync = createSync(config);
    const first = sync.update(input.services, input.endpointSlices);
    expect(formatRestore(first.ruleSet)).toBe(full(input, "latest"));
    // The non-terminating copy (slice b) wins, so the endpoint is used; 1.32's rule would keep
    // slice a's copy and reject.
    expect(formatRestore(first.ruleSet)).toContain("--to-destination 10.244.1.5:8080");
    expect(formatRestore(first.ruleSet)).not.toContain("has no endpoints");
    const swapped = [slice("a", false), slice("b", true)];
    const second = sync.update(input.services, swapped);
    expect(formatRestore(second.ruleSet)).toBe(full({ ...input, endpointSlices: swapped }, "latest"));
  });
});
