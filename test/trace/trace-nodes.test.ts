// The tracer on whole node dumps in the styles met on real clusters (see trace-node-dumps.ts):
// pod → cluster IP, node → node port, outside → node port and → load-balancer IP each end at the
// Service's endpoints with their exact probabilities, whatever Docker's, the network plugin's or
// the policy controller's chains do around kube-proxy's; what those chains test that a dump does
// not say (routes, ipsets, bridge ports) is a named condition, never a bare UNKNOWN.
import { describe, expect, it } from "vitest";
import { parseRules } from "../../src/index.js";
import {
  formatFraction,
  type Packet,
  type TraceOptions,
  type TraceOutcome,
  type TraceResult,
  traceRules,
} from "../../src/trace/index.js";
import { NODE_DUMPS, type NodeDump, SERVICE } from "./trace-node-dumps.js";

const HALF = "0.500000000";

function parsed(d: NodeDump) {
  const { ruleSet, problems } = parseRules(d.save, { family: "IPv4" });
  expect(problems).toEqual([]);
  return ruleSet;
}

const packets = (d: NodeDump) => ({
  podToClusterIP: {
    source: d.pod.ip,
    sourcePort: 40000,
    destination: SERVICE.clusterIP,
    destinationPort: SERVICE.port,
    protocol: "tcp",
    from: "pod",
    inInterface: d.pod.inInterface,
  } satisfies Packet,
  nodeToNodePort: {
    source: d.nodeIP,
    sourcePort: 40000,
    destination: d.nodeIP,
    destinationPort: SERVICE.nodePort,
    protocol: "tcp",
    from: "node",
  } satisfies Packet,
  externalToNodePort: {
    source: "198.51.100.7",
    sourcePort: 40000,
    destination: d.nodeIP,
    destinationPort: SERVICE.nodePort,
    protocol: "tcp",
    from: "external",
    inInterface: "eth0",
  } satisfies Packet,
  externalToLB: {
    source: "198.51.100.7",
    sourcePort: 40000,
    destination: SERVICE.lb,
    destinationPort: SERVICE.port,
    protocol: "tcp",
    from: "external",
    inInterface: "eth0",
  } satisfies Packet,
});

const endpointOf = (o: TraceOutcome) => (o.dnat === null ? null : `${o.dnat.address}:${o.dnat.port}`);

/**
 * The outcomes of a trace to the Service: every one accounted for; each endpoint reached with
 * probability exactly 1/2 in every case and accepted (with the expected masquerade) in some;
 * nothing unknown; anything not accepted, or not translated, only under a named condition.
 */
function expectEndpoints(d: NodeDump, r: TraceResult, masquerade: boolean): void {
  expect(formatFraction(r.total)).toBe("1.000000000");
  const endpoints = [d.localEndpoint, d.remoteEndpoint].map((a) => `${a}:${SERVICE.target}`);
  for (const o of r.outcomes) {
    expect(o.verdict, o.summary).not.toBe("unknown");
    const ep = endpointOf(o);
    if (ep === null) {
      expect(o.conditions.length, o.summary).toBeGreaterThan(0);
      continue;
    }
    expect(endpoints).toContain(ep);
    expect(formatFraction(o.probability), o.summary).toBe(HALF);
    expect(o.servicePort).toBe("default/web:http");
    // The line a person reads names the endpoint, whatever became of the packet.
    expect(o.summary).toContain(`→ ${ep}  p=${HALF}`);
    if (o.verdict !== "accepted") expect(o.conditions.length, o.summary).toBeGreaterThan(0);
  }
  for (const ep of endpoints)
    expect(
      r.outcomes.some((o) => endpointOf(o) === ep && o.verdict === "accepted" && o.masquerade === masquerade),
      `${ep} accepted, masquerade ${masquerade}`,
    ).toBe(true);
}

describe.each(NODE_DUMPS.map((d) => [d.name, d] as const))("%s", (_name, d) => {
  const state = parsed(d);
  const p = packets(d);
  const known: TraceOptions = { nodeAddresses: [d.nodeIP], routes: d.routes };

  it("pod → cluster IP: both endpoints, 1/2 each, no masquerade", () => {
    expectEndpoints(d, traceRules(state, p.podToClusterIP, { routes: d.routes }), false);
    expectEndpoints(d, traceRules(state, p.podToClusterIP), false);
  });

  it("node → its node port: both endpoints, 1/2 each, masqueraded", () => {
    const r = traceRules(state, p.nodeToNodePort, known);
    expectEndpoints(d, r, true);
    expect(r.needsNodeAddress).toEqual([]);
  });

  it("outside → node port: both endpoints once the node's address is known", () => {
    const r = traceRules(state, p.externalToNodePort, known);
    expectEndpoints(d, r, true);
    expect(r.needsNodeAddress).toEqual([]);
  });

  it("outside → node port without the node's address: both cases, and the address named", () => {
    const r = traceRules(state, p.externalToNodePort, { routes: d.routes });
    expect(r.needsNodeAddress).toEqual([d.nodeIP]);
    expect(formatFraction(r.total)).toBe("1.000000000");
    for (const o of r.outcomes) {
      const local = o.conditions.find((c) => c.kind === "local-address" && c.subject === d.nodeIP);
      expect(local, o.summary).toBeDefined();
      // Translated exactly when the destination is taken for the node's.
      expect(o.dnat !== null, o.summary).toBe(local?.holds);
    }
    expect(r.outcomes.some((o) => o.summary.includes(`if ${d.nodeIP} is not a node address`))).toBe(true);
  });

  it("outside → load-balancer IP: both endpoints, masqueraded", () => {
    expectEndpoints(d, traceRules(state, p.externalToLB, known), true);
  });
});

describe("plain nodes trace without any condition", () => {
  // Docker's `-o docker0` rules, OpenShift's `-i tun0 ! -o tun0` and kind's `! --dst-type LOCAL`
  // do not change where a pod's packet to a Service goes: no condition is left to report.
  it.each(
    NODE_DUMPS.filter((d) => ["kubeadm+docker+flannel", "kind", "openshift-sdn"].includes(d.name)).map(
      (d) => [d.name, d] as const,
    ),
  )("%s", (_name, d) => {
    const r = traceRules(parsed(d), packets(d).podToClusterIP);
    expect(
      r.outcomes.map((o) => [
        endpointOf(o),
        o.verdict,
        o.masquerade,
        formatFraction(o.probability),
        o.conditions,
      ]),
    ).toEqual([
      [`${d.localEndpoint}:8080`, "accepted", false, HALF, []],
      [`${d.remoteEndpoint}:8080`, "accepted", false, HALF, []],
    ]);
  });
});

describe("policy chains around kube-proxy's", () => {
  const byName = (name: string) => NODE_DUMPS.find((d) => d.name === name) as NodeDump;

  it("k3s: kube-router's policy decides the local endpoint by its ipsets, REJECT naming the endpoint", () => {
    const d = byName("k3s");
    const r = traceRules(parsed(d), packets(d).podToClusterIP, { routes: d.routes });
    const view = r.outcomes.map((o) => [
      endpointOf(o),
      o.verdict,
      o.conditions.map((c) => `${c.holds ? "+" : "-"}${c.test}`),
    ]);
    const src = "-m set --match-set KUBE-SRC-3HVNBEXTFKIFXQ2Q src";
    const dst = "-m set --match-set KUBE-DST-AZDM3MGTAXAYBS3Q dst";
    expect(view).toEqual([
      ["10.42.0.21:8080", "rejected", [`+${src}`, `-${dst}`]],
      ["10.42.0.21:8080", "rejected", [`-${src}`]],
      ["10.42.0.21:8080", "accepted", [`+${src}`, `+${dst}`]],
      ["10.42.1.21:8080", "accepted", []],
    ]);
    expect(r.outcomes[1]?.summary).toBe(
      "default/web:http → 10.42.0.21:8080  p=0.500000000  REJECTED  (rule to REJECT traffic destined for POD name:web-1 namespace: default)  if `-m set --match-set KUBE-SRC-3HVNBEXTFKIFXQ2Q src` does not match for 10.42.0.5:40000 → 10.42.0.21:8080",
    );
  });

  it("Calico with its routes: the workload's policy and NAT-outgoing ipsets are the conditions", () => {
    const d = byName("calico");
    const r = traceRules(parsed(d), packets(d).podToClusterIP, { routes: d.routes });
    const tests = new Set(r.outcomes.flatMap((o) => o.conditions.map((c) => c.test)));
    // The route back to the pod leaves by its interface: the reverse-path check passes.
    expect([...tests].sort()).toEqual([
      "-m set --match-set cali40all-ipam-pools dst",
      "-m set --match-set cali40masq-ipam-pools src",
      "-m set --match-set cali40s:Y8hnMRvcoTWYHFmJuvl2xQA src",
    ]);
    // Without routes, `-o cali+` and the workload's interface are conditions too, one name per route.
    const open = traceRules(parsed(d), packets(d).podToClusterIP);
    const drop = open.outcomes.find(
      (o) => o.summary.includes("Unknown interface") || o.steps.at(-1)?.comment?.includes("IV0Ta3XQfuJ6LCrK"),
    );
    expect(drop?.summary).toContain(
      "if `-m rpfilter --validmark --invert` does not match for 10.244.1.5:40000 → 10.96.100.10:80",
    );
    expect(drop?.summary).toMatch(/the route to 10\.244\.\d\.21 leaves by cali\+ but not cali9f8e7d6c5b4/);
  });
});
