// Profile latest (kube-proxy master, §15 of the spec): topology picks PreferSameNode (node hints)
// before PreferSameZone (zone hints), and a duplicate endpoint prefers a non-terminating copy.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules } from "../src/iptables/output/rules.js";
import { DEFAULT_CONFIG, resolveConfig } from "../src/kube/config.js";
import { modelFromKubernetes } from "../src/kube/from-kubernetes.js";
import { modelPolicies } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import { PROFILES } from "../src/model/profiles.js";
import type { ClusterModel, Endpoint, Profile, ServicePort } from "../src/model/types.js";
import { categorizeEndpoints } from "../src/plan/endpoints.js";

function ep(ip: string, extra: Partial<Endpoint> = {}): Endpoint {
  return {
    ip,
    port: 80,
    endpoint: `${ip}:80`,
    ready: true,
    serving: true,
    terminating: false,
    isLocal: false,
    zoneHints: [],
    nodeHints: [],
    ...extra,
  };
}

function port(endpoints: Endpoint[]): ServicePort {
  return {
    namespace: "ns",
    name: "svc",
    portName: "p80",
    protocol: "tcp",
    clusterIP: "172.30.0.10",
    port: 80,
    nodePort: 0,
    externalIPs: [],
    loadBalancerVIPs: [],
    loadBalancerSourceRanges: [],
    stickyMaxAgeSeconds: 0,
    externalPolicyLocal: false,
    internalPolicyLocal: false,
    healthCheckNodePort: 0,
    trafficDistribution: "PreferClose",
    endpoints,
  };
}

const LABELS = { "topology.kubernetes.io/zone": "zone-a" };
const NODE = "node-1";
const ips = (list: readonly Endpoint[]) => list.map((e) => e.ip);

// Every endpoint is hinted for a zone and a node; this node is node-1 in zone-a.
const hinted = [
  ep("10.0.0.1", { zoneHints: ["zone-a"], nodeHints: ["node-1"] }),
  ep("10.0.0.2", { zoneHints: ["zone-a"], nodeHints: ["node-2"] }),
  ep("10.0.0.3", { zoneHints: ["zone-b"], nodeHints: ["node-3"] }),
];

describe("latest: topology modes", () => {
  it("PreferSameNode: node hints for this node win over zone hints", () => {
    const c = categorizeEndpoints(port(hinted), LABELS, PROFILES.latest, NODE);
    expect(ips(c.cluster)).toEqual(["10.0.0.1"]);
  });

  it("v1.32 ignores node hints and uses the zone", () => {
    const c = categorizeEndpoints(port(hinted), LABELS, PROFILES["v1.32"], NODE);
    expect(ips(c.cluster)).toEqual(["10.0.0.1", "10.0.0.2"]);
  });

  it("PreferSameZone when no endpoint is hinted for this node", () => {
    const c = categorizeEndpoints(port(hinted), LABELS, PROFILES.latest, "node-9");
    expect(ips(c.cluster)).toEqual(["10.0.0.1", "10.0.0.2"]);
  });

  it("PreferSameZone when some ready endpoint has no node hints", () => {
    const partial = [
      hinted[0] as Endpoint,
      { ...(hinted[1] as Endpoint), nodeHints: [] },
      hinted[2] as Endpoint,
    ];
    const c = categorizeEndpoints(port(partial), LABELS, PROFILES.latest, NODE);
    expect(ips(c.cluster)).toEqual(["10.0.0.1", "10.0.0.2"]);
  });

  it("no topology when zone hints are incomplete too", () => {
    const bare = [hinted[0] as Endpoint, ep("10.0.0.2"), ep("10.0.0.3")];
    const c = categorizeEndpoints(port(bare), LABELS, PROFILES.latest, NODE);
    expect(ips(c.cluster)).toEqual(["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
  });

  it("not-ready endpoints do not need hints", () => {
    const withUnready = [...hinted, ep("10.0.0.4", { ready: false, serving: false })];
    const c = categorizeEndpoints(port(withUnready), LABELS, PROFILES.latest, NODE);
    expect(ips(c.cluster)).toEqual(["10.0.0.1"]);
  });

  it("shows in the generated SVC chain", () => {
    const model = (profile: Profile): ClusterModel => ({
      config: { ...DEFAULT_CONFIG, hostname: NODE, nodeLabels: LABELS, profile },
      servicePorts: [port(hinted)],
    });
    const jumps = (profile: Profile) =>
      formatRestore(generateRules(model(profile)))
        .split("\n")
        .filter((l) => l.startsWith("-A KUBE-SVC-") && l.includes("-> "));
    expect(jumps("latest")).toHaveLength(1);
    expect(jumps("latest")[0]).toContain("ns/svc:p80 -> 10.0.0.1:80");
    expect(jumps("v1.32")).toHaveLength(2);
  });
});

describe("duplicate endpoints across slices, read from the objects", () => {
  // One IP:port in two slices of one Service (read in slice-name order): which copy survives.
  const svc = {
    metadata: { name: "web", namespace: "ns" },
    spec: { clusterIP: "10.96.0.1", ports: [{ name: "", port: 80, protocol: "TCP" as const }] },
  };
  const slice = (name: string, endpoint: Record<string, unknown>) => ({
    metadata: { name, namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4" as const,
    ports: [{ name: "", port: 8080, protocol: "TCP" as const }],
    endpoints: [{ addresses: ["10.0.0.5"], ...endpoint }],
  });
  const terminating = { conditions: { ready: false, serving: true, terminating: true } };
  const localTerminating = { ...terminating, nodeName: NODE };
  /** The surviving copy's terminating and local flags. */
  const kept = (profile: Profile, first: Record<string, unknown>, second: Record<string, unknown>) => {
    const model = modelFromKubernetes({
      config: { profile, hostname: NODE },
      services: [svc],
      endpointSlices: [slice("a", first), slice("b", second)],
    } as unknown as ClusterInput);
    const list = model.servicePorts[0]?.endpoints ?? [];
    expect(list).toHaveLength(1);
    return { terminating: list[0]?.terminating, local: list[0]?.isLocal };
  };

  it("latest: a non-terminating copy replaces a terminating one; otherwise the first stays", () => {
    expect(kept("latest", terminating, {})).toEqual({ terminating: false, local: false });
    expect(kept("latest", {}, localTerminating)).toEqual({ terminating: false, local: false });
  });

  it("1.32 and older: a local copy replaces the first, even a terminating one", () => {
    for (const profile of ["v1.32", "v1.30", "v1.22"] as const) {
      expect(kept(profile, terminating, {})).toEqual({ terminating: true, local: false });
      expect(kept(profile, {}, localTerminating)).toEqual({ terminating: true, local: true });
    }
  });

  it("the reader follows each profile's documented trait", () => {
    for (const profile of Object.keys(PROFILES) as Profile[]) {
      expect(modelPolicies(resolveConfig({ profile })).duplicates).toBe(PROFILES[profile].duplicateEndpoints);
    }
  });
});
