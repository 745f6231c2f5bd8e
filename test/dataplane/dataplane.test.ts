// The tracer against the real kernel: our rules loaded into a "node" namespace between a client
// namespace and pod namespaces (veth pairs and a bridge, all addresses in 198.18.0.0/15), real
// TCP and UDP connections, and the kernel's choices compared with what the tracer listed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatSave } from "../../src/format/save.js";
import { generateState } from "../../src/generate/rules.js";
import type { RuleSet } from "../../src/ir/types.js";
import { prepareCluster } from "../../src/kube/from-kubernetes.js";
import type { ClusterInput } from "../../src/kube/types.js";
import { type Packet, type TraceOutcome, type TraceResult, traceRules } from "../../src/trace/index.js";
import { assertTestAddress, CLIENT_SCRIPT, dataplaneSkipReason, isCI, Lab, SERVER_SCRIPT } from "./netns.js";

const reason = dataplaneSkipReason();
if (reason !== null && isCI()) {
  describe("data plane", () => {
    it("can run (CI is set)", () => {
      throw new Error(`CI is set, so the data-plane test must run, but it cannot: ${reason}`);
    });
  });
}

const ID = `kit${process.pid % 100000}`;
const NS = { node: `${ID}n`, client: `${ID}c`, podClient: `${ID}q`, pods: [`${ID}p1`, `${ID}p2`, `${ID}p3`] };
const POD_IPS = ["198.18.1.11", "198.18.1.12", "198.18.1.13"];
const NODE_IP = "198.19.255.1"; // the node's address facing the client
const NODE_ADDRESSES = [NODE_IP, "198.18.1.1", "198.18.2.1"];
const CLIENT_IP = "198.19.255.2";
const POD_CLIENT_IP = "198.18.2.2";

const VIP = {
  web: "198.19.0.10",
  dns: "198.19.0.11",
  empty: "198.19.0.12",
  sticky: "198.19.0.13",
  local: "198.19.0.14",
};

function service(
  name: string,
  clusterIP: string,
  port: number,
  protocol: "TCP" | "UDP",
  extra: Record<string, unknown> = {},
) {
  const { nodePort, ...spec } = extra;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: {
      type: nodePort === undefined ? "ClusterIP" : "NodePort",
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: ["IPv4"],
      ports: [
        {
          name: "p",
          port,
          protocol,
          targetPort: protocol === "UDP" ? 5353 : 8080,
          ...(nodePort === undefined ? {} : { nodePort }),
        },
      ],
      ...spec,
    },
  };
}

function slice(name: string, protocol: "TCP" | "UDP", ips: readonly string[], nodeName = "node-a") {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `${name}-abc`, namespace: "default", labels: { "kubernetes.io/service-name": name } },
    addressType: "IPv4",
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true }, nodeName })),
    ports: [{ name: "p", port: protocol === "UDP" ? 5353 : 8080, protocol }],
  };
}

const CLUSTER = {
  config: {
    ipFamily: "IPv4",
    hostname: "node-a",
    nodeIPs: [NODE_IP],
    detectLocal: { mode: "ClusterCIDR", cidrs: ["198.18.0.0/16"] },
    masqueradeAll: false,
    masqueradeBit: 14,
    nodePortAddresses: [],
    localhostNodePorts: true,
  },
  services: [
    service("web", VIP.web, 80, "TCP", { nodePort: 30080, externalTrafficPolicy: "Cluster" }),
    service("dns", VIP.dns, 53, "UDP"),
    service("empty", VIP.empty, 80, "TCP"),
    service("sticky", VIP.sticky, 80, "TCP", {
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    }),
    service("local", VIP.local, 80, "TCP", { nodePort: 30081, externalTrafficPolicy: "Local" }),
  ],
  endpointSlices: [
    slice("web", "TCP", POD_IPS),
    slice("dns", "UDP", POD_IPS),
    slice("sticky", "TCP", POD_IPS),
    slice("local", "TCP", [POD_IPS[0] as string], "node-b"),
  ],
} as unknown as ClusterInput;

type Reply = { ok: string } | { err: string };

const lab = new Lab();
let state: RuleSet;

function connect(
  ns: string,
  host: string,
  port: number,
  proto: "tcp" | "udp",
  n: number,
  timeoutMs = 2000,
): Reply[] {
  assertTestAddress(host);
  const spec = { host, port, proto, n, concurrency: Math.min(n, 32), timeoutMs, deadlineMs: 40_000 };
  const out = lab.exec(ns, process.execPath, ["-e", CLIENT_SCRIPT, JSON.stringify(spec)], undefined, 60_000);
  return JSON.parse(out) as Reply[];
}

function trace(
  from: "external" | "pod",
  destination: string,
  port: number,
  protocol: "tcp" | "udp",
  affinity?: { chain: string },
): TraceResult {
  const packet: Packet = {
    source: from === "external" ? CLIENT_IP : POD_CLIENT_IP,
    sourcePort: 40000,
    destination,
    destinationPort: port,
    protocol,
    from,
    inInterface: from === "external" ? "vc" : "vq",
  };
  const aff =
    affinity === undefined
      ? {}
      : { affinity: [{ client: packet.source, chain: affinity.chain, lastSeen: 100 }], now: 101 };
  return traceRules(state, packet, { nodeAddresses: NODE_ADDRESSES, ...aff });
}

/** Upper tail of χ² with k − 1 degrees of freedom (k = 2 or 3 here: closed forms). */
function chiSquarePValue(chi2: number, df: number): number {
  if (df === 2) return Math.exp(-chi2 / 2);
  if (df === 1) return erfc(Math.sqrt(chi2 / 2));
  throw new Error(`df ${df} not supported`);
}

function erfc(x: number): number {
  // Abramowitz–Stegun 7.1.26, |error| < 1.5e-7: ample for a 0.001 threshold.
  const t = 1 / (1 + 0.3275911 * x);
  const y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return y * Math.exp(-x * x);
}

/** Checks (a) only listed endpoints, (b) χ² fit, (c) masquerade ⇔ the server saw a node address. */
function checkSpread(
  replies: readonly Reply[],
  result: TraceResult,
  n: number,
): { counts: Record<string, number>; p: number } {
  const accepted = result.outcomes.filter((o) => o.verdict === "accepted" && o.dnat !== null);
  const byAddress = new Map<string, TraceOutcome>(accepted.map((o) => [o.dnat?.address as string, o]));
  const counts: Record<string, number> = {};
  expect(replies.length).toBe(n);
  for (const r of replies) {
    if (!("ok" in r)) throw new Error(`a connection failed: ${r.err}`);
    const [pod, peer] = r.ok.split(" ");
    const podIP = POD_IPS[NS.pods.indexOf(pod as string)] as string;
    const outcome = byAddress.get(podIP);
    expect(outcome, `landed on ${podIP}, which the tracer did not list`).toBeDefined();
    expect(
      NODE_ADDRESSES.includes(peer as string),
      `server saw ${peer}; tracer says masquerade=${outcome?.masquerade}`,
    ).toBe(outcome?.masquerade);
    counts[podIP] = (counts[podIP] ?? 0) + 1;
  }
  let chi2 = 0;
  for (const o of accepted) {
    const expected = (Number(o.probability.numerator) / Number(o.probability.denominator)) * n;
    const seen = counts[o.dnat?.address as string] ?? 0;
    chi2 += (seen - expected) ** 2 / expected;
  }
  const p = chiSquarePValue(chi2, accepted.length - 1);
  return { counts, p };
}

const report: Record<string, unknown> = {};

describe.skipIf(reason !== null)("data plane: the kernel agrees with the tracer", () => {
  beforeAll(async () => {
    process.once("exit", () => lab.cleanup());
    try {
      const prepared = prepareCluster(CLUSTER, { family: "IPv4", strict: true });
      if (prepared.model === null)
        throw new Error(prepared.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
      state = generateState(prepared.model);
      const node = lab.addNamespace(NS.node);
      lab.ip(node, "link", "add", "kbr0", "type", "bridge");
      lab.ip(node, "addr", "add", "198.18.1.1/24", "dev", "kbr0");
      lab.ip(node, "link", "set", "kbr0", "up");
      NS.pods.forEach((pod, i) => {
        lab.addNamespace(pod);
        lab.ip(node, "link", "add", `vp${i}`, "type", "veth", "peer", "name", "eth0", "netns", pod);
        lab.ip(node, "link", "set", `vp${i}`, "master", "kbr0", "up");
        lab.ip(pod, "addr", "add", `${POD_IPS[i]}/24`, "dev", "eth0");
        lab.ip(pod, "link", "set", "eth0", "up");
        lab.ip(pod, "route", "add", "198.18.0.0/15", "via", "198.18.1.1");
      });
      for (const [ns, dev, nodeAddr, addr] of [
        [NS.podClient, "vq", "198.18.2.1/24", `${POD_CLIENT_IP}/24`],
        [NS.client, "vc", `${NODE_IP}/24`, `${CLIENT_IP}/24`],
      ] as const) {
        lab.addNamespace(ns);
        lab.ip(node, "link", "add", dev, "type", "veth", "peer", "name", "eth0", "netns", ns);
        lab.ip(node, "addr", "add", nodeAddr, "dev", dev);
        lab.ip(node, "link", "set", dev, "up");
        lab.ip(ns, "addr", "add", addr, "dev", "eth0");
        lab.ip(ns, "link", "set", "eth0", "up");
        lab.ip(ns, "route", "add", "198.18.0.0/15", "via", nodeAddr.split("/")[0] as string);
      }
      // Cluster IPs need a route for the FORWARD path (no route = "network unreachable" before any
      // filter rule); a veth pair with both ends in the node namespace takes that route, so even
      // a packet that got through would stay here (it would only ever see unanswered ARP).
      lab.ip(node, "link", "add", "svc0", "type", "veth", "peer", "name", "svc1");
      lab.ip(node, "link", "set", "svc0", "up");
      lab.ip(node, "link", "set", "svc1", "up");
      lab.ip(node, "route", "add", "198.19.0.0/24", "dev", "svc0");
      lab.exec(node, "sysctl", ["-qw", "net.ipv4.ip_forward=1"]);
      // REJECT answers with ICMP, which the kernel rate-limits by default.
      lab.exec(node, "sysctl", ["-qw", "net.ipv4.icmp_ratelimit=0"]);
      lab.exec(node, "iptables-restore", [], formatSave(state));
      await Promise.all(NS.pods.map((pod) => lab.start(pod, SERVER_SCRIPT, [pod, "8080", "5353", "150000"])));
    } catch (e) {
      lab.cleanup();
      throw e;
    }
  });

  afterAll(() => {
    lab.cleanup();
    console.log(`dataplane ${JSON.stringify(report)}`);
  });

  it("cluster IP from outside: only traced endpoints, χ² fit, masquerade as traced", () => {
    const result = trace("external", VIP.web, 80, "tcp");
    expect(result.outcomes.every((o) => o.masquerade)).toBe(true);
    const n = 2000;
    const { counts, p } = checkSpread(connect(NS.client, VIP.web, 80, "tcp", n), result, n);
    report.clusterIP = { counts, p };
    expect(p).toBeGreaterThan(0.001);
  });

  it("node port from outside: only traced endpoints, χ² fit, masquerade as traced", () => {
    const result = trace("external", NODE_IP, 30080, "tcp");
    const n = 2000;
    const { counts, p } = checkSpread(connect(NS.client, NODE_IP, 30080, "tcp", n), result, n);
    report.nodePort = { counts, p };
    expect(p).toBeGreaterThan(0.001);
  });

  it("cluster IP from a pod: not masqueraded, as traced", () => {
    const result = trace("pod", VIP.web, 80, "tcp");
    expect(result.outcomes.some((o) => o.masquerade)).toBe(false);
    const n = 300;
    report.fromPod = checkSpread(connect(NS.podClient, VIP.web, 80, "tcp", n), result, n).counts;
  });

  it("UDP cluster IP: only traced endpoints", () => {
    const result = trace("external", VIP.dns, 53, "udp");
    const n = 300;
    report.udp = checkSpread(connect(NS.client, VIP.dns, 53, "udp", n), result, n).counts;
  });

  it("reject: refused as traced", () => {
    const result = trace("external", VIP.empty, 80, "tcp");
    expect(result.outcomes.map((o) => o.verdict)).toEqual(["rejected"]);
    const replies = connect(NS.client, VIP.empty, 80, "tcp", 3);
    expect(replies).toEqual([{ err: "ECONNREFUSED" }, { err: "ECONNREFUSED" }, { err: "ECONNREFUSED" }]);
  });

  it("drop: times out as traced", () => {
    const result = trace("external", NODE_IP, 30081, "tcp");
    expect(result.outcomes.map((o) => o.verdict)).toEqual(["dropped"]);
    const replies = connect(NS.client, NODE_IP, 30081, "tcp", 3, 1000);
    expect(replies).toEqual([{ err: "ETIMEDOUT" }, { err: "ETIMEDOUT" }, { err: "ETIMEDOUT" }]);
  });

  it("ClientIP affinity: repeat connections stick, as traced", () => {
    const first = connect(NS.client, VIP.sticky, 80, "tcp", 1)[0];
    if (first === undefined || !("ok" in first))
      throw new Error(`first connection failed: ${JSON.stringify(first)}`);
    const podIP = POD_IPS[NS.pods.indexOf(first.ok.split(" ")[0] as string)] as string;
    const spread = trace("external", VIP.sticky, 80, "tcp");
    const chain = spread.outcomes.find((o) => o.dnat?.address === podIP)?.endpointChain;
    expect(chain).toBeTruthy();
    const sticky = trace("external", VIP.sticky, 80, "tcp", { chain: chain as string });
    expect(
      sticky.outcomes.map((o) => [o.dnat?.address, o.probability.numerator === o.probability.denominator]),
    ).toEqual([[podIP, true]]);
    const again = connect(NS.client, VIP.sticky, 80, "tcp", 50);
    const pods = new Set(again.map((r) => ("ok" in r ? r.ok.split(" ")[0] : r.err)));
    report.affinity = { pod: podIP, repeats: again.length, distinct: pods.size };
    expect([...pods]).toEqual([first.ok.split(" ")[0]]);
  });
});
