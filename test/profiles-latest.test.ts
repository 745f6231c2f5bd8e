// Profile latest (kube-proxy master, §15 of the spec): topology picks PreferSameNode (node hints)
// before PreferSameZone (zone hints), and a duplicate endpoint prefers a non-terminating copy.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { categorizeEndpoints } from "../src/generate/endpoints.js";
import { mergeDuplicateEndpoints, PROFILES, replacesDuplicate } from "../src/generate/profiles.js";
import { generateRules } from "../src/generate/rules.js";
import { DEFAULT_CONFIG } from "../src/kube/config.js";
import type { ClusterModel, Endpoint, Profile, ServicePort } from "../src/model/types.js";

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

describe("latest: duplicate endpoints across slices", () => {
  const terminating = ep("10.0.0.1", { terminating: true, ready: false, serving: true });
  const fresh = ep("10.0.0.1");
  const local = ep("10.0.0.1", { isLocal: true, terminating: true, ready: false });

  it("a non-terminating copy replaces a terminating one", () => {
    expect(replacesDuplicate("prefer-non-terminating", terminating, fresh)).toBe(true);
    expect(mergeDuplicateEndpoints([terminating, fresh], "prefer-non-terminating")).toEqual([fresh]);
  });

  it("the first copy stays when both or neither terminate, local or not", () => {
    expect(replacesDuplicate("prefer-non-terminating", fresh, local)).toBe(false);
    expect(replacesDuplicate("prefer-non-terminating", fresh, ep("10.0.0.1", { isLocal: true }))).toBe(false);
    expect(mergeDuplicateEndpoints([fresh, terminating], "prefer-non-terminating")).toEqual([fresh]);
  });

  it("1.32 and older prefer a local copy instead, even a terminating one", () => {
    expect(PROFILES["v1.32"].duplicateEndpoints).toBe("prefer-local");
    expect(PROFILES.latest.duplicateEndpoints).toBe("prefer-non-terminating");
    expect(mergeDuplicateEndpoints([fresh, local], "prefer-local")).toEqual([local]);
  });

  it("merged lists are sorted by IP:port as text", () => {
    const merged = mergeDuplicateEndpoints([ep("10.0.0.2"), ep("10.0.0.10"), ep("10.0.0.2")], "prefer-local");
    expect(merged.map((e) => e.endpoint)).toEqual(["10.0.0.10:80", "10.0.0.2:80"]);
  });
});
