/**
 * Splits one command line of a restore file into arguments exactly as `iptables-restore` does
 * (spec §4.3): blanks separate arguments outside double quotes; `"` opens a quoted section in
 * which `\` makes the next character literal; the closing `"` ends the argument at once (so
 * `"x"y` is two arguments); single quotes and backslashes outside quotes are literal; a quote
 * left open swallows the line's newline.
 *
 * @module
 */

/** Space and tab separate arguments (a newline ends the line before we get here). */
function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

/** Slots of a {@link TokenCache}; a power of two. */
const TOKEN_CACHE_SLOTS = 4096;

/**
 * Recently seen unquoted tokens of one text, by a hash of their characters. A rule set repeats
 * a few dozen words (`-m`, `comment`, `--dport`, `KUBE-MARK-MASQ`, each chain name twice …) on
 * every line; handing out one string per word instead of a fresh slice per occurrence leaves a
 * parsed 10k-service payload with a third of the strings to keep alive. A slot holds the last
 * token that hashed to it; a miss costs one slice, as without the cache.
 */
export class TokenCache {
  /** The cached token per slot (`""` for an empty slot). */
  readonly slots: string[] = new Array<string>(TOKEN_CACHE_SLOTS).fill("");
}

/**
 * Tokenizes `text[start, end)`. `newline` says whether the line ended with `\n` (which an open
 * quote makes part of the last argument). When `starts` is given, each argument's offset in
 * `text` is pushed to it (used only to locate errors).
 *
 * @example
 * tokenizeLine('-A X -m comment --comment "a b" -j ACCEPT', 0, 41, false)
 * // ["-A", "X", "-m", "comment", "--comment", "a b", "-j", "ACCEPT"]
 */
export function tokenizeLine(
  text: string,
  start: number,
  end: number,
  newline: boolean,
  starts?: number[],
  cache?: TokenCache,
): string[] {
  const out: string[] = [];
  let i = start;
  while (i < end) {
    let c = text.charCodeAt(i);
    if (isBlank(c)) {
      i++;
      continue;
    }
    const tokenStart = i;
    starts?.push(tokenStart);
    // Fast path: a run without quotes is a plain slice (or the cached equal string).
    let hash = 0;
    while (i < end && !isBlank(c) && c !== 34) {
      hash = (Math.imul(hash, 31) + c) | 0;
      c = text.charCodeAt(++i);
    }
    if (i >= end || c !== 34) {
      if (cache === undefined) {
        out.push(text.slice(tokenStart, i));
        continue;
      }
      const slot = hash & (TOKEN_CACHE_SLOTS - 1);
      const known = cache.slots[slot] as string;
      if (known.length === i - tokenStart && text.startsWith(known, tokenStart)) {
        out.push(known);
      } else {
        const token = text.slice(tokenStart, i);
        cache.slots[slot] = token;
        out.push(token);
      }
      continue;
    }
    // A quote: the argument is the text so far plus the quoted section, which ends it.
    let value = text.slice(tokenStart, i);
    i++; // the opening quote
    let closed = false;
    while (i < end) {
      c = text.charCodeAt(i);
      if (c === 92 /* \ */) {
        if (i + 1 < end) {
          value += text[i + 1];
          i += 2;
          continue;
        }
        // A trailing backslash escapes the newline (if any).
        i++;
        if (newline) value += "\n";
        closed = true;
        break;
      }
      if (c === 34) {
        i++;
        closed = true;
        break;
      }
      let runEnd = i + 1;
      while (runEnd < end) {
        const d = text.charCodeAt(runEnd);
        if (d === 34 || d === 92) break;
        runEnd++;
      }
      value += text.slice(i, runEnd);
      i = runEnd;
    }
    if (!closed && newline) value += "\n";
    out.push(value);
  }
  return out;
}
