/**
 * A cluster's generated state for the diff, held as its `iptables-save` text until rules are
 * needed. `generateSaveText` prints a 10,000-service state in a fraction of the time that
 * `generateState` takes to build its ~320,000 rule objects (and the diff to print each back as
 * its canonical key); a chain whose save lines spell the other side's rules is equal without
 * either. The rules are built, once, only when some chain differs.
 *
 * @module
 */
import type { IndexedSaveText, SaveTextChain } from "../iptables/index.js";
import type { RuleSet } from "../ir/types.js";

/** One chain of a table of save text: its policy and the range of its rule lines. */
export type SavedChain = SaveTextChain;

/** The save text of a state, indexed by table and chain (as `generateIndexedSaveText` prints it). */
export type SavedText = IndexedSaveText;

/** Each registered state's save text, printed on first use. */
const SAVED = new WeakMap<RuleSet, () => SavedText>();

/**
 * Whether a save text was registered for `state` by {@link withSaveText} (without printing it).
 *
 * @example
 * hasSaveText(withSaveText(state, () => indexed)) // true
 */
export function hasSaveText(state: RuleSet): boolean {
  return SAVED.has(state);
}

/**
 * The save text registered for a state, printed and indexed on the first call.
 *
 * @example
 * savedTextOf(withSaveText(state, () => indexed)) === indexed // true
 */
export function savedTextOf(state: RuleSet): SavedText | undefined {
  return SAVED.get(state)?.();
}

/**
 * Records that `state` prints as `saved().text` (what `formatSave(state)` would print), with its
 * index: a diff against a state without one then compares that text and leaves `state.tables`
 * alone unless a chain differs.
 *
 * @example
 * const state = withSaveText(lazyState, () => generateIndexedSaveText(model));
 */
export function withSaveText(state: RuleSet, saved: () => SavedText): RuleSet {
  let printed: SavedText | null = null;
  SAVED.set(state, () => {
    printed ??= saved();
    return printed;
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
 * Whether a source text was registered for `state` by {@link withSourceText} (its lines not found).
 *
 * @example
 * hasSourceText(withSourceText(state, dump)) // true
 */
export function hasSourceText(state: RuleSet): boolean {
  return SOURCES.has(state);
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
