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

/**
 * Whether {@link tokenizeLine}`(text, start, end, false)` would return exactly `args`, found
 * without building a single argument: the same walk, comparing code units as it goes. A diff
 * uses it to see that a rule is spelled by a line it already printed.
 *
 * @example
 * tokenizesTo('-d 10.0.0.1/32 --comment "a b"', 0, 30, ["-d", "10.0.0.1/32", "--comment", "a b"]) // true
 */
export function tokenizesTo(text: string, start: number, end: number, args: readonly string[]): boolean {
  let k = 0;
  let i = start;
  while (i < end) {
    let c = text.charCodeAt(i);
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (k >= args.length) return false;
    const arg = args[k++] as string;
    let j = 0;
    // The unquoted run.
    while (i < end && !isBlank(c) && c !== 34) {
      if (arg.charCodeAt(j) !== c) return false; // NaN past the argument's end
      j++;
      c = text.charCodeAt(++i);
    }
    if (i < end && c === 34) {
      // A quote: its section ends the argument. A backslash takes the next code unit as it is;
      // a trailing one (no newline here) adds nothing.
      i++;
      while (i < end) {
        c = text.charCodeAt(i);
        if (c === 92) {
          if (i + 1 >= end) {
            i++;
            break;
          }
          c = text.charCodeAt(i + 1);
          i++;
        } else if (c === 34) {
          i++;
          break;
        }
        if (arg.charCodeAt(j) !== c) return false;
        j++;
        i++;
      }
    }
    if (j !== arg.length) return false;
  }
  return k === args.length;
}

/**
 * The option letters and marks a rule line is full of (`-j`, `-m`, `!` …) as constants: no
 * slice, no cache lookup, and later comparisons with the same literals are pointer checks.
 */
function shortWord(text: string, at: number, length: number): string | null {
  const c = text.charCodeAt(at);
  if (length === 1) return c === 33 ? "!" : c === 45 ? "-" : null;
  if (c !== 45) return null;
  switch (text.charCodeAt(at + 1)) {
    case 106:
      return "-j";
    case 109:
      return "-m";
    case 112:
      return "-p";
    case 115:
      return "-s";
    case 100:
      return "-d";
    case 105:
      return "-i";
    case 111:
      return "-o";
    case 103:
      return "-g";
    default:
      return null;
  }
}

/** The cache slot of the word `text[start, stop)` (a hash of its length and four of its characters). */
function slotOf(text: string, start: number, stop: number): number {
  const length = stop - start;
  const h =
    length * 0x9e3 +
    text.charCodeAt(start) * 0x3b +
    text.charCodeAt(stop - 1) * 0x1f1 +
    text.charCodeAt(start + (length >> 1)) * 0x17 +
    (text.charCodeAt(start + ((length + 1) >> 2)) << 5);
  return (h ^ (h >>> 11)) & (TOKEN_CACHE_SLOTS - 1);
}

/**
 * Words every kube-proxy payload repeats, kept in their slots for good (a different word there
 * is sliced each time): so they always hit, and since they are the (interned) literals below,
 * the quick rule check compares them with its own literals by pointer.
 */
const VOCABULARY: readonly string[] = [
  "comment",
  "--comment",
  "tcp",
  "udp",
  "sctp",
  "--dport",
  "--sport",
  "statistic",
  "--mode",
  "random",
  "--probability",
  "mark",
  "--mark",
  "conntrack",
  "--ctstate",
  "addrtype",
  "--dst-type",
  "--src-type",
  "LOCAL",
  "recent",
  "--name",
  "--set",
  "--rcheck",
  "--seconds",
  "--reap",
  "--rsource",
  "DNAT",
  "--to-destination",
  "KUBE-MARK-MASQ",
  "MARK",
  "--or-mark",
  "--xor-mark",
  "--set-xmark",
  "MASQUERADE",
  "--random-fully",
  "ACCEPT",
  "DROP",
  "RETURN",
  "REJECT",
  "[0:0]",
  "KUBE-SERVICES",
  "KUBE-NODEPORTS",
  "KUBE-POSTROUTING",
  "KUBE-FORWARD",
  "KUBE-EXTERNAL-SERVICES",
  "KUBE-FIREWALL",
  "KUBE-PROXY-FIREWALL",
];
/** The slots with the vocabulary in place, and which slots hold it (1). */
function seedSlots(vocabulary: readonly string[]): { slots: readonly string[]; pinned: Uint8Array } {
  const slots = new Array<string>(TOKEN_CACHE_SLOTS).fill("");
  const pinned = new Uint8Array(TOKEN_CACHE_SLOTS);
  for (const word of vocabulary) {
    const slot = slotOf(word, 0, word.length);
    if (pinned[slot] === 1) continue; // a collision: the later word is cached like any other
    slots[slot] = word;
    pinned[slot] = 1;
  }
  return { slots, pinned };
}
const { slots: SEEDED_SLOTS, pinned: PINNED } = seedSlots(VOCABULARY);

/** Where `c` next occurs in `text` at or after `from` (`text.length` when it does not). */
function nextOf(text: string, c: string, from: number): number {
  const at = text.indexOf(c, from);
  return at < 0 ? text.length : at;
}

/**
 * Splits the plain lines of one text into arguments with native searches (`indexOf`) instead
 * of a loop per character: the fast path of the parser (the ~400,000 lines of a 10k-service
 * payload) and of `generateSaveText` (the generator's text blocks, one {@link WordReader.reset}
 * per block). A line is plain when single spaces separate its arguments and any quote opens a
 * whole argument that closes before a space or the line's end with no backslash inside (as
 * `--comment "ns/svc:port"`); {@link WordReader.read} gives up on any other line, which
 * {@link tokenizeLine} then reads, so both paths yield the same arguments.
 *
 * Unquoted words are shared through a small cache like {@link TokenCache}'s. Lines must be read
 * in text order: the reader keeps the next quote, tab and backslash positions, so that each is
 * searched for once per text.
 */
export class WordReader {
  /** The arguments of the line read last; only the first {@link WordReader.read} returned are its. */
  readonly words: string[] = [];
  private readonly slots: string[] = SEEDED_SLOTS.slice();
  private text = "";
  private nextQuote = -1;
  private nextTab = -1;
  private nextBackslash = -1;

  /**
   * Makes a reader of `text`.
   *
   * @param shareWords - Whether equal words are kept as one string (the parser keeps every
   *   word in its rules). A reader whose words die with the line (`generateSaveText`) skips
   *   the cache: slicing is cheaper than looking up.
   */
  constructor(
    text = "",
    private readonly shareWords = true,
  ) {
    this.reset(text);
  }

  /** Starts reading another text (the word cache is kept). */
  reset(text: string): void {
    this.text = text;
    this.nextQuote = -1;
    this.nextTab = -1;
    this.nextBackslash = -1;
  }

  /**
   * Reads the arguments of `text[start, end)` (a line without its `\n`) into {@link words}.
   *
   * @returns How many arguments, or -1 when the line is not plain (see the class).
   */
  read(start: number, end: number): number {
    const text = this.text;
    if (this.nextTab < start) this.nextTab = nextOf(text, "\t", start);
    if (this.nextTab < end) return -1;
    if (this.nextQuote < start) this.nextQuote = nextOf(text, '"', start);
    const words = this.words;
    const slots = this.slots;
    let count = 0;
    let i = start;
    while (i < end) {
      const first = text.charCodeAt(i);
      if (first === 32) {
        i++;
        continue;
      }
      if (first === 34) {
        // A quoted argument: plain when it closes before a space or the end, with no backslash.
        const close = nextOf(text, '"', i + 1);
        if (close >= end) return -1;
        if (this.nextBackslash <= i) this.nextBackslash = nextOf(text, "\\", i + 1);
        if (this.nextBackslash < close) return -1;
        if (close + 1 < end && text.charCodeAt(close + 1) !== 32) return -1;
        words[count++] = text.slice(i + 1, close);
        this.nextQuote = nextOf(text, '"', close + 1);
        i = close + 2;
        continue;
      }
      let stop = text.indexOf(" ", i);
      if (stop < 0 || stop > end) stop = end;
      // A quote inside the argument (`a"b c"`) takes the full tokenizer.
      if (this.nextQuote < stop) return -1;
      const length = stop - i;
      if (length <= 2) {
        const short = shortWord(text, i, length);
        if (short !== null) {
          words[count++] = short;
          i = stop + 1;
          continue;
        }
      }
      const word = text.slice(i, stop);
      if (!this.shareWords) {
        words[count++] = word;
        i = stop + 1;
        continue;
      }
      const slot = slotOf(text, i, stop);
      const known = slots[slot] as string;
      // Equal content: keep one string (the fresh slice dies young, which costs nothing).
      if (word === known) words[count++] = known;
      else {
        if (PINNED[slot] === 0) slots[slot] = word;
        words[count++] = word;
      }
      i = stop + 1;
    }
    return count;
  }
}
