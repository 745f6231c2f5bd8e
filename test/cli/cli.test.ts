// The built CLI as a user runs it (`npm test` builds dist/ first): exit codes, what goes to
// stdout and what to stderr, and that the two example inputs describe the same node.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { dualStackCluster } from "../support/dual-stack.js";
import { type CliResult, ROOT, runCli, stderrLines } from "../support/run-cli.js";

const NODE = ["--hostname", "k8s1", "--node-ip", "10.210.40.172", "--cluster-cidr", "10.244.0.0/16"];
/** The problem of the Service with port 70000 in `file`, as the CLI prints it. */
const badPort = (file: string): string =>
  `kube-iptables: ${file}: services[1].spec.ports[0].port: 70000 is not a port number (1-65535)`;
let dir: string;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Exit 2 with nothing on stdout and at least one line on stderr. */
function expectInputError(r: CliResult): void {
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  expect(stderrLines(r).length).toBeGreaterThan(0);
}

/** Exit 2 with nothing on stdout, the message and the hint to the command's help on stderr. */
function expectUsageError(r: CliResult, message: RegExp, command = "generate"): void {
  expect(r.stdout).toBe("");
  expect(r.code).toBe(2);
  const lines = stderrLines(r);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^kube-iptables: /);
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toBe(`kube-iptables: Try 'kube-iptables ${command === "" ? "" : `${command} `}--help'.`);
}

/** examples/cluster.yaml with a Service that has port 70000 inserted as services[1]. */
function clusterWithBadService(): string {
  const cluster = parse(readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8"));
  cluster.services.splice(1, 0, {
    metadata: { name: "broken", namespace: "default" },
    spec: { clusterIP: "10.96.200.1", ports: [{ name: "http", port: 70000, protocol: "TCP" }] },
  });
  return file("bad-service.json", JSON.stringify(cluster));
}

/** One dual-stack Service with an endpoint in each family. */
const DUAL_STACK = dualStackCluster();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-iptables-cli-"));
});

describe("kube-iptables trace --help", () => {
  test("explains trace's options, not only names them in the synopsis", () => {
    const r = runCli(["trace", "--help"]);
    expect(r.code).toBe(0);
    // Each flag's line: the flag, then (after two spaces or more) its description.
    for (const flag of ["--from", "--in-interface", "--brief"])
      expect(r.stdout).toMatch(new RegExp(`\\n  ${flag}\\b[^\\n]*? {2,}[a-z]`));
  });
});

describe("kube-iptables generate", () => {
  test("the cluster file and the kubectl List of the same node give the same save text", () => {
    const fromCluster = runCli(["generate", "examples/cluster.yaml"]);
    const fromList = runCli(["generate", "examples/kubectl-list.json", ...NODE]);
    expect(fromCluster.code).toBe(0);
    expect(fromList.code).toBe(0);
    expect(fromCluster.stderr).toBe("");
    expect(fromCluster.stdout).toMatch(/^\*filter\n:INPUT ACCEPT \[0:0\]\n/);
    expect(fromCluster.stdout).toContain("-A KUBE-SERVICES -d 10.96.0.10/32 -p udp");
    expect(fromList.stdout).toBe(fromCluster.stdout);
  });

  test("stdin ('-') reads the same as the file", () => {
    const text = readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8");
    expect(runCli(["generate", "-", "--format", "restore"], text).stdout).toBe(
      runCli(["generate", "examples/cluster.yaml", "--format", "restore"]).stdout,
    );
  });

  test("a bad Service is left out: exit 0, the other Services' rules, its problem on stderr", () => {
    const bad = clusterWithBadService();
    const r = runCli(["generate", bad]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([badPort(bad)]);
    expect(r.stdout).toBe(runCli(["generate", "examples/cluster.yaml"]).stdout);
  });

  test("--strict refuses the file with the bad Service: exit 2, nothing on stdout", () => {
    const bad = clusterWithBadService();
    const r = runCli(["generate", bad, "--strict"]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([badPort(bad)]);
  });

  test("--family both reports a problem once, not once per family", () => {
    const bad = clusterWithBadService();
    const r = runCli(["generate", bad, "--family", "both"]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([badPort(bad)]);
  });

  test.each([
    ["an empty file", "empty.yaml", ""],
    ["a file of comments", "comments.yaml", "# nothing here\n"],
  ])("%s: exit 2", (_what, name, text) => {
    const path = file(name, text);
    const r = runCli(["generate", path]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([`kube-iptables: ${path}: the input is empty`]);
  });

  test("malformed JSON: exit 2, line and column", () => {
    const path = file("bad.json", '{"services": [');
    const r = runCli(["generate", path]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${path}:1:15: the input is not valid JSON: the input ends inside an array`,
    ]);
  });

  test("malformed JSON in the second of two files and of two documents: the file, line and column", () => {
    const good = file("good.json", '{"kind": "List", "items": []}\n');
    const bad = file("stream.json", '{"kind": "List", "items": []}\n{"kind": "List",\n "items": [,]}\n');
    const r = runCli(["generate", good, bad]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${bad}:3:12: the input is not valid JSON: unexpected ","`,
    ]);
  });

  test("malformed YAML: exit 2, line and column", () => {
    const path = file("bad.yaml", "services:\n  - a: [\n");
    const r = runCli(["generate", path]);
    expectInputError(r);
    expect(r.stderr.startsWith(`kube-iptables: ${path}:`)).toBe(true);
    expect(r.stderr.slice(`kube-iptables: ${path}`.length)).toMatch(
      /^:\d+:\d+: the input is not valid YAML: /,
    );
  });

  test("a List with another kind skips it with a note (the rules are the same); --strict refuses it: exit 2", () => {
    const list = JSON.parse(readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8"));
    list.items.splice(2, 0, { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } });
    const expected = runCli(["generate", "examples/kubectl-list.json", ...NODE]);
    const path = file("pod-list.json", JSON.stringify(list));
    const r = runCli(["generate", path, ...NODE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected.stdout);
    expect(stderrLines(r)).toEqual([`kube-iptables: ${path}: skipped 1 object of another kind: Pod (1)`]);
    const strict = runCli(["generate", path, ...NODE, "--strict"]);
    expectInputError(strict);
    expect(stderrLines(strict)).toEqual([
      `kube-iptables: ${path}: skipped 1 object of another kind: Pod (1)`,
    ]);
  });

  test("the kubectl List as typed lists, or one document per object, gives the same save text", () => {
    const list = JSON.parse(readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8"));
    const expected = runCli(["generate", "examples/kubectl-list.json", ...NODE]);
    expect(expected.code).toBe(0);
    const ofKind = (kind: string) => list.items.filter((item: { kind: string }) => item.kind === kind);
    // As the API returns them: typed lists whose items carry no kind or apiVersion.
    const bare = (items: Record<string, unknown>[]) =>
      items.map(({ kind: _k, apiVersion: _v, ...rest }) => rest);
    const typed = [
      { apiVersion: "v1", kind: "ServiceList", items: bare(ofKind("Service")) },
      { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSliceList", items: bare(ofKind("EndpointSlice")) },
    ];
    const streams = {
      "typed-lists.yaml": typed.map((doc) => stringify(doc)).join("---\n"),
      "objects.yaml": list.items.map((item: object) => stringify(item)).join("---\n"),
    };
    for (const [name, text] of Object.entries(streams)) {
      const r = runCli(["generate", file(name, text), ...NODE]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
    }
    // Two kubectl runs into one pipe: `(kubectl get svc -o json; kubectl get endpointslices -o json)`.
    const piped = runCli(
      ["generate", "-", ...NODE],
      typed.map((doc) => JSON.stringify(doc, null, 4)).join("\n"),
    );
    expect(piped.stderr).toBe("");
    expect(piped.stdout).toBe(expected.stdout);
    // A ServiceList alone is Services without endpoints.
    const services = runCli(["generate", file("services.json", JSON.stringify(typed[0])), ...NODE]);
    expect(services.code).toBe(0);
    expect(services.stdout).toContain("has no endpoints");
  });

  test("an EndpointSlice of another apiVersion is named and left out, not read as v1; --strict: exit 2", () => {
    const list = JSON.parse(readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8"));
    const i = list.items.findIndex((item: { kind: string }) => item.kind === "EndpointSlice");
    list.items[i].apiVersion = "discovery.k8s.io/v1beta1";
    const path = file("beta-list.json", JSON.stringify(list));
    const r = runCli(["generate", path, ...NODE]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${path}: skipped 1 object of a version not read: discovery.k8s.io/v1beta1 EndpointSlice (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints`,
    ]);
    // Its endpoints are not read: kube-proxy watches discovery.k8s.io/v1 only.
    const expected = runCli(["generate", "examples/kubectl-list.json", ...NODE]);
    expect(r.stdout).not.toBe(expected.stdout);
    expectInputError(runCli(["generate", file("beta-list.json", JSON.stringify(list)), ...NODE, "--strict"]));
  });

  test("a byte order mark, or UTF-16 as Windows PowerShell writes it, reads as the same text", () => {
    const expected = runCli(["generate", "examples/kubectl-list.json", ...NODE]);
    const text = readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8");
    const utf16 = (littleEndian: boolean) => {
      const bytes = Buffer.from(`\ufeff${text}`, "utf16le");
      return littleEndian ? bytes : bytes.swap16();
    };
    const encodings: Record<string, Buffer> = {
      "bom-utf8.json": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
      "utf16le.json": utf16(true),
      "utf16be.json": utf16(false),
    };
    for (const [name, bytes] of Object.entries(encodings)) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const r = runCli(["generate", path, ...NODE]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(expected.stdout);
    }
    // YAML with a byte order mark, through stdin.
    const yaml = readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8");
    const fromStdin = runCli(["generate", "-"], `\ufeff${yaml}`);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(runCli(["generate", "examples/cluster.yaml"]).stdout);
  });

  test("bytes that are not UTF-8 are refused with the offset: exit 2", () => {
    const path = join(dir, "binary.json");
    writeFileSync(path, Buffer.from([0x7b, 0x22, 0x61, 0xc3, 0x28, 0x22, 0x7d]));
    const r = runCli(["generate", path]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([`kube-iptables: ${path}: is not UTF-8 text (byte 3)`]);
  });

  test("a missing file: exit 2, the file and why in words", () => {
    const path = join(dir, "no-such-file.yaml");
    const r = runCli(["generate", path]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([`kube-iptables: ${path}: no such file or directory`]);
  });

  test("usage errors exit 2, before the input is read", () => {
    expectUsageError(runCli(["generate", "examples/cluster.yaml", "--bogus"]), /: --bogus: unknown option$/);
    expectUsageError(runCli(["generate"]), /generate takes a FILE/);
    expectUsageError(runCli(["generate", "examples/cluster.yaml", "--format", "xml"]), /--format xml/);
    expectUsageError(runCli(["frobnicate"]), /: frobnicate: unknown command$/, "");
    // A bad flag is reported before the file is found missing.
    expectUsageError(runCli(["generate", "no-such-file", "--family", "IPv5"]), /--family IPv5/);
    expectUsageError(runCli(["generate", "no-such-file", "--masquerade-bit", "32"]), /--masquerade-bit 32/);
    expectUsageError(runCli(["generate", "no-such-file", "--profile", "v9"]), /--profile v9/);
  });

  test("--family both prints the IPv4 block, then the IPv6 block, each after its '#' line", () => {
    const path = file("dual.json", DUAL_STACK);
    const both = runCli(["generate", path, "--family", "both"]);
    expect(both.code).toBe(0);
    expect(both.stdout.split("\n").filter((l) => l.startsWith("#"))).toEqual([
      "# IPv4 (iptables)",
      "# IPv6 (ip6tables)",
    ]);
    const v4 = runCli(["generate", path, "--family", "IPv4"]).stdout;
    const v6 = runCli(["generate", path, "--family", "IPv6"]).stdout;
    expect(v4).toContain("10.96.0.10/32");
    expect(v6).toContain("fd00:10:96::a/128");
    // Each family's endpoints, from its own slice.
    expect(v4).toContain("--to-destination 10.244.0.5:8080");
    expect(v6).toContain("--to-destination [fd00:10:244::5]:8080");
    expect(v4).not.toContain("fd00:10:244::5");
    expect(both.stdout).toBe(`# IPv4 (iptables)\n${v4}# IPv6 (ip6tables)\n${v6}`);
  });

  test("an IPv6-only cluster read with the default family gets a note naming --family IPv6", () => {
    const dual = JSON.parse(DUAL_STACK);
    const spec = dual.services[0].spec;
    const v6only = {
      ...dual,
      config: { hostname: "n1" },
      services: [
        {
          ...dual.services[0],
          spec: { ...spec, clusterIP: "fd00:10:96::a", clusterIPs: ["fd00:10:96::a"], ipFamilies: ["IPv6"] },
        },
      ],
    };
    const path = file("v6only.json", JSON.stringify(v6only));
    const r = runCli(["generate", path]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("default/web");
    expect(stderrLines(r)).toEqual([
      "kube-iptables: note: no Service has an IPv4 cluster IP, and 1 service port has an IPv6 one: give --family IPv6, or set config.ipFamily",
    ]);
    // Asked for by name, IPv4 is what the user wants: no note. A dual-stack cluster has IPv4 ports.
    expect(stderrLines(runCli(["generate", path, "--family", "IPv4"]))).toEqual([]);
    expect(stderrLines(runCli(["generate", file("dual-note.json", DUAL_STACK)]))).toEqual([]);
    const configured = { ...v6only, config: { hostname: "n1", ipFamily: "IPv4" } };
    expect(stderrLines(runCli(["generate", file("v6only-v4.json", JSON.stringify(configured))]))).toEqual([]);
  });

  test("--format json is JSON; with --family both, one JSON array of both rule sets", () => {
    const one = runCli(["generate", "examples/cluster.yaml", "--format", "json"]);
    expect(one.code).toBe(0);
    const ruleSet = JSON.parse(one.stdout);
    expect(ruleSet.family).toBe("IPv4");
    expect(ruleSet.tables.map((t: { name: string }) => t.name)).toEqual(["filter", "nat"]);

    const both = runCli([
      "generate",
      file("dual-json.json", DUAL_STACK),
      "--format",
      "json",
      "--family",
      "both",
    ]);
    expect(both.code).toBe(0);
    const sets = JSON.parse(both.stdout);
    expect(sets.map((s: { family: string }) => s.family)).toEqual(["IPv4", "IPv6"]);
  });

  test("a config of the wrong type is reported even with node flags on the command line", () => {
    const path = file("config-array.json", '{"config": [], "services": []}');
    const r = runCli(["generate", path, "--hostname", "n1"]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([`kube-iptables: ${path}: config: expected an object, got an array`]);
  });

  test("--current deletes the per-service chains of the node's dump that no Service uses", () => {
    const example = join(ROOT, "examples", "cluster.yaml");
    const dump = runCli(["generate", example]);
    expect(dump.code).toBe(0);
    const dumpFile = file("node.save", dump.stdout);
    // The same node without my-nginx-svc (its Service and its EndpointSlice).
    const cluster = parse(readFileSync(example, "utf8"));
    const gone = (o: { metadata: { name: string } }) => o.metadata.name.startsWith("my-nginx-svc");
    cluster.services = cluster.services.filter((o: { metadata: { name: string } }) => !gone(o));
    cluster.endpointSlices = cluster.endpointSlices.filter((o: { metadata: { name: string } }) => !gone(o));
    const smaller = file("smaller.json", JSON.stringify(cluster));

    const r = runCli(["generate", smaller, "--format", "restore", "--current", dumpFile]);
    expect(r.code).toBe(0);
    const deleted = r.stdout.split("\n").filter((l) => l.startsWith("-X "));
    // Exactly the chains the dump's my-nginx-svc rules jump to or live in.
    const nginxChains = new Set<string>();
    for (const line of dump.stdout.split("\n")) {
      if (!line.includes("default/my-nginx-svc")) continue;
      for (const word of line.split(" ")) if (/^KUBE-(SVC|SEP|EXT|SVL|FW)-/.test(word)) nginxChains.add(word);
    }
    expect(nginxChains.size).toBeGreaterThan(1);
    expect(deleted.map((l) => l.slice(3)).sort()).toEqual([...nginxChains].sort());
    // Each deleted chain is declared (flushed) first, as iptables-restore needs.
    for (const chain of nginxChains) expect(r.stdout).toContain(`:${chain} - [0:0]\n`);
    // Without --current nothing is deleted.
    expect(runCli(["generate", smaller, "--format", "restore"]).stdout).not.toContain("\n-X ");
  });

  test("--current: a malformed dump exits 2 with its line; two families are a usage error", () => {
    const broken = file(
      "broken.save",
      "*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -p tcp --dport 99999 -j RETURN\nCOMMIT\n",
    );
    const example = join(ROOT, "examples", "cluster.yaml");
    const r = runCli(["generate", example, "--current", broken]);
    expectInputError(r);
    expect(stderrLines(r)[0]).toMatch(/^kube-iptables: .*broken\.save:3:\d+: /);
    expectUsageError(runCli(["generate", example, "--family", "both", "--current", broken]), /--current/);
  });

  test("a rules file with many problems gives its first twenty and a count of the rest", () => {
    const example = join(ROOT, "examples", "cluster.yaml");
    const bad = (n: number): string =>
      `*nat\n:KUBE-X - [0:0]\n${"-A KUBE-X -p tcp --dport 99999 -j DROP\n".repeat(n)}COMMIT\n`;
    const notRules = file("not-rules.txt", bad(30));
    const counted = (r: CliResult): void => {
      expectInputError(r);
      const lines = stderrLines(r);
      expect(lines).toHaveLength(21);
      for (const line of lines.slice(0, 20))
        expect(line).toMatch(/^kube-iptables: .*not-rules\.txt:\d+:\d+: /);
      expect(lines[0]).toMatch(/not-rules\.txt:3:\d+: invalid port/);
      expect(lines[20]).toMatch(/^kube-iptables: .*not-rules\.txt: … and 10 more problems$/);
    };
    counted(runCli(["generate", example, "--current", notRules]));
    counted(runCli(["diff", notRules, example]));
    counted(runCli(["trace", notRules, "--src", "198.18.0.1", "--dst", "198.18.0.2:80", "--proto", "tcp"]));
    // Up to twenty, every problem is printed and nothing is counted.
    const few = file("few.txt", bad(2));
    const r = runCli(["generate", example, "--current", few]);
    expectInputError(r);
    expect(stderrLines(r)).toHaveLength(2);
  });

  test("a dump with CRLF line endings or a terminal escape: its problems show them escaped, one line each", () => {
    const example = join(ROOT, "examples", "cluster.yaml");
    const dump = runCli(["generate", example]).stdout;
    const crlf = file("crlf.save", dump.replaceAll("\n", "\r\n"));
    const r = runCli(["diff", crlf, example]);
    expectInputError(r);
    // iptables-restore would read the carriage return as part of the table name: one message says
    // what the text has and how to convert it.
    expect(r.stderr).toMatch(/crlf\.save:1:1: the text has Windows \(CRLF\) line endings.*dos2unix/m);
    expect(r.stderr).not.toMatch(/\r/);
    // An escape sequence in a rule (here a target iptables cannot load) does not reach the terminal.
    const escaped = file("escape.save", "*nat\n:KUBE-X - [0:0]\n-A KUBE-X -j \u001b[2J\nCOMMIT\n");
    const e = runCli(["diff", escaped, example]);
    expectInputError(e);
    expect(e.stderr).toContain("\\u001b[2J");
    expect(e.stderr).not.toContain("\u001b");
  });
});

describe("kube-iptables generate with several files", () => {
  const cluster = (): { config: unknown; services: unknown[]; endpointSlices: unknown[] } =>
    parse(readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8"));
  const reference = (): string => runCli(["generate", "examples/cluster.yaml"]).stdout;

  test("a config file and kubectl's List read as the cluster file does", () => {
    const node = file("node.yaml", stringify({ config: cluster().config }));
    const r = runCli(["generate", node, "examples/kubectl-list.json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(reference());
  });

  test("Services and EndpointSlices from separate files, one of them on stdin", () => {
    const { config, services, endpointSlices } = cluster();
    const svc = file("services.json", JSON.stringify({ config, services }));
    const slices = stringify({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSliceList",
      items: endpointSlices,
    });
    const r = runCli(["generate", svc, "-"], slices);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(reference());
  });

  test("a problem names its file and its place in it", () => {
    const { config, services, endpointSlices } = cluster();
    const node = file("node-only.json", JSON.stringify({ config }));
    const bad = structuredClone(services) as { spec: { ports: { port: number }[] } }[];
    ((bad[1] as { spec: { ports: { port: number }[] } }).spec.ports[0] as { port: number }).port = 70000;
    const list = file("svc-list.json", JSON.stringify({ kind: "ServiceList", apiVersion: "v1", items: bad }));
    const eps = file("eps.json", JSON.stringify({ endpointSlices }));
    const r = runCli(["generate", node, list, eps]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${list}: items[1].spec.ports[0].port: 70000 is not a port number (1-65535)`,
    ]);
  });

  test("an unreadable file is named with its line", () => {
    const broken = file("broken.yaml", "services:\n  - metadata: [a\n");
    const r = runCli(["generate", "examples/cluster.yaml", broken]);
    expectInputError(r);
    expect(stderrLines(r)[0]).toMatch(
      new RegExp(`^kube-iptables: ${broken.replace(/[.]/g, "\\.")}:\\d+:\\d+: the input is not valid YAML`),
    );
  });

  test("a directory reads as its manifests, in name order, as kubectl apply -f reads one", () => {
    const { config, services, endpointSlices } = cluster();
    const manifests = mkdtempSync(join(dir, "manifests-"));
    writeFileSync(join(manifests, "00-node.yaml"), stringify({ config }));
    writeFileSync(
      join(manifests, "10-services.json"),
      JSON.stringify({ kind: "ServiceList", apiVersion: "v1", items: services }),
    );
    const slices = endpointSlices.map((s) => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      ...(s as object),
    }));
    writeFileSync(join(manifests, "20-slices.yml"), slices.map((s) => stringify(s)).join("---\n"));
    writeFileSync(join(manifests, "README.md"), "not a manifest: left out\n");
    const r = runCli(["generate", manifests]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(reference());
    const empty = mkdtempSync(join(dir, "empty-"));
    const none = runCli(["generate", empty]);
    expectInputError(none);
    expect(stderrLines(none)).toEqual([
      `kube-iptables: ${empty}: no .json, .yaml or .yml files in this directory`,
    ]);
  });

  test("a directory's links to manifests are read (a mounted ConfigMap's files are links); a broken one is named", () => {
    const target = mkdtempSync(join(dir, "data-"));
    writeFileSync(join(target, "cluster.yaml"), readFileSync(join(ROOT, "examples", "cluster.yaml")));
    mkdirSync(join(target, "sub.yaml"));
    const mounted = mkdtempSync(join(dir, "mounted-"));
    symlinkSync(join(target, "cluster.yaml"), join(mounted, "cluster.yaml"));
    // A link to a directory is not a manifest, whatever its name.
    symlinkSync(join(target, "sub.yaml"), join(mounted, "sub.yaml"));
    const r = runCli(["generate", mounted]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(reference());
    const dangling = join(mounted, "zz-gone.yaml");
    symlinkSync(join(target, "gone.yaml"), dangling);
    const broken = runCli(["generate", mounted]);
    expectInputError(broken);
    expect(stderrLines(broken)).toEqual([`kube-iptables: ${dangling}: no such file or directory`]);
  });

  test("iptables rules text given as a cluster file is named as such, not read as broken YAML", () => {
    const dump = file("dump.txt", reference());
    const r = runCli(["generate", dump]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${dump}: iptables rules text, not a cluster file (Services and EndpointSlices)`,
    ]);
  });

  test("a missing file is named", () => {
    const r = runCli(["generate", "examples/cluster.yaml", "no-such-file.yaml"]);
    expectInputError(r);
    expect(stderrLines(r)).toEqual(["kube-iptables: no-such-file.yaml: no such file or directory"]);
  });

  test("two configs, a file whose lists are not lists, or stdin twice are refused", () => {
    const again = file("again.yaml", stringify({ config: cluster().config }));
    const twice = runCli(["generate", "examples/cluster.yaml", again]);
    expectInputError(twice);
    expect(stderrLines(twice)).toEqual([
      `kube-iptables: ${again}: config: config is also given in examples/cluster.yaml: give it once`,
    ]);
    const shape = file("shape.json", JSON.stringify({ services: 3, extra: true }));
    const bad = runCli(["generate", "examples/cluster.yaml", shape]);
    expectInputError(bad);
    expect(bad.stderr).toContain(`kube-iptables: ${shape}: services: expected an array, got the number 3\n`);
    expect(bad.stderr).toContain(`kube-iptables: ${shape}: unknown key "extra"`);
    expectUsageError(runCli(["generate", "-", "-"]), /standard input \(-\) can be read once/);
  });
});
