// Source NAT in an outcome: MASQUERADE (the address of the interface the packet leaves by) is
// `masquerade`; SNAT rewrites to the rule's own `--to-source`, which need not be the node's
// address (AWS VPC CNI's `AWS, SNAT` rule on an EKS node), and is reported as that address.

import { describe, expect, it } from "vitest";
import { parseRules, type RuleSet } from "../../src/index.js";
import {
  formatSourceNat,
  formatTraceText,
  type Packet,
  type TraceResult,
  traceRules,
  traceToJson,
} from "../../src/trace/index.js";

/** A nat table whose POSTROUTING rewrites pod TCP traffic leaving the pod range with `target`. */
function postrouting(target: string, family: "IPv4" | "IPv6" = "IPv4"): RuleSet {
  const pods = family === "IPv4" ? "10.244.0.0/16" : "fd00:244::/64";
  const text = [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    `-A POSTROUTING -s ${pods} ! -d ${pods} -p tcp -m comment --comment "AWS, SNAT" -j ${target}`,
    "COMMIT",
    "",
  ].join("\n");
  const { ruleSet, problems } = parseRules(text, { family });
  expect(problems).toEqual([]);
  return ruleSet;
}

const fromPod: Packet = {
  source: "10.244.0.5",
  sourcePort: 40000,
  destination: "203.0.113.9",
  destinationPort: 443,
  protocol: "tcp",
  from: "pod",
  inInterface: "eth1",
};

function trace(state: RuleSet, packet: Packet = fromPod): TraceResult {
  return traceRules(state, packet, {
    nodeAddresses: [packet.source.includes(":") ? "fd00::5" : "192.0.2.10"],
  });
}

describe("source NAT in an outcome", () => {
  it("SNAT to a fixed address is that address, not a masquerade", () => {
    const r = trace(postrouting("SNAT --to-source 192.0.2.10 --random-fully"));
    expect(r.outcomes.map((o) => [o.verdict, o.masquerade, o.snat])).toEqual([
      ["accepted", false, { address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null }],
    ]);
    expect(r.outcomes[0]?.summary).toBe(
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.10",
    );
    expect(formatTraceText(r, false)).toBe(
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.10\ntotal p=1.000000000\n",
    );
    expect(traceToJson(r)).toMatchObject({
      outcomes: [
        { masquerade: false, snat: { address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null } },
      ],
    });
  });

  it("MASQUERADE stays a masquerade, with no SNAT address", () => {
    const r = trace(postrouting("MASQUERADE --random-fully"));
    expect(r.outcomes.map((o) => [o.masquerade, o.snat])).toEqual([[true, null]]);
    expect(r.outcomes[0]?.summary).toBe(
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  masquerade",
    );
  });

  it("a packet no source NAT rule matches has neither", () => {
    const r = trace(postrouting("SNAT --to-source 192.0.2.10"), { ...fromPod, destination: "10.244.3.3" });
    expect(r.outcomes.map((o) => [o.masquerade, o.snat])).toEqual([[false, null]]);
    expect(r.outcomes[0]?.summary).toMatch(/ {2}no masquerade$/);
  });

  it("names an address range and a port range as --to-source gives them", () => {
    const r = trace(postrouting("SNAT --to-source 192.0.2.10-192.0.2.12:1024-65535"));
    expect(r.outcomes[0]?.snat).toEqual({
      address: "192.0.2.10",
      lastAddress: "192.0.2.12",
      ports: { min: 1024, max: 65535 },
    });
    expect(r.outcomes[0]?.summary).toMatch(/ {2}SNAT to 192\.0\.2\.10-192\.0\.2\.12:1024-65535$/);
  });

  it("brackets an IPv6 address before its port", () => {
    const r = trace(postrouting("SNAT --to-source [fd00::10]:1024", "IPv6"), {
      ...fromPod,
      source: "fd00:244::5",
      destination: "2001:db8::9",
    });
    expect(r.outcomes[0]?.summary).toMatch(/ {2}SNAT to \[fd00::10\]:1024$/);
  });

  it("formats every --to-source form", () => {
    expect(formatSourceNat({ address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null })).toBe(
      "192.0.2.10",
    );
    expect(formatSourceNat({ address: "fd00::1", lastAddress: "fd00::3", ports: null })).toBe(
      "fd00::1-fd00::3",
    );
    expect(formatSourceNat({ address: "fd00::1", lastAddress: "fd00::1", ports: { min: 80, max: 80 } })).toBe(
      "[fd00::1]:80",
    );
    // Ports only: the kernel keeps the address and maps the port.
    expect(formatSourceNat({ address: "", lastAddress: "", ports: { min: 1024, max: 2047 } })).toBe(
      "port 1024-2047",
    );
  });

  it("a connection SNATed on its way out is in conntrack state SNAT, as a masqueraded one", () => {
    // The node's own packet to its own address: nat POSTROUTING, then filter INPUT on lo.
    const text = (target: string) =>
      [
        "*nat",
        ":PREROUTING ACCEPT [0:0]",
        ":INPUT ACCEPT [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        ":POSTROUTING ACCEPT [0:0]",
        `-A POSTROUTING -p tcp -m tcp --dport 443 -j ${target}`,
        "COMMIT",
        "*filter",
        ":INPUT ACCEPT [0:0]",
        ":FORWARD ACCEPT [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        "-A INPUT -m conntrack --ctstate SNAT -j DROP",
        "COMMIT",
        "",
      ].join("\n");
    const packet: Packet = { ...fromPod, source: "192.0.2.10", destination: "192.0.2.10", from: "node" };
    delete (packet as { inInterface?: string }).inInterface;
    for (const target of ["MASQUERADE", "SNAT --to-source 192.0.2.10"]) {
      const { ruleSet, problems } = parseRules(text(target));
      expect(problems).toEqual([]);
      expect(trace(ruleSet, packet).outcomes.map((o) => o.verdict)).toEqual(["dropped"]);
    }
  });
});

describe("source NAT and conditions", () => {
  const byInterface = (second: string) =>
    [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      "-A POSTROUTING -o eth0 -j SNAT --to-source 192.0.2.10",
      `-A POSTROUTING -j ${second}`,
      "COMMIT",
      "",
    ].join("\n");

  it("keeps apart the sides of a fact that SNAT to different addresses", () => {
    const { ruleSet } = parseRules(byInterface("SNAT --to-source 192.0.2.11"));
    expect(trace(ruleSet).outcomes.map((o) => o.summary)).toEqual([
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.10  if the route to 203.0.113.9 leaves by eth0",
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.11  if the route to 203.0.113.9 does not leave by eth0",
    ]);
  });

  it("folds them when they SNAT alike, and keeps an SNAT apart from a masquerade", () => {
    const same = trace(parseRules(byInterface("SNAT --to-source 192.0.2.10")).ruleSet);
    expect(same.outcomes.map((o) => o.summary)).toEqual([
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.10",
    ]);
    const masquerade = trace(parseRules(byInterface("MASQUERADE")).ruleSet);
    expect(masquerade.outcomes.map((o) => [o.snat?.address ?? null, o.masquerade])).toEqual([
      ["192.0.2.10", false],
      [null, true],
    ]);
  });
});
