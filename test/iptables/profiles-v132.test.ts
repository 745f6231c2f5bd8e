// Profile v1.32: the worked examples of §17 of the spec (expected outputs of kube-proxy's own
// unit tests, 1.31+) come out byte for byte after the canonical sort of §16. The inputs are built
// as Kubernetes objects with the fake proxier's settings (§16); the expected texts are copied
// from the spec into fixtures/spec-examples/.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ClusterModel, formatRestore, generateRules } from "../../src/index.js";
import { createContext } from "../../src/iptables/context.js";
import { assemblePayload } from "../../src/iptables/output/rules.js";
import { servicePortRules } from "../../src/iptables/output/write-port.js";
import { canonicalSort } from "../../src/iptables/print/canonical-sort.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { sortServicePorts } from "../../src/plan/service-port-order.js";
import type { ClusterInput, EndpointSlice, Service } from "../support/stored-types.js";

const example = (name: string): string =>
  readFileSync(new URL(`../fixtures/spec-examples/${name}.txt`, import.meta.url), "utf8");

/** The fake proxier of proxier_test.go (§16). */
const FAKE_CONFIG = {
  ipFamily: "IPv4",
  hostname: "test-node",
  nodeIPs: ["192.168.0.2"],
  detectLocal: { mode: "ClusterCIDR", cidrs: ["10.0.0.0/8"] },
  masqueradeBit: 14,
  localhostNodePorts: true,
  nodePortAddresses: [],
  hasRandomFully: false,
  profile: "v1.32",
} as const;

/** The tests inject the mark as `0x4000`; real kube-proxy prints `%#08x`. */
const TEST_TRAITS = { paddedMark: false } as const;

type ServiceSpec = Service["spec"];

function service(ns: string, name: string, spec: ServiceSpec, ingress: readonly string[] = []): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: ns, name },
    spec,
    ...(ingress.length === 0 ? {} : { status: { loadBalancer: { ingress: ingress.map((ip) => ({ ip })) } } }),
  };
}

function slice(ns: string, svc: string, endpoints: readonly { ip: string; node?: string }[]): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { namespace: ns, name: `${svc}-1`, labels: { "kubernetes.io/service-name": svc } },
    addressType: "IPv4",
    endpoints: endpoints.map((ep) => ({
      addresses: [ep.ip],
      ...(ep.node === undefined ? {} : { nodeName: ep.node }),
    })),
    ports: [{ name: "p80", port: 80, protocol: "TCP" }],
  } as EndpointSlice;
}

const p80 = (nodePort?: number) => [
  { name: "p80", port: 80, protocol: "TCP" as const, ...(nodePort === undefined ? {} : { nodePort }) },
];

function model(services: Service[], endpointSlices: EndpointSlice[]): ClusterModel {
  return modelFromInput({ config: FAKE_CONFIG, services, endpointSlices } as unknown as ClusterInput);
}

const canonical = (m: ClusterModel): string =>
  formatRestore(canonicalSort(generateRules(m, { traits: TEST_TRAITS })));

describe("§17 worked examples under profile v1.32", () => {
  it("Example 1: TestOverallIPTablesRules", () => {
    const m = model(
      [
        service("ns1", "svc1", { type: "ClusterIP", clusterIP: "172.30.0.41", ports: p80() }),
        service(
          "ns2",
          "svc2",
          {
            type: "LoadBalancer",
            clusterIP: "172.30.0.42",
            ports: p80(3001),
            externalIPs: ["192.168.99.22"],
            externalTrafficPolicy: "Local",
            healthCheckNodePort: 30000,
          },
          ["1.2.3.4"],
        ),
        service("ns3", "svc3", { type: "NodePort", clusterIP: "172.30.0.43", ports: p80(3003) }),
        service("ns4", "svc4", {
          type: "NodePort",
          clusterIP: "172.30.0.44",
          ports: p80(),
          externalIPs: ["192.168.99.33"],
        }),
        service(
          "ns5",
          "svc5",
          {
            type: "LoadBalancer",
            clusterIP: "172.30.0.45",
            ports: p80(3002),
            externalTrafficPolicy: "Cluster",
            healthCheckNodePort: 30000,
            loadBalancerSourceRanges: [" 203.0.113.0/25"],
            sessionAffinity: "ClientIP",
            sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
          },
          ["5.6.7.8"],
        ),
        service("ns6", "svc6", { type: "ClusterIP", clusterIP: "172.30.0.46", ports: p80() }),
      ],
      [
        slice("ns1", "svc1", [{ ip: "10.180.0.1" }]),
        slice("ns2", "svc2", [{ ip: "10.180.0.2" }]),
        slice("ns3", "svc3", [{ ip: "10.180.0.3" }]),
        slice("ns4", "svc4", [
          { ip: "10.180.0.4", node: "test-node" },
          { ip: "10.180.0.5", node: "test-node" },
        ]),
        slice("ns5", "svc5", [{ ip: "10.180.0.3" }]),
      ],
    );
    expect(canonical(m)).toBe(example("example-1-overall"));
  });

  const svc1 = service("ns1", "svc1", { type: "ClusterIP", clusterIP: "172.30.0.41", ports: p80() });
  const svc2 = service("ns2", "svc2", {
    type: "ClusterIP",
    clusterIP: "172.30.0.42",
    ports: [{ name: "p8080", port: 8080, protocol: "TCP" }],
  });
  const svc2Slice = {
    ...slice("ns2", "svc2", [{ ip: "10.0.2.1" }]),
    ports: [{ name: "p8080", port: 8080, protocol: "TCP" }],
  } as EndpointSlice;
  const svc3 = service("ns3", "svc3", { type: "ClusterIP", clusterIP: "172.30.0.43", ports: p80() });

  it("Example 2: TestSyncProxyRulesRepeated, initial full sync (canonical and raw order)", () => {
    const m = model([svc1, svc2], [slice("ns1", "svc1", [{ ip: "10.0.1.1" }]), svc2Slice]);
    expect(canonical(m)).toBe(example("example-2-repeated-initial"));
    expect(formatRestore(generateRules(m, { traits: TEST_TRAITS }))).toBe(
      example("example-2-repeated-initial.raw"),
    );
  });

  it("Example 3: partial sync after deleting ns2/svc2 (unchanged services keep their chains)", () => {
    // A partial sync rewrites only the shared-chain jumps of unchanged service ports and deletes
    // the chains of removed ones; here the unchanged blocks are stripped of their own chains.
    const m = model(
      [svc1, svc3],
      [slice("ns1", "svc1", [{ ip: "10.0.1.1" }]), slice("ns3", "svc3", [{ ip: "10.0.3.1" }])],
    );
    const ctx = createContext(m, TEST_TRAITS);
    const blocks = sortServicePorts(m.servicePorts).map((port) => {
      const block = servicePortRules(port, ctx);
      return { filter: block.filter, natShared: block.natShared, natChains: [], natChainRules: [] };
    });
    const payload = assemblePayload(ctx, blocks, ["KUBE-SVC-2VJB64SDSIJUP5T6", "KUBE-SEP-UHEGFW77JX3KXTOV"]);
    expect(formatRestore(canonicalSort(payload))).toBe(example("example-3-partial-sync"));
  });

  it("Example 4: TestBadIPs (legacy IP spellings are normalised)", () => {
    const m = model(
      [
        service(
          "ns1",
          "svc1",
          {
            type: "LoadBalancer",
            clusterIP: "172.30.0.041",
            ports: p80(3001),
            externalIPs: ["192.168.099.022"],
            loadBalancerSourceRanges: ["203.0.113.000/025"],
          },
          ["1.2.3.004"],
        ),
      ],
      [slice("ns1", "svc1", [{ ip: "10.180.00.001" }])],
    );
    expect(canonical(m)).toBe(example("example-4-bad-ips"));
  });

  it("v1.30 differs only by the nfacct rules and the mark width (§17 version note)", () => {
    const m = model([svc1], [slice("ns1", "svc1", [{ ip: "10.0.1.1" }])]);
    const v130 = formatRestore(generateRules({ ...m, config: { ...m.config, profile: "v1.30" } }));
    const v132 = formatRestore(generateRules(m));
    expect(v132.replace(" -m nfacct --nfacct-name ct_state_invalid_dropped_pkts", "")).toBe(v130);
    expect(formatRestore(generateRules(m, { traits: { nfacctCounters: false } }))).toBe(v130);
  });
});
