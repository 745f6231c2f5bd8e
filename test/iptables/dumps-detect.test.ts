// What people paste: detection of its form, the one problem for a prompt, a password prompt, a
// Markdown code fence, an indented dump or CRLF line endings, and headerless rule lines read as the tables kube-proxy's chains live in.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectTextForm, parseRules } from "../../src/index.js";
import { pastedTextProblem } from "../../src/iptables/parse/detect.js";
import { isHeaderlessRules, readHeaderlessRules } from "../../src/iptables/parse/headerless.js";

const SAVE = "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n";

describe("detectTextForm", () => {
  it("reads past a prompt or password line to the dump", () => {
    expect(detectTextForm(`root@node:~# iptables-save\n${SAVE}`)).toBe("save");
    expect(detectTextForm(`[sudo] password for alice: \n${SAVE}`)).toBe("save");
  });
  it("takes rule lines without a *table line for rules, not a cluster file", () => {
    expect(detectTextForm("-A KUBE-SERVICES -d 10.0.0.1/32 -j KUBE-SVC-X\n")).toBe("restore");
    expect(detectTextForm(":KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j RETURN\n")).toBe("restore");
    expect(detectTextForm("[0:0] -A KUBE-SERVICES -j RETURN\n")).toBe("restore");
    expect(detectTextForm("-P INPUT ACCEPT\n-N KUBE-X\n")).toBe("restore");
  });
  it("tells save from restore text as the expressions it was first written with", () => {
    // The scans of detect.ts answer what these expressions answer, on any text.
    const unmasked = /^(?:\[\d+:\d+\] )?-A .*?(?:^| )-[sd] [^ /]+(?: |$)/m;
    const command = /^\s*-[IDRFXNZP] /m;
    const piece = fc.constantFrom(
      "-A ",
      "X",
      " ",
      "-s ",
      "-d ",
      " -s ",
      " -d ",
      "10.0.0.1",
      "/32",
      "/",
      "\n",
      "\r",
      "\u2028",
      "\u2029",
      "\t",
      "\u00a0",
      "[1:2] ",
      "[x] ",
      "-I ",
      "-D ",
      "-P ",
      "-",
      "A",
      "s",
      '"',
      ":",
    );
    const head = fc.constantFrom("-A X", "[1:2] -A X", "-A", "", " ", "-I X", ":X - [0:0]");
    const line = fc.tuple(head, fc.array(piece, { maxLength: 8 })).map(([h, p]) => h + p.join(""));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
        const body = lines.join("\n");
        const text = `${SAVE}${body}`;
        const expected = unmasked.test(text) || command.test(text) ? "restore" : "save";
        expect(detectTextForm(text)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
  it("keeps cluster files as they were", () => {
    expect(detectTextForm("apiVersion: v1\nkind: List\nitems: []\n")).toBe("cluster");
    expect(detectTextForm("- a\n- b\n")).toBe("cluster");
    expect(detectTextForm('{"services": []}')).toBe("cluster");
    expect(detectTextForm("services: # my services\n  - metadata: {}\n")).toBe("cluster");
  });
});

describe("pastedTextProblem", () => {
  it("names a prompt line with its command", () => {
    for (const prompt of [
      "root@node-1:~# iptables-save",
      "$ sudo iptables-save",
      "[root@node-1 ~]# iptables-legacy-save -c",
      "node-1:~ # /usr/sbin/ip6tables-save",
      "% kubectl get svc -o yaml",
      "PS C:\\Users\\me\\k8s> kubectl get svc -o yaml",
      "PS /home/me> kubectl get svc -o yaml",
      "C:\\Users\\me>kubectl get svc -o yaml",
    ]) {
      const p = pastedTextProblem(`${prompt}\n${SAVE}`, true);
      expect(p?.line).toBe(1);
      expect(p?.message).toContain(`(\`${prompt}')`);
      expect(p?.message).toMatch(/keep only what the command printed/);
      expect(p?.message).toMatch(/sudo iptables-save > node\.txt/);
    }
    // Above a cluster file, the file to save is kubectl's output, not a node's dump.
    const cluster = pastedTextProblem("$ kubectl get svc,endpointslices -o yaml\nitems: []\n", false);
    expect(cluster?.line).toBe(1);
    expect(cluster?.message).toMatch(/kubectl get svc,endpointslices -A -o yaml > cluster\.yaml\)$/);
    expect(cluster?.message).not.toMatch(/iptables-save/);
  });
  it("names a Markdown code fence around the dump, at the top or anywhere in rules text", () => {
    for (const fence of ["```", "```console", "``` bash", "~~~"]) {
      expect(detectTextForm(`${fence}\n${SAVE}${fence}\n`)).toBe("save");
      const p = pastedTextProblem(`${fence}\n${SAVE}`, true);
      expect(p?.line).toBe(1);
      expect(p?.message).toBe(
        `this line is a Markdown code fence (${fence}), not part of the output: remove the fence lines and keep only what the command printed`,
      );
      expect(pastedTextProblem(`${SAVE}${fence}\n`, true)?.line).toBe(6);
    }
    // At the top of a cluster file too (it would be read as YAML and fail on the backtick).
    expect(pastedTextProblem("```yaml\nservices: []\n```\n", false)?.line).toBe(1);
    // A backtick inside YAML or a comment is no fence.
    expect(pastedTextProblem("a: |\n  ```\n", false)).toBeNull();
    expect(pastedTextProblem('-A X -m comment --comment "```" -j RETURN\n', true)).toBeNull();
  });
  it("names an indented table, chain or COMMIT line (iptables-restore reads them only at a line's start)", () => {
    const indented = (prefix: string) => SAVE.replace(/^(?=[*:C])/gm, prefix);
    for (const prefix of ["\t", "  "]) {
      const p = pastedTextProblem(indented(prefix), true);
      expect(p?.line).toBe(1);
      expect(p?.message).toMatch(/^this line is indented \(it starts with blanks\).*remove the indentation/);
    }
    expect(pastedTextProblem(SAVE.replace("COMMIT", " COMMIT"), true)?.line).toBe(5);
    // An indented rule line loads (iptables-restore skips the blanks before a command).
    expect(pastedTextProblem(SAVE.replace("COMMIT", "  -A INPUT -j ACCEPT\nCOMMIT"), true)).toBeNull();
    expect(pastedTextProblem("a:\n  :b\n", false)).toBeNull();
  });
  it("names sudo's password prompt", () => {
    expect(pastedTextProblem(`[sudo] password for alice:\n${SAVE}`, true)?.message).toMatch(
      /^this line is a password prompt/,
    );
  });
  it("names CRLF line endings in rules text only", () => {
    const crlf = SAVE.replaceAll("\n", "\r\n");
    expect(pastedTextProblem(crlf, true)?.message).toMatch(/Windows \(CRLF\) line endings.*dos2unix/);
    expect(pastedTextProblem("a: 1\r\nb: 2\r\n", false)).toBeNull();
    // A comment line's \r is harmless to iptables-restore; the first command line's is not.
    expect(pastedTextProblem(`# Generated\r\n${SAVE}`, true)).toBeNull();
  });
  it("leaves comments, rules and YAML alone", () => {
    expect(
      pastedTextProblem(`# Generated by iptables-save v1.8.9 on Sun Nov 22 10:44:48 2026\n${SAVE}`, true),
    ).toBeNull();
    expect(pastedTextProblem("services: # cats\n  - x: $ y\n", false)).toBeNull();
    expect(
      pastedTextProblem('-A X -m comment --comment "$ sudo iptables-save" -j RETURN\n', true),
    ).toBeNull();
  });
});

describe("readHeaderlessRules", () => {
  it("puts kube-proxy's service chains in nat and declares the chains they name", () => {
    const read = readHeaderlessRules(
      "-A KUBE-SERVICES -d 10.0.1.175/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-X\n-A KUBE-SVC-X -j KUBE-SEP-Y\n",
    );
    expect(read?.tables).toEqual([{ name: "nat", lines: 2 }]);
    expect(read?.text).toBe(
      "*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-SVC-X - [0:0]\n:KUBE-SEP-Y - [0:0]\n-A KUBE-SERVICES -d 10.0.1.175/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-X\n-A KUBE-SVC-X -j KUBE-SEP-Y\nCOMMIT\n",
    );
    expect(read?.lineMap).toEqual([1, 1, 1, 2, 1, 2, 2]);
    expect(parseRules(read?.text ?? "").problems).toEqual([]);
  });
  it("splits grep output where a declaration follows a rule, each listing to its table", () => {
    const text = [
      ":KUBE-KUBELET-CANARY - [0:0]",
      ":KUBE-FIREWALL - [0:0]",
      ":KUBE-SERVICES - [0:0]",
      "-A INPUT -j KUBE-FIREWALL",
      "-A KUBE-SERVICES -d 10.0.0.9/32 -p tcp -m tcp --dport 80 -j REJECT",
      ":KUBE-KUBELET-CANARY - [0:0]",
      ":KUBE-SERVICES - [0:0]",
      "-A OUTPUT -j KUBE-SERVICES",
      "-A KUBE-SERVICES -j KUBE-SVC-X",
    ].join("\n");
    const read = readHeaderlessRules(text);
    expect(read?.tables).toEqual([
      { name: "filter", lines: 5 },
      { name: "nat", lines: 4 },
    ]);
    const { ruleSet, problems } = parseRules(read?.text ?? "");
    expect(problems).toEqual([]);
    const nat = ruleSet.tables.find((t) => t.name === "nat");
    expect(nat?.entries.map((e) => (e.kind === "rule" ? `${e.chain} ${e.args.join(" ")}` : ""))).toEqual([
      "OUTPUT -j KUBE-SERVICES",
      "KUBE-SERVICES -j KUBE-SVC-X",
    ]);
  });
  it("a canary-only listing is mangle's", () => {
    const read = readHeaderlessRules(":KUBE-PROXY-CANARY - [0:0]\n-A KUBE-SVC-X -j KUBE-SEP-Y\n");
    // One listing: the service chain says nat, and the canary goes with it.
    expect(read?.tables).toEqual([{ name: "nat", lines: 2 }]);
    const two = readHeaderlessRules("-A KUBE-SVC-X -j KUBE-SEP-Y\n:KUBE-PROXY-CANARY - [0:0]\n");
    expect(two?.tables.map((t) => t.name)).toEqual(["mangle", "nat"]);
  });
  it("lines no chain places go with their listing", () => {
    const read = readHeaderlessRules("-A KUBE-SVC-X -j KUBE-SEP-Y\n-A DOCKER -j RETURN\n");
    expect(read?.tables).toEqual([{ name: "nat", lines: 2 }]);
  });
  it("says which chains the text holds: those it declares or has rules for, in their tables", () => {
    const read = readHeaderlessRules(
      [
        ":KUBE-NODEPORTS - [0:0]",
        "-A KUBE-SERVICES -d 10.0.1.175/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-X",
        "-A KUBE-SVC-X -j KUBE-SEP-Y",
        "-A KUBE-SEP-Y -j KUBE-MARK-MASQ",
        ":KUBE-FORWARD - [0:0]",
        "-A KUBE-FORWARD -j ACCEPT",
      ].join("\n"),
    );
    // KUBE-MARK-MASQ is only jumped to: declared (empty) in the text read, but not held.
    expect(read?.held).toEqual([
      { table: "filter", chain: "KUBE-FORWARD" },
      { table: "nat", chain: "KUBE-NODEPORTS" },
      { table: "nat", chain: "KUBE-SERVICES" },
      { table: "nat", chain: "KUBE-SVC-X" },
      { table: "nat", chain: "KUBE-SEP-Y" },
    ]);
    expect(read?.text).toContain(":KUBE-MARK-MASQ - [0:0]\n");
  });
  it("gives up when no chain is kube-proxy's", () => {
    expect(readHeaderlessRules("-A DOCKER -j RETURN\n:FOO - [0:0]\n")).toBeNull();
  });
  it("isHeaderlessRules tells such text from a dump and from YAML", () => {
    expect(isHeaderlessRules("\n# x\n-A KUBE-X -j RETURN\n")).toBe(true);
    expect(isHeaderlessRules(SAVE)).toBe(false);
    expect(isHeaderlessRules("- name: x\n")).toBe(false);
  });
});
