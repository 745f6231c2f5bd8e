// Routing after PREROUTING: whether a (translated) destination is the node's own address sends
// the packet to INPUT or through FORWARD. A host-network endpoint (the API server behind
// default/kubernetes on a single-node cluster) is the node's address; a pod is not. When the
// node's addresses are not given, the tracer splits on the fact only where the two routes end
// differently, and never for an address in kube-proxy's pod range.

import { describe, expect, it } from "vitest";
import { type ClusterInput, formatSave, generateState, parseRules, prepareCluster } from "../../src/index.js";
import { type Packet, type TraceOptions, traceRules } from "../../src/trace/index.js";

const NODE_IP = "192.168.1.20";
const CLUSTER_CIDR = "10.42.0.0/16";
const POD = "10.42.0.21";

/** default/kubernetes served by the node itself (6443), default/web by a pod, as on k3s. */
function cluster(profile: "v1.30" | "v1.22", detectLocal: boolean): ClusterInput {
  const slice = (service: string, address: string, port: number, portName: string) => ({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${service}-1`,
      namespace: "default",
      labels: { "kubernetes.io/service-name": service },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: [address], conditions: { ready: true }, nodeName: "node-a" }],
    ports: [{ name: portName, port, protocol: "TCP" }],
  });
  const service = (name: string, ip: string, port: number, portName: string) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: {
      type: "ClusterIP",
      clusterIP: ip,
      clusterIPs: [ip],
      ports: [{ name: portName, port, protocol: "TCP", targetPort: port }],
    },
  });
  return {
    config: {
      ipFamily: "IPv4",
      hostname: "node-a",
      profile,
      ...(detectLocal ? { detectLocal: { mode: "ClusterCIDR", cidrs: [CLUSTER_CIDR] } } : {}),
    },
    services: [service("kubernetes", "10.43.0.1", 443, "https"), service("web", "10.43.0.80", 80, "http")],
    endpointSlices: [slice("kubernetes", NODE_IP, 6443, "https"), slice("web", POD, 80, "http")],
  } as unknown as ClusterInput;
}

/** The node's dump as iptables-save prints it, with FORWARD's policy set (Docker sets DROP). */
function dump(forwardPolicy: "ACCEPT" | "DROP", profile: "v1.30" | "v1.22" = "v1.30", detectLocal = true) {
  const prepared = prepareCluster(cluster(profile, detectLocal), { family: "IPv4", strict: true });
  if (prepared.model === null) throw new Error(prepared.problems.map((p) => p.message).join("\n"));
  const text = formatSave(generateState(prepared.model)).replace(
    ":FORWARD ACCEPT [0:0]",
    `:FORWARD ${forwardPolicy} [0:0]`,
  );
  const { ruleSet, problems } = parseRules(text, { family: "IPv4" });
  expect(problems).toEqual([]);
  return ruleSet;
}

const fromPod = (destination: string, destinationPort: number): Packet => ({
  source: "10.42.0.5",
  sourcePort: 40000,
  destination,
  destinationPort,
  protocol: "tcp",
  from: "pod",
  inInterface: "cni0",
});

const view = (state: ReturnType<typeof dump>, packet: Packet, options: TraceOptions = {}) => {
  const r = traceRules(state, packet, options);
  return {
    outcomes: r.outcomes.map((o) => [o.verdict, o.route, o.conditions.map((c) => c.text).join(" and ")]),
    needs: r.needsNodeAddress,
  };
};

describe("routing a translated destination that may be the node's own address", () => {
  it("behind a FORWARD policy of DROP, the API server's address splits the path: INPUT if it is the node's", () => {
    expect(view(dump("DROP"), fromPod("10.43.0.1", 443))).toEqual({
      outcomes: [
        ["accepted", "local", `${NODE_IP} is a node address`],
        ["dropped", "forward", `${NODE_IP} is not a node address`],
      ],
      needs: [NODE_IP],
    });
  });

  it("the node's addresses given, the packet goes to INPUT without a condition, and not masqueraded", () => {
    const r = traceRules(dump("DROP"), fromPod("10.43.0.1", 443), { nodeAddresses: [NODE_IP] });
    expect(r.outcomes.map((o) => [o.verdict, o.route, o.masquerade, o.dnat?.address])).toEqual([
      ["accepted", "local", false, NODE_IP],
    ]);
    expect(r.needsNodeAddress).toEqual([]);
    // Another node's address: forwarded, and FORWARD's policy drops it.
    const other = traceRules(dump("DROP"), fromPod("10.43.0.1", 443), { nodeAddresses: ["192.168.1.21"] });
    expect(other.outcomes.map((o) => [o.verdict, o.route])).toEqual([["dropped", "forward"]]);
  });

  it("where both routes end alike (FORWARD accepts), the split folds back to one outcome", () => {
    expect(view(dump("ACCEPT"), fromPod("10.43.0.1", 443))).toEqual({
      outcomes: [["accepted", "forward", ""]],
      needs: [],
    });
  });

  it("the fold looks at the verdict only: a marked packet is shown as forwarded, masqueraded", () => {
    const packet: Packet = {
      ...fromPod("10.43.0.1", 443),
      source: "203.0.113.7",
      from: "external",
      inInterface: "eth0",
    };
    const r = traceRules(dump("ACCEPT"), packet);
    expect(r.outcomes.map((o) => [o.verdict, o.route, o.masquerade, o.conditions.length])).toEqual([
      ["accepted", "forward", true, 0],
    ]);
    // Delivered to the node itself, the packet skips POSTROUTING: no masquerade.
    const local = traceRules(dump("ACCEPT"), packet, { nodeAddresses: [NODE_IP] });
    expect(local.outcomes.map((o) => [o.verdict, o.route, o.masquerade])).toEqual([
      ["accepted", "local", false],
    ]);
  });

  it("a pod endpoint, inside kube-proxy's pod range, is routed away without a split", () => {
    expect(view(dump("DROP"), fromPod("10.43.0.80", 80))).toEqual({
      outcomes: [["dropped", "forward", ""]],
      needs: [],
    });
  });

  it("finds the pod range in KUBE-SERVICES too, where kube-proxy before v1.28 wrote it", () => {
    const state = dump("DROP", "v1.22");
    expect(view(state, fromPod("10.43.0.80", 80)).needs).toEqual([]);
    expect(view(state, fromPod("10.43.0.1", 443)).needs).toEqual([NODE_IP]);
  });

  it("without a pod range in the rules (local traffic told by interface), a pod endpoint splits too", () => {
    expect(view(dump("DROP", "v1.30", false), fromPod("10.43.0.80", 80)).needs).toEqual([POD]);
  });

  it("a packet straight to an address, not translated, splits the same way", () => {
    expect(view(dump("DROP"), fromPod(NODE_IP, 22)).outcomes).toEqual([
      ["accepted", "local", `${NODE_IP} is a node address`],
      ["dropped", "forward", `${NODE_IP} is not a node address`],
    ]);
  });

  it("a node's own packet comes from a node address: its host-network endpoint is known to be local", () => {
    const packet: Packet = { ...fromPod("10.43.0.1", 443), source: NODE_IP, from: "node" };
    delete (packet as { inInterface?: string }).inInterface;
    const r = traceRules(dump("DROP"), packet);
    expect(r.outcomes.map((o) => [o.verdict, o.route])).toEqual([["accepted", "local"]]);
  });
});
