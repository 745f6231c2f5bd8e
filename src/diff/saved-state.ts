/**
 * A cluster's generated state for the diff, held as its `iptables-save` text until rules are
 * needed. `generateSaveText` prints a 10,000-service state in a fraction of the time that
 * `generateState` takes to build its ~320,000 rule objects (and the diff to print each back as
 * its canonical key); a chain whose save lines spell the other side's rules is equal without
 * either. The rules are built, once, only when some chain differs.
 *
 * @module
 */
import type { RuleSet } from "../ir/types.js";

/** One chain of a table of save text: its policy and the range of its rule lines. */
export interface SavedChain {
  /** `ACCEPT`/`DROP` for a built-in chain, `null` for a user chain. */
  readonly policy: string | null;
  /** Where its first `-A` line starts (its rules are one run of lines), or -1 when it has none. */
  start: number;
  /** Where the newline after its last `-A` line is. */
  end: number;
  /** How many rules it holds. */
  count: number;
  /** Its place among its table's chains. */
  readonly index: number;
}

/** The save text of a state, indexed by table and chain. */
export interface SavedText {
  /** The text, as `formatSave` prints the state. */
  readonly text: string;
  /** Per table, its chains in the order the text declares them. */
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, SavedChain>>;
}

/** Each registered state's save text, printed and indexed on first use. */
const SAVED = new WeakMap<RuleSet, () => SavedText>();

/**
 * Indexes save text as `generateSaveText` prints it (`*table`, `:CHAIN POLICY [p:b]` lines,
 * each chain's `-A` lines together, `COMMIT`).
 */
function indexSaveText(text: string): SavedText {
  const tables = new Map<string, Map<string, SavedChain>>();
  let chains: Map<string, SavedChain> | null = null;
  let last: SavedChain | undefined;
  let lastName = "";
  /** Where the previous rule's chain name starts in `text` (-1: a new table). */
  let lastAt = -1;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const c = text.charCodeAt(start);
    if (c === 45 /* - */ && chains !== null) {
      // `-A CHAIN ARGS`: chain names hold no blank.
      let nameEnd = text.indexOf(" ", start + 3);
      if (nameEnd < 0 || nameEnd > end) nameEnd = end;
      // The previous line's chain again (as nearly always) is seen in place, without a copy.
      const same =
        lastAt >= 0 && nameEnd - start - 3 === lastName.length && text.startsWith(lastName, start + 3);
      if (!same) {
        const name = text.slice(start + 3, nameEnd);
        lastName = name;
        lastAt = start + 3;
        last = chains.get(name);
        if (last === undefined) throw new Error(`save text: rule of an undeclared chain ${name}`);
        if (last.start >= 0) throw new Error(`save text: the rules of ${name} are not one run`);
        last.start = start;
      }
      const chain = last as SavedChain;
      chain.end = end;
      chain.count++;
    } else if (c === 58 /* : */ && chains !== null) {
      const space = text.indexOf(" ", start);
      const policyEnd = text.indexOf(" ", space + 1);
      const policy = text.slice(space + 1, policyEnd);
      const name = text.slice(start + 1, space);
      chains.set(name, {
        policy: policy === "-" ? null : policy,
        start: -1,
        end: -1,
        count: 0,
        // (A chain declared again keeps its place.)
        index: chains.get(name)?.index ?? chains.size,
      });
    } else if (c === 42 /* * */) {
      chains = new Map();
      tables.set(text.slice(start + 1, end), chains);
      lastName = "";
      lastAt = -1;
    } else if (text.startsWith("COMMIT", start)) {
      chains = null;
    }
    start = end + 1;
  }
  return { text, tables };
}

/**
 * Whether a save text was registered for `state` by {@link withSaveText} (without printing it).
 *
 * @example
 * hasSaveText(withSaveText(state, () => text)) // true
 */
export function hasSaveText(state: RuleSet): boolean {
  return SAVED.has(state);
}

/**
 * The save text registered for a state, printed and indexed on the first call.
 *
 * @example
 * savedTextOf(withSaveText(state, () => text))?.text === text // true
 */
export function savedTextOf(state: RuleSet): SavedText | undefined {
  return SAVED.get(state)?.();
}

/**
 * Records that `state` prints as `text()` (what `formatSave(state)` would print): a diff against
 * a state without one then compares that text and leaves `state.tables` alone unless a chain
 * differs.
 *
 * @example
 * const state = withSaveText(lazyState, () => generateSaveText(model));
 */
export function withSaveText(state: RuleSet, text: () => string): RuleSet {
  let saved: SavedText | null = null;
  SAVED.set(state, () => {
    saved ??= indexSaveText(text());
    return saved;
  });
  return state;
}

/** A parsed state's text, with where each line starts (see {@link withSourceText}). */
export interface SourceText {
  /** The text the state was parsed from. */
  readonly text: string;
  /** `lineStarts[k]`: where line `k + 1` starts; past the last line, one more than its end. */
  readonly lineStarts: Int32Array;
}

/** Each registered state's source text, its lines found on first use. */
const SOURCES = new WeakMap<RuleSet, () => SourceText>();

function lineStartsOf(text: string): Int32Array {
  const starts: number[] = [0];
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", nl + 1)) starts.push(nl + 1);
  // The last line without a newline ends where the text does.
  if (starts[starts.length - 1] !== text.length) starts.push(text.length + 1);
  return Int32Array.from(starts);
}

/**
 * Records that `state` is what `parseRules(text)` returned (the parser recorded the line of each
 * entry): a diff then finds a chain's rules as one run of `text`, and a run whose bytes are the
 * other side's save lines is equal without reading its rules.
 *
 * @example
 * const state = withSourceText(parseRulesOrThrow(dump), dump);
 */
export function withSourceText(state: RuleSet, text: string): RuleSet {
  let source: SourceText | null = null;
  SOURCES.set(state, () => {
    source ??= { text, lineStarts: lineStartsOf(text) };
    return source;
  });
  return state;
}

/**
 * The source text registered for a state by {@link withSourceText}.
 *
 * @example
 * sourceTextOf(withSourceText(state, dump))?.text === dump // true
 */
export function sourceTextOf(state: RuleSet): SourceText | undefined {
  return SOURCES.get(state)?.();
}
