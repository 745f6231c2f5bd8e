import fc from "fast-check";
import { describe, expect, it, test } from "vitest";
import { formatIPv6 } from "../../src/iptables/canonical/address.js";
import { formatCanonicalRule, tryCanonicalizeRule } from "../../src/iptables/canonical/canonicalize.js";
import { parseRules } from "../../src/iptables/parse/parse.js";
import { tokenizeLine } from "../../src/iptables/parse/tokenize.js";
import { arePlainLines, isPlainValue } from "../../src/iptables/plain-lines.js";
import { quoteArgument } from "../../src/iptables/print/restore.js";
import { formatSave } from "../../src/iptables/print/save.js";
import { ruleShape, slot } from "../../src/iptables/shape/define.js";
import { canonicalSaveLines } from "../../src/iptables/shape/general.js";
import { IPV4, IPV6, matchFamilies, matchSaveLine, matchShape } from "../../src/iptables/shape/match.js";
import {
  fastSaveLine,
  restoreLine,
  type SaveForm,
  saveLines,
  saveText,
  shapeArgs,
} from "../../src/iptables/shape/print.js";
import { saveTemplate } from "../../src/iptables/shape/template.js";
import type { RuleShape, SlotKind } from "../../src/iptables/shape/types.js";
import {
  BALANCE,
  COMMENTED_JUMP,
  ENDPOINT_DNAT,
  ENDPOINT_HAIRPIN,
  KUBE_PROXY_SHAPES,
  LOCALHOST_NODE_PORT,
  TO_DESTINATION,
} from "../../src/iptables/shapes.js";
import type { Backend } from "../../src/ir/canonical-types.js";
import { compareChainNames } from "../../src/ir/chain-sort.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type IPFamily,
  type Rule,
  type RuleSet,
} from "../../src/ir/types.js";
import { corpusDocuments, kubeProxyVector, specExamples } from "../support/corpora.js";
import { applyWordEdits, wordEdits } from "../support/rule-mutations.js";

const SEED = 20_261_124;
const CHAIN = "KUBE-SVC-ABCDEFGHIJKLMNOP";
const FAMILIES: readonly IPFamily[] = ["IPv4", "IPv6"];
const BACKENDS: readonly Backend[] = ["nft", "legacy"];

// ---------------------------------------------------------------------------- values

const byte = fc.integer({ min: 0, max: 255 });
const dottedQuad = fc.tuple(byte, byte, byte, byte).map((b) => b.join("."));

/** Eight groups, zero runs likely (so that `::` comes up in every place). */
const groups = fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff })), {
  minLength: 8,
  maxLength: 8,
});
const bytesOf = (g: readonly number[]): number[] => g.flatMap((w) => [w >> 8, w & 0xff]);
const ipv6 = fc.oneof(
  groups.map((g) => formatIPv6(bytesOf(g))), // what inet_ntop prints
  groups.map((g) => g.map((w) => w.toString(16)).join(":")), // not compressed
  groups.map((g) => g.map((w) => w.toString(16).padStart(4, "0")).join(":")), // leading zeros
  groups.map((g) => formatIPv6(bytesOf(g)).toUpperCase()),
  dottedQuad.map((q) => `::ffff:${q}`), // IPv4-mapped
  dottedQuad.map((q) => `::${q}`), // IPv4-compatible
  dottedQuad.map((q) => `fd00::${q}`),
  fc.ipV6(),
  fc.constantFrom(
    "::",
    "::1",
    "fd00::1",
    "fd00::",
    "fd00:0:0:1::",
    "1::2::3",
    "fd00::g",
    ":::",
    "fd00::10000",
  ),
  // Spellings inet_ntop prints otherwise: IPv4-compatible and -mapped in hex, a single zero group
  // compressed, the second of two equal zero runs compressed, leading zeros, upper case.
  fc.constantFrom(
    "::a00:1",
    "::ffff:a00:1",
    "fd00::2:3:4:5:6:7",
    "fd00:0:0:1::2:0:0",
    "fd00::00a",
    "FD00::A",
  ),
);
const prefixed = (address: fc.Arbitrary<string>, max: number): fc.Arbitrary<string> =>
  fc.tuple(address, fc.integer({ min: 0, max: max + 1 })).map(([a, n]) => `${a}/${n}`);

/** Host and network addresses of both families in every spelling, lists, `/0` and invalid ones. */
const address = fc.oneof(
  { weight: 3, arbitrary: dottedQuad },
  dottedQuad.map((a) => `${a}/32`),
  prefixed(dottedQuad, 32),
  { weight: 2, arbitrary: ipv6 },
  ipv6.map((a) => `${a}/128`),
  prefixed(ipv6, 128),
  fc.ipV4Extended(),
  fc.tuple(dottedQuad, dottedQuad).map(([a, b]) => `${a},${b}`),
  fc.tuple(ipv6, ipv6).map(([a, b]) => `${a},${b}`),
  fc.constantFrom(
    "0.0.0.0/0",
    "10.0.0.1/0",
    "::/0",
    "010.0.0.1",
    "10.1",
    "10.0.0.01",
    "300.1.1.1",
    "10.0.0.0/255.0.0.0",
    "10.0.0.1/255.0.255.0",
    "10.0.0.5/24",
    "10.0.0.1/",
    "",
    "127.0.0.0/8",
  ),
);

const decimalPort = fc.integer({ min: 0, max: 70_000 }).map(String);
const port = fc.oneof(
  { weight: 3, arbitrary: decimalPort },
  fc.constantFrom("0", "65535", "65536", "080", "00", "http", "domain", "1:2", "", "-1", " 80", "0x50"),
);

const probability = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }).map((p) => p.toFixed(10)),
  fc.integer({ min: 1, max: 5000 }).map((n) => (1 / n).toFixed(10)),
  fc.constantFrom(
    "0",
    "1",
    "1.0",
    "0.0",
    "0.5",
    "0.00000000001",
    "0.0000000002",
    "0.0000000003",
    "0.99999999999",
    "0.9999999999",
    "0.99999999977",
    "1e-10",
    "0x0.8p0",
    ".5",
    "1.5",
    "-0",
    "-0.1",
    "abc",
    "",
    "0.",
  ),
);

const seconds = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 + 5 }).map(String),
  fc.constantFrom("0", "1", "010", "10800", "4294967295", "4294967296", "", "-1", "1.5"),
);

const destination = fc.oneof(
  fc.tuple(dottedQuad, decimalPort).map(([a, p]) => `${a}:${p}`),
  dottedQuad,
  fc.tuple(ipv6, decimalPort).map(([a, p]) => `[${a}]:${p}`),
  ipv6,
  fc.constantFrom(
    "10.0.0.1-10.0.0.2",
    "10.0.0.1:80-90",
    ":80",
    "10.0.0.1:",
    "010.0.0.1:80",
    "10.0.0.1:080",
    "[fd00::1]",
    "[fd00::1]:",
    "[fd00::1]:80-90",
    "fd00::1-fd00::2",
    "[fd00::1]80",
  ),
);

const chain = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^KUBE-(SVC|SEP|EXT|FW)-[A-Z2-7]{16}$/) },
  fc.constantFrom(
    "KUBE-SVC-ABCDEFGHIJKLMNOP",
    "KUBE-MARK-MASQ",
    "DROP",
    "ACCEPT",
    "RETURN",
    "QUEUE",
    "REJECT",
    "DNAT",
    "MARK",
    "LOG",
    "NOTRACK",
    "",
    "!",
    "-j",
    "--name",
    "KUBE-",
    "x".repeat(66),
    "x".repeat(67),
    "x".repeat(200),
    "é".repeat(100),
    "a b",
  ),
  fc.stringMatching(/^[A-Z][A-Z0-9_-]{0,27}$/),
  fc.string({ maxLength: 12 }),
);

const comment = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.stringMatching(
      /^[a-z0-9-]{1,20}\/[a-z0-9-]{1,20}:[a-z0-9-]{0,15}( cluster IP| has no endpoints)?$/,
    ),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/) },
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", minLength: 60, maxLength: 140 }),
  fc.string({ minLength: 250, maxLength: 260 }),
  fc.constantFrom(
    "",
    "!",
    "-j",
    "--comment",
    'a"b',
    "a\\b",
    "it's",
    "é",
    "x".repeat(255),
    "x".repeat(256),
    "é".repeat(127),
    "é".repeat(128),
    "😀".repeat(63),
    "😀".repeat(64),
    `${"x".repeat(254)}é`,
  ),
);

const interfaceName = fc.oneof(
  fc.constantFrom("eth0", "veth+", "+", "", "cbr0", "a".repeat(15), "a".repeat(16), "!", "-j", "a b", "é"),
  fc.string({ maxLength: 17 }),
);

const protocol = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("tcp", "udp", "sctp") },
  fc.constantFrom("TCP", "6", "17", "icmp", "all", "0", "udplite", ""),
);

const VALUES: Record<SlotKind, fc.Arbitrary<string>> = {
  chain,
  comment,
  protocol,
  address,
  cidr: address,
  port,
  probability,
  seconds,
  destination,
  interface: interfaceName,
  word: fc.oneof(fc.stringMatching(/^[a-z_-]{1,8}$/), fc.string({ maxLength: 8 })),
};

const valuesOf = (shape: RuleShape): fc.Arbitrary<string[]> => fc.tuple(...shape.kinds.map((k) => VALUES[k]));

// ---------------------------------------------------------------------------- helpers

type Outcome = { readonly ok: true; readonly text: string } | { readonly ok: false };

function outcome(print: () => string): Outcome {
  try {
    return { ok: true, text: print() };
  } catch {
    return { ok: false };
  }
}

/** What the general path prints for the rule (each line with its newline), or that it refuses. */
function general(args: readonly string[], form: SaveForm): Outcome {
  return outcome(() =>
    canonicalSaveLines(CHAIN, args, form.family, form.backend)
      .map((line) => `${line}\n`)
      .join(""),
  );
}

// ---------------------------------------------------------------------------- properties

describe("derived save layouts print what the canonicalizer prints", () => {
  test.each(KUBE_PROXY_SHAPES.map((shape) => [shape.name, shape] as const))(
    "%s, random values of every kind, both families and backends",
    (_, shape) => {
      fc.assert(
        fc.property(
          valuesOf(shape),
          fc.constantFrom(...FAMILIES),
          fc.constantFrom(...BACKENDS),
          (values, family, backend) => {
            const form = { family, backend };
            const args = shapeArgs(shape, values);
            const expected = general(args, form);
            // The printers: same text, or both refuse.
            expect(outcome(() => saveText(shape, CHAIN, values, form))).toEqual(expected);
            expect(
              outcome(() =>
                saveLines(shape, CHAIN, values, form)
                  .map((l) => `${l}\n`)
                  .join(""),
              ),
            ).toEqual(expected);
            const fast = fastSaveLine(shape, CHAIN, values, form);
            if (fast !== null) expect({ ok: true, text: `${fast}\n` }).toEqual(expected);

            // The matcher on the restore order: the same shape and values, the same line.
            const m = matchShape(args, form);
            if (m !== null) {
              expect(shapeArgs(m.shape, m.values)).toEqual(args);
              expect({ ok: true, text: saveText(m.shape, CHAIN, m.values, form) }).toEqual(expected);
            }
            const line = matchSaveLine(`-A ${CHAIN}`, args, 0, args.length, family, backend);
            if (line !== null) expect({ ok: true, text: `${line}\n` }).toEqual(expected);
            // What it vouches for, the canonicalizer accepts.
            const families = matchFamilies(args, 0, args.length, IPV4 | IPV6, backend);
            for (const [bit, f] of [
              [IPV4, "IPv4"],
              [IPV6, "IPv6"],
            ] as const) {
              if ((families & bit) !== 0) expect(tryCanonicalizeRule(args, f, { backend }).ok).toBe(true);
            }

            // The matcher on the save order (a node's dump): the canonicalizer's line again.
            if (!expected.ok || expected.text.indexOf("\n") !== expected.text.length - 1) return;
            const saved = expected.text.slice(0, -1);
            const argv = tokenizeLine(saved, 0, saved.length, false).slice(2);
            const fromDump = general(argv, form);
            const ms = matchShape(argv, form);
            if (ms !== null)
              expect({ ok: true, text: saveText(ms.shape, CHAIN, ms.values, form) }).toEqual(fromDump);
            const dumpLine = matchSaveLine(`-A ${CHAIN}`, argv, 0, argv.length, family, backend);
            if (dumpLine !== null) expect({ ok: true, text: `${dumpLine}\n` }).toEqual(fromDump);
            const dumpFamilies = matchFamilies(argv, 0, argv.length, IPV4 | IPV6, backend);
            if ((dumpFamilies & (family === "IPv4" ? IPV4 : IPV6)) !== 0) expect(fromDump.ok).toBe(true);
          },
        ),
        { seed: SEED, numRuns: 400 },
      );
    },
  );

  it("takes the layout for the common values of every shape, protocol, family and backend", () => {
    const plain: Record<SlotKind, Record<IPFamily, string>> = {
      chain: { IPv4: "KUBE-SEP-ABCDEFGHIJKLMNOP", IPv6: "KUBE-SEP-ABCDEFGHIJKLMNOP" },
      comment: { IPv4: "ns/web:http cluster IP", IPv6: "ns/web:http cluster IP" },
      protocol: { IPv4: "tcp", IPv6: "tcp" },
      address: { IPv4: "10.96.0.10", IPv6: "fd00:10:96::a" },
      cidr: { IPv4: "10.244.0.0/16", IPv6: "fd00:10:244::/64" },
      port: { IPv4: "8080", IPv6: "8080" },
      probability: { IPv4: "0.3333333333", IPv6: "0.3333333333" },
      seconds: { IPv4: "10800", IPv6: "10800" },
      destination: { IPv4: "10.244.1.7:8080", IPv6: "[fd00:10:244::7]:8080" },
      interface: { IPv4: "cbr0", IPv6: "veth+" },
      word: { IPv4: "x", IPv6: "x" },
    };
    let layouts = 0;
    for (const shape of KUBE_PROXY_SHAPES)
      for (const family of FAMILIES)
        for (const backend of BACKENDS)
          for (const proto of ["tcp", "udp", "sctp"]) {
            const values = shape.kinds.map((k) => (k === "protocol" ? proto : plain[k][family]));
            const form = { family, backend };
            const line = fastSaveLine(shape, CHAIN, values, form);
            // Only the localhost node port has no IPv6 form (127.0.0.0/8 is IPv4's).
            if (shape === LOCALHOST_NODE_PORT && family === "IPv6") {
              expect(line).toBeNull();
              expect(() => saveText(shape, CHAIN, values, form)).toThrow();
              continue;
            }
            expect({ shape: shape.name, line }).toEqual({
              shape: shape.name,
              line: canonicalSaveLines(CHAIN, shapeArgs(shape, values), family, backend)[0],
            });
            layouts++;
          }
    expect(layouts).toBeGreaterThan(KUBE_PROXY_SHAPES.length * 8);
  });

  it("derives each layout once", () => {
    const values = ["c", "tcp", "10.96.0.10", "80", "KUBE-SVC-X"];
    const first = saveTemplate(TO_DESTINATION, values, "IPv4", "nft");
    expect(first).not.toBeNull();
    expect(saveTemplate(TO_DESTINATION, ["d", "tcp", "10.0.0.1", "1", "Y"], "IPv4", "nft")).toBe(first);
    expect(saveTemplate(TO_DESTINATION, values, "IPv4", "legacy")).not.toBe(first);
    expect(saveTemplate(TO_DESTINATION, ["c", "icmp", "10.96.0.10", "80", "X"], "IPv4", "nft")).toBeNull();
  });

  it("fails loudly when a description cannot be derived", () => {
    // A mark is no word: the sample value is refused, which is a bug in the description.
    const markAsWord = ruleShape("mark as a word", ["-m", "mark", "--mark", slot(0, "word"), "-j", "ACCEPT"]);
    expect(() => saveText(markAsWord, "X", ["0x1"], { family: "IPv4", backend: "nft" })).toThrow(
      /rule shape "mark as a word" \(IPv4, nft\): sample value refused/,
    );
    // Refused for its literal text (a port before its protocol): no layout, and the general path
    // reports the problem.
    const portFirst = ruleShape("port first", ["--dport", slot(0, "port"), "-p", "tcp"]);
    expect(saveTemplate(portFirst, ["80"], "IPv4", "nft")).toBeNull();
    expect(() => saveText(portFirst, "X", ["80"], { family: "IPv4", backend: "nft" })).toThrow(/--dport/);
  });

  it("prints the kernel's forms of kube-proxy's usual rules", () => {
    const v4 = { family: "IPv4", backend: "nft" } as const;
    expect(saveText(BALANCE, "KUBE-SVC-X", ["ns/web:http", "0.0227272727", "KUBE-SEP-A"], v4)).toBe(
      '-A KUBE-SVC-X -m comment --comment "ns/web:http" -m statistic --mode random --probability 0.02272727247 -j KUBE-SEP-A\n',
    );
    expect(saveText(ENDPOINT_HAIRPIN, "KUBE-SEP-A", ["ns/web:http", "10.64.0.10"], v4)).toBe(
      '-A KUBE-SEP-A -s 10.64.0.10/32 -m comment --comment "ns/web:http" -j KUBE-MARK-MASQ\n',
    );
    const v6 = { family: "IPv6", backend: "nft" } as const;
    expect(saveText(ENDPOINT_DNAT, "KUBE-SEP-A", ["ns/web:http", "udp", "[fd00::a]:53"], v6)).toBe(
      '-A KUBE-SEP-A -p udp -m comment --comment "ns/web:http" -m udp -j DNAT --to-destination [fd00::a]:53\n',
    );
    // A value that changes the structure goes through the canonicalizer: a list is two rules.
    expect(saveText(ENDPOINT_HAIRPIN, "KUBE-SEP-A", ["c", "10.0.0.1,10.0.0.2"], v4)).toBe(
      "-A KUBE-SEP-A -s 10.0.0.1/32 -m comment --comment c -j KUBE-MARK-MASQ\n" +
        "-A KUBE-SEP-A -s 10.0.0.2/32 -m comment --comment c -j KUBE-MARK-MASQ\n",
    );
    expect(saveText(COMMENTED_JUMP, "KUBE-EXT-X", ["it's", "KUBE-SVC-X"], v4)).toBe(
      '-A KUBE-EXT-X -m comment --comment "it\\\'s" -j KUBE-SVC-X\n',
    );
  });
});

describe("restoreLine", () => {
  test.each(KUBE_PROXY_SHAPES.map((shape) => [shape.name, shape] as const))(
    "%s is -A CHAIN and each argument quoted",
    (_, shape) => {
      fc.assert(
        fc.property(valuesOf(shape), (values) => {
          const expected = outcome(
            () => `-A ${CHAIN} ${shapeArgs(shape, values).map(quoteArgument).join(" ")}`,
          );
          expect(outcome(() => restoreLine(shape, CHAIN, values))).toEqual(expected);
        }),
        { seed: SEED, numRuns: 100 },
      );
    },
  );
});

// ---------------------------------------------------------------------------- the matcher

/** Every `-A` line of the fixture texts (restore inputs and saves), once each. */
function fixtureRuleLines(): string[] {
  const lines = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      if (!value.startsWith("*")) return;
      for (const line of value.split("\n")) if (line.startsWith("-A ")) lines.add(line);
    } else if (Array.isArray(value)) for (const v of value) visit(v);
    else if (value !== null && typeof value === "object") for (const v of Object.values(value)) visit(v);
  };
  for (const { value } of corpusDocuments()) visit(value);
  for (const { text } of specExamples()) visit(text);
  return [...lines];
}

/**
 * What the matcher prints must be what the canonicalizer prints, and what it vouches for the
 * canonicalizer must accept, in every family and on both backends. Returns how many it printed.
 */
function expectAgrees(chain: string, args: readonly string[]): number {
  let printed = 0;
  for (const backend of BACKENDS) {
    const families = matchFamilies(args, 0, args.length, IPV4 | IPV6, backend);
    for (const family of FAMILIES) {
      const bit = family === "IPv4" ? IPV4 : IPV6;
      const c = tryCanonicalizeRule(args, family, { backend });
      if ((families & bit) !== 0) expect({ args, family, backend, ok: c.ok }).toMatchObject({ ok: true });
      // Asked for one family only, it says the same for that family.
      expect(matchFamilies(args, 0, args.length, bit, backend)).toBe(families & bit);
      const line = matchSaveLine(`-A ${chain}`, args, 0, args.length, family, backend);
      expect(line !== null).toBe((families & bit) !== 0);
      if (line === null) continue;
      printed++;
      if (c.ok) expect(line).toBe(formatCanonicalRule(chain, c.rule));
    }
  }
  return printed;
}

describe("the shape matcher", () => {
  const lines = fixtureRuleLines();

  it("prints every fixture rule it takes as the canonicalizer does", () => {
    expect(lines.length).toBeGreaterThan(1000);
    let printed = 0;
    for (const line of lines) {
      const argv = tokenizeLine(line, 0, line.length, false);
      printed += expectAgrees(argv[1] as string, argv.slice(2));
    }
    // The layouts are actually taken for most of them (in their family, on both backends).
    expect(printed).toBeGreaterThan(lines.length);
  });

  // Fixture lines with tokens swapped for tricky ones.
  const POOL = [
    ...(
      "99999 0 010 80 65535 10.0.0.256 10.0.0.1/0 10.0.0.1/33 10.0.0.1/8 10.0.0.5/24 010.0.0.1 fd00::1 " +
      "fd00::5/64 FD00:0::1 10.0.0.1,10.0.0.2 ! -m tcp udp sctp icmp --dport --sport -p -j -g DNAT " +
      "MARK LOG MASQUERADE REJECT --to-destination 10.0.0.1:0 10.0.0.1:8080 10.0.0.1 [fd00::1]:80 " +
      "[fd00::1] fd00::1:80 10.0.0.1-10.0.0.2:80 0.5 0. 1 0.0000000001 random nth --mode --probability " +
      "LOCAL local BROADCAST UNICAST,LOCAL --comment KUBE-SVC-X ACCEPT + eth0 an-interface-name-too-long " +
      "-s -d -i -o --random-fully --src-type --dst-type statistic addrtype comment recent --name --set " +
      "--rcheck --seconds --reap --rsource --rdest --update 10800 --reject-with --source " +
      "icmp-port-unreachable icmp6-port-unreachable --mask 255.255.255.255 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
    ).split(" "),
    "",
    "a b",
    'x"y',
    "it's",
    "é",
    "x".repeat(300),
  ];
  const mutation = fc.record({ line: fc.nat(lines.length - 1), edits: wordEdits(POOL) });
  test("agrees with the canonicalizer on mutated fixture rules", () => {
    fc.assert(
      fc.property(mutation, ({ line, edits }) => {
        const argv = tokenizeLine(lines[line] as string, 0, (lines[line] as string).length, false);
        const tokens = argv.slice(2);
        applyWordEdits(tokens, edits);
        expectAgrees(argv[1] as string, tokens);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it("recognizes both orders of kube-proxy's usual rules", () => {
    const v4 = { family: "IPv4", backend: "nft" } as const;
    const restore = ["-m", "comment", "--comment", "ns/web:http", "-s", "10.64.0.10", "-j", "KUBE-MARK-MASQ"];
    expect(matchShape(restore, v4)).toEqual({
      shape: ENDPOINT_HAIRPIN,
      values: ["ns/web:http", "10.64.0.10"],
    });
    const saved = [
      "-s",
      "10.64.0.10/32",
      "-m",
      "comment",
      "--comment",
      "ns/web:http",
      "-j",
      "KUBE-MARK-MASQ",
    ];
    expect(matchShape(saved, v4)).toEqual({
      shape: ENDPOINT_HAIRPIN,
      values: ["ns/web:http", "10.64.0.10/32"],
    });
    const dnat = "-m tcp -p tcp -j DNAT --to-destination 10.64.0.10:8080".split(" ");
    expect(matchShape(dnat, v4)?.values).toEqual(["", "tcp", "10.64.0.10:8080"]);
    const reject =
      "-d 10.96.0.1/32 -p tcp -m comment --comment x -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable";
    expect(matchShape(reject.split(" "), v4)?.shape.name).toBe("reject destination");
    // The IPv4 REJECT spelling is no IPv6 rule.
    expect(matchShape(reject.split(" "), { family: "IPv6", backend: "nft" })).toBeNull();
  });

  it("leaves everything else to the canonicalizer", () => {
    const families = (line: string): number => {
      const args = line.split(" ");
      return matchFamilies(args, 0, args.length, IPV4 | IPV6, "nft");
    };
    expect(families("-m mark --mark 0x4000/0x4000 -j RETURN")).toBe(0); // not a shape
    expect(families("-j MARK --or-mark 0x4000")).toBe(0);
    expect(families("-s 10.0.0.1,10.0.0.2 -j KUBE-MARK-MASQ")).toBe(0); // several kernel rules
    expect(families("-s 0.0.0.0/0 -j KUBE-MARK-MASQ")).toBe(0); // the -s is dropped
    expect(families("-m tcp -p tcp -d 10.0.0.1 --dport 99999 -j KUBE-SVC-X")).toBe(0); // invalid
    expect(families("-j DNAT")).toBe(0); // DNAT needs its address
    expect(families("-s 10.0.0.1 -j KUBE-MARK-MASQ")).toBe(IPV4);
    expect(families("-s fd00::1 -j KUBE-MARK-MASQ")).toBe(IPV6);
    expect(families("-j KUBE-SVC-X")).toBe(IPV4 | IPV6);
  });

  it("covers nearly every rule of a kube-proxy payload and of its save", () => {
    const vector = kubeProxyVector("kube-proxy", "large-1");
    for (const text of [vector.expected.restore, vector.expected.save]) {
      const rules = parseRules(text, { noflush: true }).ruleSet.tables.flatMap((t) => t.entries);
      let declined = 0;
      for (const r of rules)
        if (r.kind === "rule" && matchFamilies(r.args, 0, r.args.length, IPV4, "nft") === 0) declined++;
      expect(rules.length).toBeGreaterThan(100);
      expect(declined / rules.length).toBeLessThan(0.05);
    }
  });
});

// ---------------------------------------------------------------------------- formatSave

/** formatSave as it was: rules grouped by chain, printed in chain order through the canonicalizer. */
function referenceSave(state: RuleSet, backend: Backend, withCounters: boolean): string {
  let text = "";
  for (const table of state.tables) {
    const builtins = BUILTIN_CHAINS[table.name] ?? [];
    const declared = new Map<string, ChainDeclaration>();
    const user = new Set<string>();
    for (const d of table.chains) {
      if (builtins.includes(d.name)) declared.set(d.name, d);
      else user.add(d.name);
    }
    const byChain = new Map<string, Rule[]>();
    for (const e of table.entries) {
      if (e.kind !== "rule") throw new Error("not a state");
      byChain.set(e.chain, [...(byChain.get(e.chain) ?? []), e]);
    }
    for (const chain of byChain.keys()) if (!builtins.includes(chain)) user.add(chain);
    const order = [...builtins, ...[...user].sort(compareChainNames)];
    text += `*${table.name}\n`;
    for (const name of builtins) {
      const d = declared.get(name);
      const c = d?.counters;
      text += `:${name} ${d?.policy ?? "ACCEPT"} [${c === undefined ? "0:0" : `${c.packets}:${c.bytes}`}]\n`;
    }
    for (const name of order) if (!builtins.includes(name)) text += `:${name} - [0:0]\n`;
    for (const name of order)
      for (const rule of byChain.get(name) ?? []) {
        const c = rule.counters ?? { packets: 0n, bytes: 0n };
        for (const line of canonicalSaveLines(name, rule.args, state.family, backend))
          text += withCounters ? `[${c.packets}:${c.bytes}] ${line}\n` : `${line}\n`;
      }
    text += "COMMIT\n";
  }
  return text;
}

function messageOf(print: () => string): string {
  try {
    return print();
  } catch (error) {
    return `thrown: ${(error as Error).message}`;
  }
}

describe("formatSave through the layouts", () => {
  const CHAINS = [
    "KUBE-SVC-AAAAAAAAAAAAAAAA",
    "KUBE-SEP-BBBBBBBBBBBBBBBB",
    "KUBE-SERVICES",
    "B",
    "A",
    "PREROUTING",
  ];
  const shapeRule = fc
    .constantFrom(...KUBE_PROXY_SHAPES)
    .chain((shape) => valuesOf(shape).map((values) => shapeArgs(shape, values)));
  const rule = fc.record({
    chain: fc.constantFrom(...CHAINS),
    args: fc.oneof({ weight: 4, arbitrary: shapeRule }, fc.constant(["-j", "ACCEPT"]), fc.constant(["-j"])),
    counters: fc.option(
      fc.record({ packets: fc.bigInt({ min: 0n, max: 9n }), bytes: fc.bigInt({ min: 0n, max: 99n }) }),
    ),
  });
  const state = fc.record({
    family: fc.constantFrom(...FAMILIES),
    chains: fc.uniqueArray(fc.constantFrom(...CHAINS), { maxLength: 4 }),
    rules: fc.array(rule, { maxLength: 12 }),
  });
  test("prints what printing each chain's rules through the canonicalizer prints, or throws its first problem", () => {
    fc.assert(
      fc.property(state, fc.constantFrom(...BACKENDS), fc.boolean(), (s, backend, counters) => {
        const ruleSet: RuleSet = {
          family: s.family,
          tables: [
            {
              name: "nat",
              chains: s.chains.map((name) => ({ name, policy: name === "PREROUTING" ? "ACCEPT" : null })),
              entries: s.rules.map((r) => ({
                kind: "rule",
                op: "-A",
                chain: r.chain,
                args: r.args,
                ...(r.counters === null ? {} : { counters: r.counters }),
              })),
            },
          ],
        };
        expect(messageOf(() => formatSave(ruleSet, { backend, counters }))).toBe(
          messageOf(() => referenceSave(ruleSet, backend, counters)),
        );
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it("throws for the first bad rule in chain order, not in the order the rules are held", () => {
    const ruleSet: RuleSet = {
      family: "IPv4",
      tables: [
        {
          name: "filter",
          chains: [],
          entries: [
            { kind: "rule", op: "-A", chain: "B", args: ["-p", "tcp", "--dport", "99999", "-j", "ACCEPT"] },
            { kind: "rule", op: "-A", chain: "A", args: ["-s", "300.0.0.1", "-j", "ACCEPT"] },
          ],
        },
      ],
    };
    expect(() => formatSave(ruleSet)).toThrow("-A A: host/network `300.0.0.1' not found");
  });
});

describe("what a shape says of its lines", () => {
  // The save-text writer records each line's target from `jump` and tests only the values of
  // `freeSlots` for text a reader would read otherwise (plain-lines.ts): the rest of each line
  // is the shape's own literal text, which must hold none.
  test.each(KUBE_PROXY_SHAPES.map((s) => [s.name, s] as const))("%s", (_, shape) => {
    const literals = shape.args.filter((a): a is string => typeof a === "string");
    expect(arePlainLines(` ${literals.join(" ")} \n`)).toBe(true);
    const j = shape.args.lastIndexOf("-j");
    const after = shape.args[j + 1];
    expect(shape.jump).toEqual(j < 0 ? null : typeof after === "string" ? after : after?.slot);
    const free = shape.args.flatMap((a) =>
      typeof a !== "string" && ["comment", "word", "interface"].includes(a.kind) ? [a.slot] : [],
    );
    expect(shape.freeSlots).toEqual([...new Set(free)]);
  });

  test("a free value that would make its line read otherwise is not plain", () => {
    for (const value of ["x -c y", "-c", "-g 1", "a\tb", "--goto", "p --jump q", "--set-counters"])
      expect(isPlainValue(value)).toBe(false);
    for (const value of ["shop/web:http cluster IP", "my-cache", "-cx", "a-c", "x:-g"])
      expect(isPlainValue(value)).toBe(true);
  });
});
