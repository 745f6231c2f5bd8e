// kube-proxy's published rule-count formulas (nat `-A` lines of the restore payload), checked for
// every S services × E endpoints in a small grid:
//   ClusterIP only:                                              5 + S·(2 + 3E)
//   LoadBalancer with an external IP, an LB IP and a source range
//   (no node port, node IP outside the range):                  5 + S·(8 + 3E)
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules } from "../src/iptables/output/rules.js";
import { modelFromKubernetes } from "../src/kube/from-kubernetes.js";
import type { ClusterInput, EndpointSlice, Service } from "./support/stored-types.js";

function cluster(services: number, endpoints: number, loadBalancer: boolean): ClusterInput {
  const svcs: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let s = 0; s < services; s++) {
    const name = `svc-${s}`;
    svcs.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "default" },
      spec: {
        type: loadBalancer ? "LoadBalancer" : "ClusterIP",
        clusterIP: `10.96.${s >> 8}.${s & 255}`,
        clusterIPs: [`10.96.${s >> 8}.${s & 255}`],
        ipFamilies: ["IPv4"],
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
        ...(loadBalancer
          ? {
              externalIPs: [`198.18.${s >> 8}.${s & 255}`],
              loadBalancerSourceRanges: ["203.0.113.0/24"],
              allocateLoadBalancerNodePorts: false,
            }
          : {}),
      } as Service["spec"],
      ...(loadBalancer
        ? { status: { loadBalancer: { ingress: [{ ip: `198.19.${s >> 8}.${s & 255}` }] } } }
        : {}),
    });
    slices.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: `${name}-abc`, namespace: "default", labels: { "kubernetes.io/service-name": name } },
      addressType: "IPv4",
      endpoints: Array.from({ length: endpoints }, (_, e) => ({
        addresses: [`10.244.${s & 255}.${e + 1}`],
        conditions: { ready: true },
        nodeName: "node-b",
      })),
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    });
  }
  return {
    config: {
      hostname: "node-a",
      nodeIPs: ["192.168.0.2"],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
    },
    services: svcs,
    endpointSlices: slices,
  };
}

function natRuleLines(input: ClusterInput): number {
  const text = formatRestore(generateRules(modelFromKubernetes(input)));
  const nat = text.slice(text.indexOf("*nat\n"));
  return nat.split("\n").filter((line) => line.startsWith("-A ")).length;
}

const grid: [number, number][] = [];
for (const s of [1, 2, 3, 7]) for (const e of [1, 2, 5, 10]) grid.push([s, e]);

describe("kube-proxy's rule-count formulas", () => {
  it.each(grid)("ClusterIP only, S=%i, E=%i: 5 + S(2 + 3E)", (s, e) => {
    expect(natRuleLines(cluster(s, e, false))).toBe(5 + s * (2 + 3 * e));
  });
  it.each(grid)("LoadBalancer + external IP + source range, S=%i, E=%i: 5 + S(8 + 3E)", (s, e) => {
    expect(natRuleLines(cluster(s, e, true))).toBe(5 + s * (8 + 3 * e));
  });
});
