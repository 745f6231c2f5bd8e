// A node's dump against a cluster whose differences come from a node setting (the masquerade
// mark, detect-local, where node ports answer, the release's layout …): `settingDifferences`
// names the setting and the flags, and `diff` run again with those flags finds no change. The
// dump is written from the same Services with the node's settings, so the flags are right only
// if they give the cluster side exactly the node's rules.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { settingDifferences } from "../../src/diff/node-settings.js";
import {
  type ClusterInput,
  formatSave,
  generateState,
  type ProxyConfigInput,
  parseRules,
  prepareCluster,
} from "../../src/index.js";
import { runCliAsync, stderrLines } from "../support/run-cli.js";

const DIR = mkdtempSync(join(tmpdir(), "kube-iptables-settings-"));

const BASE: ProxyConfigInput = {
  hostname: "node-a",
  nodeIPs: ["192.168.0.2"],
  detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
};

/** A NodePort Service with externalTrafficPolicy Local, one endpoint here and one on node-b. */
const OBJECTS: Omit<ClusterInput, "config"> = {
  services: [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: {
        type: "NodePort",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        externalTrafficPolicy: "Local",
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30080 }],
      },
    },
  ],
  endpointSlices: [
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "web-1", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      endpoints: [
        { addresses: ["10.244.0.5"], conditions: { ready: true }, nodeName: "node-a" },
        { addresses: ["10.244.1.7"], conditions: { ready: true }, nodeName: "node-b" },
      ],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    },
  ],
};

function saveText(config: ProxyConfigInput, objects = OBJECTS): string {
  const { model, problems } = prepareCluster({ config, ...objects });
  // (Every object valid: a skipped Service would leave the settings nothing to show.)
  if (model === null || problems.length > 0) throw new Error(problems.map((p) => p.message).join("; "));
  return formatSave(generateState(model));
}

/** [what, the node's config, the setting named, the flags] */
const CASES: [string, ProxyConfigInput, string, string[]][] = [
  ["another masquerade bit", { ...BASE, masqueradeBit: 15 }, "masquerade mark", ["--masquerade-bit", "15"]],
  [
    "another pod CIDR",
    { ...BASE, detectLocal: { mode: "ClusterCIDR", cidrs: ["10.245.0.0/16"] } },
    "pod traffic",
    ["--cluster-cidr", "10.245.0.0/16"],
  ],
  [
    "a bridge interface",
    { ...BASE, detectLocal: { mode: "BridgeInterface", interface: "cbr0" } },
    "pod traffic",
    ["--bridge-interface", "cbr0"],
  ],
  [
    "an interface name prefix",
    { ...BASE, detectLocal: { mode: "InterfaceNamePrefix", prefix: "veth" } },
    "pod traffic",
    ["--interface-name-prefix", "veth"],
  ],
  ["no detect-local", { ...BASE, detectLocal: { mode: "None" } }, "pod traffic", ["--no-detect-local"]],
  ["masquerade-all", { ...BASE, masqueradeAll: true }, "pod traffic", ["--masquerade-all"]],
  ["--random-fully", { ...BASE, hasRandomFully: true }, "masquerading source ports", ["--random-fully"]],
  [
    "a liberal conntrack",
    { ...BASE, conntrackTCPBeLiberal: true },
    "conntrack INVALID drop",
    ["--conntrack-tcp-be-liberal"],
  ],
  [
    "no localhost node ports",
    { ...BASE, localhostNodePorts: false },
    "node-port destinations",
    ["--no-localhost-nodeports"],
  ],
  [
    "node ports on one address",
    { ...BASE, nodePortAddresses: ["192.168.0.0/24"] },
    "node-port destinations",
    ["--nodeport-addresses", "192.168.0.2/32", "--node-ip", "192.168.0.2"],
  ],
  ["kube-proxy 1.22's layout", { ...BASE, profile: "v1.22" }, "kube-proxy release", ["--profile", "v1.22"]],
  ["kube-proxy 1.32's counters", { ...BASE, profile: "v1.32" }, "kube-proxy release", ["--profile", "v1.32"]],
  ["another node name", { ...BASE, hostname: "node-b" }, "node name", ["--hostname", "node-b"]],
];

describe("settingDifferences", () => {
  const clusterModel = (() => {
    const { model } = prepareCluster({ config: BASE, ...OBJECTS });
    if (model === null) throw new Error("unusable");
    return model;
  })();
  const cluster = generateState(clusterModel);

  test.each(CASES)("%s: named, with its flags", (_what, config, setting, flags) => {
    const dump = parseRules(saveText(config));
    expect(dump.problems).toEqual([]);
    const found = settingDifferences(dump.ruleSet, cluster, clusterModel);
    expect(found.map((d) => d.setting)).toEqual([setting]);
    expect(found[0]?.flags).toEqual(flags);
  });

  test("the same settings, or Services that differ, name no setting", () => {
    expect(settingDifferences(parseRules(saveText(BASE)).ruleSet, cluster)).toEqual([]);
    const fewer = { ...OBJECTS, endpointSlices: [] };
    expect(settingDifferences(parseRules(saveText(BASE, fewer)).ruleSet, cluster)).toEqual([]);
  });

  test("the node name: read from the endpoints the node's rules treat as local", () => {
    const { model } = prepareCluster({ config: { ...BASE, hostname: "" }, ...OBJECTS });
    if (model === null) throw new Error("unusable");
    const dump = parseRules(saveText(BASE)).ruleSet;
    const found = settingDifferences(dump, generateState(model), model);
    expect(found).toEqual([
      {
        setting: "node name",
        node: "1 endpoint local (those of node node-a)",
        cluster: "no endpoint local",
        chain: "nat KUBE-SVL-…",
        flags: ["--hostname", "node-a"],
      },
    ]);
    // Without the model the endpoints' nodes are unknown: the difference is named, no flag.
    expect(settingDifferences(dump, generateState(model))[0]?.flags).toEqual([]);
    // A node where none is local (another node's name): no name to give.
    const elsewhere = parseRules(saveText({ ...BASE, hostname: "node-c" })).ruleSet;
    const other = settingDifferences(elsewhere, cluster, model);
    expect(other.map((d) => [d.node, d.flags])).toEqual([["no endpoint local", []]]);
  });

  test("two settings at once: each named", () => {
    const config: ProxyConfigInput = {
      ...BASE,
      masqueradeBit: 3,
      detectLocal: { mode: "NodeCIDR", cidrs: ["10.244.7.0/24"] },
    };
    const found = settingDifferences(parseRules(saveText(config)).ruleSet, cluster);
    expect(found.map((d) => d.flags)).toEqual([
      ["--masquerade-bit", "3"],
      ["--cluster-cidr", "10.244.7.0/24"],
    ]);
  });
});

describe.concurrent("diff DUMP CLUSTER: the flags it names give the node's rules", () => {
  const clusterFile = join(DIR, "cluster.json");
  writeFileSync(clusterFile, JSON.stringify({ config: BASE, ...OBJECTS }));

  test.each(CASES)("%s", async (what, config, setting, flags) => {
    const dump = join(DIR, `${what.replace(/\W+/g, "-")}.save`);
    writeFileSync(dump, saveText(config));
    const first = await runCliAsync(["diff", dump, clusterFile]);
    expect(first.code).toBe(1);
    const notes = stderrLines(first);
    expect(notes[0]).toMatch(new RegExp(`^kube-iptables: note: ${setting}: .* in ${dump} \\(`));
    expect(notes.at(-1)).toBe(
      `kube-iptables: note: to compare with ${dump}'s node settings, add: ${flags.join(" ")}`,
    );
    const again = await runCliAsync(["diff", dump, clusterFile, ...flags]);
    expect({ code: again.code, stdout: again.stdout, stderr: again.stderr }).toEqual({
      code: 0,
      stdout: "no changes\n",
      stderr: "",
    });
  });

  test("the cluster first and the dump second: the same notes", async () => {
    const dump = join(DIR, "bit-second.save");
    writeFileSync(dump, saveText({ ...BASE, masqueradeBit: 15 }));
    const r = await runCliAsync(["diff", clusterFile, dump]);
    expect(r.code).toBe(1);
    expect(stderrLines(r).at(-1)).toBe(
      `kube-iptables: note: to compare with ${dump}'s node settings, add: --masquerade-bit 15`,
    );
  });

  test.each([
    [
      "IPVS mode",
      [
        ":KUBE-SERVICES - [0:0]",
        ":KUBE-MARK-MASQ - [0:0]",
        '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x8000/0x8000",
        "-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT",
      ],
      "KUBE-SERVICES matches the KUBE-CLUSTER-IP ipset: kube-proxy runs in IPVS mode here, and IPVS, not iptables, holds the services",
    ],
    [
      "nftables mode (kubelet's chains only)",
      [":KUBE-KUBELET-CANARY - [0:0]"],
      "the nat table's KUBE-SERVICES chain is empty or missing: kube-proxy in iptables mode wrote no services here (nftables mode, IPVS mode or a kube-proxy replacement such as Cilium's keep them elsewhere)",
    ],
  ])("a dump of %s: the note says where the services are, not settings", async (what, lines, why) => {
    const dump = join(DIR, `${what.replace(/\W+/g, "-")}.save`);
    const builtins = [
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
    ];
    writeFileSync(dump, ["*nat", ...builtins, ...lines, "COMMIT", ""].join("\n"));
    const r = await runCliAsync(["diff", dump, clusterFile]);
    expect(r.code).toBe(1);
    expect(stderrLines(r)).toEqual([`kube-iptables: note: ${dump} holds no service port's chains: ${why}`]);
  });
});
