// Layout B (kube-proxy 1.34/1.35, profile `latest`): what differs from layout A, each point as
// spec/kube-proxy-nftables.md §2.4 states it from kube-proxy's golden test. (Checked once by hand
// against the whole of that golden test's TestOverallNFTablesRules: the same lines, given its
// fake proxier's unpadded mark.) The order of the base chains in the transaction is inferred.
import { describe, expect, test } from "vitest";
import { type ClusterInput, generateNftables } from "../../src/index.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { nftServicePortNames } from "../../src/naming/nft-names.js";
import { formatNftDump, formatNftTransaction } from "../../src/nftables/index.js";

const names = nftServicePortNames("demo", "lb", "tcp", "web");

function model(detectLocal: Record<string, unknown>, profile = "latest") {
  const input = {
    config: { hostname: "node-a", nodeIPs: ["198.18.0.2"], detectLocal, profile },
    services: [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "lb", namespace: "demo" },
        spec: {
          type: "LoadBalancer",
          clusterIP: "10.96.7.7",
          externalTrafficPolicy: "Local",
          loadBalancerSourceRanges: ["203.0.113.0/25"],
          ports: [{ name: "web", port: 443, protocol: "TCP", targetPort: 8443, nodePort: 31443 }],
        },
        status: { loadBalancer: { ingress: [{ ip: "198.51.100.9" }] } },
      },
    ],
    endpointSlices: [
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "lb-1", namespace: "demo", labels: { "kubernetes.io/service-name": "lb" } },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.244.3.3"], nodeName: "node-a" }],
        ports: [{ name: "web", port: 8443, protocol: "TCP" }],
      },
    ],
  };
  return modelFromInput(input as unknown as ClusterInput);
}

const CIDR = { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] };

describe("nftables layout B (profile latest)", () => {
  test("base chains: firewall checks before DNAT at -110, the rest at priority 0", () => {
    const dump = formatNftDump(generateNftables(model(CIDR)));
    for (const line of [
      "add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority -110 ; }",
      "add chain ip kube-proxy filter-output-pre-dnat { type filter hook output priority -110 ; }",
      "add chain ip kube-proxy filter-forward { type filter hook forward priority 0 ; }",
      "add chain ip kube-proxy filter-input { type filter hook input priority 0 ; }",
      "add chain ip kube-proxy filter-output { type filter hook output priority 0 ; }",
      "add rule ip kube-proxy filter-prerouting-pre-dnat ct state new jump firewall-check",
      "add rule ip kube-proxy filter-output-pre-dnat ct state new jump firewall-check",
      "add rule ip kube-proxy filter-output ct state new jump cluster-ips-check",
    ])
      expect(dump.split("\n")).toContain(line);
    expect(dump).not.toContain("filter-output-post-dnat");
    expect(dump).not.toContain("filter-prerouting {");
  });

  test("the cluster-IP masquerade rule matches the address only; the firewall element has no comment", () => {
    const tx = formatNftTransaction(generateNftables(model(CIDR)));
    expect(tx).toContain(
      `add rule ip kube-proxy ${names.service} ip daddr 10.96.7.7 ip saddr != 10.244.0.0/16 jump mark-for-masquerade\n`,
    );
    expect(tx).toContain(
      `add element ip kube-proxy firewall-ips { 198.51.100.9 . tcp . 443 : goto ${names.firewall} }\n`,
    );
    // Layout A (v1.30) for contrast: the port is matched and the element carries a comment.
    const a = formatNftTransaction(generateNftables(model(CIDR, "v1.30")));
    expect(a).toContain(
      "ip daddr 10.96.7.7 tcp dport 443 ip saddr != 10.244.0.0/16 jump mark-for-masquerade",
    );
    expect(a).toContain('198.51.100.9 . tcp . 443 comment "demo/lb:web" : goto');
  });

  test("interface detection writes iifname, which nft loads: no problem reported", () => {
    const table = generateNftables(model({ mode: "InterfaceNamePrefix", prefix: "veth" }));
    const tx = formatNftTransaction(table);
    expect(tx).toContain("iifname != veth* jump mark-for-masquerade");
    expect(tx).toContain(`iifname veth* goto ${names.service} comment "short-circuit pod traffic"`);
    expect(tx).not.toMatch(/\biif /);
    expect(table.problems).toEqual([]);
  });

  test("service CIDRs: unallocated cluster IPs are dropped (other-family CIDRs left out)", () => {
    const table = generateNftables(model(CIDR), {
      serviceCIDRs: ["10.96.0.0/16", "fd00:96::/112", "10.97.0.0/16"],
    });
    expect(formatNftTransaction(table)).toContain(
      'add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16,10.97.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"\n',
    );
  });
});
