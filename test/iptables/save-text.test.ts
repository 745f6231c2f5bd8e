// generateSaveText prints the save text from the writers through the save sink (each rule from
// its shape and values); it must stay byte for byte formatSave(generateState(...)), which goes
// through the canonicalizer for every rule. Both are held to the reference here: the whole text
// on every fixture cluster, on random clusters and on values that change a rule's structure.
import fc from "fast-check";
import { describe, expect, it, test } from "vitest";
import {
  type Backend,
  type ClusterInput,
  type ClusterModel,
  formatSave,
  type GenerateOptions,
  generateRules,
  generateSaveText,
  generateState,
  type Profile,
  type ServicePort,
} from "../../src/index.js";
import {
  generateIndexedSaveText,
  type SaveTextChain,
  type SaveTextChains,
} from "../../src/iptables/index.js";
import { tokenizeLine, WordReader } from "../../src/iptables/parse/tokenize.js";
import { arePlainLines } from "../../src/iptables/plain-lines.js";
import { compareChainNames, sortByChainName, sortChainNames } from "../../src/ir/chain-sort.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { kubeProxyVector } from "../support/corpora.js";
import { randomCluster } from "../support/random-cluster.js";
import { natChainsOf } from "../support/rule-sets.js";

const SEED = 20_260_122;
const PROFILES: readonly Profile[] = ["v1.30", "v1.32", "latest", "v1.22"];

function expectSame(model: ClusterModel, options: GenerateOptions & { backend?: Backend } = {}): string {
  const text = generateSaveText(model, options);
  const reference = formatSave(generateState(model, options), { backend: options.backend ?? "nft" });
  expect(text).toBe(reference);
  const indexed = generateIndexedSaveText(model, options);
  expect(indexed.text).toBe(reference);
  const tables = new Map(
    [...indexed.tables].map(
      ([name, chains]) =>
        [name, new Map([...chains].map(([chain, { targets: _, plain: __, ...at }]) => [chain, at]))] as const,
    ),
  );
  expect(tables).toEqual(scanIndex(reference));
  for (const chains of indexed.tables.values()) expectWrittenTargets(reference, chains);
  // Looked up by name, out of order too, each chain is the one at its place.
  for (const chains of indexed.tables.values()) {
    const names = [...chains.keys()];
    for (const name of [...names].reverse())
      expect(chains.get(name)).toBe(chains.chains[names.indexOf(name)]);
    expect(chains.has("NO-SUCH-CHAIN")).toBe(false);
  }
  return text;
}

/**
 * Each line's target as the writer recorded it is the one after the line's last `-j` (a chain of
 * the text by its place, or the name), and the chain is plain exactly when its lines are.
 */
function expectWrittenTargets(text: string, chains: SaveTextChains): void {
  for (const chain of chains.values()) {
    if (chain.count === 0) continue;
    const lines = text.slice(chain.start, chain.end).split("\n");
    const read = lines.map((line) => {
      const words = tokenizeLine(line, 0, line.length, false);
      const j = words.lastIndexOf("-j");
      return j < 0 ? null : (words[j + 1] as string);
    });
    const decoded = (chain.targets ?? []).map((code) => chains.targetOf(code));
    const written = decoded.map((t) =>
      t === null || typeof t === "string" ? t : t.index < 0 ? t.name : chains.names[t.index],
    );
    expect(written).toEqual(read);
    for (const t of decoded)
      if (t !== null && typeof t !== "string")
        expect(t.index < 0 || chains.names[t.index] === t.name).toBe(true);
    expect(chain.plain).toBe(arePlainLines(text.slice(chain.start, chain.end + 1)));
  }
}

/** The index of save text found by reading it line by line (what the printer records). */
function scanIndex(text: string): Map<string, Map<string, SaveTextChain>> {
  const tables = new Map<string, Map<string, SaveTextChain>>();
  let chains = new Map<string, SaveTextChain>();
  let at = 0;
  for (const line of text.split("\n")) {
    const end = at + line.length;
    if (line.startsWith("*")) {
      chains = new Map();
      tables.set(line.slice(1), chains);
    } else if (line.startsWith(":")) {
      const [name, policy] = line.slice(1).split(" ") as [string, string];
      chains.set(name, {
        policy: policy === "-" ? null : policy,
        start: -1,
        end: -1,
        count: 0,
        index: chains.size,
      });
    } else if (line.startsWith("-A ")) {
      const name = line.split(" ")[1] as string;
      const c = chains.get(name) as SaveTextChain;
      chains.set(name, { ...c, start: c.count === 0 ? at : c.start, end, count: c.count + 1 });
    }
    at = end + 1;
  }
  return tables;
}

describe("generateSaveText, fixture clusters", () => {
  it("matches the real kernel's save on a vector", () => {
    const v = kubeProxyVector("kube-proxy", "large-1");
    // The vector's `save` is what iptables-save printed after kube-proxy's payload was restored.
    expect(v.expected.save.length).toBeGreaterThan(0);
    const text = expectSame(modelFromInput(v as unknown as ClusterInput));
    expect(text.split("\n").filter((l) => l.startsWith("-A ")).length).toBeGreaterThan(100);
  });
});

describe("generateSaveText, random clusters", () => {
  // Enough seeds for IPv6, large-cluster mode and every service type to come up.
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("seed %i", (seed) => {
    const cluster = randomCluster(seed, { largeRate: seed % 10 === 0 ? 1 : 0.03 });
    for (const profile of PROFILES) expectSame(modelFromInput(cluster, { config: { profile } }));
    expectSame(modelFromInput(cluster), { backend: "legacy" });
  });

  it("deletes the same stale chains when given the kernel's chains", () => {
    let deleted = 0;
    for (let seed = 100; seed < 110; seed++) {
      const before = modelFromInput(randomCluster(seed));
      const after = modelFromInput(randomCluster(seed + 50, { family: before.config.ipFamily }));
      const existingChains = [...natChainsOf(generateRules(before)), "KUBE-MARK-DROP", "OTHER-CHAIN"];
      expectSame(after, { existingChains });
      const nat = generateRules(after, { existingChains }).tables.find((t) => t.name === "nat");
      deleted += nat?.entries.filter((e) => e.kind === "chain" && e.op === "-X").length ?? 0;
    }
    expect(deleted).toBeGreaterThan(0);
  });

  it("overrides traits as generateState does", () => {
    const model = modelFromInput(randomCluster(7), { config: { profile: "v1.32" } });
    expectSame(model, { traits: { nfacctCounters: false, paddedMark: false } });
  });

  it("prints a chain two service ports share as the reference does (a model built by hand)", () => {
    // Two ports of one name and protocol declare the same chains: generateSaveText finds the
    // shared name when it sorts, and prints again with every chain indexed by name.
    for (let seed = 1; seed <= 6; seed++) {
      const model = modelFromInput(randomCluster(seed));
      const port = model.servicePorts.find((p) => p.endpoints.length > 0);
      if (port === undefined) continue;
      expectSame({ ...model, servicePorts: [...model.servicePorts, { ...port, clusterIP: port.clusterIP }] });
    }
  });

  it("handles a model without service ports", () => {
    const model = modelFromInput(randomCluster(1));
    expectSame({ ...model, servicePorts: [] });
  });
});

/** A one-port model of a random cluster's first port with endpoints, changed by `edit`. */
function editedModel(edit: (port: ServicePort) => ServicePort): ClusterModel {
  const model = modelFromInput(randomCluster(3, { family: "IPv4" }));
  const port = model.servicePorts.find((p) => p.endpoints.length > 1) as ServicePort;
  return { ...model, servicePorts: [edit(port)] };
}

describe("values that change a rule's structure, through the save sink", () => {
  // The save sink prints each rule from its shape and values; these values are ones a derived
  // save layout cannot take as they are (quotes, blanks, ranges, over-long comments, CIDRs
  // where a host goes). Each must come out as the canonicalizer prints the rule, or be refused
  // as the general path refuses it.
  it.each([
    ["a quote in the namespace", (p: ServicePort) => ({ ...p, namespace: "o'brien" })],
    ["a blank in the port name", (p: ServicePort) => ({ ...p, portName: "a b" })],
    ["a fractional affinity timeout", (p: ServicePort) => ({ ...p, stickyMaxAgeSeconds: 1.5 })],
    [
      "an endpoint that is a range",
      (p: ServicePort) => ({
        ...p,
        endpoints: p.endpoints.map((e, i) =>
          i === 0 ? { ...e, endpoint: `${e.ip}-${e.ip}:${e.endpoint.split(":")[1]}` } : e,
        ),
      }),
    ],
    ["a name too long for a comment", (p: ServicePort) => ({ ...p, namespace: "n".repeat(300) })],
    [
      "IPv4 endpoints written as CIDRs",
      (p: ServicePort) => ({ ...p, endpoints: p.endpoints.map((e) => ({ ...e, ip: `${e.ip}/32` })) }),
    ],
    ["session affinity", (p: ServicePort) => ({ ...p, stickyMaxAgeSeconds: 10800 })],
  ])("prints %s as the reference does", (_, edit) => {
    const model = editedModel(edit);
    let reference: string | Error;
    try {
      reference = formatSave(generateState(model));
    } catch (error) {
      reference = error as Error;
    }
    if (reference instanceof Error) expect(() => generateSaveText(model)).toThrow(reference.message);
    else expect(generateSaveText(model)).toBe(reference);
  });

  // iptables-save prints an IPv6 address as inet_ntop does: an endpoint spelled otherwise must
  // come out in that spelling, in the hairpin's `-s` and the DNAT's destination alike.
  it.each([
    ["canonical", "fd00:10:244::7"],
    ["a single zero group, not compressed", "fd00:0:1:2:3:4:5:6"],
    ["the first of two equal zero runs compressed", "fd00::1:0:0:2"],
    ["a trailing zero run", "fd00:1::"],
    ["IPv4-compatible, which inet_ntop dots", "::a00:1"],
    ["IPv4-compatible with a zero high word", "::1"],
    ["IPv4-mapped", "::ffff:a00:1"],
    ["upper case", "FD00::A"],
    ["leading zeros", "fd00::00a"],
    ["an uncompressed zero run", "fd00:0:0:0:0:0:0:a"],
    ["a dotted tail", "fd00::10.0.0.1"],
  ])("prints an IPv6 endpoint address %s (%s) as the kernel does", (_, ip) => {
    const model = modelFromInput(randomCluster(1, { family: "IPv6" }));
    const source = model.servicePorts.find((p) => p.endpoints.length > 1) as ServicePort;
    expect(source).toBeDefined();
    const port: ServicePort = {
      ...source,
      endpoints: source.endpoints.map((e, i) =>
        i === 0
          ? { ...e, ip, endpoint: `[${ip}]:${e.port}`, ready: true, serving: true, terminating: false }
          : e,
      ),
    };
    const text = expectSame({ ...model, servicePorts: [port] });
    expect(text.split("\n").some((line) => line.includes(" -s ") && line.includes("/128"))).toBe(true);
  });
});

describe("sortChainNames", () => {
  test("sorts as compareChainNames does, surrogates included", () => {
    const name = fc.array(
      fc.constantFrom("A", "B", "a", "-", "_", "K", "é", "\uffff", "\ud83d\ude00", "\ue000"),
      {
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(
        fc.array(
          name.map((c) => c.join("")),
          { maxLength: 40 },
        ),
        (names) => {
          const sorted = sortChainNames(names.slice());
          expect(sorted).toEqual(names.slice().sort(compareChainNames));
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });

  // Without a surrogate the names take the radix quicksort (ranges above 16 names): long shared
  // prefixes, names that are prefixes of others, duplicates, the empty name.
  const plainName = fc
    .array(fc.constantFrom("K", "U", "B", "E", "-", "_", "a", "é", "0", "7"), { maxLength: 9 })
    .map((c) => c.join(""));
  const names = fc.array(
    fc.oneof(
      plainName,
      plainName.map((n) => `KUBE-SEP-${n}`),
    ),
    // "max": fast-check's default size keeps arrays short, below the radix path.
    { maxLength: 300, size: "max" },
  );

  test("sorts plain names as compareChainNames does", () => {
    fc.assert(
      fc.property(names, (list) => {
        expect(sortChainNames(list.slice())).toEqual(list.slice().sort(compareChainNames));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  // Hundreds of hashed names (any prefix + 16 base32 characters) take the numeric-key sort: names
  // that tie on their first six hash characters, near misses (15 or 17 characters, lower case,
  // `0`, `1`, `8`, other prefixes), fixed chains and duplicates mixed in; kube-proxy's prefixes
  // alone (ranked in whatever order they first appear), more than eight prefixes, and prefixes
  // that begin others (which must not be sorted by prefix).
  const base32 = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".split(""));
  const hashPart = (length: number) => fc.array(base32, { minLength: length, maxLength: length });
  const prefix = fc.constantFrom("KUBE-EXT-", "KUBE-FW-", "KUBE-SEP-", "KUBE-SVC-", "KUBE-SVL-", "KUBE-XLB-");
  const hashedWith = (prefixes: fc.Arbitrary<string>) =>
    fc
      .tuple(
        prefixes,
        fc.boolean(),
        fc.constantFrom("AAAAAA", "AAAAA2", "ZZZZZZ", "777777"),
        hashPart(6),
        hashPart(10),
      )
      .map(([p, tie, head, random, tail]) => `${p}${tie ? head : random.join("")}${tail.join("")}`);
  const hashedName = hashedWith(prefix);
  const nearMiss = fc.oneof(
    fc.tuple(prefix, hashPart(15)).map(([p, h]) => `${p}${h.join("")}`),
    fc.tuple(prefix, hashPart(17)).map(([p, h]) => `${p}${h.join("")}`),
    fc
      .tuple(prefix, hashPart(15), fc.constantFrom("a", "0", "1", "8", "-", "é"))
      .map(([p, h, c]) => `${p}${h.join("")}${c}`),
    fc
      .tuple(fc.constantFrom("KUBE-SEX-", "KUBE-FW", "KUBE-SEP", "KUBE-FWW-", "KUBE-XLC-"), hashPart(16))
      .map(([p, h]) => `${p}${h.join("")}`),
    fc.constantFrom("KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-MARK-MASQ", "KUBE-POSTROUTING", "DOCKER", ""),
  );
  const fixed = fc.constantFrom("KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-MARK-MASQ", "KUBE-POSTROUTING", "");
  const notHashed = fc.oneof(
    fixed,
    fc.tuple(prefix, hashPart(14)).map(([p, h]) => `${p}${h.join("")}`),
    fc
      .tuple(prefix, hashPart(15), fc.constantFrom("a", "0", "1", "8", "-", "é"))
      .map(([p, h, c]) => `${p}${h.join("")}${c}`),
  );
  const hundreds = { minLength: 250, maxLength: 1200 };
  const manyHashed = fc.oneof(
    fc.array(fc.oneof({ weight: 8, arbitrary: hashedName }, { weight: 2, arbitrary: nearMiss }), hundreds),
    fc.array(fc.oneof({ weight: 9, arbitrary: hashedName }, { weight: 1, arbitrary: notHashed }), hundreds),
    fc.array(
      fc.oneof(
        { weight: 8, arbitrary: hashedWith(fc.constantFrom("KUBE-SEP-", "KUBE-", "KUBE-SEP-X", "Z", "")) },
        { weight: 1, arbitrary: notHashed },
      ),
      hundreds,
    ),
  );

  test("sorts hundreds of hashed chain names by number as compareChainNames does", () => {
    fc.assert(
      fc.property(manyHashed, fc.nat(), (list, dup) => {
        // A duplicate or two (a hashed one and an other one).
        const withDuplicates = [...list, list[dup % list.length] as string, "KUBE-SERVICES"];
        const keys = withDuplicates.slice();
        const items = withDuplicates.map((name, index) => ({ name, index }));
        sortByChainName(keys, items);
        expect(keys).toEqual(withDuplicates.slice().sort(compareChainNames));
        expect(items.map((item) => item.name)).toEqual(keys);
        expect(new Set(items.map((item) => item.index)).size).toBe(withDuplicates.length);
        expect(sortChainNames(withDuplicates.slice())).toEqual(keys);
      }),
      // Shrinking lists of a thousand names takes minutes: a failure is reported as found.
      { seed: SEED, numRuns: 150, endOnFailure: true },
    );
  });

  test("sortByChainName moves each item with its name", () => {
    const anyName = fc.oneof(
      names,
      fc.array(fc.constantFrom("A", "\ud83d\ude00", "\ue000", "B"), { maxLength: 40 }),
    );
    fc.assert(
      fc.property(anyName, (list) => {
        const keys = list.slice();
        const items = list.map((name, index) => ({ name, index }));
        sortByChainName(keys, items);
        expect(keys).toEqual(list.slice().sort(compareChainNames));
        expect(items.map((item) => item.name)).toEqual(keys);
        expect(new Set(items.map((item) => item.index)).size).toBe(list.length);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});

describe("WordReader, reused across texts", () => {
  test("reads plain lines as tokenizeLine does, and gives up on the others", () => {
    const reader = new WordReader();
    const line = fc.array(fc.constantFrom("a", "-", "b", " ", " ", "\t", '"', "\\", "\r", "é"), {
      maxLength: 24,
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (chars) => {
        // One reader for every text, its word cache kept: reset must forget the old text.
        const text = chars.map((c) => c.join("")).join("\n");
        reader.reset(text);
        let start = 0;
        for (const c of chars) {
          const end = start + c.length;
          const count = reader.read(start, end);
          if (count >= 0) expect(reader.words.slice(0, count)).toEqual(tokenizeLine(text, start, end, false));
          start = end + 1;
        }
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it("reads a whole quoted argument", () => {
    const text = '-A X -m comment --comment "ns/svc:p cluster IP" -j Y';
    const reader = new WordReader();
    reader.reset(text);
    const count = reader.read(0, text.length);
    expect(reader.words.slice(0, count)).toEqual([
      "-A",
      "X",
      "-m",
      "comment",
      "--comment",
      "ns/svc:p cluster IP",
      "-j",
      "Y",
    ]);
  });
});
