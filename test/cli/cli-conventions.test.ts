// The CLI as a terminal user meets it, held to the conventions of diff(1) and kubectl: help per
// command, the version, exit codes (diff: 0 same, 1 different, 2 trouble), and one shape for
// every message on stderr.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { DIFF_FLAGS } from "../../src/cli/diff.js";
import { systemErrorText } from "../../src/cli/errno.js";
import { GENERATE_FLAGS } from "../../src/cli/generate.js";
import { COMMANDS, commandSpec, GLOBAL_FLAGS, HELP_WIDTH, wrap } from "../../src/cli/help.js";
import { TRACE_FLAGS } from "../../src/cli/trace.js";
import { plainUsageMessage } from "../../src/cli/usage.js";
import { type CliResult, ROOT, runCli, runCliAsync, stderrLines } from "../support/run-cli.js";

const EXAMPLE = "examples/cluster.yaml";
let dir: string;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-iptables-conventions-"));
});

/** Exit 2, nothing on stdout, `kube-iptables: LINE` and the hint to the command's help. */
function expectUsage(r: CliResult, line: string, command: string): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
  expect(stderrLines(r)).toEqual([
    `kube-iptables: ${line}`,
    `kube-iptables: Try 'kube-iptables ${command} --help'.`,
  ]);
}

describe("--help", () => {
  const commands = COMMANDS.map((c) => c.name);

  test.each(commands)("%s --help, -h and help COMMAND print the command's usage, exit 0", async (name) => {
    const [long, short, help] = await Promise.all([
      runCliAsync([name, "--help"]),
      runCliAsync([name, "-h"]),
      runCliAsync(["help", name]),
    ]);
    expect(long.code).toBe(0);
    expect(long.stderr).toBe("");
    expect(long.stdout).toMatch(new RegExp(`^Usage:\\n  kube-iptables ${name} `));
    expect(long.stdout).toMatch(/\nExit status: 0 /);
    expect(short).toEqual(long);
    expect(help).toEqual(long);
  });

  test("--help wins over the rest of the command line, as with kubectl", () => {
    const r = runCli(["generate", "no-such-file", "--bogus", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(runCli(["generate", "--help"]).stdout);
  });

  test("every line of every help fits 80 columns", async () => {
    const runs = await Promise.all(
      [["--help"], ...commands.map((c) => [c, "--help"])].map((a) => runCliAsync(a)),
    );
    for (const r of runs) {
      expect(r.code).toBe(0);
      const long = r.stdout.split("\n").filter((line) => [...line].length > HELP_WIDTH);
      expect(long).toEqual([]);
    }
  });

  test("the main help lists every command; kube-iptables alone is a usage error", () => {
    const r = runCli(["--help"]);
    for (const c of COMMANDS) expect(r.stdout).toContain(`\n  ${c.name.padEnd(12)}${c.summary}\n`);
    expect(runCli(["help"]).stdout).toBe(r.stdout);
    const bare = runCli([]);
    expect(bare.code).toBe(2);
    expect(stderrLines(bare)).toEqual([
      "kube-iptables: missing COMMAND",
      "kube-iptables: Try 'kube-iptables --help'.",
    ]);
    const unknown = runCli(["help", "frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(stderrLines(unknown)[0]).toBe("kube-iptables: frobnicate: unknown command");
  });

  // The help is written from help.ts's table, and the commands parse their own flags: the two
  // lists must be the same, or --help (and completion) would offer a flag the command refuses.
  test.each([
    ["generate", GENERATE_FLAGS, []],
    ["diff", DIFF_FLAGS, []],
    // trace reads the family from --dst; it takes --family with the node flags, and ignores it.
    ["trace", TRACE_FLAGS, ["family"]],
  ] as const)("%s --help lists exactly the flags %s takes", (name, accepted, undocumented) => {
    const spec = commandSpec(name);
    const listed = spec?.groups.flatMap((g) => g.flags.map((f) => f.name)) ?? [];
    expect([...listed, ...undocumented].sort()).toEqual([...accepted].sort());
    const help = runCli([name, "--help"]).stdout;
    for (const flag of [...listed, ...GLOBAL_FLAGS.map((f) => f.name)])
      expect(help).toMatch(new RegExp(`\\n  (-\\w, )?--${flag}\\b`));
  });

  test("wrap breaks between words and keeps each line within the width", () => {
    expect(wrap("aa bb cc", 5, 0)).toEqual(["aa bb", "cc"]);
    expect(wrap("aa bb cc", 7, 3)).toEqual(["aa", "bb", "cc"]);
    expect(wrap("aa bb cc", 8, 3)).toEqual(["aa bb", "cc"]);
    expect(wrap("  a   b  ", 80, 0)).toEqual(["a b"]);
  });
});

describe("--version", () => {
  test("--version and -V print the package.json version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const [long, short] = await Promise.all([runCliAsync(["--version"]), runCliAsync(["-V"])]);
    expect(long).toEqual({ code: 0, stdout: `kube-iptables ${version}\n`, stderr: "" });
    expect(short).toEqual(long);
  });

  test("the version is read at run time from the package.json beside dist/", () => {
    // An installed copy of the package (bin, dist, package.json; node_modules linked) whose
    // package.json says another version.
    const pkg = mkdtempSync(join(dir, "installed-"));
    cpSync(join(ROOT, "bin"), join(pkg, "bin"), { recursive: true });
    cpSync(join(ROOT, "dist"), join(pkg, "dist"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ ...manifest, version: "9.8.7-test.1" }));
    const r = spawnSync(process.execPath, [join(pkg, "bin", "kube-iptables.js"), "--version"], {
      encoding: "utf8",
    });
    expect(r.stdout).toBe("kube-iptables 9.8.7-test.1\n");
    expect(r.status).toBe(0);
  });
});

describe("exit codes (diff(1)'s: 0 same, 1 different, 2 trouble)", () => {
  test("diff: 0 when the sides are the same, 1 when they differ", async () => {
    const save = runCli(["generate", EXAMPLE]).stdout;
    const dump = file("node.save", save);
    const older = file("older.save", save.replace(/^-A KUBE-SERVICES .*my-nginx-svc.*\n/gm, ""));
    expect(older).not.toBe(save);
    const [same, sameDump, differ, differRestore] = await Promise.all([
      runCliAsync(["diff", EXAMPLE, EXAMPLE]),
      runCliAsync(["diff", dump, EXAMPLE]),
      runCliAsync(["diff", older, EXAMPLE]),
      runCliAsync(["diff", older, EXAMPLE, "--format", "restore"]),
    ]);
    expect(same).toEqual({ code: 0, stdout: "no changes\n", stderr: "" });
    expect(sameDump).toEqual(same);
    expect(differ.code).toBe(1);
    expect(differ.stdout).toContain("default/my-nginx-svc");
    expect(differ.stderr).toBe("");
    expect(differRestore.code).toBe(1);
    expect(differRestore.stdout).toMatch(/^\*nat\n/m);
  });

  test("diff: usage errors and bad input are trouble (2), never 'differ' (1)", async () => {
    const runs = await Promise.all([
      runCliAsync(["diff", EXAMPLE]),
      runCliAsync(["diff", EXAMPLE, EXAMPLE, "--bogus"]),
      runCliAsync(["diff", EXAMPLE, EXAMPLE, "--format", "xml"]),
      runCliAsync(["diff", EXAMPLE, join(dir, "missing.yaml")]),
      runCliAsync(["diff", EXAMPLE, file("broken.json", "{")]),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
    }
  });

  test("generate and trace: 0 success, 2 trouble, usage errors included", async () => {
    const packet = ["--src", "10.244.0.5", "--dst", "10.96.0.10:53", "--proto", "udp"];
    const [ok, usage, input, traced, traceUsage] = await Promise.all([
      runCliAsync(["generate", EXAMPLE]),
      runCliAsync(["generate", EXAMPLE, "--format", "xml"]),
      runCliAsync(["generate", join(dir, "missing.yaml")]),
      runCliAsync(["trace", EXAMPLE, ...packet, "--brief"]),
      runCliAsync(["trace", EXAMPLE, "--src", "10.244.0.5"]),
    ]);
    expect([ok.code, usage.code, input.code, traced.code, traceUsage.code]).toEqual([0, 2, 2, 0, 2]);
  });
});

describe("diagnostics: 'kube-iptables: ' then the file, the flag or the argument", () => {
  // A bad flag value is named by the flag, not by the config field it sets.
  test.concurrent.each([
    [["--node-ip", "300.1.1.1"], "--node-ip 300.1.1.1: not a valid IP address"],
    [["--node-ip", "10.0.0.1", "--node-ip", "fd00::1/64"], "--node-ip fd00::1/64: not a valid IP address"],
    [["--cluster-cidr", "x"], "--cluster-cidr x: not a CIDR (address/prefix-length)"],
    [
      ["--cluster-cidr", "10.0.0.0/8,10.0.0.0/33"],
      "--cluster-cidr 10.0.0.0/33: not a valid IPv4 CIDR: the prefix length must be 0-32",
    ],
    [
      ["--node-cidr", "10.0.0.0/99"],
      "--node-cidr 10.0.0.0/99: not a valid IPv4 CIDR: the prefix length must be 0-32",
    ],
    [["--masquerade-bit", "99"], "--masquerade-bit 99: not a bit number 0-31"],
    [["--family", "foo"], "--family foo: expected IPv4, IPv6 or both"],
    [["--profile", "foo"], "--profile foo: expected v1.22, v1.30, v1.32, v1.34, v1.36, v1.37, latest"],
    [["--format", "foo"], "--format foo: expected save, restore or json"],
    [
      ["--bridge-interface", "a/b"],
      "--bridge-interface a/b: not a valid interface name: no '/', ':', '!' or whitespace",
    ],
    [
      ["--interface-name-prefix", ""],
      "--interface-name-prefix '': not a valid interface name prefix: it is empty",
    ],
    [["--zone", "bad zone"], "--zone 'bad zone':"],
    [["--nodeport-addresses", "primary,10.0.0.0/8"], "--nodeport-addresses primary,10.0.0.0/8:"],
    [
      ["--nodeport-addresses", "10.0.0.0/8,nope"],
      "--nodeport-addresses nope: not a CIDR (address/prefix-length)",
    ],
    [["--hostname", "n\u00011"], "--hostname 'n\\u00011': contains a control character (U+0001)"],
  ])("generate %j", async (flags, line) => {
    // The file is missing too: the flag is reported first, before any file is read.
    const r = await runCliAsync(["generate", "no-such-file.yaml", ...flags]);
    expect(r.code).toBe(2);
    const [first, hint] = stderrLines(r);
    expect(first?.startsWith(`kube-iptables: ${line}`)).toBe(true);
    expect(hint).toBe("kube-iptables: Try 'kube-iptables generate --help'.");
  });

  test("diff and trace name a bad flag value the same way", async () => {
    const [diff, trace, diffFormat, traceProto] = await Promise.all([
      runCliAsync(["diff", EXAMPLE, EXAMPLE, "--node-ip", "300.1.1.1"]),
      runCliAsync(["trace", EXAMPLE, "--src", "10.0.0.1", "--dst", "10.0.0.2:80", "--node-ip", "300.1.1.1"]),
      runCliAsync(["diff", EXAMPLE, EXAMPLE, "--format", "foo"]),
      runCliAsync(["trace", EXAMPLE, "--src", "10.0.0.1", "--dst", "10.0.0.2:80", "--proto", "icmp"]),
    ]);
    expectUsage(diff, "--node-ip 300.1.1.1: not a valid IP address", "diff");
    expectUsage(trace, "--node-ip 300.1.1.1: not a valid IP address", "trace");
    expectUsage(diffFormat, "--format foo: expected summary or restore", "diff");
    expectUsage(traceProto, "--proto icmp: expected tcp, udp or sctp", "trace");
    const [src, family] = await Promise.all([
      runCliAsync(["trace", EXAMPLE, "--src", "300.1.1.1", "--dst", "10.0.0.2:80"]),
      runCliAsync(["trace", EXAMPLE, "--src", "fd00::1", "--dst", "10.0.0.2:80"]),
    ]);
    expectUsage(src, "--src 300.1.1.1: not an IP address", "trace");
    expectUsage(family, "--src fd00::1: not an IPv4 address, as --dst is", "trace");
  });

  test("the command line's own mistakes, in words rather than Node's", async () => {
    const [unknown, missing, ambiguous, noValue, command] = await Promise.all([
      runCliAsync(["generate", EXAMPLE, "--bogus"]),
      runCliAsync(["generate", EXAMPLE, "--format"]),
      runCliAsync(["generate", EXAMPLE, "--hostname", "-x"]),
      runCliAsync(["diff", EXAMPLE, EXAMPLE, "--all-chains=yes"]),
      runCliAsync(["frobnicate"]),
    ]);
    expectUsage(unknown, "--bogus: unknown option", "generate");
    expectUsage(missing, "--format: needs a value", "generate");
    expectUsage(
      ambiguous,
      "--hostname: needs a value (a value starting with '-' is written --hostname=-VALUE)",
      "generate",
    );
    expectUsage(noValue, "--all-chains: takes no value", "diff");
    expect(stderrLines(command)).toEqual([
      "kube-iptables: frobnicate: unknown command",
      "kube-iptables: Try 'kube-iptables --help'.",
    ]);
  });

  test("plainUsageMessage keeps a message it does not know", () => {
    expect(plainUsageMessage("Option '-f, --format <value>' argument missing")).toBe(
      "--format: needs a value",
    );
    expect(
      plainUsageMessage("Unexpected argument 'x'. This command does not take positional arguments"),
    ).toBe("x: unexpected argument");
    expect(plainUsageMessage("diff takes two files")).toBe("diff takes two files");
  });

  test("system errors: the file, then why in words", async () => {
    const loop = join(dir, "loop.yaml");
    symlinkSync(loop, loop);
    const folder = join(dir, "a-directory");
    mkdirSync(folder);
    const [missing, notDir, looped, isDir] = await Promise.all([
      runCliAsync(["generate", join(dir, "missing.yaml")]),
      runCliAsync(["generate", `${file("plain.yaml", "")}/x.yaml`]),
      runCliAsync(["generate", loop]),
      runCliAsync(["generate", EXAMPLE, "--current", folder]),
    ]);
    expect(stderrLines(missing)).toEqual([
      `kube-iptables: ${join(dir, "missing.yaml")}: no such file or directory`,
    ]);
    expect(stderrLines(notDir)).toEqual([
      `kube-iptables: ${join(dir, "plain.yaml")}/x.yaml: not a directory`,
    ]);
    expect(stderrLines(looped)).toEqual([`kube-iptables: ${loop}: too many levels of symbolic links`]);
    expect(stderrLines(isDir)).toEqual([`kube-iptables: ${folder}: is a directory`]);
    for (const r of [missing, notDir, looped, isDir]) expect(r.code).toBe(2);
    // A file's name is shown with its control characters escaped: one line, nothing run by the terminal.
    const odd = await runCliAsync(["generate", "bad\u001b[2J\nname.yaml"]);
    expect(stderrLines(odd)).toEqual(["kube-iptables: bad\\u001b[2J\\nname.yaml: no such file or directory"]);
  });

  test("errno names in words, an unknown one from Node's message without the code", () => {
    const error = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(systemErrorText(error("EACCES", "EACCES: permission denied, open 'x'"))).toBe("permission denied");
    expect(systemErrorText(error("EMFILE", "EMFILE: too many open files, open 'x'"))).toBe(
      "too many open files",
    );
    expect(systemErrorText(error("EXDEV", "EXDEV: cross-device link not permitted, rename 'a' -> 'b'"))).toBe(
      "cross-device link not permitted",
    );
    expect(systemErrorText(error("ERR_FS_FILE_TOO_LARGE", "File size (3) is greater than 2 GiB"))).toBe(
      "File size (3) is greater than 2 GiB",
    );
  });

  test("a problem in a file: FILE:LINE:COL for text, FILE: path for objects; stdin is '-'", async () => {
    const dump = file("bad.save", "*nat\n:KUBE-X - [0:0]\n-A KUBE-X -p tcp --dport 99999 -j DROP\nCOMMIT\n");
    const svc = file(
      "svc.json",
      JSON.stringify({
        services: [{ metadata: { name: "a", namespace: "default" }, spec: { ports: [{ port: 0 }] } }],
      }),
    );
    const [text, objects, stdin] = await Promise.all([
      runCliAsync(["diff", dump, EXAMPLE]),
      runCliAsync(["generate", "--strict", svc]),
      Promise.resolve(runCli(["generate", "-"], '{"services": [')),
    ]);
    expect(stderrLines(text)).toHaveLength(1);
    expect(stderrLines(text)[0]?.startsWith(`kube-iptables: ${dump}:3:`)).toBe(true);
    expect(stderrLines(text)[0]).toMatch(/\.save:3:\d+: invalid port/);
    expect(stderrLines(objects)[0]).toMatch(new RegExp(`^kube-iptables: ${svc}: services\\[0\\]\\.spec\\.`));
    expect(stderrLines(stdin)).toEqual([
      "kube-iptables: -:1:15: the input is not valid JSON: the input ends inside an array",
    ]);
  });

  test("a note says 'note:'; --quiet (-q) drops notes but not problems", async () => {
    const save = runCli(["generate", EXAMPLE]).stdout;
    // Two dumps that differ only in a chain kube-proxy does not own: a note names it.
    const a = file("a.save", save);
    const b = file("b.save", save.replace("*filter\n", "*filter\n:DOCKER - [0:0]\n"));
    const [noted, quiet, short] = await Promise.all([
      runCliAsync(["diff", a, b]),
      runCliAsync(["diff", a, b, "--quiet"]),
      runCliAsync(["-q", "diff", a, b]),
    ]);
    expect(noted.code).toBe(0);
    expect(stderrLines(noted)).toEqual([
      "kube-iptables: note: 1 chain that kube-proxy does not own differs too (filter DOCKER); --all-chains compares them",
    ]);
    expect(quiet).toEqual({ ...noted, stderr: "" });
    expect(short).toEqual(quiet);
    const problem = await runCliAsync(["generate", "-q", join(dir, "missing.yaml")]);
    expect(stderrLines(problem)).toHaveLength(1);
  });
});
