// `kube-iptables trace`: exit codes and output, from a cluster file and from a save dump.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTrace } from "../../src/cli/trace.js";
import { UsageError } from "../../src/cli/usage.js";
import { kubeProxyVector } from "../support/corpora.js";
import { captureCli } from "../support/run-cli.js";
import { writeVectorFiles } from "../support/vector-files.js";

const dir = mkdtempSync(join(tmpdir(), "kit-trace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v = kubeProxyVector("kube-proxy", "feature-clusterip-3-endpoints");
const { clusterFile, saveFile } = writeVectorFiles(dir, v);
const service = v.services[0] as { spec: { clusterIP: string; ports: { port: number }[] } };
const dst = `${service.spec.clusterIP}:${service.spec.ports[0]?.port}`;

/** Runs `trace ARGV` in this process, stdout and stderr captured. */
function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return captureCli(() => runTrace(argv));
}

describe("kube-iptables trace", () => {
  it("traces a cluster file: one line per endpoint, total 1", async () => {
    const r = await capture([clusterFile, "--src", "10.244.0.5", "--dst", dst, "--proto", "tcp", "--brief"]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines.filter((l) => l.includes(" p=0.33333333")).length).toBe(3);
    expect(lines.at(-1)).toBe("total p=1.000000000");
  });

  it("reads the protocol in either case, as Kubernetes (TCP) and iptables (tcp) spell it", async () => {
    const lower = await capture([clusterFile, "--src", "10.244.0.5", "--dst", dst, "--proto", "tcp"]);
    const upper = await capture([clusterFile, "--src", "10.244.0.5", "--dst", dst, "--proto", "TCP"]);
    expect(upper.code).toBe(0);
    expect(upper.out).toBe(lower.out);
  });

  it("traces a save dump the same way, as JSON", async () => {
    const a = await capture([clusterFile, "--src", "10.244.0.5", "--dst", dst, "--format", "json"]);
    const b = await capture([saveFile, "--src", "10.244.0.5", "--dst", dst, "--format", "json"]);
    expect(b.code).toBe(0);
    const outcomes = (x: string) =>
      (JSON.parse(x) as { outcomes: { summary: string }[] }).outcomes.map((o) => o.summary);
    expect(outcomes(b.out)).toEqual(outcomes(a.out));
    expect(JSON.parse(b.out).total.decimal).toBe("1.000000000");
  });

  it("prints a rule's control characters escaped: a comment in a dump cannot reach the terminal", async () => {
    const dump = join(dir, "escape.save");
    writeFileSync(
      dump,
      [
        "*nat",
        ":OUTPUT ACCEPT [0:0]",
        ":KUBE-X - [0:0]",
        "-A OUTPUT -j KUBE-X",
        '-A KUBE-X -d 198.18.0.10/32 -p tcp -m comment --comment "web\u001b[2J" -m tcp --dport 80 -j DNAT --to-destination 198.18.0.20:8080',
        "COMMIT",
        "",
      ].join("\n"),
    );
    const packet = [
      dump,
      "--src",
      "198.18.0.1",
      "--dst",
      "198.18.0.10:80",
      "--proto",
      "tcp",
      "--from",
      "node",
    ];
    const r = await capture(packet);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--comment "web\\u001b[2J"');
    expect(r.out).not.toContain("\u001b");
    // JSON keeps the text as it is (JSON.stringify escapes it on its own).
    const json = await capture([...packet, "--format", "json"]);
    expect(json.out).toContain("web\\u001b[2J");
  });

  it("names the address of an SNAT, and a MASQUERADE as masquerade", async () => {
    const dump = (target: string) => {
      const file = join(dir, `snat-${target.split(" ")[0]}.save`);
      writeFileSync(
        file,
        [
          "*nat",
          ":PREROUTING ACCEPT [0:0]",
          ":INPUT ACCEPT [0:0]",
          ":OUTPUT ACCEPT [0:0]",
          ":POSTROUTING ACCEPT [0:0]",
          `-A POSTROUTING -s 10.244.0.0/16 ! -d 10.244.0.0/16 -m comment --comment "AWS, SNAT" -j ${target}`,
          "COMMIT",
          "",
        ].join("\n"),
      );
      return file;
    };
    const packet = ["--src", "10.244.0.5", "--dst", "203.0.113.9:443", "--from", "pod", "--brief"];
    const snat = await capture([dump("SNAT --to-source 192.0.2.10 --random-fully"), ...packet]);
    expect(snat.code).toBe(0);
    expect(snat.out).toBe(
      "(no service) → 203.0.113.9:443 (no DNAT)  p=1.000000000  SNAT to 192.0.2.10\ntotal p=1.000000000\n",
    );
    const json = await capture([
      dump("SNAT --to-source 192.0.2.10 --random-fully"),
      ...packet,
      "--format",
      "json",
    ]);
    expect(JSON.parse(json.out).outcomes[0]).toMatchObject({
      masquerade: false,
      snat: { address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null },
    });
    const masquerade = await capture([dump("MASQUERADE"), ...packet]);
    expect(masquerade.out.split("\n")[0]).toMatch(/ {2}masquerade$/);
  });

  it("usage errors throw UsageError (exit 2 in main)", async () => {
    await expect(runTrace([clusterFile, "--dst", dst])).rejects.toThrow(UsageError);
    await expect(runTrace([clusterFile, "--src", "10.0.0.1", "--dst", "10.0.0.2"])).rejects.toThrow(
      UsageError,
    );
    await expect(
      runTrace([clusterFile, "--src", "10.0.0.1", "--dst", dst, "--proto", "icmp"]),
    ).rejects.toThrow(UsageError);
    // A port outside 1-65535 is a bad flag value, like any other.
    for (const [src, to] of [
      ["10.0.0.1:65536", dst],
      ["10.0.0.1:0", dst],
      ["10.0.0.1", dst.replace(/:\d+$/, ":0")],
    ])
      await expect(runTrace([clusterFile, "--src", src as string, "--dst", to as string])).rejects.toThrow(
        /1-65535/,
      );
  });

  it("traces a cluster given as several files, or as a directory of them, as the one file", async () => {
    const parts = mkdtempSync(join(dir, "parts-"));
    writeFileSync(join(parts, "node.json"), JSON.stringify({ config: v.config }));
    writeFileSync(join(parts, "services.json"), JSON.stringify({ services: v.services }));
    writeFileSync(join(parts, "slices.json"), JSON.stringify({ endpointSlices: v.endpointSlices }));
    const flags = ["--src", "10.244.0.5", "--dst", dst, "--format", "json"];
    const whole = await capture([clusterFile, ...flags]);
    const files = await capture([
      join(parts, "node.json"),
      join(parts, "services.json"),
      join(parts, "slices.json"),
      ...flags,
    ]);
    expect(files.err).toBe("");
    expect(files.out).toBe(whole.out);
    expect((await capture([parts, ...flags])).out).toBe(whole.out);
    // A rules dump is traced alone: among several files it is named, not misread.
    const mixed = await capture([parts, saveFile, ...flags]);
    expect(mixed.code).toBe(2);
    expect(mixed.err).toBe(
      `kube-iptables: ${saveFile}: iptables rules text, not a cluster file (Services and EndpointSlices)\n`,
    );
  });

  it("bad input exits 2", async () => {
    expect((await capture([join(dir, "missing.json"), "--src", "10.0.0.1", "--dst", dst])).code).toBe(2);
    // A source of the other family is a bad flag value: named by its flag (exit 2 in main).
    await expect(capture([clusterFile, "--src", "fd00::1", "--dst", dst])).rejects.toThrow(
      "--src fd00::1: not an IPv4 address, as --dst is",
    );
  });
});

describe("kube-iptables trace of a partial text (iptables-save | grep)", () => {
  const SVC = "KUBE-SVC-AAAAAAAAAAAAAAAA";
  const write = (name: string, lines: readonly string[]): string => {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join("\n")}\n`);
    return file;
  };
  const toService = ["--src", "10.244.0.5", "--dst", "10.96.5.5:80"];
  const clusterIP = `-A KUBE-SERVICES -d 10.96.5.5/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j ${SVC}`;
  const split = [
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.2:8080" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-BBBBBBBBBBBBBBBB`,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.3:8080" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-CCCCCCCCCCCCCCCC`,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.4:8080" -j KUBE-SEP-DDDDDDDDDDDDDDDD`,
  ];
  const notes = (err: string) => err.split("\n").filter((l) => l.startsWith("kube-iptables: note: "));

  it("names the chains the packet went through that the text does not hold, and prints one brief line", async () => {
    const file = write("sep-absent.txt", [clusterIP, ...split]);
    const r = await capture([file, ...toService, "--brief"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      "default/web:http → 10.96.5.5:80 (no DNAT)  p=1.000000000  no masquerade\ntotal p=1.000000000\n",
    );
    // The endpoint chains first (nat, as entered), then those behind kube-proxy's own jumps.
    expect(notes(r.err)[1]).toBe(
      `kube-iptables: note: ${file}: the paths went through 8 chains the text lacks (nat KUBE-SEP-BBBBBBBBBBBBBBBB, nat KUBE-SEP-CCCCCCCCCCCCCCCC, nat KUBE-SEP-DDDDDDDDDDDDDDDD, filter KUBE-PROXY-FIREWALL and 4 more), traced as empty; the node's rules there may change the outcomes`,
    );
    const json = JSON.parse((await capture([file, ...toService, "--format", "json"])).out);
    expect(json.outcomes).toHaveLength(4);
    expect(json.absentChains.slice(0, 3)).toEqual([
      { table: "nat", chain: "KUBE-SEP-BBBBBBBBBBBBBBBB" },
      { table: "nat", chain: "KUBE-SEP-CCCCCCCCCCCCCCCC" },
      { table: "nat", chain: "KUBE-SEP-DDDDDDDDDDDDDDDD" },
    ]);
  });

  it("does not name the chains the text declares, empty or not", async () => {
    const file = write("sep-declared.txt", [
      ":KUBE-SEP-BBBBBBBBBBBBBBBB - [0:0]",
      ":KUBE-SEP-CCCCCCCCCCCCCCCC - [0:0]",
      ":KUBE-SEP-DDDDDDDDDDDDDDDD - [0:0]",
      clusterIP,
      ...split,
    ]);
    const r = await capture([file, ...toService, "--brief", "--format", "json"]);
    expect(JSON.parse(r.out).absentChains.map((c: { chain: string }) => c.chain)).not.toContain(
      "KUBE-SEP-BBBBBBBBBBBBBBBB",
    );
  });

  it("says nothing of the kind for a whole dump", async () => {
    const r = await capture([saveFile, "--src", "10.244.0.5", "--dst", dst]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    expect(
      JSON.parse((await capture([saveFile, "--src", "10.244.0.5", "--dst", dst, "--format", "json"])).out)
        .absentChains,
    ).toEqual([]);
  });

  const nodePort = [
    `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/web:http" -m tcp --dport 30080 -j KUBE-EXT-AAAAAAAAAAAAAAAA`,
    `-A KUBE-EXT-AAAAAAAAAAAAAAAA -m comment --comment "masquerade traffic for default/web:http external destinations" -j KUBE-MARK-MASQ`,
    `-A KUBE-EXT-AAAAAAAAAAAAAAAA -j ${SVC}`,
    clusterIP,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.2:8080" -j KUBE-SEP-BBBBBBBBBBBBBBBB`,
    `-A KUBE-SEP-BBBBBBBBBBBBBBBB -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.2:8080`,
  ];
  const toNodePort = [
    "--src",
    "203.0.113.7",
    "--dst",
    "192.0.2.10:30080",
    "--from",
    "external",
    "--node-ip",
    "192.0.2.10",
    "--brief",
  ];
  const TAIL =
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS';

  it("names kube-proxy's jump to KUBE-NODEPORTS when the text lacks it and no service took the packet", async () => {
    const file = write("nodeport-unreached.txt", nodePort);
    const r = await capture([file, ...toNodePort]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe(
      "(no service) → 192.0.2.10:30080 (no DNAT)  p=1.000000000  no masquerade",
    );
    expect(notes(r.err)).toContain(
      `kube-iptables: note: ${file}: no service took the packet, and nothing in the text jumps to nat KUBE-NODEPORTS (chains with rules): the rules that lead there are not in it; for KUBE-NODEPORTS, that is -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" … -j KUBE-NODEPORTS, which grep leaves out: add the node's to trace a node port`,
    );
    // With that rule, the node port is reached, and the note names KUBE-MARK-MASQ, whose
    // rule (the masquerade mark) the text does not hold either.
    const whole = write("nodeport-reached.txt", [...nodePort, TAIL]);
    const reached = await capture([whole, ...toNodePort]);
    expect(reached.out.split("\n")[0]).toBe(
      "default/web:http → 10.244.1.2:8080  p=1.000000000  no masquerade",
    );
    expect(notes(reached.err).join("\n")).not.toContain("no service took the packet");
    expect(notes(reached.err)[1]).toContain("(nat KUBE-MARK-MASQ, ");
  });

  it("names the jump to the endpoints that ends an external chain, when grep left it out", async () => {
    // A real `iptables-save | grep nginx` on an AKS node (externalTrafficPolicy Local, the pod on
    // that node): kube-proxy's last KUBE-EXT rule has no comment, so the grep lost it.
    const EXT = "KUBE-EXT-AAAAAAAAAAAAAAAA";
    const SVL = "KUBE-SVL-AAAAAAAAAAAAAAAA";
    const lines = [
      `-A KUBE-EXT-AAAAAAAAAAAAAAAA -s 10.244.0.0/16 -m comment --comment "pod traffic for default/web:http external destinations" -j ${SVC}`,
      `-A ${EXT} -m comment --comment "masquerade LOCAL traffic for default/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${EXT} -m comment --comment "route LOCAL traffic for default/web:http external destinations" -m addrtype --src-type LOCAL -j ${SVC}`,
      nodePort[0] as string,
      `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.2:8080" -j KUBE-SEP-BBBBBBBBBBBBBBBB`,
      `-A ${SVL} -m comment --comment "default/web:http -> 10.244.1.2:8080" -j KUBE-SEP-BBBBBBBBBBBBBBBB`,
      nodePort[5] as string,
      TAIL,
    ];
    const r = await capture([write("ext-tail-lost.txt", lines), ...toNodePort]);
    expect(r.out.split("\n")[0]).toBe(
      "default/web:http → 192.0.2.10:30080 (no DNAT)  p=1.000000000  no masquerade",
    );
    expect(notes(r.err)).toContain(
      `kube-iptables: note: ${join(dir, "ext-tail-lost.txt")}: a path left a KUBE-EXT chain without a DNAT; the text lacks kube-proxy's last rule there (-A ${EXT} -j ${SVL}), which has no comment for grep to keep: add it to trace the node`,
    );
    // With that rule, the node DNATs; and externalTrafficPolicy Cluster names KUBE-SVC.
    const whole = await capture([write("ext-tail.txt", [...lines, `-A ${EXT} -j ${SVL}`]), ...toNodePort]);
    expect(whole.out.split("\n")[0]).toBe("default/web:http → 10.244.1.2:8080  p=1.000000000  no masquerade");
    expect(notes(whole.err).join("\n")).not.toContain("KUBE-EXT chain");
    const cluster = await capture([
      write(
        "ext-cluster.txt",
        nodePort.filter((l) => l !== `-A KUBE-EXT-AAAAAAAAAAAAAAAA -j ${SVC}`).concat(TAIL),
      ),
      ...toNodePort,
    ]);
    expect(notes(cluster.err).join("\n")).toContain(`(-A ${EXT} -j ${SVC})`);
  });

  it("names other chains with rules that nothing jumps to, when no service took the packet", async () => {
    const file = write("svc-unreached.txt", [
      `-A ${SVC} -j KUBE-SEP-BBBBBBBBBBBBBBBB`,
      nodePort[5] as string,
    ]);
    const r = await capture([file, ...toService, "--brief"]);
    expect(r.out.split("\n")[0]).toBe("(no service) → 10.96.5.5:80 (no DNAT)  p=1.000000000  no masquerade");
    expect(notes(r.err)).toContain(
      `kube-iptables: note: ${file}: no service took the packet, and nothing in the text jumps to nat ${SVC} (chains with rules): the rules that lead there are not in it`,
    );
    // A packet some service took is not told about the others' missing entries.
    const reached = await capture([write("nodeport-only.txt", nodePort), ...toService, "--brief"]);
    expect(reached.out.split("\n")[0]).toBe(
      "default/web:http → 10.244.1.2:8080  p=1.000000000  no masquerade",
    );
    expect(notes(reached.err).join("\n")).not.toContain("no service took the packet");
  });
});
