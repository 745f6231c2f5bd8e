// `kube-iptables graph` and `trace --format svg|dot|mermaid`: inputs read as trace reads them
// (a cluster file, a save dump, a restore payload), selection, one file per service port, and
// the usage and input errors.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { afterAll, describe, expect, it } from "vitest";
import { runGraph } from "../../src/cli/graph.js";
import { runTrace } from "../../src/cli/trace.js";
import { UsageError } from "../../src/cli/usage.js";
import { kubeProxyVector } from "../support/corpora.js";
import { captureCli } from "../support/run-cli.js";
import { writeVectorFiles } from "../support/vector-files.js";

const dir = mkdtempSync(join(tmpdir(), "kit-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v = kubeProxyVector("kube-proxy", "feature-multi-port-named");
const { clusterFile, saveFile, restoreFile } = writeVectorFiles(dir, v);

/** Runs `run(argv)` in this process, stdout and stderr captured. */
function capture(
  run: (argv: string[]) => Promise<number>,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  return captureCli(() => run(argv));
}

function svgGroups(svg: string, className: string): Element[] {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (_l, m) => errors.push(m) }).parseFromString(svg, "image/svg+xml");
  expect(errors).toEqual([]);
  return Array.from(doc.getElementsByTagName("g")).filter(
    (g) => g.getAttribute("class") === className,
  ) as never;
}

describe("kube-iptables graph", () => {
  it("lists the service ports, the same from the cluster, its dump and its payload", async () => {
    const fromCluster = await capture(runGraph, [clusterFile, "--list"]);
    expect(fromCluster.code).toBe(0);
    const ports = fromCluster.out.trim().split("\n");
    expect(ports.length).toBeGreaterThan(1);
    for (const p of ports) expect(p).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+:[a-z0-9-]+$/);
    expect((await capture(runGraph, [saveFile, "--list"])).out).toBe(fromCluster.out);
    expect((await capture(runGraph, [restoreFile, "--list"])).out).toBe(fromCluster.out);
  });

  it("draws one service port as DOT alike from the cluster and from the dump", async () => {
    const [port] = (await capture(runGraph, [clusterFile, "--list"])).out.trim().split("\n");
    const a = await capture(runGraph, [clusterFile, "--service", port as string, "--format", "dot"]);
    const b = await capture(runGraph, [saveFile, "--service", port as string, "--format", "dot"]);
    expect(a.code).toBe(0);
    expect(a.out).toMatch(/^digraph /);
    expect(a.out).toContain("KUBE-SEP-");
    expect(b.out).toBe(a.out);
  });

  it("draws every service port in one SVG by default", async () => {
    const r = await capture(runGraph, [saveFile]);
    expect(r.code).toBe(0);
    const nodes = svgGroups(r.out, "node");
    // Every DNAT rule of the dump, each once.
    const dnatRules = v.expected.save.split("\n").filter((l) => l.includes(" -j DNAT "));
    expect(dnatRules.length).toBeGreaterThan(1);
    expect(nodes.filter((n) => n.getAttribute("data-action") === "dnat")).toHaveLength(dnatRules.length);
  });

  it("writes one file per service port with --out", async () => {
    const out = join(dir, "pictures");
    const r = await capture(runGraph, [saveFile, "--out", out, "--format", "mermaid"]);
    expect(r.code).toBe(0);
    const files = readdirSync(out).sort();
    const ports = (await capture(runGraph, [saveFile, "--list"])).out.trim().split("\n");
    expect(files).toHaveLength(ports.length);
    expect(
      r.out
        .trim()
        .split("\n")
        .map((p) => p.slice(out.length + 1))
        .sort(),
    ).toEqual(files);
    for (const f of files) {
      expect(f).toMatch(/^[A-Za-z0-9._-]+\.mmd$/);
      expect(readFileSync(join(out, f), "utf8")).toMatch(/^flowchart TD\n/);
    }
  });

  it("refuses an unknown service port (exit 2, naming the ones there are)", async () => {
    const r = await capture(runGraph, [saveFile, "--service", "nobody/nothing"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--service nobody\/nothing: no rule names this service port/);
    expect(r.err).toMatch(/service ports: /);
    expect(r.out).toBe("");
  });

  it("usage errors: no file, a bad format, a bad selector", async () => {
    await expect(runGraph([])).rejects.toThrow(UsageError);
    await expect(runGraph([saveFile, "--format", "png"])).rejects.toThrow(/--format png/);
    await expect(runGraph([saveFile, "--service", "web"])).rejects.toThrow(/NAMESPACE\/NAME/);
    expect(existsSync(join(dir, "nothing"))).toBe(false);
  });

  it("a dump without service chains says why when it can tell (IPVS mode, no nat table)", async () => {
    const nat = (...rules: string[]) =>
      [
        "*nat",
        ":PREROUTING ACCEPT [0:0]",
        ":INPUT ACCEPT [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        ":POSTROUTING ACCEPT [0:0]",
        ":KUBE-SERVICES - [0:0]",
        ":KUBE-MARK-MASQ - [0:0]",
        '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000",
        ...rules,
        "COMMIT",
        "",
      ].join("\n");
    const files = {
      ipvs: nat(
        "-A KUBE-SERVICES ! -s 198.18.0.0/16 -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ",
        "-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT",
      ),
      empty: nat(),
      filterOnly: "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n",
    };
    const expected = {
      ipvs: /\(KUBE-SERVICES matches the KUBE-CLUSTER-IP ipset: kube-proxy runs in IPVS mode here/,
      empty: /\(the nat table's KUBE-SERVICES chain is empty or missing: /,
      filterOnly: /\(the input has no nat table, where kube-proxy's service rules are\)/,
    };
    for (const [name, text] of Object.entries(files)) {
      const file = join(dir, `${name}.save`);
      writeFileSync(file, text);
      const drawn = await capture(runGraph, [file]);
      expect(drawn.code, name).toBe(2);
      expect(drawn.err, name).toMatch(/no service port has rules in this input \(/);
      expect(drawn.err, name).toMatch(expected[name as keyof typeof expected]);
      const listed = await capture(runGraph, [file, "--list"]);
      expect([listed.code, listed.out], name).toEqual([0, ""]);
      expect(listed.err, name).toMatch(expected[name as keyof typeof expected]);
    }
  });
  it("an IPv6-only cluster read in the default family names --family IPv6, as generate does", async () => {
    // As 'kubectl get svc -o yaml' prints a Service of an IPv6 single-stack cluster.
    const file = join(dir, "v6only.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: v1",
        "kind: Service",
        "metadata: {name: web, namespace: shop}",
        "spec:",
        "  clusterIP: fd00:10:96::2a",
        "  clusterIPs: [fd00:10:96::2a]",
        "  ipFamilies: [IPv6]",
        "  ipFamilyPolicy: SingleStack",
        "  ports: [{name: http, port: 80, protocol: TCP, targetPort: 8080}]",
        "  type: ClusterIP",
        "",
      ].join("\n"),
    );
    const hint =
      "(no Service has an IPv4 cluster IP, and 1 service port has an IPv6 one: give --family IPv6, or set config.ipFamily)";
    const listed = await capture(runGraph, [file, "--list"]);
    expect([listed.code, listed.out]).toEqual([0, ""]);
    expect(listed.err).toBe(`kube-iptables: note: no service port has rules in this input ${hint}\n`);
    const drawn = await capture(runGraph, [file]);
    expect(drawn.code).toBe(2);
    expect(drawn.err).toContain(hint);
    expect((await capture(runGraph, [file, "--family", "IPv6", "--list"])).out).toBe("shop/web:http\n");
    // Asked for by name, IPv4 has nothing to say about IPv6.
    expect((await capture(runGraph, [file, "--family", "IPv4", "--list"])).err).not.toContain("IPv6");
  });
  it("an unreadable dump fails with its line (exit 2)", async () => {
    const bad = join(dir, "bad.save");
    writeFileSync(
      bad,
      "*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -p tcp --dport 99999 -j ACCEPT\nCOMMIT\n",
    );
    const r = await capture(runGraph, [bad]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.save.*3/);
  });
});

describe("kube-iptables trace --format svg|dot|mermaid", () => {
  const entry =
    /-A KUBE-SERVICES -d (\S+)\/32 -p (\w+) -m comment --comment "(\S+) cluster IP" -m \w+ --dport (\d+)/.exec(
      v.expected.save,
    );
  const [, ip, proto, port, dport] = entry ?? [];

  it("draws the service port the packet reached, its paths marked", async () => {
    const args = [saveFile, "--src", "10.244.0.99", "--dst", `${ip}:${dport}`, "--proto", proto as string];
    const r = await capture(runTrace, [...args, "--format", "svg"]);
    expect(r.code).toBe(0);
    const traced = svgGroups(r.out, "edge").filter((e) => e.getAttribute("data-traced") === "true");
    expect(traced.length).toBeGreaterThan(2);
    expect(r.out).toContain(port);
    const text = await capture(runTrace, [...args, "--brief"]);
    // The picture's legend lists the outcomes the text prints.
    for (const line of text.out.trim().split("\n").slice(0, -1))
      expect(r.out).toContain(line.replace(/>/g, "&gt;"));
    const dot = await capture(runTrace, [...args, "--format", "dot"]);
    expect(dot.out).toMatch(/^digraph /);
    expect(dot.out).toContain("penwidth=3");
  });

  it("still refuses an unknown format", async () => {
    await expect(
      runTrace([saveFile, "--src", "10.0.0.1", "--dst", "10.0.0.2:80", "--format", "png"]),
    ).rejects.toThrow(/--format png/);
  });
});
