// Rules where the library once parted from the API server: what ValidateObjectMeta,
// ValidateService and the discovery validation refuse is refused (with the path of the bad
// field), and what they accept once SetDefaults_Service ran is accepted and read as the
// defaulted value, so that its rules are those of the object written out in full.
import { describe, expect, test } from "vitest";
import {
  type ClusterInput,
  generateRestoreText,
  prepareCluster,
  splitKubernetesList,
  validateClusterInput,
  validateKubernetesList,
} from "../../src/index.js";

type Json = Record<string, unknown>;

function service(spec: Json = {}, metadata: Json = {}): Json {
  return {
    metadata: { name: "web", namespace: "default", ...metadata },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }], ...spec },
  };
}

function slice(extra: Json = {}, metadata: Json = {}): Json {
  return {
    metadata: {
      name: "web-abc",
      namespace: "default",
      labels: { "kubernetes.io/service-name": "web" },
      ...metadata,
    },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.1.1"], conditions: { ready: true }, nodeName: "node-a" }],
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    ...extra,
  };
}

function errors(input: unknown): string[] {
  return validateClusterInput(input)
    .filter((p) => p.severity === "error")
    .map((p) => `${p.code} ${p.path}: ${p.message}`);
}

/** The iptables-restore payload of a cluster, which must be valid. */
function restore(input: unknown): string {
  const { model, problems } = prepareCluster(input as ClusterInput, { family: "IPv4" });
  expect(problems.filter((p) => p.severity === "error")).toEqual([]);
  if (model === null) throw new Error("no model");
  return generateRestoreText(model);
}

const NODE_PORT = { type: "NodePort", ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080 }] };

describe("annotations (ValidateAnnotations)", () => {
  test("keys are qualified names once lower-cased, on Services and slices alike", () => {
    const good = {
      "Example.COM/Owner": "a",
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
      // Go lower-cases 'İ' to a plain 'i' (JavaScript's full mapping would add a combining dot).
      "\u0130stanbul": "b",
    };
    expect(
      errors({
        services: [service({}, { annotations: good })],
        endpointSlices: [slice({}, { annotations: good })],
      }),
    ).toEqual([]);
    const bad = { "bad key!": "x", "a/b/c": "y", "example.com/": "z", "-x": "w" };
    expect(errors({ services: [service({}, { annotations: bad })] })).toEqual([
      `INVALID_VALUE services[0].metadata.annotations["bad key!"]: "bad key!" is not a valid annotation key: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
      `INVALID_VALUE services[0].metadata.annotations["a/b/c"]: "a/b/c" is not a valid annotation key: after the '/': letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
      `INVALID_VALUE services[0].metadata.annotations["example.com/"]: "example.com/" is not a valid annotation key: the name is empty`,
      `INVALID_VALUE services[0].metadata.annotations["-x"]: "-x" is not a valid annotation key: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    ]);
    expect(
      errors({ services: [service()], endpointSlices: [slice({}, { annotations: { "x y": "1" } })] }),
    ).toEqual([
      `INVALID_VALUE endpointSlices[0].metadata.annotations["x y"]: "x y" is not a valid annotation key: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    ]);
  });

  test("keys and values hold at most 256 KiB of UTF-8 together", () => {
    const limit = 256 * 1024;
    const at = (annotations: Json) => errors({ services: [service({}, { annotations })] });
    expect(at({ k: "x".repeat(limit - 1) })).toEqual([]);
    expect(at({ a: "x".repeat(limit / 2 - 1), b: "y".repeat(limit / 2 - 1) })).toEqual([]);
    const tooBig = `INVALID_VALUE services[0].metadata.annotations: hold ${limit + 1} bytes of keys and values; an object's annotations hold at most ${limit} (256 KiB)`;
    expect(at({ k: "x".repeat(limit) })).toEqual([tooBig]);
    // "€" is one UTF-16 unit but three bytes: 87,382 of them pass a count of characters.
    expect(at({ k: "€".repeat(87381) })).toEqual([]);
    expect(at({ k: "€".repeat(87382) })).toEqual([
      `INVALID_VALUE services[0].metadata.annotations: hold ${1 + 3 * 87382} bytes of keys and values; an object's annotations hold at most ${limit} (256 KiB)`,
    ]);
    // A character outside the BMP is two units and four bytes.
    expect(at({ k: "\u{1F600}".repeat(65536) })).toEqual([
      `INVALID_VALUE services[0].metadata.annotations: hold ${1 + 4 * 65536} bytes of keys and values; an object's annotations hold at most ${limit} (256 KiB)`,
    ]);
  });
});

describe("Service annotations ValidateService reads", () => {
  const MODE = "service.kubernetes.io/topology-mode";
  const HINTS = "service.kubernetes.io/topology-aware-hints";
  const RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";

  test("the two topology annotations, when both are set, are the same", () => {
    for (const annotations of [
      { [MODE]: "Auto" },
      { [HINTS]: "Auto" },
      { [MODE]: "Auto", [HINTS]: "Auto" },
    ]) {
      expect(errors({ services: [service({}, { annotations })] })).toEqual([]);
    }
    expect(errors({ services: [service({}, { annotations: { [MODE]: "Auto", [HINTS]: "" } })] })).toEqual([
      `INVALID_VALUE services[0].metadata.annotations["${MODE}"]: "Auto" must match annotations["${HINTS}"] ("") when both are set`,
    ]);
  });

  test("the source-range annotation: only on a LoadBalancer Service, comma-separated CIDRs", () => {
    const lb = (annotations: Json, spec: Json = {}) =>
      errors({ services: [service({ type: "LoadBalancer", ...spec }, { annotations })] });
    expect(lb({ [RANGES]: " 10.0.0.0/8 , 192.168.0.0/16,fd00::/8 " })).toEqual([]);
    expect(lb({ [RANGES]: "  " })).toEqual([]);
    // Legacy spellings stay valid in stored objects (IsValidCIDRForLegacyField).
    expect(lb({ [RANGES]: "010.0.0.0/8" })).toEqual([]);
    expect(lb({ [RANGES]: "10.0.0.0/8, 10.1.0.0" })).toEqual([
      `INVALID_VALUE services[0].metadata.annotations["${RANGES}"]: "10.1.0.0" is not a CIDR (address/prefix-length)`,
    ]);
    expect(lb({ [RANGES]: "10.0.0.0/8," })).toHaveLength(1);
    // With the field set, the annotation is not read.
    expect(lb({ [RANGES]: "nonsense" }, { loadBalancerSourceRanges: ["10.0.0.0/8"] })).toEqual([]);
    // Set at all, even empty, on another type.
    for (const spec of [NODE_PORT, { type: "ClusterIP" }]) {
      const type = spec === NODE_PORT ? "NodePort" : "ClusterIP";
      expect(errors({ services: [service(spec, { annotations: { [RANGES]: "" } })] })).toEqual([
        `INVALID_VALUE services[0].metadata.annotations["${RANGES}"]: may only be set on a LoadBalancer Service, not a ${type} Service`,
      ]);
    }
  });

  test("kube-proxy reads the source ranges from the field only", () => {
    const lbService = (spec: Json, annotations: Json = {}) => ({
      services: [
        {
          ...service(
            { type: "LoadBalancer", ports: [{ name: "http", port: 80, nodePort: 30080 }], ...spec },
            { annotations },
          ),
          status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } },
        },
      ],
      endpointSlices: [slice({ ports: [{ name: "http", port: 8080 }] })],
    });
    const plain = restore(lbService({}));
    expect(restore(lbService({}, { [RANGES]: "192.0.2.0/24" }))).toBe(plain);
    expect(restore(lbService({ loadBalancerSourceRanges: ["192.0.2.0/24"] }))).not.toBe(plain);
  });
});

describe("source ranges are trimmed as Go's strings.TrimSpace trims", () => {
  const lbService = (ranges: string[], annotations: Json = {}) => ({
    services: [
      {
        ...service(
          {
            type: "LoadBalancer",
            ports: [{ name: "http", port: 80, nodePort: 30080 }],
            loadBalancerSourceRanges: ranges,
          },
          { annotations },
        ),
        status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } },
      },
    ],
    endpointSlices: [slice({ ports: [{ name: "http", port: 8080 }] })],
  });

  test("U+0085 (NEL) is white space to Go, and the range is read without it", () => {
    const plain = restore(lbService(["192.0.2.0/24"]));
    expect(plain).toContain("192.0.2.0/24");
    expect(restore(lbService(["\u0085 192.0.2.0/24\u00a0\u3000"]))).toBe(plain);
    const annotation = {
      "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8\u0085,\u2028192.0.2.0/24",
    };
    expect(errors(lbService([], annotation))).toEqual([]);
  });

  test("U+FEFF is not (JavaScript's trim would strip it)", () => {
    expect(errors(lbService(["\ufeff192.0.2.0/24"]))).toEqual([
      'INVALID_VALUE services[0].spec.loadBalancerSourceRanges[0]: "\ufeff192.0.2.0/24" is not a valid IP CIDR',
    ]);
  });
});

describe("spec fields ValidateService reads", () => {
  test("loadBalancerClass: a qualified name, only on a LoadBalancer Service", () => {
    const lb = { type: "LoadBalancer", ports: [{ name: "http", port: 80 }] };
    expect(errors({ services: [service({ ...lb, loadBalancerClass: "example.com/internal-lb" })] })).toEqual(
      [],
    );
    expect(errors({ services: [service({ loadBalancerClass: null })] })).toEqual([]);
    expect(errors({ services: [service({ ...lb, loadBalancerClass: "example.com/my lb" })] })).toEqual([
      `INVALID_VALUE services[0].spec.loadBalancerClass: "example.com/my lb" is not a valid load-balancer class: after the '/': letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    ]);
    expect(errors({ services: [service({ ...NODE_PORT, loadBalancerClass: "example.com/lb" })] })).toEqual([
      "INVALID_VALUE services[0].spec.loadBalancerClass: may only be set on a LoadBalancer Service, not a NodePort Service",
    ]);
  });

  test("loadBalancerIP is never refused for its value (the API server only warns), only for its type", () => {
    const lb = { type: "LoadBalancer", ports: [{ name: "http", port: 80 }] };
    expect(errors({ services: [service({ ...lb, loadBalancerIP: "not-an-ip" })] })).toEqual([]);
    expect(errors({ services: [service({ ...lb, loadBalancerIP: 5 })] })).toEqual([
      "TYPE services[0].spec.loadBalancerIP: expected a string, got the number 5",
    ]);
  });
});

describe("what SetDefaults_Service fills in", () => {
  const cluster = (spec: Json, port: Json = {}) => ({
    config: { hostname: "node-a" },
    services: [service({ ...spec, ports: [{ name: "http", port: 80, ...port }] })],
    endpointSlices: [slice()],
  });

  test("an empty type is ClusterIP: accepted, held to ClusterIP's rules, and given its rules", () => {
    expect(errors(cluster({ type: "" }))).toEqual([]);
    expect(restore(cluster({ type: "" }))).toBe(restore(cluster({ type: "ClusterIP" })));
    expect(errors(cluster({ type: "" }, { nodePort: 30080 }))).toEqual([
      "INVALID_VALUE services[0].spec.ports[0].nodePort: 30080 is set, but a ClusterIP Service has no node ports",
    ]);
  });

  test("an empty port protocol is TCP: accepted, a duplicate of TCP, and given TCP's rules", () => {
    expect(errors(cluster({}, { protocol: "" }))).toEqual([]);
    const tcp = restore(cluster({}, { protocol: "TCP" }));
    expect(tcp).toContain("-p tcp");
    expect(restore(cluster({}, { protocol: "" }))).toBe(tcp);
    const twice = service({
      ports: [
        { name: "a", port: 80, protocol: "" },
        { name: "b", port: 80, protocol: "TCP" },
      ],
    });
    expect(errors({ services: [twice] })).toEqual([
      "DUPLICATE services[0].spec.ports[1]: 80/TCP is already used by ports[0]",
    ]);
  });

  test("an empty session affinity is None, and a None Service's affinity config is dropped", () => {
    const none = restore(cluster({ sessionAffinity: "None" }));
    expect(errors(cluster({ sessionAffinity: "" }))).toEqual([]);
    expect(restore(cluster({ sessionAffinity: "" }))).toBe(none);
    const config = { sessionAffinityConfig: { clientIP: { timeoutSeconds: 99999 } } };
    for (const affinity of [{}, { sessionAffinity: "" }, { sessionAffinity: "None" }]) {
      expect(errors(cluster({ ...affinity, ...config }))).toEqual([]);
      expect(restore(cluster({ ...affinity, ...config }))).toBe(none);
    }
    // Dropped after decoding: the timeout still has to be an int32.
    expect(errors(cluster({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 1.5 } } }))).toEqual([
      "INVALID_VALUE services[0].spec.sessionAffinityConfig.clientIP.timeoutSeconds: 1.5 is not a 32-bit integer",
    ]);
    // With ClientIP the range still holds, and the timeout is what the rules use.
    const sticky = {
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
    };
    expect(restore(cluster(sticky))).toContain("--seconds 600");
  });

  test("an empty externalTrafficPolicy is Cluster where it applies and allowed where it does not", () => {
    const nodePort = (etp: Json) => cluster({ type: "NodePort", ...etp }, { nodePort: 30080 });
    expect(errors(nodePort({ externalTrafficPolicy: "" }))).toEqual([]);
    expect(restore(nodePort({ externalTrafficPolicy: "" }))).toBe(
      restore(nodePort({ externalTrafficPolicy: "Cluster" })),
    );
    expect(restore(nodePort({ externalTrafficPolicy: "Local" }))).not.toBe(restore(nodePort({})));
    expect(errors(cluster({ externalTrafficPolicy: "" }))).toEqual([]);
    expect(errors(cluster({ type: "ClusterIP", externalTrafficPolicy: "Cluster" }))).toEqual([
      'INVALID_VALUE services[0].spec.externalTrafficPolicy: "Cluster" may only be set on an externally accessible Service (NodePort, LoadBalancer or with externalIPs)',
    ]);
  });
});

describe("what SetDefaults_Endpoints fills in", () => {
  test("an empty v1 Endpoints port protocol is TCP, as the mirrored slice says", () => {
    const list = (protocol: string) => ({
      apiVersion: "v1",
      kind: "List",
      items: [
        { apiVersion: "v1", kind: "Service", ...service({ ports: [{ name: "http", port: 80, protocol }] }) },
        {
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name: "web", namespace: "default" },
          subsets: [{ addresses: [{ ip: "10.244.1.1" }], ports: [{ name: "http", port: 8080, protocol }] }],
        },
      ],
    });
    expect(validateKubernetesList(list("")).filter((p) => p.severity === "error")).toEqual([]);
    const rules = (protocol: string) => {
      const split = splitKubernetesList(list(protocol));
      return restore({ services: split.services, endpointSlices: split.endpointSlices });
    };
    expect(rules("TCP")).toContain("-j KUBE-SEP-");
    expect(rules("")).toBe(rules("TCP"));
  });
});

describe("EndpointSlice endpoints (validateEndpoints)", () => {
  test("an endpoint needs at least one address", () => {
    for (const endpoint of [{ addresses: [] }, { addresses: null }, {}]) {
      expect(errors({ services: [service()], endpointSlices: [slice({ endpoints: [endpoint] })] })).toEqual([
        "REQUIRED endpointSlices[0].endpoints[0].addresses: an endpoint needs at least one address",
      ]);
    }
    expect(errors({ endpointSlices: [slice({ endpoints: [{ addresses: "10.0.0.1" }] })] })).toEqual([
      'TYPE endpointSlices[0].endpoints[0].addresses: expected an array, got the string "10.0.0.1"',
    ]);
  });

  test("the zone is not checked, and makes no rules", () => {
    const withZone = (zone: unknown) =>
      slice({
        endpoints: [{ addresses: ["10.244.1.1"], conditions: { ready: true }, nodeName: "node-a", zone }],
      });
    const plain = restore({ services: [service()], endpointSlices: [slice()] });
    for (const zone of ["Zone A!", "a\nb", "zone\u0085"]) {
      expect(errors({ services: [service()], endpointSlices: [withZone(zone)] })).toEqual([]);
      expect(restore({ services: [service()], endpointSlices: [withZone(zone)] })).toBe(plain);
    }
    expect(errors({ endpointSlices: [withZone(5)] })).toEqual([
      "TYPE endpointSlices[0].endpoints[0].zone: expected a string, got the number 5",
    ]);
  });

  test("FQDN addresses are fully qualified domain names (IsFullyQualifiedDomainName)", () => {
    const fqdn = (...addresses: string[]) =>
      errors({
        endpointSlices: [
          slice({ addressType: "FQDN", endpoints: addresses.map((a) => ({ addresses: [a] })) }),
        ],
      });
    expect(fqdn("db.example.com", "db.example.com.", `${"a".repeat(63)}.example`)).toEqual([]);
    const at = (i: number) => `endpointSlices[0].endpoints[${i}].addresses[0]`;
    expect(
      fqdn("localhost", `${"a".repeat(64)}.example.com`, "db.example.com..", "DB.example.com", ""),
    ).toEqual([
      `INVALID_VALUE ${at(0)}: "localhost" is not a valid fully qualified domain name: at least two labels separated by dots`,
      `INVALID_VALUE ${at(1)}: "${"a".repeat(64)}.example.com" is not a valid fully qualified domain name: each label at most 63 characters`,
      `INVALID_VALUE ${at(2)}: "db.example.com.." is not a valid fully qualified domain name: lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit`,
      `INVALID_VALUE ${at(3)}: "DB.example.com" is not a valid fully qualified domain name: lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit`,
      `REQUIRED ${at(4)}: an FQDN address is required`,
    ]);
  });
});
