// One test per rule of iptables-restore that the parser now applies to a whole table block or a
// whole line (each checked against the real binary in test/kernel/restore-strictness.test.ts).
import { describe, expect, it } from "vitest";
import { formatSave, type ParseOptions, parseRules } from "../../src/index.js";
import { formatCanonicalRule, tryCanonicalizeRule } from "../../src/iptables/canonical/canonicalize.js";
import { tryApplyRestore } from "../../src/iptables/index.js";
import { parseRulesReference } from "../../src/iptables/parse/parse.js";

const filter = (...lines: string[]) => `*filter\n${lines.join("\n")}\nCOMMIT\n`;
const nat = (...lines: string[]) => `*nat\n${lines.join("\n")}\nCOMMIT\n`;

/** `line:column message` of every problem; the fast and the reference path must agree. */
function problems(text: string, options: ParseOptions = {}): string[] {
  const fast = parseRules(text, options);
  expect(fast).toEqual(parseRulesReference(text, options));
  return fast.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
}

describe("chains a rule names must be declared above it (without --noflush)", () => {
  it("-A to an undeclared chain, pointing at the chain", () => {
    expect(problems(filter("-A KUBE-NOPE -j ACCEPT"))).toEqual([
      "2:4 chain `KUBE-NOPE' does not exist in table filter (no `:KUBE-NOPE' line above)",
    ]);
  });
  it("-A to a chain declared below, or to another table's built-in chain", () => {
    expect(problems(filter("-A X -j ACCEPT", ":X - [0:0]"))).toHaveLength(1);
    expect(problems(nat("-A FORWARD -j ACCEPT"))).toHaveLength(1);
  });
  it("a jump or goto to an undeclared chain, pointing at the target", () => {
    expect(problems(filter(":X - [0:0]", "-A X -m comment --comment x -j NOPE"))).toEqual([
      "3:32 Couldn't load target `NOPE': no chain of that name is declared above in table filter",
    ]);
    expect(problems(filter("-A INPUT -g NOPE"))).toEqual([
      "2:13 Couldn't load target `NOPE': no chain of that name is declared above in table filter",
    ]);
  });
  it("a jump to a chain declared below, or deleted above", () => {
    expect(problems(filter("-A INPUT -j X", ":X - [0:0]"))).toHaveLength(1);
    expect(problems(filter(":X - [0:0]", "-X X", "-A INPUT -j X"))).toHaveLength(1);
  });
  it("a jump to a built-in chain", () => {
    expect(problems(filter("-A INPUT -j OUTPUT"))).toEqual([
      "2:13 Couldn't load target `OUTPUT': a built-in chain cannot be a jump target",
    ]);
  });
  it("accepts chains made by -N, and targets that are extensions, not chains", () => {
    expect(
      problems(filter("-N X", "-A INPUT -j X", "-A X -j LOG --log-prefix x", "-A X -j NFQUEUE")),
    ).toEqual([]);
  });
  it("with noflush, chains the kernel may hold are not refused, other rules still are", () => {
    const text = nat("-A KUBE-SERVICES -j KUBE-SVC-X", "-A PREROUTING -j REJECT");
    expect(problems(text, { noflush: true })).toEqual([
      "3:18 target REJECT is only valid in the filter table, not in nat",
    ]);
    expect(problems(text)).toHaveLength(2);
  });
  it("an ordinary iptables-save dump (chain lines first) has no problem", () => {
    const dump = nat(
      ":PREROUTING ACCEPT [10:600]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      ":DOCKER - [0:0]",
      ":KUBE-SERVICES - [0:0]",
      "-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
      "-A PREROUTING -j KUBE-SERVICES",
      "-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE",
      "-A DOCKER -i docker0 -j RETURN",
    );
    expect(problems(dump)).toEqual([]);
  });
});

describe("table lines", () => {
  it("the table is the first blank-separated word after *: blanks around it and words after it are ignored", () => {
    for (const head of ["*filter ", "*filter\t", "* filter", "*filter x"]) {
      const { ruleSet, problems: found } = parseRules(filter("-A INPUT -j ACCEPT").replace("*filter", head));
      expect(found, JSON.stringify(head)).toEqual([]);
      expect(ruleSet.tables.map((t) => t.name)).toEqual(["filter"]);
    }
  });
  it("no word, or a word that names no table, is refused", () => {
    expect(problems("*\nCOMMIT\n")).toEqual(["1:2 line 1 table name invalid"]);
    expect(problems("*  \nCOMMIT\n")).toEqual(["1:2 line 1 table name invalid"]);
    expect(problems("*  bogus x\nCOMMIT\n")).toEqual(["1:4 unable to initialize table 'bogus'"]);
  });
  it("names an object's built-in property does not make a table (nor a crash)", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(problems(`*${name}\nCOMMIT\n`)).toEqual([`1:2 unable to initialize table '${name}'`]);
  });
});

describe("unknown commands", () => {
  it("a line of dots (a pasted listing cut short) says to remove it; other words do not", () => {
    for (const dots of ["...", "....", "…"])
      expect(problems(filter("-A INPUT -j ACCEPT", dots))).toEqual([
        `3:1 unknown command \`${dots}' in a restore file: a line left out of a pasted listing; remove it`,
      ]);
    expect(problems(filter("frob"))).toEqual(["2:1 unknown command `frob' in a restore file"]);
  });
});

describe("chain lines", () => {
  it("a built-in chain's policy is ACCEPT or DROP (or -)", () => {
    expect(problems(filter(":INPUT RETURN [0:0]"))).toEqual([
      "2:8 Can't set policy `RETURN' on `INPUT': Bad policy name",
    ]);
    expect(problems(filter(":INPUT - [0:0]", ":FORWARD DROP [0:0]", ":FORWARD ACCEPT [1:2]"))).toEqual([]);
  });
  it("legacy refuses a user chain's policy and a second declaration; nft ignores both", () => {
    const text = filter(":X ACCEPT [0:0]", ":Y - [0:0]", ":Y - [0:0]");
    expect(problems(text, { backend: "legacy" })).toEqual([
      "2:4 Can't set policy `ACCEPT' on `X': Bad built-in chain name",
      "4:2 error creating chain 'Y': File exists",
    ]);
    expect(problems(text, { backend: "nft" })).toEqual([]);
  });
  it("nft flushes a user chain declared again, where the declaration stands", () => {
    const text = filter(":X - [0:0]", "-A X -j ACCEPT", ":X - [0:0]", "-A X -j DROP", "-A INPUT -j X");
    const { ruleSet, problems: found } = parseRules(text, { backend: "nft" });
    expect(found).toEqual([]);
    const applied = tryApplyRestore(undefined, ruleSet, { noflush: false, backend: "nft" });
    expect(applied.problems).toEqual([]);
    expect(formatSave(applied.ruleSet, { backend: "nft" })).toContain(
      ":X - [0:0]\n-A INPUT -j X\n-A X -j DROP\n",
    );
    expect(problems(text, { backend: "legacy" })).toEqual(["4:2 error creating chain 'X': File exists"]);
  });
  it("legacy needs the newline after the last COMMIT; nft does not", () => {
    const text = "*filter\n-A INPUT -j ACCEPT\nCOMMIT";
    expect(problems(text, { backend: "legacy" })).toEqual([
      "3:1 Bad argument `COMMIT': legacy iptables-restore needs a newline after COMMIT",
    ]);
    expect(problems(text, { backend: "nft" })).toEqual([]);
    expect(problems(`${text}\n`, { backend: "legacy" })).toEqual([]);
  });
  it("counters are not read (iptables-restore without --counters): any text there loads", () => {
    expect(problems(filter(":INPUT ACCEPT [x:6]", ":X - [0:0]\r", ":Y - [5:6 more"))).toEqual([]);
    expect(parseRules(filter(":INPUT ACCEPT [5:6]")).ruleSet.tables[0]?.chains[0]?.counters).toEqual({
      packets: 5n,
      bytes: 6n,
    });
  });
});

describe("a # after a rule", () => {
  it("is refused, as iptables-restore refuses it, saying where a comment goes", () => {
    expect(problems(filter("-A INPUT -j ACCEPT # geneve"))).toEqual([
      "2:20 Bad argument `#': iptables-restore takes a # comment only at the start of a line; move it above the rule",
    ]);
    expect(problems(filter("# geneve", "-A INPUT -j ACCEPT"))).toEqual([]);
  });
});

describe("a rule's counters prefix", () => {
  it("is skipped up to its ], whatever it holds, before any command", () => {
    expect(problems(filter("[x:6] -A INPUT -j ACCEPT", "[1:2] -N X"))).toEqual([]);
  });
  it("needs its ], and nothing glued after it", () => {
    expect(problems(filter("[5:6 -A INPUT -j ACCEPT"))).toEqual(["2:1 Bad line 2: need ]"]);
    expect(problems(filter("[5:6]x -A INPUT -j ACCEPT"))).toEqual(["2:6 Bad argument `x'"]);
  });
});

describe("targets outside their table or hooks", () => {
  it("REJECT only in filter", () => {
    expect(problems(nat("-A PREROUTING -j REJECT"))).toEqual([
      "2:18 target REJECT is only valid in the filter table, not in nat",
    ]);
    expect(problems("*mangle\n-A INPUT -j REJECT\nCOMMIT\n")).toHaveLength(1);
    expect(problems(filter("-A INPUT -j REJECT"))).toEqual([]);
  });
  it("NAT targets only in nat, and only at their hooks", () => {
    expect(problems(filter("-A INPUT -j SNAT --to-source 198.18.0.1"))).toHaveLength(1);
    expect(problems(nat("-A PREROUTING -j MASQUERADE"))).toEqual([
      "2:18 target MASQUERADE is only valid in POSTROUTING; chain PREROUTING is reached from PREROUTING",
    ]);
    expect(problems(nat("-A POSTROUTING -j DNAT --to-destination 198.18.0.1"))).toHaveLength(1);
    expect(problems(nat("-A INPUT -j SNAT --to-source 198.18.0.1", "-A OUTPUT -j REDIRECT"))).toEqual([]);
  });
  it("a user chain is judged by the hooks that reach it, through other chains", () => {
    const text = nat(":X - [0:0]", ":Y - [0:0]", "-A X -j Y", "-A Y -j MASQUERADE", "-A POSTROUTING -j X");
    expect(problems(text)).toEqual([]);
    expect(problems(`${text.replace("COMMIT\n", "")}-A OUTPUT -j X\nCOMMIT\n`)).toEqual([
      "5:9 target MASQUERADE is only valid in POSTROUTING; chain Y is reached from OUTPUT",
    ]);
    expect(problems(nat(":X - [0:0]", "-A X -j MASQUERADE"))).toEqual([]);
  });
  it("raw-only and mangle-only targets", () => {
    expect(problems(filter("-A INPUT -j CT --notrack"))).toHaveLength(1);
    expect(problems("*raw\n-A PREROUTING -j CT --notrack\nCOMMIT\n")).toEqual([]);
  });
});

describe("iptables-restore's line and argument limits", () => {
  const lineOf = (bytes: number) => `-A INPUT${" ".repeat(bytes - 17)}-j ACCEPT`;
  it("a line of up to 10239 bytes; longer ones are cut by fgets", () => {
    expect(problems(filter(lineOf(10239)))).toEqual([]);
    expect(problems(filter(lineOf(10240)))).toEqual([
      "2:1 line is longer than iptables-restore reads (10239 bytes): it would be cut in two",
    ]);
  });
  it("counts UTF-8 bytes, not characters", () => {
    const comment = (s: string) => filter(`-A INPUT -m comment --comment "${s}" -j ACCEPT`);
    expect(problems(comment(`${"é".repeat(511)}a`))).toEqual([]);
    expect(problems(comment("é".repeat(512)))).toEqual([
      "2:31 Parameter too long! (iptables-restore reads arguments of at most 1023 bytes)",
    ]);
    expect(problems(comment("a".repeat(1024)))).toHaveLength(1);
  });
  it("at most 251 arguments on a line (a counters prefix aside)", () => {
    const words = (n: number) =>
      [
        "-A INPUT",
        ...Array.from({ length: (n - 4) / 4 }, (_, i) => `-m comment --comment c${i}`),
        "-j ACCEPT",
      ].join(" ");
    expect(problems(filter(`[1:2] ${words(248)}`))).toEqual([]);
    expect(problems(filter(words(252)))[0]).toMatch(/^2:\d+ Parser cannot handle more arguments/);
  });
  it("a NUL ends what iptables-restore reads of a line", () => {
    expect(problems(filter("-A INPUT -j ACCEPT\u0000 garbage"))).toEqual([]);
    expect(parseRules(filter("-A INPUT -j ACCEPT\u0000 -j DROP")).ruleSet.tables[0]?.entries).toEqual([
      { kind: "rule", op: "-A", chain: "INPUT", args: ["-j", "ACCEPT"] },
    ]);
    expect(problems(filter("-A\u0000 INPUT -j ACCEPT"))).toHaveLength(1);
  });
});

describe("an option given twice to one match or target", () => {
  it("tcp, sctp and udp name the option, with their own words; the second one is pointed at", () => {
    expect(problems(filter("-A INPUT -p tcp --dport 80 --dport 443 -j ACCEPT"))).toEqual([
      "2:28 Only one `--destination-port' allowed",
    ]);
    expect(problems(filter("-A INPUT -p sctp --sport 1 --source-port 2 -j ACCEPT"))).toEqual([
      "2:28 Only one `--source-port' allowed",
    ]);
    expect(problems(filter("-A INPUT -p udp -m udp --sport 81 --sport 82 -j ACCEPT"))).toEqual([
      '2:35 udp: option "--source-port" can only be used once',
    ]);
  });
  it("--syn and --tcp-flags exclude each other, and themselves", () => {
    const only = "Only one of `--syn' or `--tcp-flags'  allowed";
    expect(problems(filter("-A INPUT -p tcp --syn --syn -j ACCEPT"))).toEqual([`2:23 ${only}`]);
    expect(problems(filter("-A INPUT -p tcp --syn --tcp-flags SYN SYN -j ACCEPT"))).toEqual([`2:23 ${only}`]);
    expect(
      problems(filter("-A INPUT -p tcp --tcp-flags SYN SYN --tcp-flags SYN SYN -j ACCEPT")),
    ).toHaveLength(1);
  });
  it("icmp, icmp6, REJECT and nfacct", () => {
    expect(problems(filter("-A INPUT -p icmp --icmp-type 8 --icmp-type 0 -j ACCEPT"))).toEqual([
      '2:32 icmp: option "--icmp-type" can only be used once',
    ]);
    expect(
      problems(filter("-A INPUT -p ipv6-icmp --icmpv6-type 1 --icmpv6-type 2 -j ACCEPT"), { family: "IPv6" }),
    ).toEqual(['2:39 icmp6: option "--icmpv6-type" can only be used once']);
    expect(
      problems(filter("-A INPUT -p tcp -j REJECT --reject-with tcp-reset --reject-with tcp-reset")),
    ).toEqual(['2:51 REJECT: option "--reject-with" can only be used once']);
    expect(problems(filter("-A INPUT -m nfacct --nfacct-name a --nfacct-name b -j ACCEPT"))).toHaveLength(1);
  });
  it("a second -m of the same match starts afresh (nft merges them into one, legacy keeps both)", () => {
    const text = filter("-A INPUT -p tcp --dport 80 -m tcp --dport 81 --syn -m tcp --syn -j ACCEPT");
    expect(problems(text)).toEqual([]);
    expect(problems(text, { backend: "legacy" })).toEqual([]);
  });
});

describe("DROP in the nat table", () => {
  const message = 'The "nat" table is not intended for filtering, the use of DROP is therefore inhibited.';
  it("-j DROP is refused in any chain of nat, as iptables' command parser does", () => {
    expect(problems(nat("-A PREROUTING -j DROP"))).toEqual([`2:18 ${message}`]);
    expect(problems(nat(":X - [0:0]", "-I X -p tcp -j DROP"))).toEqual([`3:16 ${message}`]);
    expect(problems(nat("-A PREROUTING -j DROP"), { family: "IPv6", backend: "legacy" })).toHaveLength(1);
  });
  it("-P … DROP too, but not a chain line's policy (the kernel takes that one)", () => {
    expect(problems(nat("-P PREROUTING DROP"))).toEqual([`2:15 ${message}`]);
    expect(problems(nat(":PREROUTING DROP [0:0]"))).toEqual([]);
  });
  it("other verdicts, and DROP in the other tables, are taken", () => {
    expect(problems(nat("-A PREROUTING -j ACCEPT", "-A OUTPUT -j RETURN"))).toEqual([]);
    expect(problems("*mangle\n-A PREROUTING -j DROP\nCOMMIT\n")).toEqual([]);
    expect(problems("*raw\n-A PREROUTING -j DROP\nCOMMIT\n")).toEqual([]);
  });
});

describe("interfaces a built-in chain cannot have", () => {
  it("-i in OUTPUT and POSTROUTING, -o in INPUT and PREROUTING, by the chain's name in any table", () => {
    expect(problems(filter("-A OUTPUT -i eth0 -j ACCEPT"))).toEqual(["2:11 Can't use -i with OUTPUT"]);
    expect(problems(filter("-A INPUT -o eth0 -j ACCEPT"))).toEqual(["2:10 Can't use -o with INPUT"]);
    expect(problems(nat("-A PREROUTING -o eth0 -j RETURN"))).toEqual(["2:15 Can't use -o with PREROUTING"]);
    expect(problems(nat("-I POSTROUTING ! -i + -j RETURN"))).toEqual(["2:18 Can't use -i with POSTROUTING"]);
    expect(problems("*mangle\n-A OUTPUT -o eth0 -i eth1 -j ACCEPT\nCOMMIT\n")).toHaveLength(1);
  });
  it("even `-i +`, which matches anything and is not printed", () => {
    expect(problems(filter("-A OUTPUT -i + -j ACCEPT"))).toEqual(["2:11 Can't use -i with OUTPUT"]);
  });
  it("a kube-proxy rule shape in such a chain is judged too (the fast path hands it over)", () => {
    const line = '-A OUTPUT -m comment --comment "x" -i cbr0 -j KUBE-SVC-X';
    expect(problems(filter(":KUBE-SVC-X - [0:0]", line))).toEqual(["3:36 Can't use -i with OUTPUT"]);
  });
  it("the other direction, FORWARD, and user chains (even reached from those chains) are taken", () => {
    const text = filter(
      ":X - [0:0]",
      "-A OUTPUT -o eth0 -j X",
      "-A INPUT -i eth0 -j X",
      "-A FORWARD -i eth0 -o eth1 -j ACCEPT",
      "-A X -i eth0 -o eth1 -j ACCEPT",
    );
    expect(problems(text)).toEqual([]);
  });
});

describe("-p, -i, -o, -s and -d given twice", () => {
  it("are refused even when the first one matches anything (and is not printed)", () => {
    expect(problems(filter("-A INPUT -p all -p tcp -j ACCEPT"))).toEqual([
      "2:17 multiple -p flags not allowed",
    ]);
    expect(problems(filter("-A INPUT -p 0 -p all -j ACCEPT"))).toEqual([
      "2:15 multiple -p flags not allowed",
    ]);
    expect(problems(filter("-A INPUT -i + -i eth0 -j ACCEPT"))).toEqual([
      "2:15 multiple -i flags not allowed",
    ]);
    expect(problems(filter("-A FORWARD -o + -o + -j ACCEPT"))).toEqual([
      "2:17 multiple -o flags not allowed",
    ]);
    expect(problems(filter("-A INPUT -s 0/0 -s 198.18.0.1 -j ACCEPT"))).toEqual([
      "2:17 multiple -s flags not allowed",
    ]);
  });
});

describe("long options abbreviated, as getopt_long takes them", () => {
  const save = (args: string) => {
    const r = tryCanonicalizeRule(args.split(" "), "IPv4");
    return r.ok ? formatCanonicalRule("X", r.rule) : `refused: ${r.message}`;
  };
  it("multiport's --dport and --sport are its --dports and --sports (the tcp match is not loaded)", () => {
    expect(problems(filter("-A INPUT -p tcp -m multiport --dport 80,443 -j ACCEPT"))).toEqual([]);
    expect(save("-p tcp -m multiport --dport 80,443 -j ACCEPT")).toBe(
      "-A X -p tcp -m multiport --dports 80,443 -j ACCEPT",
    );
    expect(save("-p udp -m multiport --sport 53 -j ACCEPT")).toBe(
      "-A X -p udp -m multiport --sports 53 -j ACCEPT",
    );
  });
  it("a loaded extension's exact name wins over another's prefix", () => {
    expect(save("-p tcp --sp 1 -m multiport --dport 80 -j ACCEPT")).toBe(
      "refused: multiport: no ports specified",
    );
  });
  it("iptables' own options take part: a unique prefix of one is that option, a shared one is unknown", () => {
    expect(save("--pro tcp --jum ACCEPT")).toBe("-A X -p tcp -j ACCEPT");
    expect(save("-p tcp --so 198.18.0.1 -j ACCEPT")).toBe("-A X -s 198.18.0.1/32 -p tcp -j ACCEPT");
    expect(save("--fragm -j ACCEPT")).toBe("-A X -f -j ACCEPT");
    expect(save("-m mark --ma 1 -j ACCEPT")).toBe('refused: unknown option "--ma"');
    expect(save("-p tcp -m multiport --de 80 -j ACCEPT")).toBe('refused: unknown option "--de"');
  });
  it("the protocol's match is loaded only when nothing loaded takes the option, then its prefixes count", () => {
    expect(save("-p tcp --dp 80 -j ACCEPT")).toBe("-A X -p tcp -m tcp --dport 80 -j ACCEPT");
    expect(save("-p tcp --tcp-f SYN SYN -j ACCEPT")).toBe("-A X -p tcp -m tcp --tcp-flags SYN SYN -j ACCEPT");
  });
  it("a kept-as-given match's exact option wins over a prefix of iptables' own (`--pol` of policy)", () => {
    expect(save("-m policy --dir in --pol ipsec -j ACCEPT")).toBe(
      "-A X -m policy --dir in --pol ipsec -j ACCEPT",
    );
  });
});

describe("a NAT target's port and the rule's protocol", () => {
  const need = "Need TCP, UDP, SCTP or DCCP with port specification";
  it("icmp is taken, and a negated -p is judged by its number", () => {
    expect(problems(nat("-A PREROUTING -p icmp -j DNAT --to-destination 198.18.0.1:80"))).toEqual([]);
    expect(problems(nat("-A PREROUTING ! -p tcp -j DNAT --to-destination 198.18.0.1:80"))).toEqual([]);
    expect(problems(nat("-A POSTROUTING -p icmp -j MASQUERADE --to-ports 1000"))).toEqual([]);
    expect(problems(nat("-A OUTPUT ! -p udp -j REDIRECT --to-ports 1000"))).toEqual([]);
    expect(problems(nat("-A INPUT -p icmp -j SNAT --to-source 198.18.0.1:80"))).toEqual([]);
    expect(
      problems(nat("-A PREROUTING -p icmp -j DNAT --to-destination [fd00::1]:80"), { family: "IPv6" }),
    ).toEqual([]);
  });
  it("no protocol, -p all, other protocols, ipv6-icmp, or -p after the target are refused", () => {
    expect(problems(nat("-A PREROUTING -j DNAT --to-destination 198.18.0.1:80"))).toEqual([`2:23 ${need}`]);
    expect(problems(nat("-A PREROUTING -p all -j DNAT --to-destination 198.18.0.1:80"))).toHaveLength(1);
    expect(problems(nat("-A PREROUTING -p udplite -j DNAT --to-destination 198.18.0.1:80"))).toHaveLength(1);
    expect(problems(nat("-A PREROUTING ! -p icmp -j DNAT --to-destination 198.18.0.1:80"))).toEqual([]);
    expect(
      problems(nat("-A PREROUTING -p ipv6-icmp -j DNAT --to-destination [fd00::1]:80"), { family: "IPv6" }),
    ).toHaveLength(1);
    expect(problems(nat("-A PREROUTING -j DNAT --to-destination 198.18.0.1:80 -p tcp"))).toHaveLength(1);
  });
});

describe("negations and gotos iptables will not take", () => {
  const never = "! not allowed with multiple source or destination IP addresses";
  it("`!` on -s or -d when either holds a comma list", () => {
    expect(problems(filter("-A INPUT ! -s 198.18.0.1,198.18.0.2 -j ACCEPT"))).toEqual([`2:10 ${never}`]);
    expect(problems(filter("-A INPUT -s 198.18.0.1,198.18.0.2 ! -d 198.18.0.3 -j ACCEPT"))).toEqual([
      `2:35 ${never}`,
    ]);
    expect(problems(filter("-A INPUT ! -s 198.18.0.1 -d 198.18.0.2,198.18.0.3 -j ACCEPT"))).toHaveLength(1);
    expect(problems(filter("-A INPUT -s 198.18.0.1,198.18.0.2 -d 198.18.0.3 -j ACCEPT"))).toEqual([]);
  });
  it("! -p all (or 0) would never match", () => {
    expect(problems(filter("-A INPUT ! -p all -j ACCEPT"))).toEqual(["2:12 rule would never match protocol"]);
    expect(problems(filter("-A INPUT ! -p 0 -j ACCEPT"))).toHaveLength(1);
    expect(problems(filter("-A INPUT -p all -j ACCEPT"))).toEqual([]);
  });
  it("-g to a verdict or a target extension, in each backend's words", () => {
    expect(problems(filter("-A INPUT -g ACCEPT"))).toEqual(["2:13 Chain 'ACCEPT' does not exist"]);
    expect(problems(filter("-A INPUT -g ACCEPT"), { backend: "legacy" })).toEqual([
      "2:13 goto 'ACCEPT' is not a chain",
    ]);
    expect(problems(filter("-A INPUT -g MARK --set-mark 1"))).toHaveLength(1);
    expect(problems(filter("-A INPUT -g NFQUEUE"), { backend: "legacy" })).toHaveLength(1);
    expect(problems(filter(":X - [0:0]", "-A INPUT -g X"))).toEqual([]);
  });
});

describe("loops of jumps", () => {
  it("a loop reached from a built-in chain is refused, at the line that makes it whole", () => {
    expect(problems(filter(":A - [0:0]", ":B - [0:0]", "-A INPUT -j A", "-A A -j B", "-A B -j A"))).toEqual([
      "6:9 RULE_APPEND failed (Too many links): the jumps A -> B -> A loop, reached from INPUT",
    ]);
    expect(problems(filter(":A - [0:0]", "-A INPUT -j A", "-A A -g A"))).toEqual([
      "4:9 RULE_APPEND failed (Too many links): the jumps A -> A loop, reached from INPUT",
    ]);
    // The loop is there before the built-in chain reaches it: refused at that jump.
    expect(problems(filter(":A - [0:0]", ":B - [0:0]", "-A B -j A", "-A A -j B", "-A INPUT -j A"))).toEqual([
      "6:13 RULE_APPEND failed (Too many links): the jumps A -> B -> A loop, reached from INPUT",
    ]);
  });
  it("a loop no built-in chain reaches is taken, and so are shared chains (no loop)", () => {
    expect(problems(filter(":A - [0:0]", ":B - [0:0]", "-A A -j B", "-A B -j A"))).toEqual([]);
    expect(problems(filter(":A - [0:0]", "-A A -j A"))).toEqual([]);
    const diamond = filter(":A - [0:0]", ":B - [0:0]", ":C - [0:0]", "-A INPUT -j A", "-A INPUT -j B");
    expect(problems(diamond.replace("COMMIT", "-A A -j C\n-A B -j C\n-A C -j RETURN\nCOMMIT"))).toEqual([]);
  });
  it("a long chain of jumps is walked without recursion", () => {
    const n = 50_000;
    const lines = Array.from({ length: n }, (_, k) => `:C${k} - [0:0]`);
    lines.push("-A INPUT -j C0");
    for (let k = 0; k + 1 < n; k++) lines.push(`-A C${k} -j C${k + 1}`);
    expect(problems(filter(...lines))).toEqual([]);
    lines.push(`-A C${n - 1} -j C0`);
    expect(problems(filter(...lines))).toHaveLength(1);
  });
});

describe("NFLOG as iptables-save prints it", () => {
  const save = (args: string, backend: "nft" | "legacy") => {
    const r = tryCanonicalizeRule(args.split(" "), "IPv4", { backend });
    return r.ok ? formatCanonicalRule("X", r.rule) : `refused: ${r.message}`;
  };
  it("the threshold unless it is 0, on both backends", () => {
    for (const backend of ["nft", "legacy"] as const) {
      expect(save("-j NFLOG --nflog-threshold 1", backend)).toBe("-A X -j NFLOG --nflog-threshold 1");
      expect(save("-j NFLOG --nflog-threshold 0", backend)).toBe("-A X -j NFLOG");
    }
  });
  it("a prefix of 127 bytes on nft, 63 on legacy", () => {
    const long = `-j NFLOG --nflog-prefix ${"p".repeat(140)}`;
    expect(save(long, "nft")).toBe(`-A X -j NFLOG --nflog-prefix ${"p".repeat(127)}`);
    expect(save(long, "legacy")).toBe(`-A X -j NFLOG --nflog-prefix ${"p".repeat(63)}`);
  });
  it("--nflog-range: dropped by nft, kept by legacy, refused with --nflog-size", () => {
    expect(save("-j NFLOG --nflog-range 100", "nft")).toBe("-A X -j NFLOG");
    expect(save("-j NFLOG --nflog-range 100", "legacy")).toBe("-A X -j NFLOG --nflog-range 100");
    expect(save("-j NFLOG --nflog-range 5 --nflog-size 3", "nft")).toBe(
      'refused: NFLOG: option "--nflog-range" cannot be used together with "--nflog-size"',
    );
  });
});

/** The save line of a rule's args, or `refused: message`. */
function saveOf(
  args: string,
  options: { backend?: "nft" | "legacy"; family?: "IPv4" | "IPv6" } = {},
): string {
  const r = tryCanonicalizeRule(args.split(" "), options.family ?? "IPv4", {
    backend: options.backend ?? "nft",
  });
  return r.ok ? formatCanonicalRule("X", r.rule) : `refused: ${r.message}`;
}

describe("extensions kept as given are read by iptables' option tables", () => {
  it("an option the extension does not have is unknown, even another match's", () => {
    expect(problems(filter("-A INPUT -m limit --limit 5/min --bogus 1 -j ACCEPT"))).toEqual([
      '2:33 unknown option "--bogus"',
    ]);
    expect(saveOf("-m pkttype --pkt-type unicast --dst-type LOCAL -j ACCEPT")).toBe(
      'refused: unknown option "--dst-type"',
    );
    expect(saveOf("-j NFQUEUE --queue-num 1 --bogus")).toBe('refused: unknown option "--bogus"');
    expect(saveOf("-m owner --pid-owner 1 -j ACCEPT")).toBe('refused: unknown option "--pid-owner"');
  });
  it("! where the option takes none, a repeat, a missing mandatory option, in iptables' words", () => {
    expect(saveOf("-m connlimit --connlimit-above 2 ! --connlimit-saddr -j ACCEPT")).toBe(
      'refused: connlimit: option "--connlimit-saddr" cannot be inverted',
    );
    expect(saveOf("-m comment ! --comment x -j ACCEPT")).toBe(
      'refused: comment: option "--comment" cannot be inverted',
    );
    expect(saveOf("-m pkttype --pkt-type unicast --pkt-type unicast -j ACCEPT")).toBe(
      'refused: pkttype: option "--pkt-type" can only be used once',
    );
    expect(saveOf("-m tos -j ACCEPT")).toBe('refused: tos: option "--tos" must be specified');
    expect(saveOf("-j CLASSIFY")).toBe('refused: CLASSIFY: option "--set-class" must be specified');
  });
  it("an option takes as many values as iptables gives it, abbreviations are spelled out", () => {
    expect(saveOf("-m set --match-set kube-ips src,dst -j ACCEPT")).toBe(
      "-A X -m set --match-set kube-ips src,dst -j ACCEPT",
    );
    expect(saveOf("-m pkttype --pkt broadcast -j DROP")).toBe("-A X -m pkttype --pkt-type broadcast -j DROP");
    expect(saveOf("-m mac ! --mac-source 00:11:22:33:44:55 -j ACCEPT")).toBe(
      "-A X -m mac ! --mac-source 00:11:22:33:44:55 -j ACCEPT",
    );
    expect(saveOf("-m string --string -5 --algo bm -j DROP")).toBe(
      "-A X -m string --string -5 --algo bm -j DROP",
    );
  });
  it("an extension of one family only is not loaded in the other", () => {
    expect(saveOf("-m hbh -j ACCEPT")).toBe("refused: Couldn't load match `hbh':No such file or directory");
    expect(saveOf("-m ttl --ttl-eq 5 -j ACCEPT", { family: "IPv6" })).toBe(
      "refused: Couldn't load match `ttl':No such file or directory",
    );
    expect(saveOf("-m ah --ahlen 5 -j ACCEPT")).toBe('refused: unknown option "--ahlen"');
    expect(saveOf("-m ah --ahlen 5 -j ACCEPT", { family: "IPv6" })).toBe("-A X -m ah --ahlen 5 -j ACCEPT");
  });
});

describe("limit as iptables-save prints it", () => {
  it("the rate in the unit iptables picks, the burst unless 5", () => {
    expect(saveOf("-m limit -j ACCEPT")).toBe("-A X -m limit --limit 3/hour -j ACCEPT");
    expect(saveOf("-m limit --limit 7/HOUR --limit-burst 010 -j ACCEPT")).toBe(
      "-A X -m limit --limit 7/hour --limit-burst 8 -j ACCEPT",
    );
    expect(saveOf("-m limit --limit 120/m --limit-burst 5 -j ACCEPT")).toBe(
      "-A X -m limit --limit 2/sec -j ACCEPT",
    );
    expect(saveOf("-m limit --limit 33/min -j ACCEPT")).toBe("-A X -m limit --limit 33/min -j ACCEPT");
    expect(saveOf("-m limit --limit-b 7 -j ACCEPT")).toBe(
      "-A X -m limit --limit 3/hour --limit-burst 7 -j ACCEPT",
    );
  });
  it("rates and bursts iptables refuses, in its words", () => {
    expect(saveOf("-m limit --limit 0/sec -j ACCEPT")).toBe(`refused: bad rate "0/sec"'`);
    expect(saveOf("-m limit --limit 1/ -j ACCEPT")).toBe(`refused: bad rate "1/"'`);
    expect(saveOf("-m limit --limit 1/seconds -j ACCEPT")).toBe(`refused: bad rate "1/seconds"'`);
    expect(saveOf("-m limit --limit 20000 -j ACCEPT")).toBe('refused: Rate too fast "20000"');
    expect(saveOf("-m limit --limit-burst 10001 -j ACCEPT")).toBe(
      'refused: limit: bad value for option "--limit-burst", or out of range (0-10000).',
    );
  });
  it("legacy's kernel refuses a burst of 0 and one that overflows; nft takes them", () => {
    expect(saveOf("-m limit --limit-burst 0 -j ACCEPT", { backend: "legacy" })).toMatch(/^refused: limit: /);
    expect(saveOf("-m limit --limit 1/day -j ACCEPT", { backend: "legacy" })).toMatch(/^refused: limit: /);
    expect(saveOf("-m limit --limit 1/day --limit-burst 1 -j ACCEPT", { backend: "legacy" })).toBe(
      "-A X -m limit --limit 1/day --limit-burst 1 -j ACCEPT",
    );
    expect(saveOf("-m limit --limit-burst 0 -j ACCEPT")).toBe("-A X -m limit --limit 3/hour -j ACCEPT");
    expect(saveOf("-m limit --limit 1/day -j ACCEPT")).toBe("-A X -m limit --limit 1/day -j ACCEPT");
  });
});

describe("LOG levels as iptables 1.8.9 reads them", () => {
  it("its names as written, or a number up to 7 in C base 0", () => {
    expect(problems(filter("-A INPUT -j LOG --log-level err"))).toEqual(['2:29 log level "err" unknown']);
    expect(saveOf("-j LOG --log-level warn")).toBe('refused: log level "warn" unknown');
    expect(saveOf("-j LOG --log-level ERROR")).toBe('refused: log level "ERROR" unknown');
    expect(saveOf("-j LOG --log-level 010")).toBe('refused: log level "010" unknown');
    expect(saveOf("-j LOG --log-level error")).toBe("-A X -j LOG --log-level 3");
    expect(saveOf("-j LOG --log-level warning")).toBe("-A X -j LOG");
    expect(saveOf("-j LOG --log-level 0x5")).toBe("-A X -j LOG --log-level 5");
    expect(saveOf("-j LOG --log-level +6")).toBe("-A X -j LOG --log-level 6");
  });
});

describe("numbers as each option reads them", () => {
  it("C base 0 (0x hex, 0 octal, blanks and + leading) for -p, marks, tcp ports, icmp, counts", () => {
    expect(saveOf("-p 0x6 -j ACCEPT")).toBe("-A X -p tcp -j ACCEPT");
    expect(saveOf("-p 010 -j ACCEPT")).toBe("-A X -p egp -j ACCEPT");
    expect(saveOf("-p 080 -j ACCEPT")).toBe('refused: unknown protocol "080" specified');
    expect(saveOf("-m mark --mark +1 -j ACCEPT")).toBe("-A X -m mark --mark 0x1 -j ACCEPT");
    expect(saveOf("-p tcp --dport +80 --sport 0x10:020 -j ACCEPT")).toBe(
      "-A X -p tcp -m tcp --sport 16 --dport 80 -j ACCEPT",
    );
    expect(saveOf("-p tcp --dport 5:1 -j ACCEPT")).toBe("refused: invalid portrange (min > max)");
    expect(saveOf("-p tcp -m multiport --dports 010,+80,0x51 -j ACCEPT")).toBe(
      "-A X -p tcp -m multiport --dports 8,80,81 -j ACCEPT",
    );
    expect(saveOf("-p icmp --icmp-type 010 -j ACCEPT")).toBe("-A X -p icmp -m icmp --icmp-type 8 -j ACCEPT");
    expect(saveOf("-p icmp --icmp-type 8/010 -j ACCEPT")).toBe(
      "-A X -p icmp -m icmp --icmp-type 8/8 -j ACCEPT",
    );
    expect(saveOf("-m statistic --mode nth --every 0x3 --packet +1 -j ACCEPT")).toBe(
      "-A X -m statistic --mode nth --every 3 --packet 1 -j ACCEPT",
    );
    expect(saveOf("-p tcp --tcp-option 010 -j ACCEPT")).toBe("-A X -p tcp -m tcp --tcp-option 8 -j ACCEPT");
    expect(saveOf("-m conntrack --ctexpire 010:0x20 --ctproto 0x6 -j ACCEPT")).toBe(
      "-A X -m conntrack --ctproto 6 --ctexpire 8:32 -j ACCEPT",
    );
    expect(saveOf("-j NFLOG --nflog-group 010 --nflog-threshold +0x10")).toBe(
      "-A X -j NFLOG --nflog-group 8 --nflog-threshold 16",
    );
    expect(saveOf("-j NFLOG --nflog-group 08")).toBe(
      'refused: NFLOG: bad value for option "--nflog-group", or out of range (0-65535).',
    );
  });
  it("NAT ports: a leading C base-0 number, a service, a range with a dash and a base port", () => {
    const nat4 = (to: string) => saveOf(`-p tcp -j DNAT --to-destination 198.18.0.1:${to}`);
    expect(nat4("010")).toBe("-A X -p tcp -j DNAT --to-destination 198.18.0.1:8");
    expect(nat4("http")).toBe("-A X -p tcp -j DNAT --to-destination 198.18.0.1:80");
    expect(nat4("+0x10-020")).toBe("-A X -p tcp -j DNAT --to-destination 198.18.0.1:16");
    expect(nat4("1000-2000/1500")).toBe("-A X -p tcp -j DNAT --to-destination 198.18.0.1:1000-2000/1500");
    expect(nat4("080")).toBe("refused: Garbage after port value: `80'");
    expect(nat4("80-90x")).toBe("refused: Garbage after port range: `x'");
    expect(nat4("9-8")).toBe("refused: Port range `8' funky");
    expect(nat4("70000")).toBe("refused: Port `70000' not valid");
    expect(saveOf("-p tcp -j REDIRECT --to-ports 010-0x20")).toBe("-A X -p tcp -j REDIRECT --to-ports 8-32");
  });
});

describe("udp ports as getaddrinfo reads them", () => {
  it("decimal, the low 16 bits of a non-negative C int, a range taken upside down", () => {
    expect(saveOf("-p udp --dport 010 -j ACCEPT")).toBe("-A X -p udp -m udp --dport 10 -j ACCEPT");
    expect(saveOf("-p udp --dport 65536 -j ACCEPT")).toBe("-A X -p udp -m udp --dport 0 -j ACCEPT");
    expect(saveOf("-p udp --dport 70000:70001 -j ACCEPT")).toBe(
      "-A X -p udp -m udp --dport 4464:4465 -j ACCEPT",
    );
    expect(saveOf("-p udp --dport 5:1 -j ACCEPT")).toBe("-A X -p udp -m udp --dport 5:1 -j ACCEPT");
    expect(saveOf("-p udp --dport 65536:65535 -j ACCEPT")).toBe("-A X -p udp -m udp -j ACCEPT");
    expect(saveOf("-p udp --sport 2147483647 -j ACCEPT")).toBe("-A X -p udp -m udp --sport 65535 -j ACCEPT");
  });
  it("what does not resolve, in iptables' words", () => {
    expect(saveOf("-p udp --dport 0x50 -j ACCEPT")).toBe('refused: Port "0x50" does not resolve to anything');
    expect(saveOf("-p udp --dport 2147483648 -j ACCEPT")).toBe(
      'refused: Port "2147483648" does not resolve to anything',
    );
    expect(saveOf("-p udp --dport -1 -j ACCEPT")).toBe('refused: Port "-1" does not resolve to anything');
    expect(saveOf("-p udp --dport 1:2:3 -j ACCEPT")).toBe(
      'refused: udp: Too many components for option "--destination-port" (max: 2)',
    );
  });
});

describe("recent's counts", () => {
  it("--seconds from 1, printed as a signed int; --hitcount up to the kernel's 65535", () => {
    expect(saveOf("-m recent --rcheck --seconds 0 -j ACCEPT")).toBe(
      'refused: recent: bad value for option "--seconds", or out of range (1-4294967295).',
    );
    expect(saveOf("-m recent --rcheck --seconds 4294967295 --hitcount 65535 -j ACCEPT")).toBe(
      "-A X -m recent --rcheck --seconds -1 --hitcount 65535 --name DEFAULT --mask 255.255.255.255 --rsource -j ACCEPT",
    );
    expect(saveOf("-m recent --rcheck --hitcount 65536 -j ACCEPT")).toMatch(
      /^refused: recent: hitcount 65536/,
    );
  });
  it("--rttl with --set or --remove, either way round", () => {
    expect(saveOf("-m recent --set --rttl -j ACCEPT")).toBe(
      'refused: recent: option "--rttl" cannot be used together with "--set"',
    );
    expect(saveOf("-m recent --rttl --remove -j ACCEPT")).toBe(
      'refused: recent: option "--rttl" cannot be used together with "--remove"',
    );
    expect(saveOf("-m recent --update --rttl -j ACCEPT")).toMatch(/^-A X -m recent --update --rttl/);
  });
});

describe("host names in -s and -d", () => {
  it("IPv4's localhost is 127.0.0.1 (every /etc/hosts has it); other names are refused", () => {
    expect(saveOf("-s localhost -d LOCALHOST/8 -j ACCEPT")).toBe(
      "-A X -s 127.0.0.1/32 -d 127.0.0.0/8 -j ACCEPT",
    );
    expect(saveOf("-m conntrack --ctorigsrc localhost -j ACCEPT")).toBe(
      "-A X -m conntrack --ctorigsrc 127.0.0.1 -j ACCEPT",
    );
    expect(saveOf("-s example.com -j ACCEPT")).toBe("refused: host/network `example.com' not found");
    expect(saveOf("-s localhost -j ACCEPT", { family: "IPv6" })).toBe(
      "refused: host/network `localhost' not found",
    );
  });
});

describe("matches the kernel allows in some tables or hooks only", () => {
  it("IPv6 addrtype refuses every type from PROHIBIT on", () => {
    for (const type of ["PROHIBIT", "THROW", "NAT", "XRESOLVE"]) {
      expect(saveOf(`-m addrtype --dst-type ${type} -j ACCEPT`, { family: "IPv6" })).toBe(
        `refused: ip6tables: addrtype ${type} is not supported for IPv6`,
      );
    }
    expect(saveOf("-m addrtype --dst-type UNREACHABLE -j ACCEPT", { family: "IPv6" })).toBe(
      "-A X -m addrtype --dst-type UNREACHABLE -j ACCEPT",
    );
  });
  it("owner, socket and rpfilter: at their hooks, through jumps too, on both backends", () => {
    for (const backend of ["nft", "legacy"] as const) {
      expect(problems(filter("-A INPUT -m owner --uid-owner 0 -j ACCEPT"), { backend })).toEqual([
        "2:10 match owner is only valid in OUTPUT, POSTROUTING; chain INPUT is reached from INPUT",
      ]);
      expect(
        problems(filter(":X - [0:0]", "-A OUTPUT -j X", "-A X -m socket -j ACCEPT"), { backend }),
      ).toEqual(["4:6 match socket is only valid in PREROUTING, INPUT; chain X is reached from OUTPUT"]);
      expect(problems(nat("-A PREROUTING -m rpfilter -j ACCEPT"), { backend })).toEqual([
        "2:15 match rpfilter is only valid in the raw or mangle tables, not in nat",
      ]);
    }
    expect(problems(filter("-A OUTPUT -m owner --uid-owner 0 -m socket -j ACCEPT"))).toHaveLength(1);
  });
  it("physdev's output port and addrtype's interface limits: through jumps on legacy only", () => {
    const viaChain = filter(":X - [0:0]", "-A OUTPUT -j X", "-A X -m physdev --physdev-out eth0 -j ACCEPT");
    expect(problems(viaChain, { backend: "nft" })).toEqual([]);
    expect(problems(viaChain, { backend: "legacy" })).toEqual([
      "4:6 match physdev --physdev-out is only valid in PREROUTING, INPUT, FORWARD, POSTROUTING; chain X is reached from OUTPUT",
    ]);
    expect(problems(filter("-A OUTPUT -m physdev --physdev-is-out -j ACCEPT"))).toEqual([
      "2:11 match physdev --physdev-out is only valid in PREROUTING, INPUT, FORWARD, POSTROUTING, not in OUTPUT",
    ]);
    expect(
      problems(filter("-A OUTPUT -m physdev --physdev-out eth0 --physdev-is-bridged -j ACCEPT")),
    ).toEqual([]);
    expect(
      problems(filter("-A OUTPUT -m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT"), {
        backend: "legacy",
      }),
    ).toHaveLength(1);
    expect(problems(filter("-A FORWARD -m addrtype --dst-type LOCAL --limit-iface-out -j ACCEPT"))).toEqual(
      [],
    );
  });
});

describe("what iptables-nft has expressions of its own for", () => {
  it("TRACE in any table on nft, in raw only on legacy", () => {
    expect(problems(filter("-A INPUT -j TRACE"), { backend: "nft" })).toEqual([]);
    expect(problems(filter("-A INPUT -j TRACE"), { backend: "legacy" })).toEqual([
      "2:13 target TRACE is only valid in the raw table, not in filter",
    ]);
  });
  it("TCPMSS's hooks: where it sits in a built-in chain on nft, through jumps on legacy", () => {
    const text = filter(
      ":X - [0:0]",
      "-A INPUT -j X",
      "-A X -p tcp -m tcp --syn -j TCPMSS --clamp-mss-to-pmtu",
    );
    expect(problems(text, { backend: "nft" })).toEqual([]);
    expect(problems(text, { backend: "legacy" })).toHaveLength(1);
    expect(problems(filter("-A INPUT -p tcp -j TCPMSS --clamp-mss-to-pmtu"), { backend: "nft" })).toEqual([
      "2:20 target TCPMSS is only valid in FORWARD, OUTPUT, POSTROUTING, not in INPUT",
    ]);
  });
  it("a tcp or udp match with ports or flags after a negated -p of it, on nft only", () => {
    expect(saveOf("! -p tcp --dport 80 -j ACCEPT")).toBe("-A X ! -p tcp -m tcp --dport 80 -j ACCEPT");
    expect(saveOf("-m tcp ! -p tcp --syn -j ACCEPT")).toBe(
      "-A X ! -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT",
    );
    expect(saveOf("! -p udp -m udp ! --dport 0:65535 -j ACCEPT")).toBe("-A X ! -p udp -j ACCEPT");
    const refused = "refused: tcp match requires `-p tcp'";
    expect(saveOf("! -p tcp --dport 80 -j ACCEPT", { backend: "legacy" })).toBe(refused);
    expect(saveOf("! -p tcp -m tcp -j ACCEPT")).toBe(refused);
    expect(saveOf("! -p tcp --tcp-option 2 -j ACCEPT")).toBe(refused);
    expect(saveOf("! -p tcp -m tcp --dport 0:65535 -j ACCEPT")).toBe(refused);
    expect(saveOf("! -p sctp --dport 1 -j ACCEPT")).toBe("refused: sctp match requires `-p sctp'");
  });
});

describe("text the kernel cuts inside a UTF-8 character", () => {
  it("keeps the character's first bytes, which read back as U+FFFD (and force quotes)", () => {
    expect(saveOf(`-m comment --comment ${"x".repeat(254)}é -j ACCEPT`)).toBe(
      `-A X -m comment --comment "${"x".repeat(254)}\uFFFD" -j ACCEPT`,
    );
    expect(saveOf(`-m comment --comment ${"x".repeat(253)}é -j ACCEPT`)).toBe(
      `-A X -m comment --comment "${"x".repeat(253)}é" -j ACCEPT`,
    );
    expect(saveOf(`-j LOG --log-prefix ${"a".repeat(28)}éé`)).toBe(
      `-A X -j LOG --log-prefix "${"a".repeat(28)}\uFFFD"`,
    );
    // Printed and read again, it stays the same.
    const once = saveOf(`-m comment --comment ${"é".repeat(128)} -j ACCEPT`);
    const again = parseRules(filter(once.replace("-A X", "-A INPUT"))).ruleSet;
    expect(formatSave(again)).toContain(once.replace("-A X", "-A INPUT"));
  });
});

describe("a rule's [packets:bytes] prefix, as iptables-restore's strtok reads it", () => {
  it("the command starts after the first ]: blanks inside the prefix, or none after it, are taken", () => {
    expect(problems(filter("[ 1:2] -A INPUT -j ACCEPT", "[1 :2] -A INPUT -j ACCEPT"))).toEqual([]);
    expect(problems(filter("[1:2]-A INPUT -j ACCEPT", "[::1:2] -A INPUT -j ACCEPT"))).toEqual([]);
    expect(problems(filter("[5:6]x -A INPUT -j ACCEPT"))).toEqual(["2:6 Bad argument `x'"]);
  });
  it("a prefix with no number before or after its colon is refused", () => {
    expect(problems(filter("[] -A INPUT -j ACCEPT"))).toEqual(["2:1 Bad line 2: need ]"]);
    expect(problems(filter("[:] -A INPUT -j ACCEPT"))).toEqual(["2:1 Bad line 2: need ]"]);
  });
  it("strtok ends the line at a colon past a prefix that had none", () => {
    const { ruleSet } = parseRules(filter('[:] -A INPUT -m comment --comment "ns/svc:http" -j ACCEPT'));
    expect(formatSave(ruleSet)).toContain('-A INPUT -m comment --comment "ns/svc"\n');
  });
});

describe("iptables' own options on a rule line", () => {
  it("-v, the family's own -4 or -6, and -M are taken and ignored", () => {
    expect(saveOf("-v -p tcp --verb -4 -M /sbin/modprobe --modprobe=/x -j ACCEPT")).toBe(
      "-A X -p tcp -j ACCEPT",
    );
    expect(saveOf("-6 -j ACCEPT", { family: "IPv6" })).toBe("-A X -j ACCEPT");
  });
  it("-w, -W, -n, -x, --line-numbers are refused in iptables' words", () => {
    expect(saveOf("-w 5 -j ACCEPT")).toBe("refused: You cannot use `-w' from iptables-restore");
    expect(saveOf("--wait-interval 5 -j ACCEPT")).toBe("refused: You cannot use `-W' from iptables-restore");
    expect(saveOf("-n -j ACCEPT")).toBe("refused: Illegal option `-n' with this command");
    expect(saveOf("--exact -j ACCEPT")).toBe("refused: Illegal option `-x' with this command");
  });
  it("a loaded extension's exact option wins over a prefix of iptables' (policy's --proto)", () => {
    expect(saveOf("-m policy --dir in --pol ipsec --proto esp -j ACCEPT")).toBe(
      "-A X -m policy --dir in --pol ipsec --proto esp -j ACCEPT",
    );
    expect(saveOf("--proto tcp --fragm -j ACCEPT")).toBe("-A X -p tcp -f -j ACCEPT");
  });
});

describe("smaller value rules of iptables' parsers", () => {
  it("an empty LOG or NFLOG prefix is refused", () => {
    for (const args of [
      ["-j", "LOG", "--log-prefix", ""],
      ["-j", "NFLOG", "--nflog-prefix", ""],
    ]) {
      expect(tryCanonicalizeRule(args, "IPv4")).toMatchObject({
        ok: false,
        message: "Argument must have a minimum length of 1 characters",
        argIndex: 3,
      });
    }
  });
  it("service names are looked up for tcp and udp only", () => {
    expect(saveOf("-p sctp --dport http -j ACCEPT")).toBe("refused: invalid port/service `http' specified");
    expect(saveOf("-p sctp -m multiport --dports 80,http -j ACCEPT")).toBe(
      "refused: invalid port/service `http' specified",
    );
    expect(saveOf("-p tcp -m multiport --dports ssh,http -j ACCEPT")).toBe(
      "-A X -p tcp -m multiport --dports 22,80 -j ACCEPT",
    );
  });
  it("cgroup's path prints as iptables-save prints strings", () => {
    expect(saveOf("-m cgroup --path / -j ACCEPT")).toBe('-A X -m cgroup --path "/" -j ACCEPT');
  });
});
