// The parser's fast paths (plain lines read with WordReader, rules of kube-proxy's shapes taken by
// the shape matcher without the canonicalizer) must give exactly what the reference path gives: same rule set,
// same problems with the same line and column, on every fixture text and on mutated lines.
import fc from "fast-check";
import { describe, expect, it, test } from "vitest";
import { type Backend, parseRules } from "../../src/index.js";
import { tryCanonicalizeRule } from "../../src/iptables/canonical/canonicalize.js";
import { isDeferredTable, parsedChainOf } from "../../src/iptables/parse/deferred.js";
import { parseRulesReference } from "../../src/iptables/parse/parse.js";
import { tokenizeLine, WordReader } from "../../src/iptables/parse/tokenize.js";
import { IPV4, IPV6, matchFamilies } from "../../src/iptables/shape/match.js";
import type { ChainDeclaration, Entry, IPFamily, Table } from "../../src/ir/types.js";
import { corpusDocuments, specExamples } from "../support/corpora.js";
import { applyWordEdits, wordEdits } from "../support/rule-mutations.js";

const SEED = 20_251_122;

/** Every rules text in the fixtures: any JSON string value starting with `*`, and the .txt examples. */
function fixtureTexts(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  const visit = (name: string, value: unknown): void => {
    if (typeof value === "string") {
      if (value.startsWith("*")) out.push({ name, text: value });
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(`${name}[${i}]`, v);
    } else if (value !== null && typeof value === "object")
      for (const [k, v] of Object.entries(value)) visit(`${name}.${k}`, v);
  };
  for (const { name, value } of corpusDocuments()) visit(name, value);
  for (const { name, text } of specExamples()) out.push({ name: `spec-examples/${name}`, text });
  return out;
}

const OPTIONS: ({ family?: IPFamily; backend?: Backend } | undefined)[] = [
  undefined,
  { family: "IPv4" },
  { family: "IPv6" },
  { backend: "legacy" },
];

function expectSameParse(text: string): void {
  for (const options of OPTIONS) {
    const reference = parseRulesReference(text, options);
    expect(parseRules(text, options)).toEqual(reference);
    expect(parseRules(text, { ...options, deferred: true })).toEqual(reference);
  }
}

/** Each chain of each table, read alone from a deferred parse, is the chain of the full parse. */
function expectSameChains(text: string, options: { family?: IPFamily; backend?: Backend } | undefined): void {
  const full = parseRules(text, options).ruleSet;
  const deferred = parseRules(text, { ...options, deferred: true }).ruleSet;
  full.tables.forEach((table, t) => {
    const lazy = deferred.tables[t] as Table;
    expect(isDeferredTable(lazy)).toBe(true);
    const byChain = new Map<string, Entry[]>();
    for (const c of table.chains) if (!byChain.has(c.name)) byChain.set(c.name, []);
    for (const e of table.entries) {
      if (e.kind !== "rule") continue;
      const list = byChain.get(e.chain) ?? [];
      byChain.set(e.chain, list);
      if (e.op === "-A") list.push(e);
    }
    byChain.set("NO-SUCH-CHAIN", []);
    const firstDeclared = new Map<string, ChainDeclaration>();
    for (const c of table.chains) if (!firstDeclared.has(c.name)) firstDeclared.set(c.name, c);
    for (const [name, rules] of byChain) {
      const declared = firstDeclared.get(name);
      const expected =
        declared === undefined && rules.length === 0
          ? undefined
          : { policy: declared?.policy ?? null, rules };
      expect(parsedChainOf(lazy, name)).toEqual(expected);
    }
    // Read chain by chain first, the whole table is still the full parse's.
    expect(lazy.entries).toEqual(table.entries);
  });
}

describe("fast and reference paths agree", () => {
  const texts = fixtureTexts();
  it("finds the fixture texts", () => {
    expect(texts.length).toBeGreaterThan(500);
  });
  it("on every fixture text, with and without family and backend", () => {
    for (const { name, text } of texts) {
      for (const options of OPTIONS) {
        const fast = parseRules(text, options);
        const reference = parseRulesReference(text, options);
        expect({ name, ...fast }).toEqual({ name, ...reference });
      }
    }
  });
  it("on every fixture text, with its rules built on demand", () => {
    for (const { name, text } of texts) {
      const fast = parseRules(text);
      const deferred = parseRules(text, { deferred: true });
      expect({ name, ...deferred }).toEqual({ name, ...fast });
      if (fast.problems.length === 0) expectSameChains(text, undefined);
    }
  });

  // Lines near what kube-proxy writes, with tokens swapped for tricky ones: whatever the matcher
  // vouches for must be what the canonicalizer accepts, and every problem must be the same.
  const POOL = [
    ...(
      "99999 0 010 80 65535 10.0.0.256 10.0.0.1/0 10.0.0.1/33 10.0.0.1/8 010.0.0.1 fd00::1 " +
      "10.0.0.1,10.0.0.2 ! -m tcp udp sctp icmp --dport --sport -p -j -g DNAT MARK LOG MASQUERADE " +
      "REJECT 0x1/0x2 0x 0x123456789 --or-mark --set-xmark --to-destination 10.0.0.1:0 " +
      "10.0.0.1:8080 [fd00::1]:80 1.5 0.5 0. 1 random nth --mode --probability LOCAL BROADCAST " +
      "NEW,BOGUS RELATED,ESTABLISHED -c --set-counters --comment KUBE-SVC-X ACCEPT + " +
      "eth0 an-interface-name-too-long -s -d -i -o --random-fully --random --ctstate INVALID " +
      "--src-type --dst-type --mark statistic conntrack addrtype mark comment -f --to recent --name " +
      "--set --rcheck --seconds --reap --rsource --update 10800 --reject-with"
    ).split(" "),
    "",
    '"a b"',
    '"x\\"y"',
    '"open',
    "a\tb",
  ];
  const lines = texts
    .flatMap(({ text }) => text.split("\n"))
    .filter((l) => l.startsWith("-A "))
    .filter((l, i, all) => all.indexOf(l) === i);
  const mutation = fc.record({
    line: fc.nat(lines.length - 1),
    edits: wordEdits(POOL),
    table: fc.constantFrom("filter", "nat"),
  });
  test("on mutated kube-proxy lines", () => {
    fc.assert(
      fc.property(mutation, ({ line, edits, table }) => {
        const tokens = (lines[line] as string).split(" ");
        applyWordEdits(tokens, edits, 2);
        const text = `*${table}\n:${tokens[1]} - [0:0]\n${tokens.join(" ")}\n-A X -j ACCEPT\nCOMMIT\n`;
        expectSameParse(text);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

describe("the fast path's shape matcher (matchFamilies)", () => {
  const argv = fc.array(
    fc.constantFrom(
      ...(
        "-s -d 10.0.0.1 10.0.0.1/32 10.0.0.0/8 10.0.0.1/0 fd00::1 fd00::1/128 -i -o eth0 + -p tcp udp sctp -m " +
        "comment --comment statistic --mode random --probability 0.25 0.25000000000 mark --mark 0x4000/0x4000 " +
        "addrtype --dst-type --src-type LOCAL --dport --sport 80 ! -j KUBE-SVC-X KUBE-MARK-MASQ ACCEPT DNAT " +
        "--to-destination 10.0.0.1:80 [fd00::1]:80 REJECT --reject-with icmp-port-unreachable recent --name " +
        "--set --rcheck --seconds 10800 0 --reap --rsource --mask 255.255.255.255 --update -c a:b --source"
      ).split(" "),
      "x y",
    ),
    { maxLength: 14 },
  );
  test("vouches only for what the canonicalizer accepts, in the families and on the backend it says", () => {
    fc.assert(
      fc.property(argv, fc.constantFrom<Backend>("nft", "legacy"), (args, backend) => {
        const families = matchFamilies(args, 0, args.length, IPV4 | IPV6, backend);
        for (const [bit, family] of [
          [IPV4, "IPv4"],
          [IPV6, "IPv6"],
        ] as const) {
          if ((families & bit) === 0) continue;
          expect(tryCanonicalizeRule(args, family, { backend })).toMatchObject({ ok: true });
          expect(matchFamilies(args, 0, args.length, bit, backend)).toBe(bit);
        }
        // The parser detects the family only on rules it does not vouch for in IPv4: those hold
        // no address flag before a `:`.
        if ((families & IPV4) !== 0)
          for (let a = 0; a + 1 < args.length; a++) {
            if (["-s", "-d", "--source", "--destination", "--src", "--dst"].includes(args[a] as string))
              expect(args[a + 1]).not.toContain(":");
          }
      }),
      { seed: SEED, numRuns: 20_000 },
    );
  });

  it("reads kube-proxy's usual rules, in both orders", () => {
    const families = (line: string): number => {
      const args = line.split(" ");
      return matchFamilies(args, 0, args.length, IPV4 | IPV6, "nft");
    };
    expect(
      families("-m statistic --mode random --probability 0.1000000000 -j KUBE-SEP-P6I4QBKGAJXTVVEB"),
    ).toBe(IPV4 | IPV6);
    expect(families("-s 10.64.0.10 -j KUBE-MARK-MASQ")).toBe(IPV4);
    expect(families("-s 10.64.0.10/32 -j KUBE-MARK-MASQ")).toBe(IPV4);
    expect(families("-m tcp -p tcp -j DNAT --to-destination 10.64.0.10:8080")).toBe(IPV4);
    expect(families("-p tcp -m tcp -j DNAT --to-destination [fd00::a]:8080")).toBe(IPV6);
    const c = "-m comment --comment ns/web:http";
    expect(families(`${c} -m tcp -p tcp -d 10.96.0.10 --dport 80 ! -s 10.64.0.0/10 -j KUBE-MARK-MASQ`)).toBe(
      IPV4,
    );
    expect(
      families(`! -s 10.64.0.0/10 -d 10.96.0.10/32 -p tcp ${c} -m tcp --dport 80 -j KUBE-MARK-MASQ`),
    ).toBe(IPV4);
    expect(families("-m recent --name KUBE-SEP-X --rcheck --seconds 10800 --reap -j KUBE-SEP-X")).toBe(
      IPV4 | IPV6,
    );
    expect(
      families(
        "-m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-X --mask 255.255.255.255 --rsource -j KUBE-SEP-X",
      ),
    ).toBe(IPV4);
    expect(families(`${c} -m tcp -p tcp -d 10.96.0.1 --dport 80 -j REJECT`)).toBe(IPV4);
    // Without its comment, no shape of kube-proxy's.
    expect(families("-m tcp -p tcp -d 10.96.0.1 --dport 80 -j REJECT")).toBe(0);
  });

  it("leaves everything else to the canonicalizer", () => {
    const families = (line: string): number => {
      const args = line.split(" ");
      return matchFamilies(args, 0, args.length, IPV4 | IPV6, "nft");
    };
    expect(families("-p tcp --dport 99999 -j ACCEPT")).toBe(0);
    expect(families("-m tcp -p udp --dport 80 -j KUBE-SVC-X")).toBe(0); // the tcp match needs -p tcp
    expect(families("! -s 0.0.0.0/0 -j DROP")).toBe(0); // refused by nft only
    expect(families("-j DNAT --to-destination 10.0.0.1:80")).toBe(0); // a port needs -p
    expect(families("-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")).toBe(0); // not a service rule
    expect(families("-j KUBE-X -c 1 2")).toBe(0);
    expect(
      families(
        "-m comment --comment x -m tcp -p tcp -d 10.96.0.1 --dport 80 -j REJECT --reject-with tcp-reset",
      ),
    ).toBe(0);
    expect(families("-m recent --name X --set --seconds 5 -j X")).toBe(0); // --seconds needs --rcheck
  });
});

describe("WordReader", () => {
  test("reads plain lines as tokenizeLine does, and gives up on the others", () => {
    const line = fc.array(fc.constantFrom("a", "-", "b", " ", " ", "\t", '"', "\\", "\r", "é"), {
      maxLength: 24,
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (chars) => {
        const text = chars.map((c) => c.join("")).join("\n");
        // With the word cache (the parser) and without it (generateSaveText): the same words.
        const reader = new WordReader(text);
        const unshared = new WordReader(text, false);
        let start = 0;
        for (const c of chars) {
          const end = start + c.length;
          const count = reader.read(start, end);
          expect(unshared.read(start, end)).toBe(count);
          if (count >= 0) {
            const words = reader.words.slice(0, count);
            expect(words).toEqual(tokenizeLine(text, start, end, true));
            expect(words).toEqual(tokenizeLine(text, start, end, false));
            expect(unshared.words.slice(0, count)).toEqual(words);
          }
          start = end + 1;
        }
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it("reads a whole quoted argument", () => {
    const text = '-m comment --comment "ns/svc:p cluster IP" -j X';
    const reader = new WordReader(text);
    const count = reader.read(0, text.length);
    expect(reader.words.slice(0, count)).toEqual([
      "-m",
      "comment",
      "--comment",
      "ns/svc:p cluster IP",
      "-j",
      "X",
    ]);
    expect(new WordReader('a "b\\"c"').read(0, 8)).toBe(-1);
    expect(new WordReader('a "b"c').read(0, 6)).toBe(-1);
    expect(new WordReader("a\tb").read(0, 3)).toBe(-1);
  });
});

describe("problems found on the fast path's lines keep their line and column", () => {
  const text = [
    "*nat",
    ":KUBE-SVC-X - [0:0]",
    ":KUBE-SEP-Y - [0:0]",
    "-A KUBE-SVC-X -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-Y",
    "-A KUBE-SEP-Y -m tcp -p tcp -j DNAT --to-destination 10.64.0.300:8080",
    "-A KUBE-SEP-Y -s 10.64.0.1 -j KUBE-MARK-MASQ",
    '-A KUBE-SVC-X -m comment --comment "a b" -m tcp -p tcp -d 10.96.0.1 --dport 99999 -j KUBE-SEP-Y',
    "COMMIT",
    "",
  ].join("\n");
  // A kube-proxy payload (KUBE-MARK-MASQ is not declared): read as iptables-restore --noflush.
  const NOFLUSH = { noflush: true } as const;

  it("in the IPv4 family", () => {
    const { problems } = parseRules(text, NOFLUSH);
    expect(problems.map((p) => [p.line, p.column, p.message])).toEqual([
      [5, 54, "Bad IP address `10.64.0.300'"],
      [7, 77, "invalid port/service `99999' specified"],
    ]);
    expect(parseRules(text, NOFLUSH)).toEqual(parseRulesReference(text, NOFLUSH));
  });

  it("when an IPv6 address makes the IPv4 rules the fast path took wrong", () => {
    const v6 = text.replace(
      "-A KUBE-SEP-Y -s 10.64.0.1",
      "-A KUBE-SEP-Y -s fd00::1 -j KUBE-MARK-MASQ\n-A KUBE-SEP-Y -s 10.64.0.1",
    );
    const result = parseRules(v6, NOFLUSH);
    expect(result.ruleSet.family).toBe("IPv6");
    // One line further down; in IPv6 the DNAT address, `-s` and `-d` are the first errors.
    expect(result.problems.map((p) => [p.line, p.column])).toEqual([
      [5, 54],
      [7, 18],
      [8, 59],
    ]);
    expect(result).toEqual(parseRulesReference(v6, NOFLUSH));
    expect(parseRules(text, { family: "IPv6", noflush: true })).toEqual(
      parseRulesReference(text, { family: "IPv6", noflush: true }),
    );
  });

  it("when the family turns out IPv4 after rules valid only in IPv6", () => {
    // No -s/-d holds an IPv6 address: the text is IPv4, and the IPv6 destination is a problem.
    const v6dnat = [
      "*nat",
      ":KUBE-SEP-Y - [0:0]",
      "-A KUBE-SEP-Y -m tcp -p tcp -j DNAT --to-destination [fd00::1]:8080",
      "-A KUBE-SEP-Y -m tcp -p tcp -j DNAT --to-destination 10.64.0.1:8080",
      "COMMIT",
      "",
    ].join("\n");
    const result = parseRules(v6dnat);
    expect(result.ruleSet.family).toBe("IPv4");
    expect(result.problems.map((p) => p.line)).toEqual([3]);
    expect(result).toEqual(parseRulesReference(v6dnat));
    expect(parseRules(v6dnat, { family: "IPv6" })).toEqual(parseRulesReference(v6dnat, { family: "IPv6" }));
  });
});
