// The newest kube-proxy releases as profiles (spec/kube-proxy-nftables.md §3): the iptables text
// is 1.32's, and each step adds one behaviour. Every test below shows one behaviour as the
// difference between two neighbouring profiles on a small model.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { generateRules } from "../src/iptables/output/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput, ProxyConfigInput } from "../src/kube/types.js";
import { validateClusterInput } from "../src/kube/validate.js";
import { expandNodePortKeywords } from "../src/model/node-port-keywords.js";
import { isProfile, PROFILE_NAMES, PROFILES, profileTraits, traitsOfName } from "../src/model/profiles.js";
import type { Profile } from "../src/model/types.js";
import { formatNftTransaction, generateNftables } from "../src/nftables/index.js";
import { createSync } from "../src/sync/index.js";
import { listVectors, loadVector } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

const NODE = "node-1";
const ZONE = { "topology.kubernetes.io/zone": "zone-a" };

/** The restore text of a cluster under a profile (config overrides on top of the file's). */
function restore(input: ClusterInput, profile: Profile, config: ProxyConfigInput = {}): string {
  const merged = { ...input, config: { ...input.config, ...config, profile } } as ClusterInput;
  expect(validateClusterInput(merged).filter((p) => p.severity === "error")).toEqual([]);
  return formatRestore(generateRules(modelFromInput(merged)));
}

const lines = (text: string, part: string): string[] => text.split("\n").filter((l) => l.includes(part));

const service = (spec: Record<string, unknown>) => ({
  metadata: { name: "web", namespace: "ns" },
  spec: { clusterIP: "10.96.0.1", ports: [{ name: "http", port: 80, protocol: "TCP" }], ...spec },
});

const slice = (name: string, endpoints: unknown[]) => ({
  metadata: { name, namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
  addressType: "IPv4",
  ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  endpoints,
});

describe("the profile table", () => {
  it("lists every profile once, oldest first, latest last, and every name is a profile", () => {
    expect(PROFILE_NAMES[PROFILE_NAMES.length - 1]).toBe("latest");
    expect(new Set(PROFILE_NAMES).size).toBe(PROFILE_NAMES.length);
    for (const name of PROFILE_NAMES) {
      expect(isProfile(name)).toBe(true);
      expect(PROFILES[name].name).toBe(name);
    }
    expect(isProfile("v1.99")).toBe(false);
    expect(isProfile("toString")).toBe(false);
    expect(traitsOfName("v1.99").name).toBe("v1.30");
  });

  it("latest is the newest release's iptables behaviour: v1.37's traits but for the nftables layout", () => {
    const { name, releases, nftablesLayout, ...latest } = PROFILES.latest;
    const { name: n, releases: r, nftablesLayout: l, ...v137 } = PROFILES["v1.37"];
    expect(latest).toEqual(v137);
    // No 1.36+ nftables layout is reproduced: latest keeps the newest one that is (B, 1.34/1.35).
    expect(l).toBeNull();
    expect(PROFILES["v1.36"].nftablesLayout).toBeNull();
    expect(nftablesLayout).toBe(PROFILES["v1.34"].nftablesLayout);
  });

  it("overrides keep the profile's name", () => {
    expect(profileTraits("v1.34", { name: "v1.22", nfacctCounters: false })).toMatchObject({
      name: "v1.34",
      nfacctCounters: false,
    });
  });

  it("v1.34, v1.36, v1.37 and latest print v1.32's text where their behaviours do not apply", () => {
    // Vectors without hints, duplicates, keywords or a gate setting: no rule text changed after 1.31.
    const vectors = listVectors("kube-proxy").slice(0, 40);
    expect(vectors.length).toBeGreaterThan(0);
    for (const { name } of vectors) {
      const v = loadVector("kube-proxy", name);
      const input = {
        config: v.config,
        services: v.services,
        endpointSlices: v.endpointSlices,
      } as ClusterInput;
      const base = restore(input, "v1.32");
      for (const profile of ["v1.34", "v1.36", "v1.37", "latest"] as const) {
        expect(restore(input, profile), `${name} ${profile}`).toBe(base);
      }
    }
  });
});

describe("v1.32 → v1.34: PreferSameNode (node hints) before PreferSameZone", () => {
  const hints = (node: string, zone: string) => ({
    forNodes: [{ name: node }],
    forZones: [{ name: zone }],
  });
  const input = {
    config: { hostname: NODE, nodeLabels: ZONE },
    services: [service({ trafficDistribution: "PreferClose" })],
    endpointSlices: [
      slice("web-1", [
        { addresses: ["10.0.0.1"], hints: hints(NODE, "zone-a") },
        { addresses: ["10.0.0.2"], hints: hints("node-2", "zone-a") },
        { addresses: ["10.0.0.3"], hints: hints("node-3", "zone-b") },
      ]),
    ],
  } as unknown as ClusterInput;
  const targets = (profile: Profile) => lines(restore(input, profile), "-j KUBE-SEP-").length;

  it("v1.32 narrows to the zone's endpoints, v1.34 to this node's", () => {
    expect(targets("v1.32")).toBe(2);
    expect(targets("v1.34")).toBe(1);
    expect(lines(restore(input, "v1.34"), "-j KUBE-SEP-")[0]).toContain("ns/web:http -> 10.0.0.1:8080");
  });

  it("with no endpoint hinted for this node, v1.34 falls back to the zone as v1.32 does", () => {
    const other = { ...input, config: { hostname: "node-9", nodeLabels: ZONE } } as ClusterInput;
    expect(restore(other, "v1.34")).toBe(restore(other, "v1.32"));
  });
});

describe("v1.32 → v1.34: a node without a zone label", () => {
  // Zone hints naming the empty zone "" (a valid label value): 1.32 needs the node's zone label to
  // use hints at all; 1.34 looks the node's zone, "", up in the hints.
  const input = {
    config: { hostname: NODE },
    services: [service({})],
    endpointSlices: [
      slice("web-1", [
        { addresses: ["10.0.0.1"], hints: { forZones: [{ name: "" }] } },
        { addresses: ["10.0.0.2"], hints: { forZones: [{ name: "zone-b" }] } },
      ]),
    ],
  } as unknown as ClusterInput;
  it('v1.32 uses every endpoint, v1.34 the one hinted for the zone ""', () => {
    expect(lines(restore(input, "v1.32"), "-j KUBE-SEP-")).toHaveLength(2);
    expect(lines(restore(input, "v1.34"), "-j KUBE-SEP-")).toHaveLength(1);
  });
});

describe("v1.34 → v1.36: a non-terminating duplicate endpoint is preferred", () => {
  // 10.0.0.5 is listed in two slices: first terminating on another node, then ready on this one
  // ... and the other way round. v1.34 keeps the first copy unless the later one is local.
  const terminating = { ready: false, serving: true, terminating: true };
  const input = (first: Record<string, unknown>, second: Record<string, unknown>) =>
    ({
      config: { hostname: NODE },
      services: [service({})],
      endpointSlices: [
        slice("web-a", [{ addresses: ["10.0.0.5"], ...first }]),
        slice("web-b", [{ addresses: ["10.0.0.5"], ...second }]),
      ],
    }) as unknown as ClusterInput;
  const used = (text: string) => lines(text, "-j KUBE-SEP-").length;

  it("a terminating first copy: v1.34 keeps it (no ready endpoint, fallback), v1.36 takes the ready one", () => {
    const cluster = input({ conditions: terminating }, {});
    // Both profiles use the endpoint; the copy differs: v1.36's is ready, so no fallback comment.
    const m34 = modelFromInput({
      ...cluster,
      config: { ...cluster.config, profile: "v1.34" },
    } as ClusterInput);
    const m36 = modelFromInput({
      ...cluster,
      config: { ...cluster.config, profile: "v1.36" },
    } as ClusterInput);
    expect(m34.servicePorts[0]?.endpoints[0]?.terminating).toBe(true);
    expect(m36.servicePorts[0]?.endpoints[0]?.terminating).toBe(false);
    expect(used(restore(cluster, "v1.36"))).toBe(1);
  });

  it("a local terminating later copy replaces a ready one in v1.34, not in v1.36", () => {
    const cluster = input({}, { conditions: terminating, nodeName: NODE });
    const m34 = modelFromInput({
      ...cluster,
      config: { ...cluster.config, profile: "v1.34" },
    } as ClusterInput);
    const m36 = modelFromInput({
      ...cluster,
      config: { ...cluster.config, profile: "v1.36" },
    } as ClusterInput);
    expect(m34.servicePorts[0]?.endpoints[0]).toMatchObject({ terminating: true, isLocal: true });
    expect(m36.servicePorts[0]?.endpoints[0]).toMatchObject({ terminating: false, isLocal: false });
  });
});

describe("v1.34 → v1.36: the AllowServiceExternalIPs gate", () => {
  const input = {
    config: { hostname: NODE },
    services: [service({ externalIPs: ["198.18.0.10"] })],
    endpointSlices: [slice("web-1", [{ addresses: ["10.0.0.1"] }])],
  } as unknown as ClusterInput;
  const external = (text: string) => lines(text, "198.18.0.10");

  it("v1.36 with the gate off writes no external-IP rule; on (the default) it writes v1.34's", () => {
    expect(external(restore(input, "v1.36"))).not.toEqual([]);
    expect(restore(input, "v1.36")).toBe(restore(input, "v1.34"));
    expect(external(restore(input, "v1.36", { allowServiceExternalIPs: false }))).toEqual([]);
  });

  it("the incremental engine follows the gate, on its first update and after a change", () => {
    const config = { hostname: NODE, profile: "v1.36" as const, allowServiceExternalIPs: false };
    const sync = createSync(config);
    const slices = input.endpointSlices as never[];
    const first = sync.update(input.services as never[], slices);
    expect(formatRestore(first.ruleSet)).toBe(restore(input, "v1.36", { allowServiceExternalIPs: false }));
    const moved = service({
      externalIPs: ["198.18.0.11"],
      ports: [{ name: "http", port: 81, protocol: "TCP" }],
    });
    const second = sync.update([moved] as never[], slices);
    expect(lines(formatRestore(second.ruleSet), "198.18.0.1")).toEqual([]);
    expect(lines(formatRestore(second.ruleSet), "10.96.0.1 --dport 81")).not.toEqual([]);
  });

  it("v1.34 has no such gate: the setting changes nothing", () => {
    expect(restore(input, "v1.34", { allowServiceExternalIPs: false })).toBe(restore(input, "v1.34"));
  });

  it("with the gate off, the Service is what it would be without externalIPs", () => {
    const bare = { ...input, services: [service({})] } as unknown as ClusterInput;
    expect(restore(input, "v1.36", { allowServiceExternalIPs: false })).toBe(restore(bare, "v1.36"));
  });

  it("the setting is validated as a boolean", () => {
    const bad = { ...input, config: { allowServiceExternalIPs: "no" } };
    expect(validateClusterInput(bad).map((p) => p.path)).toContain("config.allowServiceExternalIPs");
  });
});

describe("v1.36 → v1.37: nodePortAddresses keywords", () => {
  const input = {
    config: { hostname: NODE, nodeIPs: ["192.168.0.2", "10.1.0.2"] },
    services: [service({ type: "NodePort", ports: [{ name: "http", port: 80, nodePort: 30080 }] })],
    endpointSlices: [slice("web-1", [{ addresses: ["10.0.0.1"] }])],
  } as unknown as ClusterInput;
  const withAddresses = (profile: Profile, nodePortAddresses: string[]) =>
    ({ ...input, config: { ...input.config, profile, nodePortAddresses } }) as ClusterInput;
  const jumps = (text: string) =>
    lines(text, "-j KUBE-NODEPORTS").filter((l) => l.startsWith("-A KUBE-SERVICES"));

  it("v1.36 refuses the new keywords and a mixed primary; v1.37 accepts them", () => {
    for (const list of [["localhost"], ["all"], ["primary", "10.0.0.0/8"]]) {
      const errors = (profile: Profile) =>
        validateClusterInput(withAddresses(profile, list)).filter((p) => p.severity === "error");
      expect(errors("v1.36").map((p) => p.path)[0]).toMatch(/^config\.nodePortAddresses/);
      expect(errors("v1.37")).toEqual([]);
    }
  });

  it("primary,localhost: the primary node IP and 127.0.0.1", () => {
    const text = restore(input, "v1.37", { nodePortAddresses: ["primary", "localhost"] });
    expect(jumps(text).map((l) => l.match(/-d (\S+)/)?.[1])).toEqual(["127.0.0.1", "192.168.0.2"]);
    // With localhost node ports, the anti-martian rule is written, as for 127.0.0.0/8 in v1.36.
    expect(text).toBe(restore(input, "v1.36", { nodePortAddresses: ["192.168.0.2/32", "127.0.0.0/8"] }));
  });

  it("all: every local address, as an empty list or 0.0.0.0/0 in v1.36", () => {
    const text = restore(input, "v1.37", { nodePortAddresses: ["all", "primary"] });
    expect(text).toBe(restore(input, "v1.36", { nodePortAddresses: ["0.0.0.0/0"] }));
    expect(jumps(text)[0]).toContain("--dst-type LOCAL");
  });

  it("IPv6: localhost is ::1, which node ports never use; all is ::/0", () => {
    const v6 = {
      ...input,
      config: { ...input.config, ipFamily: "IPv6", nodeIPs: ["fd00::2"] },
      services: [
        {
          ...service({ type: "NodePort" }),
          spec: { ...service({}).spec, clusterIP: "fd00:96::1", type: "NodePort" },
        },
      ],
      endpointSlices: [{ ...slice("web-1", [{ addresses: ["fd00:10::1"] }]), addressType: "IPv6" }],
    } as unknown as ClusterInput;
    const text = restore(v6, "v1.37", { nodePortAddresses: ["primary", "localhost"] });
    expect(jumps(text).map((l) => l.match(/-d (\S+)/)?.[1])).toEqual(["fd00::2"]);
    expect(restore(v6, "v1.37", { nodePortAddresses: ["all"] })).toBe(restore(v6, "v1.37"));
  });
});

describe("nodePortAddresses keywords, one expansion for both modes", () => {
  it("replaces localhost and all by the family's CIDR only when the profile knows them", () => {
    expect(expandNodePortKeywords(["primary", "localhost", "10.0.0.0/8"], "IPv4", true)).toEqual([
      "primary",
      "127.0.0.0/8",
      "10.0.0.0/8",
    ]);
    expect(expandNodePortKeywords(["localhost", "all"], "IPv6", true)).toEqual(["::1/128", "::/0"]);
    expect(expandNodePortKeywords(["localhost"], "IPv4", false)).toEqual(["localhost"]);
  });

  it("nftables (latest, layout B): all is every local address, as 0.0.0.0/0", () => {
    const cluster = {
      config: { hostname: NODE, nodeIPs: ["192.168.0.2"] },
      services: [service({ type: "NodePort", ports: [{ name: "http", port: 80, nodePort: 30080 }] })],
      endpointSlices: [slice("web-1", [{ addresses: ["10.0.0.1"] }])],
    } as unknown as ClusterInput;
    const nft = (nodePortAddresses: string[]) =>
      formatNftTransaction(
        generateNftables(
          modelFromInput({
            ...cluster,
            config: { ...cluster.config, profile: "latest", nodePortAddresses },
          } as ClusterInput),
        ),
      );
    expect(nft(["all"])).toBe(nft(["0.0.0.0/0"]));
    expect(nft(["all"])).not.toBe(nft([]));
  });

  it("a profile without a written nftables layout says which profiles have one", () => {
    const model = modelFromInput({ config: { profile: "v1.36" } } as ClusterInput);
    expect(() => generateNftables(model)).toThrow(
      /v1\.36 has no nftables mode written here \(profiles with one: v1\.30, v1\.32, v1\.34, latest\)/,
    );
  });
});

describe("CLI: --profile comes from the table", () => {
  it("accepts every profile name and names them all when refusing one", () => {
    const file = `test/fixtures/kube-proxy/${listVectors("kube-proxy")[0]?.name ?? ""}.json`;
    for (const profile of ["v1.34", "v1.36", "v1.37"]) {
      expect(runCli(["generate", file, "--profile", profile]).code).toBe(0);
    }
    const bad = runCli(["generate", file, "--profile", "v1.99"]);
    expect(bad.code).toBe(2);
    for (const name of PROFILE_NAMES) expect(bad.stderr).toContain(name);
    expect(runCli(["generate", "--help"]).stdout).toContain(`--profile ${PROFILE_NAMES.join("|")}`);
  });
});
