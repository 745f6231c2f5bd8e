// The injection property: put hostile text into any field of a valid cluster and check that the
// library either refuses it (strict: no model; default: the object is left out, or the whole
// input refused for a bad config) or prints rules that parse back to exactly what it generated.
// Nothing a user writes may add a line, a table, an option or a rule, or change a comment.
//
// The library under test is passed in (`Library`): the vitest suite gives it the sources, the
// long fuzz run (run.mjs) gives it the built dist/. The oracle (parser, tokenizer, canonicalizer)
// is always taken from the sources.
import fc from "fast-check";
import type { formatProblem as FormatProblem, Problem } from "../../src/errors.js";
import { parseRules, type RuleSet } from "../../src/index.js";
import type { generateRestoreText as GenerateRestoreText } from "../../src/iptables/output/restore-text.js";
import type {
  generateRules as GenerateRules,
  generateState as GenerateState,
} from "../../src/iptables/output/rules.js";
import type { generateSaveText as GenerateSaveText } from "../../src/iptables/output/save-text.js";
import { tokenizeLine } from "../../src/iptables/parse/tokenize.js";
import type {
  formatRestore as FormatRestore,
  quoteArgument as QuoteArgument,
} from "../../src/iptables/print/restore.js";
import type { formatSave as FormatSave } from "../../src/iptables/print/save.js";
import type { prepareCluster as PrepareCluster } from "../../src/kube/from-kubernetes.js";
import { randomCluster } from "../support/random-cluster.js";
import type { ClusterInput } from "../support/stored-types.js";
import { canonicalView, commentsOf, ruleCounts } from "./rule-checks.js";
import { decorateTextFields } from "./text-fields.js";

/** The functions under test (from src/ or dist/). */
export interface Library {
  readonly prepareCluster: typeof PrepareCluster;
  readonly generateRules: typeof GenerateRules;
  readonly generateState: typeof GenerateState;
  readonly formatRestore: typeof FormatRestore;
  readonly formatSave: typeof FormatSave;
  readonly formatProblem: typeof FormatProblem;
  readonly quoteArgument: typeof QuoteArgument;
  /** The text-first paths (what the CLI prints); optional for builds without them. */
  readonly generateRestoreText?: typeof GenerateRestoreText;
  readonly generateSaveText?: typeof GenerateSaveText;
}

// ---- hostile text ----------------------------------------------------------------------------

/** Fragments that mean something to iptables-restore, to a line reader, or to a terminal. */
const FRAGMENTS: readonly string[] = [
  '"',
  "\\",
  "'",
  "\n",
  "\r\n",
  "\r",
  " ",
  "\t",
  "\u0000",
  "\u000b",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u200b",
  "\u2028",
  "\u2029",
  "\u202e",
  "\ufeff",
  "\ud800",
  "é",
  "Ω",
  "😀",
  "ｗ",
  "-A",
  " -A KUBE-SERVICES -j ACCEPT",
  "\n-A KUBE-SERVICES -j ACCEPT",
  '" -j ACCEPT -m comment --comment "',
  "COMMIT",
  "\nCOMMIT\n*filter\n",
  "*nat",
  "#",
  "--comment",
  "-j",
  "[0:0]",
  ":",
  "/",
  "!",
  "+",
  ",",
  ".",
  "-",
  "_",
  "%",
  "$(reboot)",
  "%eth0",
  "A",
  "0",
  "::ffff:",
];

/** A replacement value: whole new text (or another JSON value), or the old value with a fragment spliced in. */
export type Replacement =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "splice"; readonly fragment: string; readonly at: number };

const TEN_KB = 10 * 1024;

const replacementArbitrary: fc.Arbitrary<Replacement> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({ fragment: fc.constantFrom(...FRAGMENTS), at: fc.nat() })
      .map(({ fragment, at }) => ({ kind: "splice" as const, fragment, at })),
  },
  { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS).map((value) => ({ kind: "value" as const, value })) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: "binary", maxLength: 24 })
      .map((value) => ({ kind: "value" as const, value })),
  },
  {
    // Text that looks almost valid: name characters with a few hostile ones mixed in.
    weight: 3,
    arbitrary: fc
      .string({ unit: fc.constantFrom("a", "b", "0", "-", ".", ...FRAGMENTS), minLength: 1, maxLength: 12 })
      .map((value) => ({ kind: "value" as const, value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "a".repeat(TEN_KB),
        "a-".repeat(TEN_KB / 2),
        '"'.repeat(TEN_KB),
        "\n-A X -j ACCEPT".repeat(700),
      )
      .map((value) => ({ kind: "value" as const, value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("a".repeat(TEN_KB), "é".repeat(16), "x".repeat(256))
      .map((fragment) => ({ kind: "splice" as const, fragment, at: Number.MAX_SAFE_INTEGER })),
  },
  {
    // Not text at all: the field's type check must catch it before anything prints it.
    weight: 1,
    arbitrary: fc
      .constantFrom(null, 0, -1, 1e21, true, [], {}, "", ["a"], { a: "b" })
      .map((value) => ({ kind: "value" as const, value })),
  },
);

// ---- where to put it -------------------------------------------------------------------------

type Path = readonly (string | number)[];

/** One place in a cluster: a leaf value (string, number, boolean) or an object key. */
interface Slot {
  readonly path: Path;
  readonly key: boolean;
  /** Every leaf holding the same value (a name and the labels and slices that repeat it). */
  readonly twins: readonly Path[];
}

interface Base {
  readonly cluster: ClusterInput;
  readonly slots: readonly Slot[];
}

function collectSlots(root: unknown): Slot[] {
  const leaves: { path: Path; value: unknown; key: boolean }[] = [];
  const walk = (value: unknown, path: Path): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        walk(v, [...path, i]);
      });
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        if (path.length > 0) leaves.push({ path: [...path, k], value: k, key: true });
        walk(v, [...path, k]);
      }
    } else if (path.length > 0) leaves.push({ path, value, key: false });
  };
  walk(root, []);
  const byValue = new Map<string, Path[]>();
  for (const l of leaves) {
    if (l.key) continue;
    const id = JSON.stringify(l.value);
    byValue.set(id, [...(byValue.get(id) ?? []), l.path]);
  }
  return leaves.map((l) => ({
    path: l.path,
    key: l.key,
    twins: l.key ? [l.path] : (byValue.get(JSON.stringify(l.value)) ?? []),
  }));
}

const BASE_COUNT = 48;
let bases: Base[] | undefined;

/** Small random clusters (1–3 services, every optional text field present somewhere). */
function basesOnce(): Base[] {
  if (bases === undefined) {
    bases = [];
    for (let seed = 1; seed <= BASE_COUNT; seed++) {
      const cluster = decorateTextFields(randomCluster(seed, { maxServices: 3, largeRate: 0 }), seed);
      bases.push({ cluster, slots: collectSlots(cluster) });
    }
  }
  return bases;
}

/** One fuzz case: a base cluster and one to three replacements. */
export interface InjectionCase {
  readonly base: number;
  readonly edits: readonly { readonly slot: number; readonly twins: boolean; readonly with: Replacement }[];
}

/** Arbitrary fuzz cases. */
export const injectionCaseArbitrary: fc.Arbitrary<InjectionCase> = fc.record({
  base: fc.nat(),
  edits: fc.array(fc.record({ slot: fc.nat(), twins: fc.boolean(), with: replacementArbitrary }), {
    minLength: 1,
    maxLength: 3,
  }),
});

function replace(old: unknown, r: Replacement): unknown {
  // A copy: fast-check hands out the same constant object to many cases, and later edits of a
  // case may write into what an earlier one placed.
  if (r.kind === "value") return structuredClone(r.value);
  const text = typeof old === "string" ? old : String(old);
  const at = r.at % (text.length + 1);
  return text.slice(0, at) + r.fragment + text.slice(at);
}

function setAt(root: unknown, path: Path, key: boolean, r: Replacement): void {
  let parent = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) {
    // An earlier edit replaced or renamed something on the way: nothing left to edit here.
    const next = parent[p];
    if (typeof next !== "object" || next === null) return;
    parent = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1] as string | number;
  if (!key) {
    parent[last] = replace(parent[last], r);
    return;
  }
  // Rename the key, keeping its value; a non-string replacement becomes its JSON text.
  const renamed = replace(last, r);
  const name = typeof renamed === "string" ? renamed : JSON.stringify(renamed);
  if (!(last in parent)) return;
  const value = parent[last];
  delete parent[last];
  parent[name] = value;
}

/** The hostile cluster of a case (a fresh copy). */
export function buildInjected(c: InjectionCase): ClusterInput {
  const all = basesOnce();
  const base = all[c.base % all.length] as Base;
  const cluster = structuredClone(base.cluster) as ClusterInput;
  for (const edit of c.edits) {
    const slot = base.slots[edit.slot % base.slots.length] as Slot;
    // Keys are renamed once; twins of a renamed key would be other keys' paths, now stale.
    if (slot.key) setAt(cluster, slot.path, true, edit.with);
    else for (const path of edit.twins ? slot.twins : [slot.path]) setAt(cluster, path, false, edit.with);
  }
  return cluster;
}

// ---- the property ----------------------------------------------------------------------------

/** Thrown for a violated property, with what was seen. */
export class InjectionFailure extends Error {
  override name = "InjectionFailure";
}

function fail(message: string): never {
  throw new InjectionFailure(message);
}

/** What must never appear in a one-line `path: message` on stderr. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Words kube-proxy puts around the service port name in comments (`masquerade traffic for …`). */
const COMMENT_WORD = /^([A-Za-z;:]+|->|KUBE-[A-Z0-9-]+)$/;
/** The endpoint after `->`: an IPv4 or bracketed IPv6 address and a port. */
const COMMENT_ENDPOINT = /^([0-9.]+|\[[0-9a-f:.]+\]):[0-9]+$/;

const OBJECT_PATH = /^(services|endpointSlices)\[(\d+)\]/;

/** `ns/name:port` (or `ns/name`) of every port of the Services that have no error. */
function intendedPortNames(input: ClusterInput, problems: readonly Problem[]): Set<string> {
  const bad = new Set<number>();
  for (const p of problems) {
    const m = OBJECT_PATH.exec(p.path);
    if (p.severity === "error" && m !== null && m[1] === "services") bad.add(Number(m[2]));
  }
  const out = new Set<string>();
  (input.services ?? []).forEach((s, i) => {
    if (bad.has(i)) return;
    for (const port of s.spec.ports ?? []) {
      const base = `${s.metadata.namespace}/${s.metadata.name}`;
      // JSON null is an absent name, as the API server reads it.
      const name = port.name as string | null | undefined;
      out.add(name === undefined || name === null || name === "" ? base : `${base}:${name}`);
    }
  });
  return out;
}

/**
 * Every comment is fixed words, at most one `ns/name:port` of a Service without errors, and
 * after `->` an endpoint: no text from anywhere else.
 */
function checkComments(ruleSet: RuleSet, intended: Set<string>): void {
  for (const table of ruleSet.tables) {
    for (const entry of table.entries) {
      if (entry.kind !== "rule") continue;
      for (const comment of commentsOf(entry)) {
        const words = comment.split(" ");
        let names = 0;
        words.forEach((word, i) => {
          if (word.includes("/") && words[i - 1] !== "->") {
            names++;
            if (!intended.has(word)) fail(`comment ${JSON.stringify(comment)} names no valid service port`);
          } else if (words[i - 1] === "->" ? !COMMENT_ENDPOINT.test(word) : !COMMENT_WORD.test(word)) {
            fail(`comment ${JSON.stringify(comment)} holds unexpected text ${JSON.stringify(word)}`);
          }
        });
        if (names > 1) fail(`comment ${JSON.stringify(comment)} names more than one service port`);
      }
    }
  }
}

/** `*table`, declarations, entries and `COMMIT` of every table (a state declares its built-ins). */
function expectedLines(ruleSet: RuleSet): number {
  let n = 0;
  for (const t of ruleSet.tables) n += 2 + t.chains.length + t.entries.length;
  return n;
}

function checkRestore(lib: Library, payload: RuleSet): void {
  const text = lib.formatRestore(payload);
  if (text.split("\n").length - 1 !== expectedLines(payload)) fail("restore text has extra or missing lines");
  const { ruleSet, problems } = parseRules(text, { family: payload.family });
  if (problems.length > 0) fail(`restore text does not parse: ${problems.map((p) => p.message).join("; ")}`);
  const got = JSON.stringify(ruleSet.tables.map((t) => [t.name, t.chains, t.entries]));
  const want = JSON.stringify(payload.tables.map((t) => [t.name, t.chains, t.entries]));
  if (got !== want) fail("restore text parses to other rules than were generated");
}

function checkSave(lib: Library, state: RuleSet): void {
  const text = lib.formatSave(state);
  if (text.split("\n").length - 1 !== expectedLines(state)) fail("save text has extra or missing lines");
  const { ruleSet, problems } = parseRules(text, { family: state.family });
  if (problems.length > 0) fail(`save text does not parse: ${problems.map((p) => p.message).join("; ")}`);
  if (JSON.stringify(canonicalView(ruleSet)) !== JSON.stringify(canonicalView(state))) {
    fail("save text parses to other rules than the state holds");
  }
  if (JSON.stringify(ruleCounts(ruleSet)) !== JSON.stringify(ruleCounts(state)))
    fail("save text has other rule counts");
}

/** What a case did, for counting in the long run. */
export type Outcome = "refused" | "partly-left-out" | "accepted";

/**
 * Runs one hostile input through the library and checks every promise above. Throws an
 * {@link InjectionFailure} (or whatever the library threw) when one is broken.
 */
export function checkInjection(lib: Library, input: ClusterInput): Outcome {
  const lenient = lib.prepareCluster(input);
  for (const p of lenient.problems) {
    const line = lib.formatProblem(p);
    if (LINE_BREAKING.test(line)) fail(`problem line breaks stderr: ${JSON.stringify(line)}`);
  }
  const errors = lenient.problems.filter((p) => p.severity === "error");
  const strict = lib.prepareCluster(input, { strict: true });
  if ((strict.model === null) !== errors.length > 0) fail("strict mode and the problems disagree");
  if (lenient.model === null) {
    if (!errors.some((p) => !OBJECT_PATH.test(p.path))) fail("input refused without an input-wide error");
    return "refused";
  }
  const payload = lib.generateRules(lenient.model);
  checkRestore(lib, payload);
  const state = lib.generateState(lenient.model);
  checkSave(lib, state);
  // The CLI prints through the text-first paths: they must say exactly what the rules say.
  if (
    lib.generateRestoreText !== undefined &&
    lib.generateRestoreText(lenient.model) !== lib.formatRestore(payload)
  )
    fail("generateRestoreText differs from formatRestore(generateRules)");
  if (lib.generateSaveText !== undefined && lib.generateSaveText(lenient.model) !== lib.formatSave(state))
    fail("generateSaveText differs from formatSave(generateState)");
  checkComments(payload, intendedPortNames(input, lenient.problems));
  return errors.length > 0 ? "partly-left-out" : "accepted";
}

/** Checks that `quoteArgument` and the restore tokenizer agree on an argv (no line breaks). */
export function checkQuoting(lib: Library, argv: readonly string[]): void {
  const line = argv.map((a) => lib.quoteArgument(a)).join(" ");
  if (line.includes("\n")) fail(`quoted line holds a line break: ${JSON.stringify(line)}`);
  const back = tokenizeLine(line, 0, line.length, false);
  if (JSON.stringify(back) !== JSON.stringify(argv)) {
    fail(`argv ${JSON.stringify(argv)} came back as ${JSON.stringify(back)} from ${JSON.stringify(line)}`);
  }
}

/** Arguments without `\n`, `\r` or NUL (which quoteArgument refuses: see src/format/unsafe-text.ts). */
export const argvArbitrary: fc.Arbitrary<string[]> = fc.array(
  fc
    .oneof(
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.string({
        unit: fc.constantFrom('"', "\\", " ", "\t", "'", "a", "#", "\r", "\u000b", "\f", "\u0000"),
        maxLength: 8,
      }),
    )
    .map((s) => s.replace(/[\n\r\0]/g, "")),
  { maxLength: 8 },
);
