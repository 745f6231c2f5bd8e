// A real node's dump as people hand it to the CLI: cut down with grep, with the prompt line they
// copied above it, with sudo's password prompt, with Windows line endings. Each gets one message
// saying what the text is and what to do (never a YAML syntax error), or, for grep output of
// kube-proxy's chains, is read as the tables those chains live in, with a note.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runDiff } from "../../src/cli/diff.js";
import { runGenerate } from "../../src/cli/generate.js";
import { runTrace } from "../../src/cli/trace.js";
import { captureCli as capture } from "../support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "kit-dumps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const SVC = "KUBE-SVC-NWV5X2332I4OT4T3";
const SEP = "KUBE-SEP-57KPRZ3JQVENLNBR";
/** `iptables-save | grep hostnames`, as the debug-services guide shows it: nat rules only. */
const GREP_SERVICE = [
  `-A KUBE-SEP-57KPRZ3JQVENLNBR -s 10.244.3.6/32 -m comment --comment "default/hostnames:" -j KUBE-MARK-MASQ`,
  `-A ${SEP} -p tcp -m comment --comment "default/hostnames:" -m tcp -j DNAT --to-destination 10.244.3.6:9376`,
  `-A KUBE-SERVICES -d 10.0.1.175/32 -p tcp -m comment --comment "default/hostnames: cluster IP" -m tcp --dport 80 -j ${SVC}`,
  `-A ${SVC} -m comment --comment "default/hostnames:" -j ${SEP}`,
  "",
].join("\n");
/** `iptables-save | grep KUBE` of a node: the filter listing, then the nat one. */
const GREP_KUBE = [
  ":KUBE-FORWARD - [0:0]",
  ":KUBE-SERVICES - [0:0]",
  '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD',
  "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
  '-A KUBE-SERVICES -d 10.0.1.9/32 -p tcp -m comment --comment "default/gone: has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable',
  ":KUBE-MARK-MASQ - [0:0]",
  ":KUBE-SERVICES - [0:0]",
  '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000",
  "",
].join("\n");
const SAVE = `*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n`;
const TRACE = ["--src", "10.244.0.5", "--dst", "10.0.1.175:80", "--proto", "tcp"];

describe("pasted dumps through the CLI", () => {
  it("grep output of one Service: read as nat, with a note, and traced", async () => {
    const r = await capture(() => runTrace([file("grep-service.txt", GREP_SERVICE), ...TRACE]));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /^kube-iptables: note: .*grep-service\.txt has rule lines without \*table lines .*\(4 lines in nat\)/m,
    );
    expect(r.out).toContain("→ 10.244.3.6:9376");
  });

  it("grep output of KUBE chains: each listing goes to its table", async () => {
    const r = await capture(() =>
      runDiff([file("grep-kube.txt", GREP_KUBE), file("grep-kube2.txt", GREP_KUBE)]),
    );
    expect(r.err).not.toMatch(/YAML|problem/i);
    expect(r.err).toMatch(/\(5 lines in filter, 4 lines in nat\)/);
    expect(r.code).toBe(0);
    expect(r.out).toBe("no changes\n");
  });

  it("an `iptables -t nat -S` listing keeps its own jumps: kube-proxy adds only the missing ones", async () => {
    // PREROUTING returns pod traffic before it jumps to KUBE-SERVICES: no DNAT, as on the node.
    // A second KUBE-SERVICES jump put in front of the RETURN would DNAT it.
    const listing = [
      "-P PREROUTING ACCEPT",
      "-P INPUT ACCEPT",
      "-P OUTPUT ACCEPT",
      "-P POSTROUTING ACCEPT",
      "-N KUBE-SERVICES",
      `-N ${SVC}`,
      `-N ${SEP}`,
      "-A PREROUTING -s 10.244.0.0/16 -j RETURN",
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      ...GREP_SERVICE.split("\n").filter((line) => line !== ""),
      "",
    ].join("\n");
    const traced = await capture(() =>
      runTrace([file("nat-S.txt", listing), ...TRACE, "--brief", "--format", "json"]),
    );
    expect(traced.code).toBe(0);
    const outcomes = JSON.parse(traced.out).outcomes as { dnat: unknown; steps: { chain: string }[] }[];
    expect(outcomes.map((o) => o.dnat)).toEqual([null]);
    // From outside the pod range the listing's own jump (its rule 2, after the RETURN) is taken.
    const outside = await capture(() =>
      runTrace([file("nat-S.txt", listing), "--src", "198.18.0.9", ...TRACE.slice(2), "--format", "json"]),
    );
    const steps = (JSON.parse(outside.out).outcomes[0].steps as { chain: string; index: number }[]).filter(
      (step) => step.chain === "PREROUTING",
    );
    expect(steps.map((step) => step.index)).toEqual([2]);
  });

  it("grep output whose chains are not kube-proxy's: one message, what to give instead", async () => {
    const r = await capture(() =>
      runDiff([
        file("grep-docker.txt", "-A DOCKER -j RETURN\n-A DOCKER-USER -j RETURN\n"),
        file("s.txt", SAVE),
      ]),
    );
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(/without a \*table line.*give the whole iptables-save output/);
  });

  it("a problem in grep output names the user's line, not the rewritten text's", async () => {
    const bad = GREP_SERVICE.replace("--dport 80", "--dport 99999");
    const r = await capture(() => runTrace([file("grep-bad.txt", bad), ...TRACE]));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/grep-bad\.txt:3:\d+: invalid port\/service `99999'/);
  });

  it("a shell prompt line above the dump: one message", async () => {
    for (const prompt of [
      "root@node-1:~# iptables-save",
      "$ sudo iptables-save",
      "[core@node ~]$ sudo iptables-save -t nat",
    ]) {
      const r = await capture(() => runTrace([file("prompt.txt", `${prompt}\n${SAVE}`), ...TRACE]));
      expect(r.code).toBe(2);
      expect(r.err.trim().split("\n")).toEqual([
        expect.stringMatching(
          /prompt\.txt:1:1: this line is a shell prompt and command .*keep only what the command printed/,
        ),
      ]);
      expect(r.err).not.toMatch(/YAML|Implicit keys/);
    }
  });

  it("a prompt line between two pasted outputs: one message naming its line", async () => {
    const text = `${SAVE}user@laptop:~$ ssh node-1 sudo ip6tables-save\n${SAVE}`;
    const r = await capture(() => runDiff([file("middle.txt", text), file("s2.txt", SAVE)]));
    expect(r.code).toBe(2);
    const line = SAVE.split("\n").length;
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`middle\\.txt:${line}:1: this line is a shell prompt and command`)),
    ]);
  });

  it("sudo's password prompt above the dump: one message", async () => {
    const r = await capture(() =>
      runDiff([file("sudo.txt", `[sudo] password for alice: \n${SAVE}`), file("s4.txt", SAVE)]),
    );
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(
        /sudo\.txt:1:1: this line is a password prompt \(sudo's\).*sudo iptables-save > node\.txt/,
      ),
    ]);
  });

  it("CRLF line endings: one message saying to convert them", async () => {
    const r = await capture(() =>
      runDiff([file("crlf.txt", SAVE.replaceAll("\n", "\r\n")), file("s5.txt", SAVE)]),
    );
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(/crlf\.txt:1:1: the text has Windows \(CRLF\) line endings.*dos2unix/),
    ]);
  });

  it("generate --current with grep output and a chain declared twice", async () => {
    const cluster = file(
      "cluster.json",
      JSON.stringify({
        config: { hostname: "node-a" },
        services: [
          {
            metadata: { name: "web", namespace: "default" },
            spec: { clusterIP: "10.96.0.10", ports: [{ port: 80 }] },
          },
        ],
      }),
    );
    const stale = "KUBE-SVC-AAAAAAAAAAAAAAAA";
    const dump = `*nat\n:${stale} - [0:0]\n:${stale} - [0:0]\nCOMMIT\n`;
    const r = await capture(() =>
      runGenerate([cluster, "--format", "restore", "--family", "IPv4", "--current", file("twice.txt", dump)]),
    );
    expect(r.code).toBe(0);
    expect(r.out.split("\n").filter((l) => l === `-X ${stale}`)).toHaveLength(1);
    const g = await capture(() =>
      runGenerate([
        cluster,
        "--format",
        "restore",
        "--family",
        "IPv4",
        "--current",
        file("g.txt", `:${stale} - [0:0]\n-A ${stale} -j KUBE-SEP-BBBBBBBBBBBBBBBB\n`),
      ]),
    );
    expect(g.code).toBe(0);
    expect(g.err).toMatch(/^kube-iptables: note: /);
    expect(g.out).toContain(`-X ${stale}`);
  });

  it("a prompt above a cluster file: one message, not a YAML error", async () => {
    const r = await capture(() =>
      runGenerate([file("c.yaml", "$ kubectl get svc -o yaml\napiVersion: v1\nkind: List\nitems: []\n")]),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/c\.yaml:1:1: this line is a shell prompt/);
    expect(r.err).not.toMatch(/YAML|Implicit keys/);
  });
});
