// The graph of a service port: built the same from a cluster's generated state and from the
// node's iptables-save dump, every endpoint's share equal to what the tracer computes for a
// packet, and the branches kube-proxy writes (node ports, firewall, affinity, masquerade, reject)
// drawn where the rules put them.
import { describe, expect, it } from "vitest";
import {
  buildServiceGraph,
  listServicePorts,
  overlayTrace,
  type ServiceGraph,
} from "../../src/graph/index.js";
import {
  type ClusterInput,
  generateState,
  modelFromKubernetes,
  parseRules,
  type RuleSet,
} from "../../src/index.js";
import type { IPFamily } from "../../src/ir/types.js";
import { add, equals, type Fraction, ONE, traceRules, ZERO } from "../../src/trace/index.js";
import type { KubeProxyVector as Vector } from "../support/corpora.js";
import { kubeProxyVector, kubeProxyVectors } from "../support/corpora.js";

function familyOf(v: Vector): IPFamily {
  return v.config.ipFamily === "IPv6" ? "IPv6" : "IPv4";
}

function dumpState(v: Vector): RuleSet {
  const { ruleSet, problems } = parseRules(v.expected.save, { family: familyOf(v) });
  expect(problems).toEqual([]);
  return ruleSet;
}

function generatedState(v: Vector): RuleSet {
  const input = { config: v.config, services: v.services, endpointSlices: v.endpointSlices } as ClusterInput;
  return generateState(modelFromKubernetes(input, { family: familyOf(v) }));
}

/** What a picture says, without the order nodes were reached in. */
function shape(g: ServiceGraph): unknown {
  const nodes = g.nodes.map((n) => `${n.id} | ${n.title} | ${n.lines.join(" / ")}`).sort();
  const edges = g.edges
    .map(
      (e) =>
        `${e.from} -> ${e.to} | ${e.kind} | ${e.condition} | ${e.probability?.numerator}/${e.probability?.denominator}`,
    )
    .sort();
  return { nodes, edges, servicePorts: g.servicePorts };
}

function node(g: ServiceGraph, id: string) {
  const n = g.nodes.find((x) => x.id === id);
  if (n === undefined) throw new Error(`no node ${id} in ${g.nodes.map((x) => x.id).join(", ")}`);
  return n;
}

function edgesFrom(g: ServiceGraph, id: string) {
  return g.edges.filter((e) => e.from === id);
}

function sum(fs: readonly Fraction[]): Fraction {
  return fs.reduce((a, b) => add(a, b), ZERO);
}

// Every feature and seed vector; of the random ones a sample, and no large one (thousands of
// service ports add time, not cases).
const VECTORS = kubeProxyVectors("kube-proxy").filter(
  (v) => !v.name.includes("large") && (!v.name.startsWith("random-") || Number(v.name.slice(7)) % 15 === 0),
);

describe("a dump and its cluster draw alike", () => {
  it.each(VECTORS.map((v) => v.name))("%s", (name) => {
    const v = kubeProxyVector("kube-proxy", name);
    const dump = dumpState(v);
    const generated = generatedState(v);
    const ports = listServicePorts(dump);
    expect(listServicePorts(generated)).toEqual(ports);
    for (const port of ports) {
      const fromDump = buildServiceGraph(dump, [port]);
      expect(shape(buildServiceGraph(generated, [port]))).toEqual(shape(fromDump));
      // Every edge leaves and enters a node of the graph, and every node is on an edge.
      const ids = new Set(fromDump.nodes.map((n) => n.id));
      for (const e of fromDump.edges) {
        expect(ids.has(e.from)).toBe(true);
        expect(ids.has(e.to)).toBe(true);
      }
      const touched = new Set(fromDump.edges.flatMap((e) => [e.from, e.to]));
      expect([...ids].filter((id) => !touched.has(id))).toEqual([]);
      // An edge's rule is the one at its position in the dump's chain (the tracer's numbering).
      const lines = v.expected.save.split("\n");
      for (const e of fromDump.edges) {
        if (e.rule === null) continue;
        const chainRules = lines.filter((l) => l.startsWith(`-A ${e.rule?.chain} `));
        const inTable = chainRules.length > 0;
        if (inTable && !lines.some((l) => l === e.ruleText)) throw new Error(`${e.ruleText} not in the dump`);
      }
      // The shares out of a chain that splits by statistic add up to 1.
      for (const n of fromDump.nodes) {
        const shares = edgesFrom(fromDump, n.id).flatMap((e) =>
          e.probability === null ? [] : [e.probability],
        );
        if (shares.length > 0) expect(equals(sum(shares), ONE)).toBe(true);
      }
    }
  });
});

describe("shares are the tracer's", () => {
  // A packet from a pod to each cluster IP: each endpoint's traced probability is the share on
  // the edge into its endpoint chain (two computations: the walk, and the chain's statistic rules).
  it.each(VECTORS.map((v) => v.name))("%s", (name) => {
    const v = kubeProxyVector("kube-proxy", name);
    const state = dumpState(v);
    const family = familyOf(v);
    for (const port of listServicePorts(state)) {
      const g = buildServiceGraph(state, [port]);
      for (const entry of g.edges.filter(
        (e) => e.from === "nat KUBE-SERVICES" && / --dport /.test(e.condition),
      )) {
        const target = node(g, entry.to);
        if (!target.chain.startsWith("KUBE-SVC-") && !target.chain.startsWith("KUBE-SVL-")) continue;
        const dst = /-d (\S+)\/(?:32|128)/.exec(entry.condition)?.[1];
        const proto = /-p (tcp|udp|sctp)/.exec(entry.condition)?.[1] as "tcp" | "udp" | "sctp" | undefined;
        const dport = Number(/--dport (\d+)/.exec(entry.condition)?.[1]);
        if (dst === undefined || proto === undefined) continue;
        const result = traceRules(state, {
          source: family === "IPv4" ? "198.18.0.7" : "fd00::7",
          sourcePort: 40000,
          destination: dst,
          destinationPort: dport,
          protocol: proto,
          from: "external",
          inInterface: "eth0",
        });
        const toEndpoints = edgesFrom(g, target.id).filter((e) => e.to.includes(" KUBE-SEP-") && !e.affinity);
        for (const e of toEndpoints) {
          const chain = node(g, e.to).chain;
          const traced = sum(
            result.outcomes.filter((o) => o.endpointChain === chain).map((o) => o.probability),
          );
          expect(e.probability).not.toBeNull();
          expect(equals(traced, e.probability as Fraction)).toBe(true);
        }
      }
    }
  });
});

describe("the branches kube-proxy writes", () => {
  it("a three-endpoint cluster IP: entries from pods and the node, one DNAT per endpoint, the mark masqueraded later", () => {
    const v = kubeProxyVector("kube-proxy", "feature-clusterip-3-endpoints");
    const state = dumpState(v);
    const [port] = listServicePorts(state);
    const g = buildServiceGraph(state, [port as string]);
    expect(g.servicePorts).toEqual([port]);
    expect(node(g, "nat PREROUTING").kind).toBe("entry");
    expect(node(g, "nat OUTPUT").kind).toBe("entry");
    expect(edgesFrom(g, "nat PREROUTING").map((e) => e.to)).toEqual(["nat KUBE-SERVICES"]);
    const svc = g.nodes.find((n) => n.chain.startsWith("KUBE-SVC-"));
    expect(svc?.lines).toContain(port);
    const seps = g.nodes.filter((n) => n.kind === "endpoint");
    expect(seps).toHaveLength(3);
    const dnats = g.nodes.filter((n) => n.action === "dnat").map((n) => n.title.replace("DNAT → ", ""));
    expect(dnats).toHaveLength(3);
    for (const sep of seps) expect(dnats.some((d) => sep.lines[0]?.endsWith(d))).toBe(true);
    // Three statistic splits: shares near one third each, exactly the kernel's values.
    const shares = edgesFrom(g, svc?.id as string).flatMap((e) =>
      e.probability === null ? [] : [e.probability],
    );
    expect(shares).toHaveLength(3);
    for (const p of shares)
      expect(Math.abs(Number(p.numerator) / Number(p.denominator) - 1 / 3)).toBeLessThan(1e-9);
    expect(shares.some((p) => p.denominator === 1n || p.denominator === 3n)).toBe(false);
    // KUBE-MARK-MASQ's mark, handed to POSTROUTING, where KUBE-POSTROUTING masquerades it.
    const mark = g.nodes.find((n) => n.action === "mark" && n.chain === "KUBE-MARK-MASQ");
    expect(mark?.title).toBe("MARK set 0x4000");
    const later = g.edges.find((e) => e.kind === "later");
    expect(later).toMatchObject({ from: mark?.id, to: "nat POSTROUTING" });
    expect(edgesFrom(g, "nat KUBE-POSTROUTING").map((e) => node(g, e.to).action)).toContain("masquerade");
  });

  it("node port and load balancer source ranges: KUBE-NODEPORTS, the FW chain, the filter drop", () => {
    const v = kubeProxyVector("kube-proxy", "feature-lb-source-ranges");
    const state = dumpState(v);
    const [port] = listServicePorts(state);
    const g = buildServiceGraph(state, [port as string]);
    const ids = g.nodes.map((n) => n.id);
    expect(ids).toContain("nat KUBE-NODEPORTS");
    expect(g.edges.some((e) => e.from === "nat KUBE-SERVICES" && e.to === "nat KUBE-NODEPORTS")).toBe(true);
    const fw = g.nodes.find((n) => n.chain.startsWith("KUBE-FW-") && n.kind === "service");
    expect(fw).toBeDefined();
    // The FW chain's last rule has no target: the picture says traffic goes on, with kube-proxy's words.
    const goOn = g.nodes.find((n) => n.action === "continue" && n.chain === fw?.chain);
    expect(goOn?.lines.join(" ")).toMatch(/dropped by KUBE-PROXY-FIREWALL/);
    const drop = g.nodes.find((n) => n.table === "filter" && n.action === "drop");
    expect(drop?.chain).toBe("KUBE-PROXY-FIREWALL");
    const filterEntries = g.edges.filter((e) => e.to === "filter KUBE-PROXY-FIREWALL").map((e) => e.from);
    expect(filterEntries).toEqual(
      expect.arrayContaining(["filter INPUT", "filter FORWARD", "filter OUTPUT"]),
    );
  });

  it("no endpoints: the filter table rejects", () => {
    const v = kubeProxyVector("kube-proxy", "feature-clusterip-0-endpoints");
    const state = dumpState(v);
    const g = buildServiceGraph(state, listServicePorts(state));
    const reject = g.nodes.find((n) => n.action === "reject");
    expect(reject?.table).toBe("filter");
    expect(reject?.title).toMatch(/^REJECT \(icmp/);
    expect(g.nodes.some((n) => n.kind === "endpoint")).toBe(false);
  });

  it("session affinity: dashed checks before the split, and the DNAT records the client", () => {
    const v = kubeProxyVector("kube-proxy", "feature-affinity-clientip-default");
    const state = dumpState(v);
    const g = buildServiceGraph(state, listServicePorts(state));
    const checks = g.edges.filter((e) => e.affinity);
    expect(checks.length).toBeGreaterThan(0);
    for (const e of checks) {
      expect(e.probability).toBeNull();
      expect(e.to).toMatch(/ KUBE-SEP-/);
      expect(e.condition).toMatch(/--rcheck --seconds 10800/);
    }
    const dnats = g.nodes.filter((n) => n.action === "dnat");
    expect(dnats.length).toBeGreaterThan(0);
    for (const d of dnats) expect(d.lines).toContain("records the client (affinity)");
  });

  it("selects a service's ports by NS/NAME, one port by NS/NAME:PORT, nothing for an unknown name", () => {
    const v = kubeProxyVector("kube-proxy", "feature-multi-port-named");
    const state = dumpState(v);
    const ports = listServicePorts(state);
    expect(ports.length).toBeGreaterThan(1);
    const service = (ports[0] as string).split(":")[0] as string;
    expect(buildServiceGraph(state, [service]).servicePorts).toEqual(
      ports.filter((p) => p.startsWith(`${service}:`)),
    );
    expect(buildServiceGraph(state, [ports[1] as string]).servicePorts).toEqual([ports[1]]);
    const none = buildServiceGraph(state, ["nobody/nothing"]);
    expect(none.nodes).toEqual([]);
    expect(none.edges).toEqual([]);
  });
});

describe("a trace on the picture", () => {
  it("marks the rules the packet's paths matched, with their probabilities", () => {
    const v = kubeProxyVector("kube-proxy", "feature-clusterip-3-endpoints");
    const state = dumpState(v);
    const [port] = listServicePorts(state);
    const g = buildServiceGraph(state, [port as string]);
    const entry = g.edges.find((e) => e.from === "nat KUBE-SERVICES");
    const dst = /-d (\S+)\/32/.exec(entry?.condition ?? "")?.[1] as string;
    const dport = Number(/--dport (\d+)/.exec(entry?.condition ?? "")?.[1]);
    const result = traceRules(state, {
      source: "10.244.0.99",
      sourcePort: 40000,
      destination: dst,
      destinationPort: dport,
      protocol: "tcp",
      from: "pod",
      inInterface: "cbr0",
    });
    const traced = overlayTrace(g, result);
    expect(traced.outcomes).toEqual(result.outcomes.map((o) => o.summary));
    // Every path entered by PREROUTING and went to KUBE-SERVICES: the whole packet.
    const first = traced.edges.find((e) => e.from === "nat PREROUTING");
    expect(first?.traced).toEqual(ONE);
    // The edges into the endpoint chains share the packet as the outcomes do.
    const toSeps = traced.edges.filter((e) => e.to.includes(" KUBE-SEP-") && e.from.includes(" KUBE-SVC-"));
    expect(toSeps).toHaveLength(3);
    for (const e of toSeps) expect(e.traced).toEqual(e.probability);
    const dnats = traced.nodes.filter((n) => n.action === "dnat");
    expect(equals(sum(dnats.map((n) => n.traced ?? ZERO)), ONE)).toBe(true);
    // The pod's own address is inside the cluster CIDR: no mark, so nothing of the masquerade part is traced.
    expect(traced.nodes.find((n) => n.action === "mark" && n.chain === "KUBE-MARK-MASQ")?.traced).toBeNull();
    expect(traced.edges.filter((e) => e.kind === "later").every((e) => e.traced === null)).toBe(true);
    // The untraced picture is unchanged.
    expect(g.edges.every((e) => e.traced === null)).toBe(true);
  });
});

describe("a source rewrite on the picture", () => {
  // An outside client's packet is marked for masquerade, then rewritten by another chain's rule
  // before KUBE-POSTROUTING: the mark's hand-over is traced for a MASQUERADE and an SNAT alike.
  const dump = (rewrite: string) =>
    [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      ":KUBE-MARK-MASQ - [0:0]",
      ":KUBE-POSTROUTING - [0:0]",
      ":KUBE-SEP-BBBBBBBBBBBBBBBB - [0:0]",
      ":KUBE-SERVICES - [0:0]",
      ":KUBE-SVC-AAAAAAAAAAAAAAAA - [0:0]",
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      `-A POSTROUTING -s 203.0.113.0/24 -j ${rewrite}`,
      '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
      "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000",
      "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
      "-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0",
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE',
      '-A KUBE-SERVICES -d 10.96.5.5/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-AAAAAAAAAAAAAAAA',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA ! -s 10.244.0.0/16 -d 10.96.5.5/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ',
      '-A KUBE-SVC-AAAAAAAAAAAAAAAA -m comment --comment "default/web:http -> 10.244.1.2:8080" -j KUBE-SEP-BBBBBBBBBBBBBBBB',
      '-A KUBE-SEP-BBBBBBBBBBBBBBBB -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.2:8080',
      "COMMIT",
      "",
    ].join("\n");

  it.each(["MASQUERADE", "SNAT --to-source 192.0.2.10"])("-j %s", (rewrite) => {
    const { ruleSet, problems } = parseRules(dump(rewrite));
    expect(problems).toEqual([]);
    const result = traceRules(
      ruleSet,
      {
        source: "203.0.113.7",
        sourcePort: 40000,
        destination: "10.96.5.5",
        destinationPort: 80,
        protocol: "tcp",
        from: "external",
        inInterface: "eth0",
      },
      { nodeAddresses: ["192.0.2.10"] },
    );
    expect(result.outcomes.map((o) => o.verdict)).toEqual(["accepted"]);
    const traced = overlayTrace(buildServiceGraph(ruleSet, ["default/web:http"]), result);
    const later = traced.edges.filter((e) => e.kind === "later");
    expect(later).toHaveLength(1);
    expect(later[0]?.traced).toEqual(ONE);
  });
});
