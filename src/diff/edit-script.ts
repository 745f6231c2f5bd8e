/**
 * The rule-by-rule edit of one chain: which rules to keep (a common subsequence of the old and
 * new rule lists, compared by key), and the `-D` / `-I` / `-A` commands that turn the
 * old list into the new one in place. Shared by the diff and the incremental engine.
 *
 * No `-R`: iptables-nft-restore 1.8.9 crashes on it inside a restore file, so a changed rule is
 * deleted and inserted.
 *
 * @module
 */
import type { Entry, Rule } from "../ir/types.js";

/**
 * One side of a chain edit: the rules and, index for index, the keys they compare by.
 *
 * @example
 * const chain = diffRules(before, after).tables[0]?.chains[0];
 * chain?.old.rules.length // how many rules the chain had in OLD
 */
export interface RuleList {
  /** The rules, in chain order. */
  readonly rules: readonly Rule[];
  /** The comparison key of each rule (its canonical text, or any text that identifies it). */
  readonly keys: readonly string[];
}

// Exact LCS by dynamic programming is cheap for the small lists of per-service chains and of one
// service's segment of a shared chain; beyond this many cells we use the O(n log n) method.
const DP_LIMIT = 4096;

/**
 * Index pairs `[oldIndex, newIndex]`, both increasing, of rules kept between two key lists: the
 * longest common subsequence for small lists; for large ones, the longest increasing run of
 * matched occurrences (the k-th copy of a key in NEW matches the k-th copy in OLD), which is the
 * LCS whenever keys are unique, as they are in kube-proxy's chains.
 *
 * @example
 * commonSubsequence(["a", "b", "c"], ["a", "c", "d"]) // [[0, 0], [2, 1]]
 */
export function commonSubsequence(
  oldKeys: readonly string[],
  newKeys: readonly string[],
): Array<[number, number]> {
  const n = oldKeys.length;
  const m = newKeys.length;
  if (n === 0 || m === 0) return [];
  if (n * m <= DP_LIMIT) return lcsByTable(oldKeys, newKeys);
  return lcsByOccurrence(oldKeys, newKeys);
}

// The DP table of every call, reused: (n + 1)(m + 1) ≤ 2 · DP_LIMIT + 2 cells when n · m ≤
// DP_LIMIT. A fresh typed array per call lives outside the heap, and allocating (and later
// finalizing) one per edited chain cost the incremental engine more than the edit itself.
const TABLE = new Uint16Array(2 * DP_LIMIT + 2);

function lcsByTable(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const table = TABLE;
  // Row n and column m are the DP's boundary (zero); every other cell is written before read.
  table.fill(0, n * w, (n + 1) * w);
  for (let i = 0; i < n; i++) table[i * w + m] = 0;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] =
        a[i] === b[j]
          ? (table[(i + 1) * w + j + 1] as number) + 1
          : Math.max(table[(i + 1) * w + j] as number, table[i * w + j + 1] as number);
    }
  }
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push([i, j]);
      i++;
      j++;
    } else if ((table[(i + 1) * w + j] as number) >= (table[i * w + j + 1] as number)) i++;
    else j++;
  }
  return out;
}

function lcsByOccurrence(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const positions = new Map<string, number[]>();
  for (let i = 0; i < a.length; i++) {
    const key = a[i] as string;
    const list = positions.get(key);
    if (list === undefined) positions.set(key, [i]);
    else list.push(i);
  }
  const used = new Map<string, number>();
  // Patience sorting over the old index of each matched new rule.
  const tails: number[] = []; // index into `pairs` of the smallest tail of each run length
  const prev: number[] = [];
  const pairs: Array<[number, number]> = [];
  for (let j = 0; j < b.length; j++) {
    const key = b[j] as string;
    const list = positions.get(key);
    if (list === undefined) continue;
    const k = used.get(key) ?? 0;
    const i = list[k];
    if (i === undefined) continue;
    used.set(key, k + 1);
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((pairs[tails[mid] as number] as [number, number])[0] < i) lo = mid + 1;
      else hi = mid;
    }
    pairs.push([i, j]);
    const at = pairs.length - 1;
    prev[at] = lo > 0 ? (tails[lo - 1] as number) : -1;
    tails[lo] = at;
  }
  const out: Array<[number, number]> = [];
  let at = tails.length > 0 ? (tails[tails.length - 1] as number) : -1;
  while (at >= 0) {
    out.push(pairs[at] as [number, number]);
    at = prev[at] as number;
  }
  return out.reverse();
}

/** What {@link editChain} did. */
export interface EditCounts {
  /** `-D` commands. */
  deleted: number;
  /** `-I` and `-A` commands. */
  inserted: number;
}

/**
 * Appends to `out` the commands that turn the rules `old` (found at 0-based position `base` of a
 * chain that holds `length` rules now) into `next`, keeping the rules of their common
 * subsequence where they are. Each gap between kept rules is edited in place: `-D` for its old
 * rules, then `-I` (`-A` at the end of the chain) for its new ones. A `-D` names the rule by its
 * specification, unless another copy of it may come first or `deleteByNumber` is set (then by
 * number: shorter, but it trusts that the chain holds exactly `old` there).
 *
 * @returns The chain's length afterwards.
 * @example
 * const out: Entry[] = [];
 * editChain("C", list(["a", "b"]), list(["a", "c"]), 0, 2, out) // 2; out: [-D C b, -A C c]
 */
export function editChain(
  chain: string,
  old: RuleList,
  next: RuleList,
  base: number,
  length: number,
  out: Entry[],
  counts?: EditCounts,
  deleteByNumber = false,
): number {
  const kept = commonSubsequence(old.keys, next.keys);
  // A `-D` by specification removes the first copy in the chain. Name a rule by number instead
  // when another copy may precede it: a repeated key, or one that NEW holds elsewhere (a moved
  // rule whose new copy may already be written further up).
  let byNumber: Set<string> | null = null;
  if (old.keys.length > 1 || next.keys.length > 0) {
    const seen = new Set<string>(next.keys);
    for (const key of old.keys) {
      if (seen.has(key)) {
        byNumber ??= new Set();
        byNumber.add(key);
      }
      seen.add(key);
    }
  }
  let pos = base;
  let len = length;
  let oi = 0;
  let nj = 0;
  for (let a = 0; a <= kept.length; a++) {
    const anchor = kept[a];
    const oEnd = anchor === undefined ? old.rules.length : anchor[0];
    const nEnd = anchor === undefined ? next.rules.length : anchor[1];
    const oGap = oEnd - oi;
    const nGap = nEnd - nj;
    for (let t = 0; t < oGap; t++) {
      const key = old.keys[oi + t] as string;
      const rule = old.rules[oi + t] as Rule;
      if (deleteByNumber || byNumber?.has(key) === true)
        out.push({ kind: "rule", op: "-D", chain, args: [], index: pos + 1 });
      else out.push({ kind: "rule", op: "-D", chain, args: rule.args });
      len--;
    }
    for (let t = 0; t < nGap; t++) {
      const rule = next.rules[nj + t] as Rule;
      if (pos === len) out.push({ kind: "rule", op: "-A", chain, args: rule.args });
      else out.push({ kind: "rule", op: "-I", chain, args: rule.args, index: pos + 1 });
      pos++;
      len++;
    }
    if (counts !== undefined) {
      counts.deleted += oGap;
      counts.inserted += nGap;
    }
    if (anchor === undefined) break;
    pos++;
    oi = oEnd + 1;
    nj = nEnd + 1;
  }
  return len;
}
