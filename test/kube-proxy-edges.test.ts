// Behaviour of kube-proxy v1.30 that the conformance vectors do not exercise, pinned from the
// spec (docs cited per test) so that a change to the generator cannot drift from it unnoticed.
import { describe, expect, it } from "vitest";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput, ProxyConfigInput } from "../src/kube/types.js";

/** A node with one NodePort Service (one ready remote endpoint) and the given config. */
function nodePortCluster(config: ProxyConfigInput): ClusterInput {
  return {
    config: {
      ipFamily: "IPv4",
      hostname: "node-a",
      nodeIPs: ["192.168.0.2"],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
      ...config,
    },
    services: [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: "default" },
        spec: {
          type: "NodePort",
          clusterIP: "10.96.0.10",
          clusterIPs: ["10.96.0.10"],
          ipFamilies: ["IPv4"],
          ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30080 }],
        },
      },
    ],
    endpointSlices: [
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "web-a", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.244.1.5"], nodeName: "node-b" }],
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      },
    ],
  };
}

const LOCALNET_RULE =
  '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n';

describe("nodePortAddresses and localhostNodePorts (§10)", () => {
  // §10: localhostNodePorts stays on when the family's CIDRs contain an IPv4 loopback address,
  // any address of 127.0.0.0/8, not only 127.0.0.1.
  it.each([["127.0.0.2/32"], ["127.1.0.0/16"], ["127.0.0.4/30"]])(
    "keeps localhost node ports for %s, a loopback CIDR without 127.0.0.1",
    (cidr) => {
      const text = generateRestoreText(modelFromInput(nodePortCluster({ nodePortAddresses: [cidr] })));
      expect(text).toContain(":KUBE-FIREWALL - [0:0]\n");
      expect(text).toContain(LOCALNET_RULE);
      // No node address (node IPs plus 127.0.0.1) lies inside: no node-port jump at all.
      expect(text).not.toContain("-j KUBE-NODEPORTS\n");
    },
  );

  it("turns localhost node ports off for CIDRs outside 127.0.0.0/8", () => {
    const text = generateRestoreText(
      modelFromInput(nodePortCluster({ nodePortAddresses: ["128.0.0.0/8", "126.0.0.0/8"] })),
    );
    expect(text).not.toContain("KUBE-FIREWALL");
  });

  it("keeps the setting off when the config turns it off", () => {
    const text = generateRestoreText(
      modelFromInput(nodePortCluster({ nodePortAddresses: ["127.0.0.2/32"], localhostNodePorts: false })),
    );
    expect(text).not.toContain("KUBE-FIREWALL");
  });
});

describe("node addresses (§10)", () => {
  // kube-proxy holds node addresses as parsed IPs: the per-address node-port jumps print them in
  // canonical form, once each, sorted by that text, whatever spelling the config uses.
  it("prints IPv6 node IPs canonically and once each", () => {
    const text = generateRestoreText(
      modelFromInput(
        nodePortCluster({
          ipFamily: "IPv6",
          nodeIPs: ["FD00:2::0003", "fd00:1:0::2", "fd00:1::2"],
          detectLocal: { mode: "None" },
          nodePortAddresses: ["fd00::/16"],
        }),
      ),
    );
    const jumps = text.split("\n").filter((line) => line.endsWith("-j KUBE-NODEPORTS"));
    expect(jumps.map((line) => line.split(" -d ")[1])).toEqual([
      "fd00:1::2 -j KUBE-NODEPORTS",
      "fd00:2::3 -j KUBE-NODEPORTS",
    ]);
  });

  it("resolves primary to the canonical first node IP of the family", () => {
    const text = generateRestoreText(
      modelFromInput(
        nodePortCluster({
          ipFamily: "IPv6",
          nodeIPs: ["192.168.0.2", "fd00:1:0:0::2"],
          detectLocal: { mode: "None" },
          nodePortAddresses: ["primary"],
        }),
      ),
    );
    expect(text).toContain(
      '"kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d fd00:1::2 -j',
    );
  });
});
