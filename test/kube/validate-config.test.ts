// A detect-local CIDR of length 0 makes kube-proxy write `! -s 0.0.0.0/0`, which iptables-restore
// refuses on the nf_tables backend: the library refuses it as a config problem, from the input's
// config and from prepareCluster's overrides alike, instead of failing while printing.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  type ClusterInput,
  generateRestoreText,
  generateSaveText,
  prepareCluster,
  validateClusterInput,
} from "../../src/index.js";
import { resolveConfig } from "../../src/kube/config.js";

const services = [
  {
    metadata: { name: "web", namespace: "default" },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
  },
];

function errors(problems: readonly { severity: string; path: string; message: string }[]): string[] {
  return problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

describe("a /0 detect-local CIDR", () => {
  test.each([
    ["ClusterCIDR", ["0.0.0.0/0"], "config.detectLocal.cidrs[0]", "0.0.0.0/0"],
    ["NodeCIDR", ["::/0"], "config.detectLocal.cidrs[0]", "::/0"],
    ["ClusterCIDR", ["fd00:10::/64", "000.000.000.000/00"], "config.detectLocal.cidrs[1]", "0.0.0.0/0"],
  ])("%s %j is refused at %s", (mode, cidrs, path, printed) => {
    const input = { config: { detectLocal: { mode, cidrs } }, services } as unknown as ClusterInput;
    const { model, problems } = prepareCluster(input);
    expect(model).toBeNull();
    const found = errors(problems);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`${path}: `);
    expect(found[0]).toContain(`(! -s ${printed})`);
    expect(errors(validateClusterInput(input))).toEqual(found);
  });

  test("an unused /0 (not the first CIDR of its family) is accepted", () => {
    const input = {
      config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["10.0.0.0/8", "0.0.0.0/0"] } },
      services,
    } as unknown as ClusterInput;
    expect(errors(validateClusterInput(input))).toEqual([]);
  });

  test("a /0 in prepareCluster's config overrides is refused at options.config", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["0.0.0.0/0"] } },
    });
    expect(model).toBeNull();
    expect(errors(problems)).toEqual([
      `options.config.detectLocal.cidrs[0]: "0.0.0.0/0" covers every IPv4 address: the rule kube-proxy would write for it (! -s 0.0.0.0/0) is refused by iptables-restore on the nf_tables backend; give the pods' CIDR`,
    ]);
  });

  test("a mark bit out of range in the overrides is refused too", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { masqueradeBit: 40 },
    });
    expect(model).toBeNull();
    expect(errors(problems)).toEqual(["options.config.masqueradeBit: 40 is not a mark bit (0-31)"]);
  });

  test("valid overrides add no problem", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { masqueradeBit: 15, detectLocal: { mode: "ClusterCIDR", cidrs: ["10.0.0.0/8"] } },
    });
    expect(model).not.toBeNull();
    expect(errors(problems)).toEqual([]);
  });
});

// The /0 crash was found only when printing: every config the validator accepts must print.
const cidr = fc.constantFrom(
  "0.0.0.0/0",
  "::/0",
  "10.0.0.0/8",
  "010.0.0.0/08",
  "::ffff:0.0.0.0/96",
  "::ffff:10.0.0.0/104",
  "fd00::/8",
  "10.0.0.1/32",
  "fd00::1/128",
  "127.0.0.0/8",
  "::1/128",
  "0.0.0.0/1",
);
const ip = fc.constantFrom(
  "10.0.0.1",
  "010.0.0.1",
  "::ffff:10.0.0.2",
  "fd00::1",
  "127.0.0.1",
  "::1",
  "0.0.0.0",
  "192.168.0.2",
);
const config = fc.record(
  {
    masqueradeBit: fc.integer({ min: 0, max: 31 }),
    nodeIPs: fc.array(ip, { maxLength: 3 }),
    nodePortAddresses: fc.oneof(fc.constant(["primary"]), fc.array(cidr, { maxLength: 3 })),
    detectLocal: fc.oneof(
      fc.record({
        mode: fc.constantFrom("ClusterCIDR", "NodeCIDR"),
        cidrs: fc.array(cidr, { maxLength: 3 }),
      }),
      fc.constant({ mode: "None" }),
    ),
    localhostNodePorts: fc.boolean(),
    masqueradeAll: fc.boolean(),
    hasRandomFully: fc.boolean(),
    profile: fc.constantFrom("v1.30", "v1.32", "latest", "v1.22"),
    hostname: fc.constant("node-a"),
  },
  { requiredKeys: [] },
);

const dualStack = [
  {
    metadata: { name: "web", namespace: "default" },
    spec: {
      type: "LoadBalancer",
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10", "fd00:96::10"],
      ipFamilies: ["IPv4", "IPv6"],
      ipFamilyPolicy: "RequireDualStack",
      externalTrafficPolicy: "Local",
      healthCheckNodePort: 32000,
      externalIPs: ["192.0.2.1", "fd00:2::1"],
      loadBalancerSourceRanges: ["0.0.0.0/0", "::/0", "::ffff:10.0.0.0/96"],
      ports: [{ name: "80-8080", port: 80, nodePort: 30080 }],
    },
    status: { loadBalancer: { ingress: [{ ip: "203.0.113.1" }, { ip: "fd00:113::1" }] } },
  },
];
const endpointSlices = [
  {
    metadata: { name: "a", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["010.244.0.1"], nodeName: "node-a" }],
    ports: [{ name: "80-8080", port: 8080 }],
  },
  {
    metadata: { name: "b", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv6",
    endpoints: [{ addresses: ["fd00:244::1"], nodeName: "node-a" }],
    ports: [{ name: "80-8080", port: 8080 }],
  },
];

describe("every config that validates can be printed", () => {
  test("restore and save forms, both families, random configs with edge CIDRs and legacy IPs", () => {
    fc.assert(
      fc.property(config, fc.constantFrom("IPv4", "IPv6"), (cfg, family) => {
        const { model, problems } = prepareCluster(
          { config: cfg, services: dualStack, endpointSlices } as never,
          {
            family: family as "IPv4",
          },
        );
        if (model === null) {
          expect(problems.some((p) => p.severity === "error")).toBe(true);
          return;
        }
        generateRestoreText(model);
        generateSaveText(model);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the hostname, as kube-proxy's --hostname-override", () => {
  // kube-proxy trims and lower-cases it (GetHostname), as the kubelet does the node's name: a
  // name given as `hostname` prints it on the node is the node endpoints name.
  const local = {
    services: [
      {
        metadata: { name: "web", namespace: "default" },
        spec: {
          clusterIP: "10.96.0.10",
          internalTrafficPolicy: "Local",
          ports: [{ name: "http", port: 80 }],
        },
      },
    ],
    endpointSlices: [
      {
        metadata: { name: "web-a", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.244.1.5"], nodeName: "node-a" }],
        ports: [{ name: "http", port: 8080 }],
      },
    ],
  };

  test("is trimmed and lower-cased, from the config and from the overrides", () => {
    expect(resolveConfig({ hostname: " Node-A\n" }).hostname).toBe("node-a");
    expect(resolveConfig({}, { hostname: "NODE-A" }).hostname).toBe("node-a");
    for (const prepared of [
      prepareCluster({ ...local, config: { hostname: "Node-A" } } as unknown as ClusterInput),
      prepareCluster(local as unknown as ClusterInput, { config: { hostname: "NODE-A " } }),
    ]) {
      expect(prepared.problems).toEqual([]);
      expect(prepared.model?.servicePorts[0]?.endpoints.map((e) => e.isLocal)).toEqual([true]);
    }
  });
});
