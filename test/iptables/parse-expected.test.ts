// parseRules with `expected` (the generated save text a diff compares a node's dump with) reads
// runs of lines equal to that text's chains without tokenizing them. That must never change the
// result: the same rule set (tables, chains, every rule, the lines recorded, the chain of every
// entry) and the same problems, at the same line and column, on the generated text itself, on
// real iptables-save output of the same clusters, and on both mutated in the ways a node's dump
// differs from the cluster's (counters, other programs' chains, a table order, a broken line
// inside an equal chain …).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffRules } from "../../src/diff/index.js";
import { withSaveText, withSourceText } from "../../src/diff/saved-state.js";
import { type Backend, type ClusterInput, type ClusterModel, generateState } from "../../src/index.js";
import { generateIndexedSaveText } from "../../src/iptables/index.js";
import { appendChainsOf } from "../../src/iptables/parse/deferred.js";
import {
  type ExpectedText,
  expectedLinesOf,
  type ParseOptions,
  parseRules,
} from "../../src/iptables/parse/parse.js";
import { sourceLinesOf } from "../../src/iptables/state.js";
import type { IPFamily, RuleSet } from "../../src/ir/types.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { kubeProxyVectors } from "../support/corpora.js";
import { type Extra, foreign } from "../support/foreign-rules.js";
import { randomCluster } from "../support/random-cluster.js";

const SEED = 20_261_125;

/**
 * `diffRules` of `text` read with and without `expected` against the state `expected` was printed
 * from: the parser's record of the lines it read as expected stands in for comparing them again.
 */
function expectSameDiff(text: string, expected: ExpectedText, model: ClusterModel): void {
  const options = { backend: expected.backend, deferred: true };
  const plain = parseRules(text, options);
  const fast = parseRules(text, { ...options, expected });
  if (plain.problems.length > 0) return;
  const state = (): RuleSet => withSaveText(generateState(model), () => expected.saved);
  expect(diffRules(withSourceText(fast.ruleSet, text), state())).toEqual(
    diffRules(withSourceText(plain.ruleSet, text), state()),
  );
}

/** parseRules of `text` with and without `expected`, for each option; returns the lines it read as expected. */
function expectSameParse(text: string, expected: ExpectedText): number {
  let read = 0;
  const other: IPFamily = expected.family === "IPv4" ? "IPv6" : "IPv4";
  const variants: ParseOptions[] = [{}, { family: expected.family }, { family: other }, { noflush: true }];
  for (const options of variants) {
    const base = { ...options, backend: expected.backend, deferred: true };
    const plain = parseRules(text, base);
    const fast = parseRules(text, { ...base, expected });
    read += expectedLinesOf(fast.ruleSet);
    expect(fast.problems).toEqual(plain.problems);
    expect(fast.ruleSet.family).toBe(plain.ruleSet.family);
    expect(fast.ruleSet.tables.length).toBe(plain.ruleSet.tables.length);
    fast.ruleSet.tables.forEach((table, t) => {
      const reference = plain.ruleSet.tables[t];
      if (reference === undefined) throw new Error("table missing");
      expect(appendChainsOf(table)).toEqual(appendChainsOf(reference));
      expect(sourceLinesOf(table)).toEqual(sourceLinesOf(reference));
      expect(table).toEqual(reference);
    });
  }
  return read;
}

function expectedOf(model: ClusterModel, backend: Backend = "nft"): ExpectedText {
  return { saved: generateIndexedSaveText(model, { backend }), family: model.config.ipFamily, backend };
}

/** The text with the lines of `extra` added: chains after `*table`'s declarations, rules before COMMIT. */
function withExtra(text: string, extra: Extra): string {
  const lines = text.split("\n");
  let table = "";
  const out: string[] = [];
  for (const line of lines) {
    if (line.startsWith("*")) table = line.slice(1);
    const add = extra[table];
    if (line === "COMMIT" && add !== undefined) out.push(...add.rules);
    out.push(line);
    if (line.startsWith("*") && add !== undefined) out.push(...add.chains.map((c) => `:${c} - [0:0]`));
  }
  return out.join("\n");
}

/** Index of the first line of a chain's run of rules with at least `min` rules whose name starts with `prefix`. */
function runAt(lines: readonly string[], prefix: string, min = 1): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith(`-A ${prefix}`)) continue;
    const chain = line.split(" ")[1] as string;
    let n = 0;
    while (lines[i + n]?.startsWith(`-A ${chain} `)) n++;
    if (n >= min) return i;
    i += n - 1;
  }
  return -1;
}

/** Named edits of save text, each what a node's dump may hold. */
const MUTATIONS: readonly { name: string; edit: (lines: string[], family: IPFamily) => string[] | null }[] = [
  { name: "unchanged", edit: (l) => l },
  {
    name: "a malformed rule inside an otherwise equal chain",
    edit: (l) => {
      const at = runAt(l, "KUBE-SEP-", 2);
      if (at < 0) return null;
      const chain = (l[at] as string).split(" ")[1];
      l[at + 1] = `-A ${chain} -p tcp -m tcp --dport 99999 -j RETURN`;
      return l;
    },
  },
  {
    name: "an unknown option inside KUBE-SERVICES",
    edit: (l) => {
      const at = runAt(l, "KUBE-SERVICES", 2);
      if (at < 0) return null;
      l[at + 1] = `${l[at + 1]} --no-such-option`;
      return l;
    },
  },
  {
    name: "counters on a rule",
    edit: (l) => {
      const at = runAt(l, "KUBE-SVC-");
      if (at < 0) return null;
      l[at] = `[7:420] ${l[at]}`;
      return l;
    },
  },
  {
    name: "a chain declared twice, one with a policy, and one over 28 characters, among the user chains",
    edit: (l) => {
      const user = (x: string): boolean => x.startsWith(":KUBE-") && x.endsWith(" - [0:0]");
      const first = l.findIndex(user);
      let last = l.length - 1;
      while (last > first && !user(l[last] as string)) last--;
      if (first < 0 || last - first < 3) return null;
      const middle = (first + last) >> 1;
      const name = (l[middle] as string).slice(1, -8);
      l.splice(middle + 1, 0, `:${name} - [0:0]`, `:${name} ACCEPT [0:0]`, `:KUBE-${"X".repeat(30)} - [0:0]`);
      return l;
    },
  },
  {
    name: "a user chain's declaration missing, and one with a quoted name",
    edit: (l) => {
      const first = l.findIndex((x) => x.startsWith(":KUBE-") && x.endsWith(" - [0:0]"));
      if (first < 0 || !(l[first + 2] ?? "").endsWith(" - [0:0]")) return null;
      l.splice(first + 1, 1);
      l.splice(first + 2, 0, `:"KUBE-Q R" - [0:0]`);
      return l;
    },
  },
  {
    name: "counters on every declaration",
    edit: (l) => l.map((x) => (x.startsWith(":") ? x.replace("[0:0]", "[12:3456]") : x)),
  },
  {
    name: "the nat table before filter",
    edit: (l) => {
      const text = l.join("\n");
      const nat = text.indexOf("*nat\n");
      if (nat < 0) return null;
      return `${text.slice(nat)}\n${text.slice(0, nat)}`
        .split("\n")
        .filter((x, i, a) => x !== "" || i === a.length - 1);
    },
  },
  {
    name: "other programs' chains and rules",
    edit: (l, family) => withExtra(l.join("\n"), foreign(family)).split("\n"),
  },
  {
    name: "a declaration missing (a rule appends to an undeclared chain)",
    edit: (l) => {
      const at = runAt(l, "KUBE-SEP-");
      if (at < 0) return null;
      const chain = (l[at] as string).split(" ")[1];
      return l.filter((x) => x !== `:${chain} - [0:0]`);
    },
  },
  {
    name: "a jump target's declaration missing",
    edit: (l) => {
      const at = runAt(l, "KUBE-SVC-");
      if (at < 0) return null;
      const chain = (l[at] as string).split(" ")[1];
      return l.filter((x) => x !== `:${chain} - [0:0]`);
    },
  },
  {
    name: "a chain's run twice",
    edit: (l) => {
      const at = runAt(l, "KUBE-SEP-", 2);
      if (at < 0) return null;
      l.splice(at, 0, l[at] as string, l[at + 1] as string);
      return l;
    },
  },
  {
    name: "a chain's last rule moved to the end of its table",
    edit: (l) => {
      const at = runAt(l, "KUBE-SEP-", 2);
      if (at < 0) return null;
      const [moved] = l.splice(at + 1, 1);
      l.splice(l.indexOf("COMMIT", at), 0, moved as string);
      return l;
    },
  },
  {
    name: "a rule added at the end of a run, and one at its start",
    edit: (l) => {
      const at = runAt(l, "KUBE-SVC-");
      if (at < 0) return null;
      const chain = (l[at] as string).split(" ")[1];
      let end = at;
      while (l[end]?.startsWith(`-A ${chain} `)) end++;
      l.splice(end, 0, `-A ${chain} -j RETURN`);
      l.splice(at, 0, `-A ${chain} -j ACCEPT`);
      return l;
    },
  },
  {
    name: "a tab, a NUL and a -g in three runs",
    edit: (l) => {
      const a = runAt(l, "KUBE-SEP-");
      const b = runAt(l, "KUBE-SVC-");
      const c = runAt(l, "KUBE-SERVICES");
      if (a < 0 || b < 0 || c < 0) return null;
      l[a] = (l[a] as string).replace(" -j ", "\t-j ");
      l[b] = `${l[b]}\u0000 trailing`;
      l[c] = (l[c] as string).replace(/ -j (\S+)$/, " -g $1");
      return l;
    },
  },
  {
    name: "the text cut inside a run (no COMMIT, no last newline)",
    edit: (l) => {
      const at = runAt(l, "KUBE-SEP-", 2);
      return at < 0 ? null : l.slice(0, at + 1);
    },
  },
  {
    name: "an IPv6 address in an IPv4 text (and the other way)",
    edit: (l, family) => {
      const at = runAt(l, "KUBE-SEP-", 2);
      if (at < 0) return null;
      const chain = (l[at] as string).split(" ")[1];
      l.splice(at + 2, 0, `-A ${chain} -s ${family === "IPv4" ? "fd00::1/128" : "198.18.0.1/32"} -j ACCEPT`);
      return l;
    },
  },
];

function models(): { name: string; model: ClusterModel }[] {
  const out: { name: string; model: ClusterModel }[] = [];
  for (const v of kubeProxyVectors("kube-proxy").slice(0, 12))
    out.push({ name: v.name, model: modelFromInput(v as unknown as ClusterInput) });
  for (const v of kubeProxyVectors("kube-proxy-v1.22").slice(0, 3))
    out.push({
      name: `v1.22/${v.name}`,
      model: modelFromInput(v as unknown as ClusterInput, { config: { profile: "v1.22" } }),
    });
  for (let seed = 1; seed <= 8; seed++)
    out.push({ name: `random ${seed}`, model: modelFromInput(randomCluster(seed, { largeRate: 0.2 })) });
  return out;
}

describe("parseRules with the expected text gives what it gives without", () => {
  const all = models();

  it.each(all.map((m) => [m.name, m] as const))(
    "%s: the generated text and its mutations",
    (_, { model }) => {
      for (const backend of ["nft", "legacy"] as const) {
        const expected = expectedOf(model, backend);
        let read = 0;
        for (const { edit } of MUTATIONS) {
          const lines = edit(expected.saved.text.split("\n"), model.config.ipFamily);
          if (lines === null) continue;
          read += expectSameParse(lines.join("\n"), expected);
          if (backend === "nft") expectSameDiff(lines.join("\n"), expected, model);
        }
        // The shortcut was taken (the equal runs were read as expected lines).
        expect(read).toBeGreaterThan(0);
      }
    },
  );

  it("reads its own text's rules and user chain declarations without tokenizing them", () => {
    for (let seed = 1; seed <= 4; seed++) {
      const expected = expectedOf(modelFromInput(randomCluster(seed, { largeRate: 0.2 })));
      const lines = expected.saved.text.split("\n");
      const rules = lines.filter((l) => l.startsWith("-A ")).length;
      const userChains = lines.filter((l) => l.startsWith(":") && l.endsWith(" - [0:0]")).length;
      const { ruleSet, problems } = parseRules(expected.saved.text, { deferred: true, expected });
      expect(problems).toEqual([]);
      expect(expectedLinesOf(ruleSet)).toBe(rules + userChains);
    }
  });

  it("reads the real iptables-save output of kube-proxy's rules as it does without", () => {
    let read = 0;
    for (const v of kubeProxyVectors("kube-proxy")) {
      const model = modelFromInput(v as unknown as ClusterInput);
      read += expectSameParse(v.expected.save, expectedOf(model));
    }
    expect(read).toBeGreaterThan(0);
  });

  it("reads a text against another cluster's expected text as it does without", () => {
    const [a, b] = [all[0], all[all.length - 1]];
    if (a === undefined || b === undefined) throw new Error("no models");
    expectSameParse(generateIndexedSaveText(a.model).text, expectedOf(b.model));
    expectSameParse(generateIndexedSaveText(b.model).text, expectedOf(a.model));
  });

  it("reads lines of its own text that are not plain as it does without", () => {
    // A model built without validation may print any text but a line break into a comment: the
    // chains holding one are read as usual, the others still as expected lines.
    const model = modelFromInput(randomCluster(3, { largeRate: 0 }));
    for (const name of ["x -c y", "a\tb", "y -g", "p --goto q", "z --jump", "w --set-counters"]) {
      const hostile: ClusterModel = {
        ...model,
        servicePorts: model.servicePorts.map((p, i) => (i % 3 === 0 ? { ...p, portName: name } : p)),
      };
      const expected = expectedOf(hostile);
      const chains = [...expected.saved.tables.values()].flatMap((t) => t.chains);
      expect(chains.some((c) => c.count > 0 && c.plain === false)).toBe(true);
      expect(chains.some((c) => c.count > 0 && c.plain === true)).toBe(true);
      expect(expectSameParse(expected.saved.text, expected)).toBeGreaterThan(0);
    }
  });

  it("reads randomly edited lines as it does without", () => {
    const model = modelFromInput(randomCluster(3, { largeRate: 0 }));
    const expected = expectedOf(model);
    const lines = expected.saved.text.split("\n");
    const words = [...new Set(lines.flatMap((l) => l.split(" ")))];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            line: fc.nat(lines.length - 1),
            at: fc.nat(40),
            word: fc.constantFrom(...words, "-j", "-g", '"', "\t", "[1:2]", "-c", "", "99999"),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (edits) => {
          const edited = [...lines];
          for (const { line, at, word } of edits) {
            const parts = (edited[line] as string).split(" ");
            parts.splice(Math.min(at, parts.length), 0, word);
            edited[line] = parts.join(" ");
          }
          expectSameParse(edited.join("\n"), expected);
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });
});
