// `kube-iptables trace` on node dumps, run as a user runs it (the built CLI): the endpoints named
// with exact probabilities, --out-interface and --route deciding -o, the note and exit status 2
// when the outcome depends on an address being the node's and no --node-ip was given, the
// conditions as data in --format json, and --brief.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, stderrLines } from "../support/run-cli.js";
import { NODE_DUMPS, type NodeDump, SERVICE } from "../trace/trace-node-dumps.js";

const dir = mkdtempSync(join(tmpdir(), "kit-trace-nodes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function dumpFile(d: NodeDump): string {
  const file = join(dir, `${d.name}.save`);
  writeFileSync(file, d.save);
  return file;
}

const docker = NODE_DUMPS.find((d) => d.name === "kubeadm+docker+flannel") as NodeDump;
const weave = NODE_DUMPS.find((d) => d.name === "weave") as NodeDump;
const dockerFile = dumpFile(docker);
const weaveFile = dumpFile(weave);
const clusterIP = `${SERVICE.clusterIP}:${SERVICE.port}`;
const nodePort = `${docker.nodeIP}:${SERVICE.nodePort}`;

interface JsonTrace {
  outcomes: {
    verdict: string;
    dnat: { address: string; port: number } | null;
    conditions: { kind: string; subject: string; test: string; holds: boolean; text: string }[];
    probability: { decimal: string };
    summary: string;
  }[];
  total: { decimal: string };
  needsNodeAddress: string[];
}

describe("kube-iptables trace on node dumps", () => {
  it("pod → cluster IP on a Docker node: the two endpoints, exactly 1/2 each, exit 0", () => {
    const r = runCli([
      "trace",
      dockerFile,
      "--src",
      docker.pod.ip,
      "--dst",
      clusterIP,
      "--in-interface",
      "cni0",
      "--brief",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        "default/web:http → 10.244.1.21:8080  p=0.500000000  no masquerade",
        "default/web:http → 10.244.2.21:8080  p=0.500000000  no masquerade",
        "total p=1.000000000",
        "",
      ].join("\n"),
    );
  });

  it("Weave: the -o weave rules are conditions until --out-interface or --route decides them", () => {
    const base = [
      "trace",
      weaveFile,
      "--src",
      weave.pod.ip,
      "--dst",
      clusterIP,
      "--in-interface",
      "weave",
      "--format",
      "json",
    ];
    const open = JSON.parse(runCli(base).stdout) as JsonTrace;
    expect(
      open.outcomes.some((o) => o.conditions.some((c) => c.kind === "out-interface" && c.test === "weave")),
    ).toBe(true);
    for (const flags of [
      ["--out-interface", "weave"],
      ["--route", "10.32.0.0/12=weave"],
    ]) {
      const r = runCli([...base, ...flags]);
      expect(r.code).toBe(0);
      const t = JSON.parse(r.stdout) as JsonTrace;
      expect(t.outcomes.some((o) => o.conditions.some((c) => c.kind === "out-interface"))).toBe(false);
      // Every outcome names one of the two endpoints, with its exact share, and the total is 1.
      for (const o of t.outcomes) {
        expect(["10.32.0.21", "10.40.0.21"]).toContain(o.dnat?.address);
        expect(o.probability.decimal).toBe("0.500000000");
      }
      expect(t.total.decimal).toBe("1.000000000");
    }
  });

  it("outside → node port without --node-ip: both cases printed, a note naming the address, exit 2", () => {
    const args = [
      "trace",
      dockerFile,
      "--src",
      "198.51.100.7",
      "--dst",
      nodePort,
      "--from",
      "external",
      "--brief",
    ];
    const r = runCli(args);
    expect(r.code).toBe(2);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: the outcome depends on whether ${docker.nodeIP} is an address of this node; give the node's addresses with --node-ip`,
    ]);
    expect(r.stdout).toContain(`default/web:http → 10.244.1.21:8080  p=0.500000000, depending on:`);
    expect(r.stdout).toContain(`  if ${docker.nodeIP} is a node address: masquerade`);
    expect(r.stdout).toContain(`  if ${docker.nodeIP} is not a node address: DROPPED`);
    const json = runCli([...args, "--format", "json"]);
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as JsonTrace).needsNodeAddress).toEqual([docker.nodeIP]);
    // With the node's address: one answer, exit 0.
    const known = runCli([...args, "--node-ip", docker.nodeIP]);
    expect(known.code).toBe(0);
    expect(known.stderr).toBe("");
    expect(known.stdout).toBe(
      [
        "default/web:http → 10.244.1.21:8080  p=0.500000000  masquerade",
        "default/web:http → 10.244.2.21:8080  p=0.500000000  masquerade",
        "total p=1.000000000",
        "",
      ].join("\n"),
    );
  });

  it("a pod's trace to a cluster IP does not need the node's address (cluster IPs are never the node's)", () => {
    const r = runCli([
      "trace",
      dockerFile,
      "--src",
      docker.pod.ip,
      "--dst",
      `${SERVICE.clusterIP}:81`,
      "--in-interface",
      "cni0",
      "--brief",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`(no service) → ${SERVICE.clusterIP}:81 (no DNAT)  p=1.000000000`);
  });

  it("the verbose text keeps each case's rules under it", () => {
    const r = runCli(["trace", dockerFile, "--src", "198.51.100.7", "--dst", nodePort, "--from", "external"]);
    const lines = r.stdout.split("\n");
    const at = lines.indexOf(`  if ${docker.nodeIP} is a node address: masquerade`);
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {6}nat PREROUTING #\d+ {2}-A PREROUTING /);
  });

  it("bad --route values: a usage error or a bad address (both exit 2)", () => {
    const base = ["trace", dockerFile, "--src", docker.pod.ip, "--dst", clusterIP];
    const usage = runCli([...base, "--route", "cni0"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Try 'kube-iptables trace --help'.");
    expect(usage.stderr).toContain("--route cni0: expected CIDR=INTERFACE");
    const bad = runCli([...base, "--route", "10.0.0.0/40=cni0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("route 10.0.0.0/40");
  });
});
