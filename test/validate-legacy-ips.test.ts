// Objects an API server stored before strict IP validation hold legacy spellings: leading zeros
// (read as decimal) and IPv4-mapped IPv6 (read as IPv4). kube-proxy parses them with
// ParseIPSloppy / ParseCIDRSloppy and writes the parsed value's String(), so such a Service gets
// exactly the rules of the same Service written canonically. Each case builds both and compares
// the whole payload, then checks a few lines of it by hand.
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, test } from "vitest";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import type { ClusterInput } from "../src/kube/types.js";
import { canonicalIP, parseCidr } from "../src/model/ip.js";
import type { IPFamily } from "../src/model/types.js";

interface Addresses {
  readonly clusterIP: string;
  readonly externalIP: string;
  readonly ingressIP: string;
  readonly sourceRange: string;
  readonly endpoint: string;
  readonly nodeIP: string;
  readonly clusterCIDR: string;
}

/** A LoadBalancer Service using every address field kube-proxy reads, and its slice. */
function cluster(a: Addresses, addressType: IPFamily = "IPv4"): ClusterInput {
  return {
    config: {
      hostname: "node-a",
      nodeIPs: [a.nodeIP],
      detectLocal: { mode: "ClusterCIDR", cidrs: [a.clusterCIDR] },
    },
    services: [
      {
        metadata: { name: "svc1", namespace: "ns1" },
        spec: {
          type: "LoadBalancer",
          clusterIP: a.clusterIP,
          clusterIPs: [a.clusterIP],
          externalIPs: [a.externalIP],
          loadBalancerSourceRanges: [a.sourceRange],
          ports: [{ name: "p80", port: 80, nodePort: 3001 }],
        },
        status: { loadBalancer: { ingress: [{ ip: a.ingressIP }] } },
      },
    ],
    endpointSlices: [
      {
        metadata: { name: "svc1-a", namespace: "ns1", labels: { "kubernetes.io/service-name": "svc1" } },
        addressType,
        endpoints: [{ addresses: [a.endpoint], nodeName: "node-b" }],
        ports: [{ name: "p80", port: 80 }],
      },
    ],
  } as unknown as ClusterInput;
}

function restore(input: ClusterInput, family: IPFamily = "IPv4"): string {
  const { model, problems } = prepareCluster(input, { family });
  expect(problems.filter((p) => p.severity === "error")).toEqual([]);
  if (model === null) throw new Error("no model");
  return generateRestoreText(model);
}

const CANONICAL: Addresses = {
  clusterIP: "172.30.0.41",
  externalIP: "192.168.99.22",
  ingressIP: "1.2.3.4",
  sourceRange: "203.0.113.0/25",
  endpoint: "10.180.0.1",
  nodeIP: "192.168.0.2",
  clusterCIDR: "10.0.0.0/8",
};

describe("legacy IPv4 spellings give the rules of the canonical ones", () => {
  const cases: [string, Partial<Addresses>][] = [
    ["a cluster IP with leading zeros", { clusterIP: "172.030.000.041" }],
    ["an external IP with leading zeros", { externalIP: "192.168.099.022" }],
    ["a load-balancer IP with leading zeros", { ingressIP: "1.2.3.004" }],
    ["a source range with leading zeros and host bits", { sourceRange: "203.0.113.005/025" }],
    ["an endpoint with leading zeros", { endpoint: "10.180.00.001" }],
    ["more leading zeros than three digits", { clusterIP: "0172.0030.0000.00041" }],
    [
      "a node IP and cluster CIDR with leading zeros",
      { nodeIP: "192.168.000.002", clusterCIDR: "010.0.0.0/08" },
    ],
    ["an IPv4-mapped cluster IP", { clusterIP: "::ffff:172.30.0.41" }],
    ["an IPv4-mapped external IP", { externalIP: "::ffff:192.168.99.22" }],
    ["an IPv4-mapped load-balancer IP", { ingressIP: "::ffff:1.2.3.4" }],
    ["an IPv4-mapped source range (/121 is IPv4 /25)", { sourceRange: "::ffff:203.0.113.0/121" }],
    ["an IPv4-mapped endpoint in an IPv4 slice", { endpoint: "::ffff:10.180.0.1" }],
    ["an IPv4-mapped address with leading zeros", { endpoint: "::ffff:010.180.0.001" }],
  ];
  const expected = restore(cluster(CANONICAL));

  test("the canonical Service has the rules kube-proxy writes for it", () => {
    expect(expected).toContain("-d 172.30.0.41 --dport 80 -j KUBE-SVC-");
    expect(expected).toContain('"ns1/svc1:p80 external IP" -m tcp -p tcp -d 192.168.99.22 --dport 80');
    expect(expected).toContain('"ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80');
    expect(expected).toContain("-s 203.0.113.0/25 -j KUBE-EXT-");
    expect(expected).toContain("-j DNAT --to-destination 10.180.0.1:80");
    expect(expected).toContain("! -s 10.0.0.0/8 -j KUBE-MARK-MASQ");
    // The SEP chain is named from the canonical endpoint string (spec, TestBadIPs).
    expect(expected).toContain(":KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]");
  });

  test.each(cases)("%s", (_, legacy) => {
    const text = restore(cluster({ ...CANONICAL, ...legacy }));
    expect(text).toBe(expected);
  });
});

describe("IPv4-mapped addresses are IPv4 to kube-proxy", () => {
  test("the IPv6 proxier makes no rules for a Service whose only cluster IP is IPv4-mapped", () => {
    const text = restore(cluster({ ...CANONICAL, clusterIP: "::ffff:172.30.0.41" }), "IPv6");
    expect(text).not.toContain("ns1/svc1");
  });

  test("an IPv4-mapped external IP of a dual-stack Service belongs to the IPv4 proxier", () => {
    const input = cluster({ ...CANONICAL, externalIP: "::ffff:192.168.99.22" });
    const spec =
      (input as unknown as { services: { spec: Record<string, unknown> }[] }).services[0]?.spec ?? {};
    spec.clusterIPs = ["172.30.0.41", "fd00:30::41"];
    spec.ipFamilies = ["IPv4", "IPv6"];
    spec.ipFamilyPolicy = "RequireDualStack";
    expect(restore(input, "IPv4")).toContain("-d 192.168.99.22 --dport 80");
    expect(restore(input, "IPv6")).not.toContain("192.168.99.22");
  });
});

describe("non-canonical IPv6 gives the rules of the canonical form", () => {
  const v6: Addresses = {
    clusterIP: "fd00:30::41",
    externalIP: "fd00:99::22",
    ingressIP: "fd00:1::4",
    sourceRange: "fd00:113::/64",
    endpoint: "fd00:180::1",
    nodeIP: "fd00:168::2",
    clusterCIDR: "fd00:10::/64",
  };
  const expected = restore(cluster(v6, "IPv6"), "IPv6");
  test.each([
    ["upper case and zero groups written out", { clusterIP: "FD00:30:0:0:0:0:0:41" }],
    ["groups with more than four digits of leading zeros", { endpoint: "fd00:180::00001" }],
    ["a source range with host bits and a zero-padded prefix", { sourceRange: "fd00:113::1/064" }],
  ] as [string, Partial<Addresses>][])("%s", (_, legacy) => {
    expect(restore(cluster({ ...v6, ...legacy }, "IPv6"), "IPv6")).toBe(expected);
  });
});

describe("the sloppy reader against Go's rules", () => {
  test.each([
    ["010.001.002.003", "10.1.2.3"],
    ["0000000010.1.2.3", "10.1.2.3"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:0102:0304", "1.2.3.4"],
    ["::1.2.3.4", "::102:304"],
    ["fd00::00001", "fd00::1"],
    ["1:0:0:1:0:0:0:1", "1:0:0:1::1"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["10.1.2.256", null],
    ["10.1.2", null],
    ["1.2.3.4.", null],
    ["fe80::1%eth0", null],
    ["fd00::10000", null],
    ["1:2:3:4:5:6:7:8::", null],
    ["1:2:3:4:5:1.2.3.4", null],
    ["::1.2.3.4:5", null],
    ["", null],
  ])("canonicalIP(%j) is %j", (text, want) => {
    expect(canonicalIP(text)).toBe(want);
  });

  test.each([
    ["203.0.113.000/025", "203.0.113.0/25", "IPv4"],
    ["10.0.0.0/0008", "10.0.0.0/8", "IPv4"],
    ["::ffff:10.1.0.0/112", "10.1.0.0/16", "IPv4"],
    ["::ffff:10.1.2.3/96", "0.0.0.0/0", "IPv4"],
    ["::ffff:10.1.2.3/64", "::/64", "IPv6"],
    ["FD00::1/64", "fd00::/64", "IPv6"],
  ])("parseCidr(%j) is %s (%s)", (text, want, family) => {
    const cidr = parseCidr(text);
    expect(cidr?.text).toBe(want);
    expect(cidr?.family).toBe(family);
  });

  test.each(["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/ 8", "::ffff:1.2.3.4/129", "10.0.0/8"])(
    "parseCidr(%j) is null",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );
});

describe("the sloppy reader against ipaddr.js", () => {
  // With leading zeros stripped from every number, a text Go's sloppy parser reads is one
  // ipaddr.js reads strictly, to the same address: printed by ipaddr.js (an IPv4-mapped address
  // as IPv4, as Go prints it) it must be what canonicalIP gives.
  const stripZeros = (s: string): string => s.replace(/(^|[^0-9a-fA-F])0+(?=[0-9a-fA-F])/g, "$1");
  function viaIpaddr(text: string): string {
    if (!text.includes(":")) return ipaddr.IPv4.parse(text).toString();
    const v6 = ipaddr.IPv6.parse(text);
    // ipaddr.js also reads the IPv4-compatible `::a.b.c.d` as mapped; Go does not.
    const mapped = v6.parts.slice(0, 5).every((p) => p === 0) && v6.parts[5] === 0xffff;
    return mapped ? v6.toIPv4Address().toString() : v6.toRFC5952String();
  }
  const octet = fc.oneof(
    fc.integer({ min: 0, max: 255 }).map(String),
    fc.constantFrom("000", "010", "0001", "00255"),
  );
  const dotted = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));
  const group = fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16)),
    fc.constantFrom("0", "00000", "0FFFF", "00a"),
  );
  const v6 = fc
    .tuple(fc.array(group, { minLength: 8, maxLength: 8 }), fc.boolean(), dotted, fc.nat(7))
    .map(([groups, tail, v4, gap]) => {
      const parts = tail ? [...groups.slice(0, 6), v4] : groups;
      return gap > 0 && gap < parts.length - 1
        ? `${parts.slice(0, gap).join(":")}::${parts.slice(gap + 1).join(":")}`
        : parts.join(":");
    });
  const mapped = dotted.map((d) => `::ffff:${d}`);

  test("prints what ipaddr.js prints", () => {
    fc.assert(
      fc.property(fc.oneof(dotted, v6, mapped), (text) => {
        const mine = canonicalIP(text);
        expect(mine).not.toBeNull();
        expect(mine).toBe(viaIpaddr(stripZeros(text)));
      }),
      { numRuns: 3000 },
    );
  });
});
