// The tracer on rules that test what the rules alone do not say (the route's interface, the
// node's addresses, ipsets…) and on the matches and targets other programs put on a node: one
// small rule set per behaviour.

import { describe, expect, it } from "vitest";
import { parseRules, type RuleSet } from "../../src/index.js";
import {
  formatFraction,
  formatTraceText,
  type Packet,
  type TraceOptions,
  type TraceOutcome,
  traceRules,
  traceToJson,
} from "../../src/trace/index.js";

type Tables = Record<string, { policies?: Record<string, string>; rules: string[] }>;

/** A state from `-A CHAIN args…` lines per table, read as an iptables-save dump is. */
function state(tables: Tables, family: "IPv4" | "IPv6" = "IPv4"): RuleSet {
  const text: string[] = [];
  for (const [name, t] of Object.entries(tables)) {
    text.push(`*${name}`);
    const chains = new Set([...(BUILTINS[name] ?? []), ...t.rules.map((l) => l.split(" ")[1] as string)]);
    for (const c of chains)
      text.push(
        (BUILTINS[name] ?? []).includes(c) ? `:${c} ${t.policies?.[c] ?? "ACCEPT"} [0:0]` : `:${c} - [0:0]`,
      );
    text.push(...t.rules, "COMMIT");
  }
  const { ruleSet, problems } = parseRules(`${text.join("\n")}\n`, { family });
  expect(problems).toEqual([]);
  return ruleSet;
}

const BUILTINS: Record<string, string[]> = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
};

const fromPod: Packet = {
  source: "10.244.1.5",
  sourcePort: 40000,
  destination: "10.96.0.10",
  destinationPort: 80,
  protocol: "tcp",
  from: "pod",
  inInterface: "cni0",
};

/** A nat PREROUTING/OUTPUT DNAT of 10.96.0.10:80 to 10.244.2.21:8080. */
const DNAT = [
  "-A PREROUTING -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 10.244.2.21:8080",
  "-A OUTPUT -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 10.244.2.21:8080",
];

const view = (r: { outcomes: readonly TraceOutcome[] }) =>
  r.outcomes.map((o) => [
    o.verdict,
    o.conditions.map((c) => `${c.holds ? "" : "!"}${c.kind}:${c.subject}:${c.test}`),
  ]);

/** The node's address, given by default: a test of an unknown address passes `nodeAddresses: []`. */
const NODE = "192.168.1.10";

function trace(tables: Tables, packet: Packet = fromPod, options: TraceOptions = {}) {
  const r = traceRules(state(tables), packet, { nodeAddresses: [NODE], ...options });
  // However the facts turn out, the paths that hold account for the whole packet.
  expect(formatFraction(r.total)).toBe("1.000000000");
  return r;
}

describe("-o: the interface the route leaves by", () => {
  const forward = {
    nat: { rules: DNAT },
    filter: {
      policies: { FORWARD: "DROP" },
      rules: [
        "-A FORWARD -o docker0 -j DROP",
        "-A FORWARD -o weave -j ACCEPT",
        "-A FORWARD -o cali+ -j ACCEPT",
      ],
    },
  };

  it("splits on the route to the translated destination, an interface being one name", () => {
    const r = trace(forward);
    expect(view(r)).toEqual([
      ["dropped", ["out-interface:10.244.2.21:docker0"]],
      [
        "dropped",
        [
          "!out-interface:10.244.2.21:docker0",
          "!out-interface:10.244.2.21:weave",
          "!out-interface:10.244.2.21:cali+",
        ],
      ],
      ["accepted", ["!out-interface:10.244.2.21:docker0", "out-interface:10.244.2.21:weave"]],
      [
        "accepted",
        [
          "!out-interface:10.244.2.21:docker0",
          "!out-interface:10.244.2.21:weave",
          "out-interface:10.244.2.21:cali+",
        ],
      ],
    ]);
    // The outcome names the endpoint whatever the verdict, and says what it depends on.
    expect(r.outcomes[0]?.summary).toBe(
      "(no service) → 10.244.2.21:8080  p=1.000000000  DROPPED  if the route to 10.244.2.21 leaves by docker0",
    );
    expect(r.outcomes[1]?.summary).toContain(
      "→ 10.244.2.21:8080  p=1.000000000  DROPPED  (the chain's policy)  if the route to 10.244.2.21 does not leave by docker0, weave or cali+",
    );
    expect(r.outcomes[3]?.summary).toContain(
      "if the route to 10.244.2.21 leaves by cali+ but not docker0 or weave",
    );
  });

  it("an assumed wildcard decides what it covers and splits on a name inside it", () => {
    const r = trace({
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: [
          "-A FORWARD -o cali+ -j X-DISPATCH",
          "-A X-DISPATCH -o califab -j ACCEPT",
          "-A X-DISPATCH -o tunl0 -j ACCEPT",
        ],
      },
    });
    expect(view(r)).toEqual([
      ["dropped", ["out-interface:10.244.2.21:cali+", "!out-interface:10.244.2.21:califab"]],
      ["dropped", ["!out-interface:10.244.2.21:cali+"]],
      ["accepted", ["out-interface:10.244.2.21:cali+", "out-interface:10.244.2.21:califab"]],
    ]);
  });

  it("the packet's outInterface decides every -o", () => {
    const r = trace(forward, { ...fromPod, outInterface: "weave" });
    expect(view(r)).toEqual([["accepted", []]]);
  });

  it("routes decide by the longest prefix; an address no route covers is still a condition", () => {
    const routes = [
      { destination: "10.244.0.0/16", interface: "weave" },
      { destination: "10.244.2.0/24", interface: "docker0" },
    ];
    expect(view(trace(forward, fromPod, { routes }))).toEqual([["dropped", []]]);
    const other = trace(forward, fromPod, { routes: [{ destination: "10.0.0.0/16", interface: "weave" }] });
    expect(other.outcomes.length).toBe(4);
    expect(() =>
      traceRules(state(forward), fromPod, { routes: [{ destination: "10.0.0.0/33", interface: "x" }] }),
    ).toThrow(/route 10.0.0.0\/33/);
    // A mask with holes is an iptables -d, never a route.
    expect(() =>
      traceRules(state(forward), fromPod, {
        routes: [{ destination: "10.0.0.0/255.0.255.0", interface: "x" }],
      }),
    ).toThrow(/a route's mask is a prefix length, not 255.0.255.0/);
  });

  it("before routing and in INPUT there is no output interface: -o never matches, ! -o always does", () => {
    // (iptables refuses -o in PREROUTING itself, not in a chain reached from it.)
    const r = trace({
      nat: {
        rules: [
          "-A PREROUTING -j X-PRE",
          "-A X-PRE -o eth0 -j DNAT --to-destination 10.1.1.1",
          "-A X-PRE ! -o eth0 -j X-SEEN",
          "-A X-SEEN -j MARK --set-xmark 0x1/0xffffffff",
        ],
      },
    });
    expect(r.outcomes.map((o) => [o.verdict, o.dnat, o.mark, o.conditions.length])).toEqual([
      ["accepted", null, 1, 0],
    ]);
  });

  it("a node's packet to itself leaves by lo", () => {
    const r = trace(
      { filter: { rules: ["-A OUTPUT -o lo -j ACCEPT", "-A OUTPUT -j DROP"] } },
      { ...fromPod, source: "192.168.1.10", destination: "192.168.1.10", from: "node" },
      { nodeAddresses: ["192.168.1.10"] },
    );
    expect(view(r)).toEqual([["accepted", []]]);
  });

  it("two sides that end alike fold into one outcome without the condition (Docker's -o docker0 -j DOCKER)", () => {
    const r = trace({
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: [
          "-A FORWARD -o docker0 -j X-DOCKER",
          "-A FORWARD -s 10.244.0.0/16 -j ACCEPT",
          "-A X-DOCKER -d 172.17.0.2/32 -j ACCEPT",
          "-A X-DOCKER -j RETURN",
        ],
      },
    });
    expect(view(r)).toEqual([["accepted", []]]);
    // The folded path keeps the rules of the side where the fact does not hold.
    expect(r.outcomes[0]?.steps.map((s) => s.chain)).toEqual(["PREROUTING", "FORWARD"]);
  });
});

describe("IPv6", () => {
  it("routes, -o conditions and the node's addresses work the same", () => {
    const rules = {
      nat: {
        rules: [
          "-A PREROUTING -d fd00:96::10/128 -p tcp -m tcp --dport 80 -j DNAT --to-destination [fd00:244:2::21]:8080",
          "-A PREROUTING -m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30080 -j DNAT --to-destination [fd00:244:2::21]:8080",
        ],
      },
      filter: { policies: { FORWARD: "DROP" }, rules: ["-A FORWARD -o eth0 -j ACCEPT"] },
    };
    const packet: Packet = { ...fromPod, source: "fd00:244:1::5", destination: "fd00:96::10" };
    // The node's address given: the routing of fd00:244:2::21 is not in question here.
    const node = { nodeAddresses: ["2001:db8::1"] };
    const open = traceRules(state(rules, "IPv6"), packet, node);
    expect(open.outcomes.map((o) => o.summary)).toEqual([
      "(no service) → [fd00:244:2::21]:8080  p=1.000000000  DROPPED  (the chain's policy)  if the route to fd00:244:2::21 does not leave by eth0",
      "(no service) → [fd00:244:2::21]:8080  p=1.000000000  no masquerade  if the route to fd00:244:2::21 leaves by eth0",
    ]);
    const routed = traceRules(state(rules, "IPv6"), packet, {
      ...node,
      routes: [{ destination: "fd00:244::/32", interface: "eth0" }],
    });
    expect(routed.outcomes.map((o) => [o.verdict, o.conditions.length])).toEqual([["accepted", 0]]);
    const nodePort = { ...packet, destination: "2001:db8::10", destinationPort: 30080 };
    // Without the node's addresses, the node port's address is in question, and so is the
    // endpoint's: on the node itself it would be delivered past FORWARD's DROP policy.
    expect(traceRules(state(rules, "IPv6"), nodePort).needsNodeAddress).toEqual([
      "2001:db8::10",
      "fd00:244:2::21",
    ]);
    expect(
      traceRules(state(rules, "IPv6"), {
        ...nodePort,
        destination: "::1",
        outInterface: "eth0",
      }).outcomes.map((o) => o.dnat?.address),
    ).toEqual(["fd00:244:2::21"]);
  });
});

describe("-i without the packet's input interface", () => {
  it("is a condition on the interface the packet arrives on", () => {
    const { inInterface: _, ...packet } = fromPod;
    const r = trace(
      {
        filter: {
          policies: { FORWARD: "DROP" },
          rules: ["-A FORWARD -i cni0 -j ACCEPT", "-A FORWARD -i cni+ -j REJECT"],
        },
      },
      packet,
    );
    expect(view(r)).toEqual([
      ["rejected", ["!in-interface::cni0", "in-interface::cni+"]],
      ["dropped", ["!in-interface::cni0", "!in-interface::cni+"]],
      ["accepted", ["in-interface::cni0"]],
    ]);
    expect(r.outcomes[1]?.summary).toContain("if the packet does not arrive on cni0 or cni+");
  });
});

describe("whether an address is the node's", () => {
  const nodePort = {
    nat: {
      rules: [
        "-A PREROUTING -j X-SERVICES",
        "-A OUTPUT -j X-SERVICES",
        `-A X-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j DNAT --to-destination 10.244.2.21:8080`,
        "-A X-SERVICES -m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30080 -j DNAT --to-destination 10.244.2.21:8080",
      ],
    },
  };
  const external: Packet = {
    ...fromPod,
    source: "203.0.113.7",
    destination: "192.168.1.10",
    destinationPort: 30080,
    from: "external",
    inInterface: "eth0",
  };

  it("is known from the given node addresses", () => {
    const r = trace(nodePort, external, { nodeAddresses: ["192.168.1.10"] });
    expect(r.outcomes.map((o) => [o.dnat?.address, o.conditions.length])).toEqual([["10.244.2.21", 0]]);
    expect(r.needsNodeAddress).toEqual([]);
    expect(
      trace(nodePort, external, { nodeAddresses: ["192.168.1.11"] }).outcomes.map((o) => o.dnat),
    ).toEqual([null]);
  });

  it("without them, splits and names the address the result depends on", () => {
    const r = trace(nodePort, external, { nodeAddresses: [] });
    expect(
      r.outcomes.map((o) => [o.dnat?.address ?? null, o.route, o.conditions.map((c) => c.text)]),
    ).toEqual([
      ["10.244.2.21", "forward", ["192.168.1.10 is a node address"]],
      [null, "forward", ["192.168.1.10 is not a node address"]],
    ]);
    expect(r.needsNodeAddress).toEqual(["192.168.1.10"]);
  });

  it("cluster IPs (kube-proxy's comments), loopback, multicast and the outside source are known", () => {
    // A cluster IP the packet's port does not match: the nodeport rule after it tests it.
    const rules = {
      nat: {
        rules: [
          "-A PREROUTING -j KUBE-SERVICES",
          `-A KUBE-SERVICES -d 10.96.0.11/32 -p tcp -m comment --comment "default/idle:http cluster IP" -m tcp --dport 81 -j ACCEPT`,
          "-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j DNAT --to-destination 10.1.1.1",
          "-A KUBE-SERVICES -m addrtype --src-type LOCAL -j DNAT --to-destination 10.1.1.2",
          "-A KUBE-SERVICES -m addrtype --dst-type MULTICAST -j DNAT --to-destination 10.1.1.3",
        ],
      },
    };
    for (const destination of ["10.96.0.11", "224.0.0.251"]) {
      const r = trace(rules, { ...external, destination }, { nodeAddresses: [] });
      expect(r.needsNodeAddress).toEqual([]);
      expect(r.outcomes.map((o) => o.dnat?.address ?? null)).toEqual([
        destination === "10.96.0.11" ? null : "10.1.1.3",
      ]);
    }
    expect(
      trace(rules, { ...external, destination: "127.0.0.1" }, { nodeAddresses: [] }).outcomes.map(
        (o) => o.dnat?.address,
      ),
    ).toEqual(["10.1.1.1"]);
  });

  it("a node's own packet comes from a node address", () => {
    const r = trace(
      { nat: { rules: ["-A OUTPUT -m addrtype --src-type LOCAL -j DNAT --to-destination 10.1.1.2"] } },
      { ...fromPod, source: "192.168.1.10", destination: "8.8.8.8", from: "node" },
    );
    expect(r.outcomes.map((o) => [o.dnat?.address, o.conditions.length])).toEqual([["10.1.1.2", 0]]);
  });

  it("an address routed as another host's stays so for later tests on the path", () => {
    const r = trace(
      {
        nat: {
          rules: [
            ...DNAT,
            "-A POSTROUTING -m addrtype ! --dst-type LOCAL -j X-MASQ",
            "-A X-MASQ -d 10.244.0.0/16 -j RETURN",
            "-A X-MASQ -j MASQUERADE",
          ],
        },
      },
      fromPod,
      { nodeAddresses: [] },
    );
    expect(r.outcomes.map((o) => [o.verdict, o.masquerade, o.conditions.length])).toEqual([
      ["accepted", false, 0],
    ]);
    expect(r.needsNodeAddress).toEqual([]);
  });
});

describe("what a new connection's first packet decides exactly", () => {
  const one = (rule: string, packet: Packet = fromPod, table = "filter", chain = "FORWARD") =>
    trace(
      {
        nat: { rules: DNAT },
        [table]: { policies: { [chain]: "DROP" }, rules: [rule.replace("CHAIN", chain)] },
      },
      packet,
    ).outcomes.map((o) => [o.verdict, o.conditions.length]);

  it.each([
    ["-A CHAIN -p tcp -m tcp --syn -j ACCEPT", "accepted"],
    ["-A CHAIN -p tcp -m tcp ! --syn -j ACCEPT", "dropped"],
    ["-A CHAIN -p tcp -m tcp --tcp-flags SYN,ACK ACK -j ACCEPT", "dropped"],
    ["-A CHAIN -m conntrack --ctstate NEW,DNAT -j ACCEPT", "accepted"],
    ["-A CHAIN -m state --state ESTABLISHED -j ACCEPT", "dropped"],
    ["-A CHAIN -m policy --dir in --pol none -j ACCEPT", "accepted"],
    ["-A CHAIN -m policy --dir in --pol ipsec -j ACCEPT", "dropped"],
    ["-A CHAIN -m iprange --dst-range 10.244.2.1-10.244.2.99 -j ACCEPT", "accepted"],
    ["-A CHAIN -m iprange ! --src-range 10.244.1.1-10.244.1.9 -j ACCEPT", "dropped"],
    ["-A CHAIN -m pkttype --pkt-type unicast -j ACCEPT", "accepted"],
    ["-A CHAIN -m addrtype --dst-type UNICAST -j ACCEPT", "accepted"],
  ])("%s → %s, no condition", (rule, verdict) => {
    expect(one(rule)).toEqual([[verdict, 0]]);
  });

  // iptables takes owner in OUTPUT and POSTROUTING only: a forwarded packet meets it on its way
  // out, and it has no local socket.
  it.each([
    ["-A CHAIN -m owner --uid-owner 0 -j ACCEPT", "dropped"],
    ["-A CHAIN -m owner ! --socket-exists -j ACCEPT", "accepted"],
  ])("%s in mangle POSTROUTING → %s, no condition", (rule, verdict) => {
    expect(one(rule, fromPod, "mangle", "POSTROUTING")).toEqual([[verdict, 0]]);
  });

  it("the raw table runs before conntrack: INVALID there, UNTRACKED after NOTRACK, and no NAT", () => {
    const r = trace({
      raw: {
        rules: [
          "-A PREROUTING -m conntrack --ctstate INVALID -j MARK --set-xmark 0x1/0x1",
          "-A PREROUTING -d 10.96.0.10/32 -j NOTRACK",
        ],
      },
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: ["-A FORWARD -m mark --mark 0x1 -m conntrack --ctstate UNTRACKED -j ACCEPT"],
      },
    });
    expect(r.outcomes.map((o) => [o.verdict, o.dnat, o.mark])).toEqual([["accepted", null, 1]]);
  });

  it("-m owner on the node's own packet is a condition (its socket is not in the rules)", () => {
    const r = trace(
      { filter: { policies: { OUTPUT: "DROP" }, rules: ["-A OUTPUT -m owner --uid-owner 1000 -j ACCEPT"] } },
      { ...fromPod, source: "192.168.1.10", from: "node" },
    );
    expect(view(r)).toEqual([
      ["dropped", ["!match:192.168.1.10:40000 → 10.96.0.10:80:-m owner --uid-owner 1000"]],
      ["accepted", ["match:192.168.1.10:40000 → 10.96.0.10:80:-m owner --uid-owner 1000"]],
    ]);
  });
});

describe("targets other programs use", () => {
  it("LOG, NFLOG and other non-terminating targets let the packet go on", () => {
    const r = trace({
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: [
          "-A FORWARD -j LOG --log-prefix fwd:",
          "-A FORWARD -j NFLOG --nflog-group 100",
          "-A FORWARD -p tcp -j TCPMSS --clamp-mss-to-pmtu",
          "-A FORWARD -j ACCEPT",
        ],
      },
    });
    // TRACE is not here: iptables-restore takes it only in the raw table.
    expect(r.outcomes.map((o) => [o.verdict, o.steps.length])).toEqual([["accepted", 5]]);
  });

  it("NFQUEUE hands the packet to user space: unknown, with the DNAT destination named", () => {
    const r = trace({ nat: { rules: DNAT }, filter: { rules: ["-A FORWARD -j NFQUEUE --queue-num 1"] } });
    expect(r.outcomes.map((o) => o.verdict)).toEqual(["unknown"]);
    expect(r.outcomes[0]?.summary).toBe(
      "(no service) → 10.244.2.21:8080  p=1.000000000  UNKNOWN  (-j NFQUEUE hands the packet to user space)",
    );
  });

  it("CONNMARK sets, saves and restores the connection mark that -m connmark reads", () => {
    const r = trace({
      mangle: {
        rules: [
          "-A PREROUTING -j MARK --set-xmark 0x30/0xffffffff",
          "-A PREROUTING -j CONNMARK --save-mark --nfmask 0x10 --ctmask 0xff",
          "-A PREROUTING -j MARK --set-xmark 0x0/0xffffffff",
          "-A PREROUTING -m connmark --mark 0x10/0xff -j CONNMARK --set-xmark 0x100/0x100",
          "-A PREROUTING -j CONNMARK --restore-mark --nfmask 0xffff --ctmask 0xffff",
        ],
      },
    });
    expect(r.outcomes.map((o) => o.mark.toString(16))).toEqual(["110"]);
  });
});

describe("matches that depend on state outside the rules", () => {
  it("an ipset test is a condition; its negation is the same fact's contrary", () => {
    const r = trace({
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: [
          "-A FORWARD -m set --match-set pods src -j X-CHECK",
          "-A X-CHECK -m set ! --match-set pods src -j DROP",
          "-A X-CHECK -j ACCEPT",
        ],
      },
    });
    expect(view(r)).toEqual([
      ["dropped", ["!match:10.244.1.5:40000 → 10.244.2.21:8080:-m set --match-set pods src"]],
      ["accepted", ["match:10.244.1.5:40000 → 10.244.2.21:8080:-m set --match-set pods src"]],
    ]);
  });

  it("physdev options are facts of their own, ANDed", () => {
    const r = trace({
      nat: { rules: DNAT },
      filter: {
        policies: { FORWARD: "DROP" },
        rules: [
          "-A FORWARD -m physdev --physdev-out vethwe-bridge --physdev-is-bridged -j ACCEPT",
          "-A FORWARD -m physdev --physdev-is-bridged -j DROP",
          "-A FORWARD -j ACCEPT",
        ],
      },
    });
    expect(r.outcomes.map((o) => [o.verdict, o.conditions.map((c) => `${c.holds}:${c.test}`)])).toEqual([
      // Bridged or not, a packet out by vethwe-bridge is accepted: that fact folds away.
      ["dropped", ["false:-m physdev --physdev-out vethwe-bridge", "true:-m physdev --physdev-is-bridged"]],
      ["accepted", ["true:-m physdev --physdev-out vethwe-bridge"]],
      ["accepted", ["false:-m physdev --physdev-out vethwe-bridge", "false:-m physdev --physdev-is-bridged"]],
    ]);
    expect(r.outcomes[0]?.summary).toContain(
      "if `-m physdev --physdev-out vethwe-bridge` does not match and `-m physdev --physdev-is-bridged` matches for 10.244.1.5:40000 → 10.244.2.21:8080",
    );
  });

  it.each([
    ["-m rpfilter", [{ destination: "10.244.1.0/24", interface: "cni0" }], "accepted"],
    ["-m rpfilter", [{ destination: "10.244.1.0/24", interface: "eth1" }], "dropped"],
    ["-m rpfilter --loose", [{ destination: "10.244.1.0/24", interface: "eth1" }], "accepted"],
    ["-m rpfilter --invert", [{ destination: "10.244.1.0/24", interface: "cni0" }], "dropped"],
  ])("%s with the route back to the source given by %j: %s", (match, routes, verdict) => {
    const r = trace(
      {
        nat: { rules: DNAT },
        // (iptables takes rpfilter in raw and mangle PREROUTING only.)
        mangle: { policies: { PREROUTING: "DROP" }, rules: [`-A PREROUTING ${match} -j ACCEPT`] },
      },
      fromPod,
      { routes },
    );
    expect(view(r)).toEqual([[verdict, []]]);
  });

  it("-m rpfilter without a route back to the source is a condition", () => {
    const r = trace({ nat: { rules: DNAT }, raw: { rules: ["-A PREROUTING -m rpfilter --invert -j DROP"] } });
    expect(r.outcomes.map((o) => o.conditions.map((c) => c.test))).toEqual([
      ["-m rpfilter --invert"],
      ["-m rpfilter --invert"],
    ]);
  });

  it("the number of paths stays bounded: past the bound a path ends unknown, named", () => {
    const sets = Array.from(
      { length: 12 },
      (_, i) =>
        `-A FORWARD -m set --match-set s${i} src -j MARK --set-xmark 0x${(1 << i).toString(16)}/0x${(1 << i).toString(16)}`,
    );
    const r = trace({ filter: { rules: sets } });
    expect(r.outcomes.length).toBeLessThanOrEqual(1100);
    expect(
      r.outcomes.some((o) => o.unknownReason?.startsWith("too many conditions on one trace") === true),
    ).toBe(true);
  });
});

describe("text and JSON with conditions", () => {
  const rules = {
    nat: {
      rules: [
        "-A PREROUTING -d 10.96.0.10/32 -p tcp -m comment --comment default/web:http -m statistic --mode random --probability 0.5 -j DNAT --to-destination 10.244.1.21:8080",
        "-A PREROUTING -d 10.96.0.10/32 -p tcp -m comment --comment default/web:http -j DNAT --to-destination 10.244.2.21:8080",
      ],
    },
    filter: { policies: { FORWARD: "DROP" }, rules: ["-A FORWARD -o docker0 -j ACCEPT"] },
  };

  it("groups a place's cases under one line, one line per case, the rules under each", () => {
    const r = trace(rules);
    expect(formatTraceText(r, false)).toBe(
      [
        "default/web:http → 10.244.1.21:8080  p=0.500000000, depending on:",
        "  if the route to 10.244.1.21 does not leave by docker0: DROPPED  (the chain's policy)",
        "  if the route to 10.244.1.21 leaves by docker0: no masquerade",
        "default/web:http → 10.244.2.21:8080  p=0.500000000, depending on:",
        "  if the route to 10.244.2.21 does not leave by docker0: DROPPED  (the chain's policy)",
        "  if the route to 10.244.2.21 leaves by docker0: no masquerade",
        "total p=1.000000000",
        "",
      ].join("\n"),
    );
    const verbose = formatTraceText(r).split("\n");
    expect(verbose[2]).toBe(
      '      nat PREROUTING #1  [taken 0.500000000]  -A PREROUTING -d 10.96.0.10/32 -p tcp -m comment --comment "default/web:http" -m statistic --mode random --probability 0.50000000000 -j DNAT --to-destination 10.244.1.21:8080',
    );
  });

  it("carries the conditions as data in JSON", () => {
    const json = traceToJson(trace(rules)) as {
      outcomes: { conditions: unknown[]; dnat: unknown }[];
      needsNodeAddress: unknown;
    };
    expect(json.outcomes[0]?.conditions).toEqual([
      {
        kind: "out-interface",
        subject: "10.244.1.21",
        test: "docker0",
        holds: false,
        text: "the route to 10.244.1.21 does not leave by docker0",
      },
    ]);
    expect(json.outcomes[0]?.dnat).toEqual({ address: "10.244.1.21", port: 8080 });
    expect(json.needsNodeAddress).toEqual([]);
  });
});
