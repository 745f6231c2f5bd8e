// The tracer against the model: for every conformance vector, every service port and every
// frontend (cluster IP, node port on each node address, external IPs, LB IPs), traced from a
// pod, from the node and from outside (inside and outside the LB source ranges), the outcomes
// must be exactly what §5–§10 of the spec say kube-proxy's rules do, with each endpoint's
// probability equal to the kernel's effective share computed here from the k values.
import { describe, expect, it } from "vitest";
import {
  type ClusterInput,
  type Endpoint,
  endpointChain,
  generateState,
  parseRules,
  type ServicePort,
  servicePortName,
} from "../../src/index.js";
import { canonicalAddress } from "../../src/iptables/canonical/address.js";
import { probabilityToStored } from "../../src/iptables/canonical/values.js";
import { createContext, type GenerationContext } from "../../src/iptables/context.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { probability } from "../../src/naming/probability.js";
import { categorizeEndpoints } from "../../src/plan/endpoints.js";
import {
  add,
  equals,
  type Fraction,
  formatFraction,
  fraction,
  multiply,
  ONE,
  type Origin,
  type Packet,
  STATISTIC_SCALE,
  type TraceOutcome,
  traceRules,
} from "../../src/trace/index.js";
import { kubeProxyVector, kubeProxyVectors } from "../support/corpora.js";

type Expected = { verdict: string; dnat: string | null; masquerade: boolean; probability: Fraction };

/** The kernel's effective share of each endpoint of an n-endpoint statistic chain. */
function shares(n: number): Fraction[] {
  const out: Fraction[] = [];
  let rest = ONE;
  for (let i = 0; i < n; i++) {
    if (i === n - 1) {
      out.push(rest);
      break;
    }
    const k = BigInt(probabilityToStored(probability(n - i)));
    out.push(multiply(rest, fraction(k, STATISTIC_SCALE)));
    rest = multiply(rest, fraction(STATISTIC_SCALE - k, STATISTIC_SCALE));
  }
  return out;
}

function socket(ep: Endpoint): string {
  return ep.endpoint;
}

function spread(eps: readonly Endpoint[], masq: (ep: Endpoint) => boolean): Expected[] {
  const s = shares(eps.length);
  return eps.map((ep, i) => ({
    verdict: "accepted",
    dnat: socket(ep),
    masquerade: masq(ep),
    probability: s[i] as Fraction,
  }));
}

const one = (verdict: string, masquerade = false): Expected[] => [
  { verdict, dnat: null, masquerade, probability: ONE },
];

function bytesOf(ip: string, family: "IPv4" | "IPv6"): readonly number[] {
  const a = canonicalAddress(ip, family);
  if (typeof a === "string") throw new Error(a);
  return a.bytes;
}

function inCidr(ip: string, cidr: string, family: "IPv4" | "IPv6"): boolean {
  const c = canonicalAddress(cidr, family);
  if (typeof c === "string") return false;
  const b = bytesOf(ip, family);
  return b.every((x, i) => (x & (c.maskBytes[i] ?? 0)) === c.bytes[i]);
}

/** An address inside a CIDR (its host part set to …77 where the mask allows). */
function addressIn(cidr: string, family: "IPv4" | "IPv6"): string {
  const c = canonicalAddress(cidr, family);
  if (typeof c === "string") throw new Error(c);
  const bytes = c.bytes.map((b, i) => b | (0x4d & ~(c.maskBytes[i] ?? 0) & 0xff));
  const t = canonicalAddress(bytes.length === 4 ? bytes.join(".") : hex6(bytes), family);
  if (typeof t === "string") throw new Error(t);
  return t.address;
}

function hex6(bytes: readonly number[]): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(":");
}

interface Scenario {
  readonly from: Origin;
  readonly source: string;
  readonly inInterface: string;
}

interface NodeFacts {
  readonly ctx: GenerationContext;
  readonly family: "IPv4" | "IPv6";
  readonly nodeAddresses: readonly string[];
  readonly primary: string;
}

function isLoopback(ip: string): boolean {
  return ip.startsWith("127.") || ip === "::1";
}

function isLocal(ip: string, node: NodeFacts): boolean {
  return isLoopback(ip) || node.nodeAddresses.includes(ip);
}

/** Whether kube-proxy's local detector calls this packet pod traffic. */
function detectsPod(node: NodeFacts, s: Scenario): boolean {
  const args = node.ctx.ifLocal;
  if (args === null) return false;
  const flag = args[0];
  const value = args[1] ?? "";
  if (flag === "-s") return inCidr(s.source, value, node.family);
  if (value.endsWith("+")) return s.inInterface.startsWith(value.slice(0, -1));
  return s.inInterface === value;
}

function nodePortReachable(address: string, node: NodeFacts): boolean {
  const { ctx } = node;
  const loop = isLoopback(address);
  if (ctx.nodePortAddresses === null) return !loop || (node.family === "IPv4" && ctx.localhostNodePorts);
  return ctx.nodePortAddresses.includes(address);
}

type Frontend = { kind: "cluster" | "nodePort" | "external" | "lb"; address: string; port: number };

function frontendsOf(sp: ServicePort, node: NodeFacts, from: Origin): Frontend[] {
  const f: Frontend[] = [{ kind: "cluster", address: sp.clusterIP, port: sp.port }];
  if (sp.nodePort !== 0) {
    const addresses = [...node.nodeAddresses];
    if (from === "node") addresses.push(node.family === "IPv4" ? "127.0.0.1" : "::1");
    for (const a of addresses) f.push({ kind: "nodePort", address: a, port: sp.nodePort });
  }
  for (const a of sp.externalIPs) f.push({ kind: "external", address: a, port: sp.port });
  for (const a of sp.loadBalancerVIPs) f.push({ kind: "lb", address: a, port: sp.port });
  return f;
}

/** What §5–§10 say happens to the first packet of a connection from `s` to `fe`. */
function expectOutcome(sp: ServicePort, fe: Frontend, s: Scenario, node: NodeFacts): Expected[] {
  const cat = categorizeEndpoints(sp, node.ctx.config.nodeLabels);
  const hasEndpoints = cat.hasEndpoints;
  const hasInternal = hasEndpoints && !(sp.internalPolicyLocal && cat.local.length === 0);
  const hasExternal = hasEndpoints && !(sp.externalPolicyLocal && cat.local.length === 0);
  const hairpin = (ep: Endpoint): boolean => ep.ip === s.source;
  const pod = detectsPod(node, s);
  if (fe.kind === "cluster") {
    if (!hasEndpoints) return one("rejected");
    if (!hasInternal) return one("dropped");
    const masqBase = node.ctx.config.masqueradeAll || (node.ctx.ifNotLocal !== null && !pod);
    return spread(sp.internalPolicyLocal ? cat.local : cat.cluster, (ep) => masqBase || hairpin(ep));
  }
  const dstLocal = isLocal(fe.address, node);
  const noEndpointsVerdict = (): Expected[] => {
    // The KUBE-EXTERNAL-SERVICES REJECT/DROP rules are hooked in INPUT and FORWARD, not OUTPUT.
    if (s.from === "node" && !dstLocal) return one("accepted");
    return one(hasEndpoints ? "dropped" : "rejected");
  };
  if (!hasEndpoints) return noEndpointsVerdict();
  if (fe.kind === "nodePort" && !nodePortReachable(fe.address, node))
    return hasExternal ? one("accepted") : one("dropped");
  if (fe.kind === "lb" && sp.loadBalancerSourceRanges.length > 0) {
    const ranges = sp.loadBalancerSourceRanges;
    const primaryIn =
      node.ctx.primaryNodeIP !== null &&
      ranges.some((r) => inCidr(node.ctx.primaryNodeIP as string, r, node.family));
    const allowed =
      ranges.some((r) => inCidr(s.source, r, node.family)) ||
      (primaryIn && sp.loadBalancerVIPs.includes(s.source));
    if (!allowed) return one("dropped"); // KUBE-PROXY-FIREWALL
  }
  if (!sp.externalPolicyLocal) return spread(cat.cluster, () => true);
  if (node.ctx.ifLocal !== null && pod) return spread(cat.cluster, hairpin);
  if (isLocal(s.source, node)) return spread(cat.cluster, () => true);
  if (hasExternal) return spread(cat.local, hairpin);
  return noEndpointsVerdict();
}

function keyOf(e: Expected): string {
  return `${e.verdict} ${e.dnat ?? "-"} ${e.masquerade ? "masq" : "-"} ${e.probability.numerator.toString(16)}/${e.probability.denominator.toString(16)}`;
}

function actualOf(o: TraceOutcome): Expected {
  const dnat =
    o.dnat === null
      ? null
      : o.dnat.address.includes(":")
        ? `[${o.dnat.address}]:${o.dnat.port}`
        : `${o.dnat.address}:${o.dnat.port}`;
  return { verdict: o.verdict, dnat, masquerade: o.masquerade, probability: o.probability };
}

/** Merges outcomes with equal verdict, DNAT and masquerade (their probabilities add). */
function merged(list: readonly Expected[]): string[] {
  const by = new Map<string, Expected>();
  for (const e of list) {
    const k = `${e.verdict} ${e.dnat ?? "-"} ${e.masquerade}`;
    const prev = by.get(k);
    by.set(k, prev === undefined ? e : { ...prev, probability: add(prev.probability, e.probability) });
  }
  return [...by.values()].map(keyOf).sort();
}

function scenarios(sp: ServicePort, node: NodeFacts, fe: Frontend): Scenario[] {
  const v4 = node.family === "IPv4";
  const ctx = node.ctx;
  const detect = ctx.config.detectLocal;
  const podIface =
    detect.mode === "BridgeInterface"
      ? detect.interface
      : detect.mode === "InterfaceNamePrefix"
        ? `${detect.prefix}0a`
        : "cbr0";
  const podSource =
    ctx.ifLocal !== null && ctx.ifLocal[0] === "-s"
      ? addressIn(ctx.ifLocal[1] as string, node.family)
      : v4
        ? "10.244.77.77"
        : "fd00:77::77";
  let extIface = "ext0";
  if (detect.mode === "InterfaceNamePrefix" && extIface.startsWith(detect.prefix)) extIface = "q9";
  if (detect.mode === "BridgeInterface" && extIface === detect.interface) extIface = "q9";
  const nodeSource = fe.address === "127.0.0.1" ? "127.0.0.1" : fe.address === "::1" ? "::1" : node.primary;
  const out: Scenario[] = [
    { from: "pod", source: podSource, inInterface: podIface },
    { from: "node", source: nodeSource, inInterface: "" },
  ];
  const outsiders = v4
    ? ["203.0.113.7", "198.51.100.9", "8.8.4.4"]
    : ["2001:db8::7", "2001:db8:ffff::9", "2600::1"];
  const ranges = fe.kind === "lb" ? sp.loadBalancerSourceRanges : [];
  const outside = outsiders.find((a) => !ranges.some((r) => inCidr(a, r, node.family)));
  if (outside !== undefined) out.push({ from: "external", source: outside, inInterface: extIface });
  for (const r of ranges)
    out.push({ from: "external", source: addressIn(r, node.family), inInterface: extIface });
  return out;
}

const vectors = kubeProxyVectors("kube-proxy");
const counts = { vectors: 0, servicePorts: 0, frontends: 0, traces: 0, paths: 0, localPolicy: 0 };

describe("tracer versus the model, every vector", () => {
  it.each(vectors)("$name", (v) => {
    const model = modelFromInput(v as unknown as ClusterInput);
    const state = generateState(model);
    const ctx = createContext(model);
    const family = model.config.ipFamily;
    const nodeIPs = model.config.nodeIPs.filter((ip) => (family === "IPv4") === !ip.includes(":"));
    const primary = nodeIPs[0] ?? (family === "IPv4" ? "192.0.2.200" : "2001:db8:200::1");
    const node: NodeFacts = { ctx, family, nodeAddresses: nodeIPs.length > 0 ? nodeIPs : [primary], primary };
    counts.vectors++;
    for (const sp of model.servicePorts) {
      counts.servicePorts++;
      if (sp.externalPolicyLocal || sp.internalPolicyLocal) counts.localPolicy++;
      for (const from of ["pod", "node", "external"] as const) {
        for (const fe of frontendsOf(sp, node, from)) {
          counts.frontends++;
          for (const s of scenarios(sp, node, fe).filter((x) => x.from === from)) {
            const packet: Packet = {
              source: s.source,
              sourcePort: 40000,
              destination: fe.address,
              destinationPort: fe.port,
              protocol: sp.protocol,
              from: s.from,
              ...(s.from === "node" ? {} : { inInterface: s.inInterface }),
            };
            const result = traceRules(state, packet, { nodeAddresses: node.nodeAddresses });
            counts.traces++;
            counts.paths += result.outcomes.length;
            const label = `${servicePortName(sp.namespace, sp.name, sp.portName)} ${fe.kind} ${fe.address}:${fe.port} from ${s.from} ${s.source}`;
            expect(equals(result.total, ONE), `${label}: total ${formatFraction(result.total)}`).toBe(true);
            const want = merged(expectOutcome(sp, fe, s, node));
            const got = merged(result.outcomes.map(actualOf));
            if (JSON.stringify(got) !== JSON.stringify(want)) {
              const detail = result.outcomes.map(
                (o) =>
                  `${o.summary}\n${o.steps.map((st) => `      ${st.table} ${st.chain}#${st.index} ${st.rule}`).join("\n")}`,
              );
              // A plain message: a structural diff of long texts is very slow to compute.
              throw new Error(
                `${label}\n  want ${want.join("\n       ")}\n  got  ${got.join("\n       ")}\n${detail.join("\n")}`,
              );
            }
          }
        }
      }
    }
  });

  it("counted", () => {
    // Printed for the report: how much was traced.
    console.log(`traced ${JSON.stringify(counts)}`);
    expect(counts.vectors).toBe(vectors.length);
  });
});

describe("session affinity", () => {
  const v = kubeProxyVector("kube-proxy", "feature-affinity-clientip-default");
  const model = modelFromInput(v as unknown as ClusterInput);
  const state = generateState(model);
  const sp = model.servicePorts.find(
    (p) => p.stickyMaxAgeSeconds > 0 && p.endpoints.length > 1,
  ) as ServicePort;
  const spn = servicePortName(sp.namespace, sp.name, sp.portName);
  const packet: Packet = {
    source: "10.244.9.9",
    sourcePort: 40000,
    destination: sp.clusterIP,
    destinationPort: sp.port,
    protocol: sp.protocol,
    from: "pod",
    inInterface: "cbr0",
  };
  const eps = categorizeEndpoints(sp, model.config.nodeLabels).cluster;
  const chosen = eps[eps.length - 1] as Endpoint;
  const chain = endpointChain(spn, sp.protocol, chosen.endpoint);

  it("a fresh client is spread and recorded", () => {
    const r = traceRules(state, packet, { nodeAddresses: model.config.nodeIPs });
    expect(r.outcomes.length).toBe(eps.length);
    for (const o of r.outcomes) expect(o.recentSet).toEqual([o.endpointChain]);
  });

  it("a recorded client sticks while the entry is fresh", () => {
    const affinity = [{ client: packet.source, chain, lastSeen: 1000 }];
    const r = traceRules(state, packet, {
      nodeAddresses: model.config.nodeIPs,
      affinity,
      now: 1000 + sp.stickyMaxAgeSeconds - 1,
    });
    expect(r.outcomes.map((o) => [o.endpointChain, formatFraction(o.probability)])).toEqual([
      [chain, "1.000000000"],
    ]);
  });

  it("an expired entry no longer sticks", () => {
    const affinity = [{ client: packet.source, chain, lastSeen: 1000 }];
    const r = traceRules(state, packet, {
      nodeAddresses: model.config.nodeIPs,
      affinity,
      now: 1000 + sp.stickyMaxAgeSeconds,
    });
    expect(r.outcomes.length).toBe(eps.length);
  });

  it("another client does not stick", () => {
    const affinity = [{ client: "10.244.9.10", chain, lastSeen: 1000 }];
    const r = traceRules(state, packet, { nodeAddresses: model.config.nodeIPs, affinity, now: 1001 });
    expect(r.outcomes.length).toBe(eps.length);
  });
});

describe("facts outside the rules split the path instead of guessing", () => {
  /** A filter FORWARD chain holding one rule (as its words), and its policy. */
  const forwardWith = (args: string[], policy: string) => ({
    family: "IPv4" as const,
    tables: [
      {
        name: "filter",
        chains: [{ name: "FORWARD", policy }],
        entries: [{ kind: "rule" as const, op: "-A" as const, chain: "FORWARD", args }],
      },
    ],
  });
  /** A new tcp connection arriving on eth0 from outside, passing through. */
  const newConnection = {
    source: "10.0.0.1",
    sourcePort: 1,
    destination: "10.0.0.2",
    destinationPort: 80,
    protocol: "tcp",
    from: "external",
    inInterface: "eth0",
  } as const;
  /** The node's address: 10.0.0.2 is another host's, so the packet is forwarded. */
  const node = { nodeAddresses: ["10.0.0.9"] };

  it("an unmodelled match is a named condition with both truths", () => {
    const state = forwardWith(["-m", "physdev", "--physdev-in", "veth0", "-j", "DROP"], "ACCEPT");
    const r = traceRules(state, newConnection, node);
    expect(r.outcomes.map((o) => [o.verdict, o.conditions.map((c) => [c.test, c.holds])])).toEqual([
      ["dropped", [["-m physdev --physdev-in veth0", true]]],
      ["accepted", [["-m physdev --physdev-in veth0", false]]],
    ]);
    expect(r.outcomes[0]?.summary).toContain(
      "if `-m physdev --physdev-in veth0` matches for 10.0.0.1:1 → 10.0.0.2:80",
    );
    expect(formatFraction(r.total)).toBe("1.000000000");
  });

  // A rule is a conjunction: a condition the tracer cannot decide splits the path only when no
  // other condition surely fails.
  const physdev = ["-m", "physdev", "--physdev-in", "veth0"];
  it.each([
    [["-o", "docker0", "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT"], ["dropped"]],
    [[...physdev, "-p", "udp", "-j", "ACCEPT"], ["dropped"]],
    [[...physdev, "-m", "conntrack", "--ctstate", "ESTABLISHED", "-j", "ACCEPT"], ["dropped"]],
    [["-i", "docker0", "-o", "docker0", "-j", "ACCEPT"], ["dropped"]],
    [
      ["-o", "docker0", "-m", "conntrack", "--ctstate", "NEW", "-j", "ACCEPT"],
      ["dropped", "accepted"],
    ],
    [
      [...physdev, "-p", "tcp", "-j", "ACCEPT"],
      ["dropped", "accepted"],
    ],
  ])("%j before a DROP policy: a new tcp connection from eth0 ends in %j", (args, verdicts) => {
    const r = traceRules(forwardWith(args, "DROP"), newConnection, node);
    expect(r.outcomes.map((o) => o.verdict)).toEqual(verdicts);
    // Where the path split, the accepted side is the one that assumed the rule's fact.
    for (const o of r.outcomes)
      expect(o.conditions.every((c) => c.holds === (o.verdict === "accepted"))).toBe(true);
  });
});

describe("a parsed iptables-save dump traces like the generated state", () => {
  it.each(vectors.filter((_, i) => i % 4 === 0))("$name", (v) => {
    const model = modelFromInput(v as unknown as ClusterInput);
    const generated = generateState(model);
    const { ruleSet: parsed, problems } = parseRules(v.expected.save, { family: model.config.ipFamily });
    expect(problems).toEqual([]);
    const nodeAddresses = model.config.nodeIPs;
    for (const sp of model.servicePorts) {
      const frontends: [string, number][] = [[sp.clusterIP, sp.port]];
      if (sp.nodePort !== 0) frontends.push([nodeAddresses[0] ?? sp.clusterIP, sp.nodePort]);
      for (const [destination, port] of frontends) {
        const packet: Packet = {
          source: model.config.ipFamily === "IPv4" ? "203.0.113.7" : "2001:db8::7",
          sourcePort: 40000,
          destination,
          destinationPort: port,
          protocol: sp.protocol,
          from: "external",
          inInterface: "ext0",
        };
        const a = traceRules(generated, packet, { nodeAddresses });
        const b = traceRules(parsed, packet, { nodeAddresses });
        const view = (r: typeof a) =>
          r.outcomes.map((o) => [
            o.summary,
            ...o.steps.map((s) => `${s.table} ${s.chain} ${s.index} ${s.rule}`),
          ]);
        expect(view(b)).toEqual(view(a));
      }
    }
  });
});
