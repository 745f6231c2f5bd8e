// The hand-written fast paths of model building and validation against the general code they
// stand in for: canonical addresses without ipaddr.js, the endpoint order without building and
// comparing `ip:port` strings, name checks remembered per validation, one scan per IPv4 address.
import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, test } from "vitest";
import {
  type ClusterInput,
  type Endpoint,
  type EndpointSlice,
  type IPFamily,
  prepareCluster,
  type Service,
  validateClusterInput,
} from "../../src/index.js";
import { resolveConfig } from "../../src/kube/config.js";
import {
  endpointsByPort,
  SERVICE_NAME_LABEL as SERVICE_NAME,
  sliceServiceKey,
} from "../../src/kube/endpoints.js";
import { UNSAFE_CHAR } from "../../src/kube/patterns.js";
import { PortEndpoints } from "../../src/kube/port-endpoints.js";
import { PrebuiltEndpoints, SliceReader } from "../../src/kube/prebuilt-endpoints.js";
import { indexSlices } from "../../src/kube/slice-index.js";
import { buildModel, modelFromInput } from "../../src/kube/to-model.js";
import { validateAndPrebuild } from "../../src/kube/validate.js";
import { unsafeTextProblem } from "../../src/kube/validate-names.js";
import { canonicalIP, parseCidr } from "../../src/model/ip.js";
import { seededClusterArbitrary } from "../support/random-cluster.js";

const SEED = 20261122;

/** What ipaddr.js makes of an address: the reference the hand-written printer must match. */
function ipaddrCanonical(text: string): string | null {
  if (text.includes(":")) {
    if (!ipaddr.IPv6.isValid(text)) return null;
    const v6 = ipaddr.IPv6.parse(text);
    return (v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6).toString();
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? text : null;
}

describe("parseCidr", () => {
  test.each([
    ["10.0.0.1/24", "10.0.0.0/24"],
    ["203.0.113.000/025", "203.0.113.0/25"],
    ["fd00::1:2/112", "fd00::1:0/112"],
    ["::1.2.3.4/128", "::102:304/128"], // IPv4-compatible stays IPv6, as in Go
    ["::1.2.3.4/120", "::102:300/120"],
    ["10.0.0.1/33", null],
  ])("%s → %s", (text, network) => {
    expect(parseCidr(text)?.text ?? null).toBe(network);
  });
});

describe("canonicalIP", () => {
  test.each([
    ["10.0.0.1", "10.0.0.1"],
    ["172.30.0.041", "172.30.0.41"],
    ["256.0.0.1", null],
    ["FD00:0::1", "fd00::1"],
    ["fd00:0000:0000:0000:0000:0000:0000:0001", "fd00::1"],
    ["::", "::"],
    ["::1", "::1"],
    ["1::", "1::"],
    ["1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"], // one zero group stays
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"], // the longest run
    ["0:0:1:0:0:2:0:0", "::1:0:0:2:0:0"], // the leftmost of equal runs
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["::ffff:192.0.2.1", "192.0.2.1"], // IPv4-mapped prints as IPv4
    ["::ffff:c000:201", "192.0.2.1"],
    ["::192.0.2.1", "::c000:201"], // IPv4-compatible stays IPv6, as in Go (ipaddr.js maps it)
    ["::ffff:192.0.2.01", "192.0.2.1"], // a lenient dotted tail
    ["::192.0.2.01", "::c000:201"],
    ["fd00::010.0.0.1", "fd00::a00:1"],
    ["::ffff:192.0.2.256", null],
    ["::0:192.0.2.1", "::c000:201"],
    ["64:ff9b::192.0.2.1", "64:ff9b::c000:201"],
    ["fe80::1%eth0", null], // Go's sloppy parser takes no zone (and the API server refuses one)
    ["1::2::3", null],
    ["fd00::g", null],
  ])("%s → %s", (text, canonical) => {
    expect(canonicalIP(text)).toBe(canonical);
  });

  test("prints every strict IPv6 address as ipaddr.js does", () => {
    const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    const address = fc
      .tuple(fc.array(group, { minLength: 8, maxLength: 8 }), fc.nat(8), fc.nat(8), fc.boolean())
      .map(([groups, from, length, upper]) => {
        const hex = groups.map((g) => g.toString(16));
        // Write some zero run as `::` (not necessarily the one the canonical form compresses).
        const end = Math.min(8, from + length);
        const text =
          from < end && end - from < 8
            ? `${hex.slice(0, from).join(":")}::${hex.slice(end).join(":")}`
            : hex.join(":");
        return upper ? text.toUpperCase() : text;
      })
      .filter((text) => ipaddr.IPv6.isValid(text));
    fc.assert(
      fc.property(address, (text) => {
        expect(canonicalIP(text)).toBe(ipaddrCanonical(text));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

function endpoint(ip: string, nodeName = "node-b") {
  return { addresses: [ip], conditions: { ready: true }, nodeName };
}

function sliceOf(name: string, family: IPFamily, ips: string[], port = 80): EndpointSlice {
  return {
    metadata: { name, namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
    addressType: family,
    endpoints: ips.map((ip) => endpoint(ip)),
    ports: [{ name: "http", port, protocol: "TCP" }],
  };
}

describe("endpointsByPort: the order of `ip:port` strings", () => {
  // Addresses that are prefixes of one another are where comparing addresses and comparing
  // `ip:port` strings part: "10.0.0.1:80" sorts after "10.0.0.10:80" and "10.0.0.1.…".
  const v4 = fc.constantFrom(
    "10.0.0.1",
    "10.0.0.10",
    "10.0.0.100",
    "10.0.0.2",
    "10.0.1.1",
    "1.0.0.1",
    "100.0.0.1",
  );
  const v6 = fc.constantFrom(
    "fd00::1",
    "fd00::1a",
    "fd00::1:0",
    "fd00::10",
    "fd00::a",
    "fd00::f",
    "fd00::1:2",
  );

  function sortedAsText(list: readonly { endpoint: string }[]): string[] {
    return list.map((e) => e.endpoint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  for (const [family, ips] of [
    ["IPv4", v4],
    ["IPv6", v6],
  ] as const) {
    test(`${family}: sorted byte-wise, across slices and port numbers, each ip:port once`, () => {
      const slices = fc.array(fc.tuple(fc.array(ips, { maxLength: 40 }), fc.constantFrom(80, 8080, 9)), {
        minLength: 1,
        maxLength: 3,
      });
      fc.assert(
        fc.property(slices, (specs) => {
          const input = specs.map(([list, port], i) => sliceOf(`web-${i}`, family, list, port));
          const list = endpointsByPort(input, family, "node-a").of("http", "TCP") ?? [];
          const unique = [...new Set(specs.flatMap(([l, port]) => l.map((ip) => endpointText(ip, port))))];
          expect(list.map((e) => e.endpoint)).toEqual(sortedAsText(unique.map((endpoint) => ({ endpoint }))));
        }),
        { seed: SEED, numRuns: 500 },
      );
    });
  }

  function endpointText(ip: string, port: number): string {
    return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
  }

  test("a long list (the built-in sort) orders as a short one (insertion)", () => {
    const ips = Array.from({ length: 300 }, (_, i) => `10.0.${i % 7}.${(i * 37) % 256}`);
    const list = endpointsByPort([sliceOf("web-0", "IPv4", ips)], "IPv4", "node-a").of("http", "TCP") ?? [];
    expect(list.map((e) => e.endpoint)).toEqual(sortedAsText(list));
    expect(new Set(list.map((e) => e.endpoint)).size).toBe(list.length);
  });

  test("of two copies the later local one wins (prefer-local), and stays in place", () => {
    const a = sliceOf("a", "IPv4", ["10.0.0.10", "10.0.0.1"]);
    const b: EndpointSlice = { ...sliceOf("b", "IPv4", []), endpoints: [endpoint("10.0.0.1", "node-a")] };
    const list = endpointsByPort([b, a], "IPv4", "node-a").of("http", "TCP") ?? [];
    expect(list.map((e) => [e.endpoint, e.isLocal])).toEqual([
      ["10.0.0.10:80", false],
      ["10.0.0.1:80", true],
    ]);
  });
});

describe("validation: name checks remembered within one call", () => {
  function slice(endpoints: object[]): object {
    return {
      metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      endpoints,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    };
  }
  const service = {
    metadata: { name: "web", namespace: "default" },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
  };

  function problems(input: unknown): string[] {
    return validateClusterInput(input).map((p) => `${p.code} ${p.path}: ${p.message}`);
  }

  test("a bad name is reported every time it occurs", () => {
    const ep = { addresses: ["10.0.0.1"], nodeName: "Node_A" };
    expect(
      problems({ services: [service], endpointSlices: [slice([ep, ep, { ...ep, zone: "Node_A" }])] }),
    ).toEqual(
      [0, 1, 2].map(
        (i) =>
          `INVALID_VALUE endpointSlices[0].endpoints[${i}].nodeName: "Node_A" is not a valid node name: lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit`,
      ),
    );
  });

  test("a name that passed one rule is still checked against another", () => {
    // "Zone_A" is a valid zone hint (a label value) but not a node name.
    const hints = { forZones: [{ name: "Zone_A" }] };
    const ep = { addresses: ["10.0.0.1"], hints, nodeName: "node-a" };
    const bad = { addresses: ["10.0.0.2"], hints, nodeName: "Zone_A" };
    expect(problems({ services: [service], endpointSlices: [slice([ep, bad])] })).toEqual([
      `INVALID_VALUE endpointSlices[0].endpoints[1].nodeName: "Zone_A" is not a valid node name: lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit`,
    ]);
  });

  test("nothing is remembered from one call to the next", () => {
    const good = {
      services: [service],
      endpointSlices: [slice([{ addresses: ["10.0.0.1"], nodeName: "node-a" }])],
    };
    expect(problems(good)).toEqual([]);
    const unsafe = { addresses: ["10.0.0.1"], nodeName: 'node-a"' };
    expect(problems({ services: [service], endpointSlices: [slice([unsafe])] })).toEqual([
      `UNSAFE_TEXT endpointSlices[0].endpoints[0].nodeName: "node-a\\"" contains a double quote, which cannot be written safely into iptables rules`,
    ]);
  });
});

describe("validation: endpoint addresses in one scan", () => {
  function slice(addressType: string, addresses: string[]): object {
    return {
      metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType,
      endpoints: addresses.map((a) => ({ addresses: [a] })),
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    };
  }

  test.each([
    ["IPv4", "10.0.0.1", []],
    [
      "IPv4",
      "127.0.0.1",
      ['"127.0.0.1" is a loopback address (127.0.0.0/8, ::1/128), which is not allowed as an endpoint'],
    ],
    ["IPv4", "0.0.0.0", ['"0.0.0.0" is the unspecified address, which is not allowed as an endpoint']],
    [
      "IPv4",
      "169.254.3.4",
      [
        '"169.254.3.4" is a link-local address (169.254.0.0/16, fe80::/10), which is not allowed as an endpoint',
      ],
    ],
    [
      "IPv4",
      "224.0.0.9",
      [
        '"224.0.0.9" is a link-local multicast address (224.0.0.0/24, ff02::/16), which is not allowed as an endpoint',
      ],
    ],
    ["IPv4", "224.0.1.9", []],
    ["IPv4", "10.0.0.01", []], // a legacy spelling, valid in stored objects (IsValidIPForLegacyField)
    [
      "IPv4",
      "::ffff:127.0.0.1",
      [
        '"::ffff:127.0.0.1" is a loopback address (127.0.0.0/8, ::1/128), which is not allowed as an endpoint',
      ],
    ],
    ["IPv6", "::ffff:10.0.0.1", ['"::ffff:10.0.0.1" is an IPv4 address, not IPv6']],
    ["IPv4", "fd00::1", ['"fd00::1" is an IPv6 address, not IPv4']],
    ["IPv6", "10.0.0.1", ['"10.0.0.1" is an IPv4 address, not IPv6']],
    [
      "IPv6",
      "::1",
      ['"::1" is a loopback address (127.0.0.0/8, ::1/128), which is not allowed as an endpoint'],
    ],
  ])("%s slice, %s", (type, address, messages) => {
    const found = validateClusterInput({ endpointSlices: [slice(type, [address])] }).filter(
      (p) => p.severity === "error",
    );
    expect(found.map((p) => p.message)).toEqual(messages);
    for (const p of found) expect(p.path).toBe("endpointSlices[0].endpoints[0].addresses[0]");
  });
});

describe("unsafeTextProblem: a loop in place of UNSAFE_CHAR", () => {
  test("finds the same first unsafe character as the regex", () => {
    const text = fc.string({
      unit: fc.constantFrom(
        "a",
        "-",
        ".",
        '"',
        "'",
        "\\",
        "\n",
        "\u0000",
        "\u001f",
        " ",
        "\u007f",
        "\u0085",
        "\u009f",
        "\u00a0",
        "é",
        "\u2028",
      ),
    });
    fc.assert(
      fc.property(text, (s) => {
        const m = UNSAFE_CHAR.exec(s);
        expect(unsafeTextProblem(s)).toBe(m === null ? undefined : unsafeTextProblem(m[0]));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  test.each([
    ["web", undefined],
    ['a"b', "a double quote"],
    ["a\u0085", "a control character (U+0085)"],
    ["a\u00a0", undefined],
    ["\u007f", "a control character (U+007F)"],
  ])("%j → %s", (s, problem) => {
    expect(unsafeTextProblem(s)).toBe(problem);
  });
});

describe("SliceIndex: slices by Service without building keys", () => {
  // Names with "/" (invalid, but buildModel trusts its input) can make `namespace/name` keys meet.
  const part = fc.constantFrom("a", "b", "a/b", "b/a", "/", "", "a/", 7);
  const labels = fc.option(
    fc.record(
      { "kubernetes.io/service-name": part, "service.kubernetes.io/service-proxy-name": fc.constant("x") },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  );
  const slices = fc.array(fc.tuple(fc.option(part, { nil: undefined }), labels), { maxLength: 12 });

  test("finds for each Service the slices whose sliceServiceKey is its namespace/name, in order", () => {
    fc.assert(
      fc.property(slices, fc.array(fc.tuple(part, part), { maxLength: 8 }), (specs, services) => {
        const list = specs.map(
          ([namespace, l], i) =>
            ({
              metadata: { name: `s${i}`, namespace, labels: l },
              addressType: "IPv4",
            }) as unknown as EndpointSlice,
        );
        const index = indexSlices(list);
        for (const [namespace, name] of services) {
          const expected = list.filter((s) => sliceServiceKey(s) === `${namespace}/${name}`);
          expect(index.slicesOf(namespace, name)).toEqual(expected);
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

describe("endpoints built while validating (prepareCluster)", () => {
  const address = fc.constantFrom(
    "10.0.0.1",
    "10.0.0.01",
    "010.0.0.1",
    "10.0.0.256",
    "1.2.3",
    "fd00::1",
    "FD00:0::1",
    "fd00:0:0:0:0:0:0:1",
    "fd00::0001",
    "fd00:0:0:1::",
    "2001:db8::1:0:0:1",
    "2001:db8:0:0:1::1",
    "fe80::1",
    "::",
    "::ffff:10.0.0.1",
    "::10.0.0.1",
    "127.0.0.1",
    "0.0.0.0",
    "224.0.0.9",
    " 10.0.0.1",
    "",
  );
  const slices = fc.array(
    fc.record({
      addressType: fc.constantFrom("IPv4", "IPv6"),
      addresses: fc.array(fc.array(address, { maxLength: 2 }), { maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 4 },
  );

  test("a slice without errors keeps its addresses as they are only where scanning them would", () => {
    fc.assert(
      fc.property(slices, fc.constantFrom<IPFamily>("IPv4", "IPv6"), (specs, family) => {
        const list = specs.map(
          ({ addressType, addresses }, i) =>
            ({
              metadata: { name: `web-${i}`, namespace: "default", labels: { [SERVICE_NAME]: "web" } },
              addressType,
              endpoints: addresses.map((a) => ({ addresses: a, nodeName: "node-a" })),
              ports: [{ name: "http", port: 8080, protocol: "TCP" }],
            }) as unknown as EndpointSlice,
        );
        // Built while validating (each slice's addresses taken as they are when the validator
        // found them canonical) against read afterwards (every address scanned).
        const prebuilt = new PrebuiltEndpoints(family, "node-a");
        const web = {
          metadata: { name: "web", namespace: "default" },
          spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
        };
        const problems = validateAndPrebuild({ services: [web], endpointSlices: list }, prebuilt);
        const valid = list.filter(
          (_, i) =>
            !problems.some((p) => p.severity === "error" && p.path.startsWith(`endpointSlices[${i}]`)),
        );
        const fast = prebuilt.endpointsOf(0, "default", "web", "prefer-local");
        const scanned = new SliceReader(valid, family, "node-a").endpointsOf(
          0,
          "default",
          "web",
          "prefer-local",
        );
        // (No slice of the family: undefined from one, no ports from the other.)
        expect(fast ?? new PortEndpoints()).toEqual(scanned ?? new PortEndpoints());
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  test("the model is the one buildModel makes of the objects without errors", () => {
    /** The model, or the message of what was thrown. */
    const outcome = (build: () => unknown): unknown => {
      try {
        return build();
      } catch (e) {
        return `threw ${(e as Error).message}`;
      }
    };
    fc.assert(
      fc.property(
        seededClusterArbitrary(),
        fc.constantFrom<IPFamily | undefined>(undefined, "IPv4", "IPv6"),
        fc.constantFrom(undefined, "", "node-a", "node-b"),
        fc.nat(),
        fc.constantFrom("addressType", "labels"),
        (seeded, family, hostname, breakAt, breakWhat) => {
          const cluster = structuredClone(seeded.cluster) as unknown as {
            endpointSlices: { addressType: unknown; metadata: { labels?: unknown } }[];
          };
          // Now and then, leave a slice out (an error), or give it `labels: null` (valid: no
          // labels, so kube-proxy does not read it), with or without endpoints built while validating.
          const broken = cluster.endpointSlices[breakAt % (cluster.endpointSlices.length + 1)];
          if (broken !== undefined && breakWhat === "addressType") broken.addressType = "IPv5";
          if (broken !== undefined && breakWhat === "labels") broken.metadata.labels = null;
          const options = {
            ...(family === undefined ? {} : { family }),
            ...(hostname === undefined ? {} : { config: { hostname } }),
          };
          const input = cluster as unknown as ClusterInput;
          const problems = validateClusterInput(input);
          const bad = (list: string, i: number) =>
            problems.some((p) => p.severity === "error" && p.path.startsWith(`${list}[${i}]`));
          const valid = {
            ...input,
            services: (input.services ?? []).filter((_, i) => !bad("services", i)),
            endpointSlices: (input.endpointSlices ?? []).filter((_, i) => !bad("endpointSlices", i)),
          };
          expect(outcome(() => prepareCluster(input, options).model)).toEqual(
            outcome(() => modelFromInput(valid, options)),
          );
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });
});

describe("PortEndpoints: lists by port name and protocol, as a Map by name and protocol keeps them", () => {
  const name = fc.constantFrom("", "http", "https", "h", "http\u0000TCP", "dns");
  const protocol = fc.constantFrom("TCP", "UDP", "SCTP", "tcp", "udp", "Tcp", "sctp");
  const endpoint = (n: number) => ({ ip: `10.0.0.${n}` }) as unknown as Endpoint;

  // The reference Map's key: port name and upper-case protocol.
  const portKey = (n: string, p: string) => `${n}\u0000${p.toUpperCase()}`;

  test("the same lists found by of() and in order, appended in the same order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, protocol), { maxLength: 12 }),
        fc.array(fc.tuple(name, protocol), { maxLength: 6 }),
        fc.array(fc.tuple(name, protocol), { maxLength: 8 }),
        (adds, more, queries) => {
          const lists = new PortEndpoints();
          const reference = new Map<string, Endpoint[]>();
          adds.forEach(([n, p], i) => {
            lists.listOf(n, p).push(endpoint(i));
            const key = portKey(n, p);
            reference.set(key, [...(reference.get(key) ?? []), endpoint(i)]);
          });
          const other = new PortEndpoints();
          more.forEach(([n, p], i) => {
            other.listOf(n, p).push(endpoint(100 + i));
          });
          lists.appendAll(other);
          more.forEach(([n, p], i) => {
            const key = portKey(n, p);
            reference.set(key, [...(reference.get(key) ?? []), endpoint(100 + i)]);
          });
          expect(lists.size).toBe(reference.size);
          expect(Array.from({ length: lists.size }, (_, i) => lists.listAt(i))).toEqual([
            ...reference.values(),
          ]);
          for (const [n, p] of [...adds, ...more, ...queries]) {
            expect(lists.of(n, p)).toEqual(reference.get(portKey(n, p)));
          }
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

describe("endpoints built while validating, kept by Service", () => {
  const service = (name: string, port = 80) => ({
    metadata: { name, namespace: "default" },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port }] },
  });
  const slice = (name: string, service: string, address: string, labels: object = {}) => ({
    metadata: { name, namespace: "default", labels: { [SERVICE_NAME]: service, ...labels } },
    addressType: "IPv4",
    endpoints: [{ addresses: [address] }],
    ports: [{ name: "http", port: 8080 }],
  });

  test("Services left out before a valid one do not shift its endpoints onto another", () => {
    const input = {
      config: { hostname: "node-a" },
      // services[0] and [2] are invalid (a port out of range; a duplicate of services[1]).
      services: [service("bad", 70000), service("web"), service("web"), service("api")],
      endpointSlices: [
        slice("bad-1", "bad", "10.0.0.1"),
        slice("web-1", "web", "10.0.0.2"),
        slice("api-1", "api", "10.0.0.3"),
        // Not read: kube-proxy's informers filter the label out (the validator looks it up for
        // nothing, and the model builder skips it too).
        slice("api-2", "api", "10.0.0.4", { "service.kubernetes.io/headless": "" }),
        slice("none-1", "none", "10.0.0.5"),
      ],
    } as unknown as ClusterInput;
    const valid = { ...input, services: [service("web"), service("api")] } as unknown as ClusterInput;
    const prepared = prepareCluster(input).model;
    expect(prepared).toEqual(modelFromInput(valid));
    expect(prepared?.servicePorts.map((p) => [p.name, p.endpoints.map((e) => e.ip)])).toEqual([
      ["web", ["10.0.0.2"]],
      ["api", ["10.0.0.3"]],
    ]);
  });
});

describe("labels: null", () => {
  // JSON null is an absent field, as Go decodes it: no labels. It used to throw a TypeError.
  const service = (labels: unknown) =>
    ({
      metadata: { name: "web", namespace: "default", labels },
      spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    }) as unknown as Service;
  const slice = (labels: unknown) =>
    ({
      metadata: { name: "web-1", namespace: "default", labels },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.1.5"], conditions: { ready: true } }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }) as unknown as EndpointSlice;

  test("a Service with labels: null is read like one without labels", () => {
    const withNull = prepareCluster({ config: { hostname: "a" }, services: [service(null)] });
    const without = prepareCluster({ config: { hostname: "a" }, services: [service(undefined)] });
    expect(withNull.model).toEqual(without.model);
    expect(withNull.model?.servicePorts).toHaveLength(1);
  });

  test("a slice with labels: null belongs to no Service, in every path", () => {
    const input = {
      config: { hostname: "a" },
      services: [service(undefined)],
      endpointSlices: [slice(null)],
    };
    const prepared = prepareCluster(input);
    expect(prepared.model?.servicePorts[0]?.endpoints).toEqual([]);
    expect(modelFromInput(input).servicePorts[0]?.endpoints).toEqual([]);
    expect(
      buildModel(input.services, input.endpointSlices, resolveConfig(input.config)).servicePorts[0]
        ?.endpoints,
    ).toEqual([]);
  });
});
