// Small edits of a rule's words, for property tests that start from real kube-proxy lines: the
// parser's fast path and the quick save printer are both checked on such near-misses.
import fc from "fast-check";

/** One edit of a word list. */
export interface WordEdit {
  readonly kind: "replace" | "insert" | "delete" | "swap";
  readonly at: number;
  readonly token: string;
}

/** One to three edits, each with a word from `pool`. */
export function wordEdits(pool: readonly string[]): fc.Arbitrary<WordEdit[]> {
  return fc.array(
    fc.record({
      kind: fc.constantFrom("replace", "insert", "delete", "swap"),
      at: fc.nat(30),
      token: fc.constantFrom(...pool),
    }),
    { minLength: 1, maxLength: 3 },
  );
}

/** Applies `edits` to `tokens` in place, never before index `from` (e.g. past `-A CHAIN`). */
export function applyWordEdits(tokens: string[], edits: readonly WordEdit[], from = 0): void {
  for (const e of edits) {
    const at = from + (e.at % Math.max(1, tokens.length - from + 1));
    if (e.kind === "replace" && at < tokens.length) tokens[at] = e.token;
    else if (e.kind === "insert") tokens.splice(Math.min(at, tokens.length), 0, e.token);
    else if (e.kind === "delete" && at < tokens.length) tokens.splice(at, 1);
    else if (e.kind === "swap" && at + 1 < tokens.length) {
      const t = tokens[at] as string;
      tokens[at] = tokens[at + 1] as string;
      tokens[at + 1] = t;
    }
  }
}
