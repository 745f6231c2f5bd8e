// The CLI reads what the API server stores: port names that are DNS-1123 labels (what
// `kubectl create service clusterip web --tcp=80:8080` writes is "80-8080") and the legacy IP
// spellings of objects stored before strict validation, in every input shape; and it refuses a /0
// detect-local CIDR with exit 2 and the field's path, not a stack trace.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { runCli, runCliAsync, stderrLines } from "../support/run-cli.js";

const DIR = mkdtempSync(join(tmpdir(), "kube-iptables-validate-"));

function file(name: string, text: string): string {
  const path = join(DIR, name);
  writeFileSync(path, text);
  return path;
}

const service = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web", namespace: "default" },
  spec: {
    type: "ClusterIP",
    clusterIP: "010.096.000.010",
    clusterIPs: ["010.096.000.010"],
    externalIPs: ["::ffff:192.0.2.10"],
    ports: [{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }],
  },
};
const slice = {
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name: "web-abcde", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
  addressType: "IPv4",
  endpoints: [{ addresses: ["010.244.001.005"], conditions: { ready: true } }],
  ports: [{ name: "80-8080", port: 8080, protocol: "TCP" }],
};

/** What every shape must give: the rules of the canonical spellings. */
function expectRules(stdout: string): void {
  expect(stdout).toContain(
    '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "default/web:80-8080 cluster IP" -m tcp --dport 80 -j KUBE-SVC-',
  );
  expect(stdout).toContain('-d 192.0.2.10/32 -p tcp -m comment --comment "default/web:80-8080 external IP"');
  expect(stdout).toContain("-j DNAT --to-destination 10.244.1.5:8080");
  expect(stdout).not.toMatch(/\b0\d+\./);
}

const yamlDocs = [service, slice].map((o) => stringify(o)).join("---\n");

describe.concurrent("input shapes with DNS-1123 port names and legacy IPs", () => {
  const shapes: [string, string][] = [
    [
      "a cluster file (JSON)",
      file("cluster.json", JSON.stringify({ services: [service], endpointSlices: [slice] })),
    ],
    [
      "a cluster file (YAML)",
      file("cluster.yaml", stringify({ services: [service], endpointSlices: [slice] })),
    ],
    [
      "a kubectl List (JSON)",
      file("list.json", JSON.stringify({ apiVersion: "v1", kind: "List", items: [service, slice] })),
    ],
    ["YAML documents", file("docs.yaml", yamlDocs)],
  ];
  test.each(shapes)("%s", async (_, path) => {
    const r = await runCliAsync(["generate", "--strict", path]);
    expect(stderrLines(r)).toEqual([]);
    expect(r.code).toBe(0);
    expectRules(r.stdout);
  });

  test("stdin", () => {
    const r = runCli(["generate", "--strict", "-"], yamlDocs);
    expect(stderrLines(r)).toEqual([]);
    expect(r.code).toBe(0);
    expectRules(r.stdout);
  });

  test("an upper-case port name is still refused", async () => {
    const bad = { ...service, spec: { ...service.spec, ports: [{ name: "HTTP", port: 80 }] } };
    const upper = file("upper.json", JSON.stringify({ services: [bad] }));
    const r = await runCliAsync(["generate", "--strict", upper]);
    expect(r.code).toBe(2);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${upper}: services[0].spec.ports[0].name: "HTTP" is not a valid port name: lowercase letters, digits and '-', starting and ending with a letter or digit`,
    ]);
  });
});

describe.concurrent("a /0 detect-local CIDR exits 2 naming the flag or the field", () => {
  const cluster = file("plain.json", JSON.stringify({ services: [service], endpointSlices: [slice] }));
  const withConfig = file(
    "config.json",
    JSON.stringify({
      config: { detectLocal: { mode: "NodeCIDR", cidrs: ["10.244.1.0/24", "::/0"] } },
      services: [service],
    }),
  );
  const cases: [string, string[], string][] = [
    ["--cluster-cidr 0.0.0.0/0", ["--cluster-cidr", "0.0.0.0/0"], "--cluster-cidr 0.0.0.0/0"],
    [
      "--cluster-cidr 0.0.0.0/0 --format restore",
      ["--cluster-cidr", "0.0.0.0/0", "--format", "restore"],
      "--cluster-cidr 0.0.0.0/0",
    ],
    ["--node-cidr ::/0 --family IPv6", ["--node-cidr", "::/0", "--family", "IPv6"], "--node-cidr ::/0"],
    ["--cluster-cidr 10.0.0.0/8,::/0", ["--cluster-cidr", "10.0.0.0/8,::/0"], "--cluster-cidr ::/0"],
  ];
  test.each(cases)("%s", async (_, flags, flag) => {
    const r = await runCliAsync(["generate", cluster, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    // A bad flag value is named by the flag (a usage error: the hint to --help follows).
    const lines = stderrLines(r);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.startsWith(`kube-iptables: ${flag}: covers every IPv`)).toBe(true);
    expect(lines[1]).toBe("kube-iptables: Try 'kube-iptables generate --help'.");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test("in the config file", async () => {
    const r = await runCliAsync(["generate", withConfig, "--format", "restore"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${withConfig}: config.detectLocal.cidrs[1]: "::/0" covers every IPv6 address: the rule kube-proxy would write for it (! -s ::/0) is refused by iptables-restore on the nf_tables backend; give the pods' CIDR`,
    ]);
  });

  test("a /0 after another CIDR of its family is unused, and accepted", async () => {
    const r = await runCliAsync([
      "generate",
      cluster,
      "--cluster-cidr",
      "10.0.0.0/8,0.0.0.0/0",
      "--format",
      "restore",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("! -s 10.0.0.0/8 -j KUBE-MARK-MASQ");
    expect(r.stdout).not.toContain("0.0.0.0/0");
  });

  test("a masquerade bit out of range in the config exits 2 naming the field", async () => {
    const path = file("bit.json", JSON.stringify({ config: { masqueradeBit: 32 }, services: [service] }));
    const r = await runCliAsync(["generate", path]);
    expect(r.code).toBe(2);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${path}: config.masqueradeBit: 32 is not a mark bit (0-31)`,
    ]);
  });

  // The family is chosen before the config is validated: a config that is not an object, or
  // whose ipFamily is not a family, must reach validation rather than crash the choice.
  test.each([
    ["null", null, 0, []],
    ["a string", "IPv6", 2, ['config: expected an object, got the string "IPv6"']],
    ["a number ipFamily", { ipFamily: 6 }, 2, ["config.ipFamily: expected a string, got the number 6"]],
  ])("a config that is %s reaches validation in every command", async (_what, config, code, messages) => {
    const path = file(
      `config-${String(_what).replaceAll(" ", "-")}.json`,
      JSON.stringify({ config, services: [service], endpointSlices: [slice] }),
    );
    for (const args of [
      ["generate", path],
      ["generate", path, "--mode", "nftables"],
      ["diff", path, path],
      ["graph", path],
      ["trace", path, "--src", "10.244.1.9", "--dst", "10.96.0.10:80"],
    ]) {
      const r = await runCliAsync(args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(stderrLines(r), args.join(" ")).toEqual(messages.map((m) => `kube-iptables: ${path}: ${m}`));
    }
  });

  test("a null config is no config: the node flags still apply", async () => {
    const path = file(
      "config-null-flags.json",
      JSON.stringify({ config: null, services: [service], endpointSlices: [slice] }),
    );
    const r = await runCliAsync(["generate", path, "--masquerade-bit", "5", "--format", "restore"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("-A KUBE-MARK-MASQ -j MARK --or-mark 0x00000020");
  });
});
