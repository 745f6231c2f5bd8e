// `kube-iptables generate --mode nftables` as a user runs it (the built CLI): the three formats,
// both families, the problems nft would refuse on stderr, and the usage errors of the mode.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../support/run-cli.js";

let dir: string;
const CLUSTER = `
config: {hostname: node-a, nodeIPs: [198.18.0.2, "fd00::2"], detectLocal: {mode: ClusterCIDR, cidrs: [10.244.0.0/16, "fd00:10:244::/56"]}}
services:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: default}
  spec:
    clusterIP: 10.96.0.10
    clusterIPs: [10.96.0.10, "fd00:96::10"]
    ipFamilies: [IPv4, IPv6]
    ipFamilyPolicy: RequireDualStack
    type: NodePort
    ports: [{name: http, port: 80, protocol: TCP, targetPort: 8080, nodePort: 30080}]
endpointSlices:
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
  addressType: IPv4
  endpoints: [{addresses: [10.244.1.1], nodeName: node-b}]
  ports: [{name: http, port: 8080, protocol: TCP}]
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nft-cli-"));
  writeFileSync(join(dir, "web.yaml"), CLUSTER);
});

describe("generate --mode nftables", () => {
  test("transaction (the default format) and ruleset for the file's family", () => {
    const tx = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables"]);
    expect(tx.code).toBe(0);
    expect(tx.stderr).toBe("");
    expect(tx.stdout.split("\n")[0]).toBe('add table ip kube-proxy { comment "rules for kube-proxy" ; }');
    expect(tx.stdout).toContain(
      "add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-SUSTUHLJ-default/web/tcp/http }",
    );
    // nodePortAddresses unset: the primary node IP in nftables mode.
    expect(tx.stdout).toContain("add element ip kube-proxy nodeport-ips { 198.18.0.2 }");
    const listed = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--format", "ruleset"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.startsWith("table ip kube-proxy {\n")).toBe(true);
    expect(listed.stdout).toContain("\t\tmeta mark set meta mark | 0x00004000\n");
  });

  test("--family both prints one table per family; IPv6 has no endpoints here", () => {
    const r = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--family", "both"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("#"))).toEqual([
      "# IPv4 (table ip kube-proxy)",
      "# IPv6 (table ip6 kube-proxy)",
    ]);
    expect(r.stdout).toContain(
      'add element ip6 kube-proxy no-endpoint-services { fd00:96::10 . tcp . 80 comment "default/web:http" : goto reject-chain }',
    );
  });

  test("dump is knftables' Fake.Dump(): objects sorted by name", () => {
    const r = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--format", "dump"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([
      'add table ip kube-proxy { comment "rules for kube-proxy" ; }',
      "add chain ip kube-proxy cluster-ips-check",
    ]);
  });

  test("json is the table's commands", () => {
    const r = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--format", "json"]);
    expect(r.code).toBe(0);
    const table = JSON.parse(r.stdout) as { family: string; commands: { object: string }[] };
    expect(table.family).toBe("ip");
    expect(table.commands[0]?.object).toBe("table");
  });

  test("an interface-prefix detector: kube-proxy's output, and on stderr why nft refuses it", () => {
    const r = runCli([
      "generate",
      join(dir, "web.yaml"),
      "--mode",
      "nftables",
      "--interface-name-prefix",
      "veth",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("iif != veth* jump mark-for-masquerade");
    expect(r.stderr).toMatch(/^kube-iptables: --interface-name-prefix \S+: .*Interface does not exist/m);
  });

  test("--service-cidr: traffic to unallocated cluster IPs is dropped; layout B for latest", () => {
    const args = ["generate", join(dir, "web.yaml"), "--mode", "nftables", "--profile", "latest"];
    const r = runCli([...args, "--service-cidr", "10.96.0.0/16,fd00:96::/112"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16 } drop");
    expect(r.stdout).toContain(
      "add chain ip kube-proxy filter-output-pre-dnat { type filter hook output priority -110 ; }",
    );
    expect(runCli([...args, "--service-cidr", "10.96.0.0"]).code).toBe(2);
    // iptables mode has no use for it.
    expect(runCli(["generate", join(dir, "web.yaml"), "--service-cidr", "10.96.0.0/16"]).code).toBe(2);
  });

  test("--profile v1.34 (kube-proxy 1.34/1.35) writes layout B, v1.30 (1.30–1.33) layout A", () => {
    const preDnat =
      "add chain ip kube-proxy filter-output-pre-dnat { type filter hook output priority -110 ; }";
    const layoutA = "add chain ip kube-proxy filter-output { type filter hook output priority -110 ; }";
    const v134 = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--profile", "v1.34"]);
    expect(v134.code).toBe(0);
    expect(v134.stdout).toContain(preDnat);
    expect(v134.stdout).not.toContain(layoutA);
    const v130 = runCli(["generate", join(dir, "web.yaml"), "--mode", "nftables", "--profile", "v1.30"]);
    expect(v130.code).toBe(0);
    expect(v130.stdout).toContain(layoutA);
    expect(v130.stdout).not.toContain(preDnat);
  });

  test("usage errors: an unknown mode, an iptables format, --current, a profile without this layout", () => {
    const file = join(dir, "web.yaml");
    expect(runCli(["generate", file, "--mode", "ipvs"]).code).toBe(2);
    expect(runCli(["generate", file, "--mode", "nftables", "--format", "save"]).code).toBe(2);
    expect(runCli(["generate", file, "--mode", "nftables", "--current", file]).code).toBe(2);
    const v122 = runCli(["generate", file, "--mode", "nftables", "--profile", "v1.22"]);
    expect(v122.code).toBe(2);
    // The flag is named, not the cluster file's config.
    expect(v122.stderr).toMatch(/^kube-iptables: --profile v1\.22: kube-proxy v1\.22 has no nftables mode/m);
    const configured = join(dir, "v122.yaml");
    writeFileSync(configured, CLUSTER.replace("config: {", "config: {profile: v1.22, "));
    const fromConfig = runCli(["generate", configured, "--mode", "nftables"]);
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toMatch(/config\.profile: kube-proxy v1\.22 has no nftables mode/);
  });
});
