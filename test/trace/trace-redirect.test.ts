// `-j REDIRECT` as the kernel does it (nf_nat_redirect): a DNAT to the node itself, to 127.0.0.1
// (::1) for a locally generated packet, to the first address of the input interface for an
// arriving one, which is dropped when that interface has none. Small dumps in the style of the
// old userspace kube-proxy (KUBE-PORTALS-*) and of a port redirect put in front of a node port.

import { describe, expect, it } from "vitest";
import { parseRules, type RuleSet } from "../../src/index.js";
import { formatFraction, type Packet, type TraceResult, traceRules } from "../../src/trace/index.js";

const PORTALS = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-PORTALS-CONTAINER - [0:0]
:KUBE-PORTALS-HOST - [0:0]
-A PREROUTING -m comment --comment "handle ClusterIPs; NOTE: this must be before the NodePort rules" -j KUBE-PORTALS-CONTAINER
-A OUTPUT -m comment --comment "handle ClusterIPs; NOTE: this must be before the NodePort rules" -j KUBE-PORTALS-HOST
-A KUBE-PORTALS-CONTAINER -d 10.254.7.20/32 -p tcp -m comment --comment "shop/cart:" -m tcp --dport 8080 -j REDIRECT --to-ports 41234
-A KUBE-PORTALS-CONTAINER -d 10.254.7.21/32 -p tcp -m comment --comment "shop/db:" -m tcp --dport 5432 -j REDIRECT --to-ports 41000-41010
-A KUBE-PORTALS-HOST -d 10.254.7.20/32 -p tcp -m comment --comment "shop/cart:" -m tcp --dport 8080 -j REDIRECT --to-ports 41234
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-FIREWALL - [0:0]
-A INPUT -j KUBE-FIREWALL
-A INPUT -m addrtype ! --dst-type LOCAL -j DROP
-A INPUT -d 172.16.0.0/12 -p tcp -m tcp --dport 41234 -j REJECT --reject-with icmp-port-unreachable
-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
COMMIT
`;

function state(text: string, family: "IPv4" | "IPv6" = "IPv4"): RuleSet {
  const { ruleSet, problems } = parseRules(text, { family });
  expect(problems).toEqual([]);
  return ruleSet;
}

function trace(text: string, packet: Packet, family: "IPv4" | "IPv6" = "IPv4"): TraceResult {
  const r = traceRules(state(text, family), packet, {
    nodeAddresses: [family === "IPv4" ? "10.0.0.5" : "fd00::5"],
  });
  expect(formatFraction(r.total)).toBe("1.000000000");
  return r;
}

const toCart = {
  destination: "10.254.7.20",
  destinationPort: 8080,
  protocol: "tcp",
  sourcePort: 40000,
} as const;

describe("REDIRECT", () => {
  it("sends a node's own packet to 127.0.0.1 and the port, delivered as a DNAT (not a localnet attack)", () => {
    const r = trace(PORTALS, { ...toCart, source: "10.0.0.5", from: "node" });
    expect(r.outcomes.map((o) => [o.verdict, o.route, o.dnat, o.masquerade, o.conditions])).toEqual([
      ["accepted", "local", { address: "127.0.0.1", port: 41234 }, false, []],
    ]);
    expect(r.outcomes[0]?.summary).toBe("shop/cart: → 127.0.0.1:41234  p=1.000000000  no masquerade");
  });

  it("sends an arriving packet to its input interface's address, or drops it when there is none", () => {
    const r = trace(PORTALS, { ...toCart, source: "10.244.1.5", from: "pod", inInterface: "cbr0" });
    expect(r.outcomes.map((o) => o.summary)).toEqual([
      "shop/cart: → 10.254.7.20:8080 (no DNAT)  p=1.000000000  DROPPED  (REDIRECT: no address on the input interface)  if cbr0 has no address",
      "shop/cart: → the address of cbr0:41234  p=1.000000000  REJECTED  if cbr0 has an address and `-d 172.16.0.0/12` matches for the address of cbr0",
      "shop/cart: → the address of cbr0:41234  p=1.000000000  no masquerade  if cbr0 has an address and `-d 172.16.0.0/12` does not match for the address of cbr0",
    ]);
    // An address of the node: routed to INPUT, where `addrtype --dst-type LOCAL` holds.
    expect(r.outcomes.slice(1).map((o) => o.route)).toEqual(["local", "local"]);
    expect(r.outcomes[2]?.conditions.map((c) => [c.kind, c.subject, c.holds])).toEqual([
      ["interface-address", "cbr0", true],
      ["match", "the address of cbr0", false],
    ]);
    expect(r.needsNodeAddress).toEqual([]);
  });

  it("a packet it redirected that INPUT's policy then drops is named as dropped by the policy", () => {
    // No INPUT rule matches: the REDIRECT is the path's last rule.
    const nat = PORTALS.slice(0, PORTALS.indexOf("*filter"));
    const closed = `${nat}*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n`;
    const r = trace(closed, { ...toCart, source: "10.244.1.5", from: "pod", inInterface: "cbr0" });
    expect(r.outcomes.map((o) => [o.dnat?.port ?? null, o.summary.split("  ")[2]])).toEqual([
      [null, "DROPPED"],
      [41234, "DROPPED"],
    ]);
    expect(r.outcomes.map((o) => o.summary.split("  (")[1]?.split(")")[0] ?? null)).toEqual([
      "REDIRECT: no address on the input interface",
      "the chain's policy",
    ]);
  });

  it("a recent list tested on the redirected destination is a fact about that address", () => {
    const nat = PORTALS.slice(0, PORTALS.indexOf("*filter"));
    const text = `${nat}*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n-A INPUT -m recent --rcheck --seconds 60 --name hot --mask 255.255.255.255 --rdest -j DROP\nCOMMIT\n`;
    // The list holds 0.0.0.0, the bytes behind the alias: no entry may decide it.
    const r = traceRules(
      state(text),
      { ...toCart, source: "10.244.1.5", from: "pod", inInterface: "cbr0" },
      {
        nodeAddresses: ["10.0.0.5"],
        affinity: [{ client: "0.0.0.0", chain: "hot", lastSeen: 100 }],
        now: 101,
      },
    );
    expect(r.outcomes.map((o) => [o.verdict, o.conditions.map((c) => c.kind)])).toEqual([
      ["dropped", ["interface-address"]],
      ["dropped", ["interface-address", "match"]],
      ["accepted", ["interface-address", "match"]],
    ]);
  });

  it("ends as unknown for a port range: the kernel picks a free port", () => {
    const r = trace(PORTALS, {
      ...toCart,
      destination: "10.254.7.21",
      destinationPort: 5432,
      source: "10.244.1.5",
      from: "pod",
    });
    expect(r.outcomes.map((o) => [o.verdict, o.unknownReason])).toEqual([
      ["unknown", "REDIRECT to a port range"],
    ]);
  });

  it("keeps the port when --to-ports is not given, and sends IPv6 to ::1 from the node", () => {
    const text = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A OUTPUT -d fd00:96::10/128 -p tcp -m tcp --dport 80 -j REDIRECT
COMMIT
`;
    const r = trace(
      text,
      {
        destination: "fd00:96::10",
        destinationPort: 80,
        protocol: "tcp",
        sourcePort: 40000,
        source: "fd00::5",
        from: "node",
      },
      "IPv6",
    );
    expect(r.outcomes.map((o) => [o.verdict, o.dnat])).toEqual([["accepted", { address: "::1", port: 80 }]]);
  });
});
