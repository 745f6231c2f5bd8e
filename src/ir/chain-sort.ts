/**
 * Sorting chain names into `iptables-save`'s order (byte-wise strcmp) for a 10k-service
 * state's ~110,000 chains.
 *
 * @module
 */

/**
 * Byte-wise `strcmp` of two chain names (UTF-8 byte order equals code point order).
 *
 * @example
 * compareChainNames("KUBE-SVC-A-", "KUBE-SVC-AB") // negative
 */
export function compareChainNames(a: string, b: string): number {
  // Sorting ~110,000 chain names runs this ~2 million times: compare UTF-16 code units, which
  // agree with code point order unless a surrogate decides; only then walk by code points.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    return compareCodePoints(a, b);
  }
  return a.length - b.length;
}

function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** A UTF-16 surrogate, or a code unit that sorts after one (where code units and bytes disagree); names with one take the comparator. */
const SURROGATE_OR_ABOVE = /[\uD800-\uFFFF]/;

/**
 * Sorts chain names in place, as `names.sort(compareChainNames)` would.
 *
 * @param names - The names; reordered in place.
 * @returns `names`.
 * @example
 * sortChainNames(["KUBE-SVC-B", "KUBE-SVC-A_", "KUBE-SVC-AB"]) // ["KUBE-SVC-AB", "KUBE-SVC-A_", "KUBE-SVC-B"]
 */
export function sortChainNames(names: string[]): string[] {
  if (hasSurrogateOrAbove(names)) return names.sort(compareChainNames);
  if (!sortByHashKeys(names, null)) sortRange(names, null, 0, names.length, 0);
  return names;
}

/**
 * Sorts items by their chain names, in place, as {@link sortChainNames} sorts the names:
 * `names[i]` is the name of `items[i]`, and both arrays are reordered together.
 *
 * @example
 * const items = [{ n: "B" }, { n: "A" }];
 * sortByChainName(items.map((i) => i.n), items) // items: [{ n: "A" }, { n: "B" }]
 */
export function sortByChainName<T>(names: string[], items: T[]): T[] {
  if (hasSurrogateOrAbove(names)) {
    const order = names.map((_, i) => i);
    order.sort((a, b) => compareChainNames(names[a] as string, names[b] as string));
    const sortedNames = order.map((i) => names[i] as string);
    const sortedItems = order.map((i) => items[i] as T);
    for (let i = 0; i < order.length; i++) {
      names[i] = sortedNames[i] as string;
      items[i] = sortedItems[i] as T;
    }
    return items;
  }
  if (!sortByHashKeys(names, items)) sortRange(names, items, 0, names.length, 0);
  return items;
}

function hasSurrogateOrAbove(names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (SURROGATE_OR_ABOVE.test(names[i] as string)) return true;
  return false;
}

/** Below this many names a range is finished by insertion sort. */
const SMALL = 16;

/** The code unit of `name` at `depth`, or -1 past its end (a prefix sorts first). */
function unitAt(name: string, depth: number): number {
  return depth < name.length ? name.charCodeAt(depth) : -1;
}

function swap(names: string[], items: unknown[] | null, i: number, j: number): void {
  const n = names[i] as string;
  names[i] = names[j] as string;
  names[j] = n;
  if (items !== null) {
    const t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
}

/**
 * Sorts `names[lo, hi)`, which agree on their first `depth` code units, by three-way radix
 * quicksort: partition on one code unit, recurse on the smaller and larger parts, go one unit
 * deeper on the equal part. Chain names share long prefixes (`KUBE-SEP-`) and then differ in
 * random hash characters, so this reads each unit about once where comparison sorting compares
 * the shared prefix again at every one of ~20 comparisons per name. Without surrogates, code
 * unit order is byte order.
 */
function sortRange(names: string[], items: unknown[] | null, lo: number, hi: number, depth: number): void {
  while (hi - lo > SMALL) {
    // Median of three units as the pivot: sorted and reversed input stay balanced.
    const a = unitAt(names[lo] as string, depth);
    const b = unitAt(names[(lo + hi) >>> 1] as string, depth);
    const c = unitAt(names[hi - 1] as string, depth);
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    let lt = lo;
    let gt = hi - 1;
    let i = lo;
    while (i <= gt) {
      const unit = unitAt(names[i] as string, depth);
      if (unit < pivot) swap(names, items, lt++, i++);
      else if (unit > pivot) swap(names, items, i, gt--);
      else i++;
    }
    sortRange(names, items, lo, lt, depth);
    sortRange(names, items, gt + 1, hi, depth);
    // The equal part: names that all ended here are equal; otherwise one unit deeper.
    if (pivot < 0) return;
    lo = lt;
    hi = gt + 1;
    depth++;
  }
  for (let i = lo + 1; i < hi; i++) {
    for (let j = i; j > lo && (names[j] as string) < (names[j - 1] as string); j--)
      swap(names, items, j, j - 1);
  }
}

/** The length of a hashed name's tail (kube-proxy's 16 base32 characters of a SHA-256). */
const HASH_LENGTH = 16;
/** How many tail characters a key holds: 6 × 5 bits, beside 3 bits of prefix and 20 of index. */
const KEY_CHARS = 6;
/** At most this many distinct prefixes get a rank (3 bits); names with others sort as the rest. */
const MAX_PREFIXES = 8;
const INDEX_BITS = 2 ** 20;
const PREFIX_BITS = 2 ** 30 * INDEX_BITS;
/** Below this many hashed names the radix quicksort alone is as fast. */
const MIN_HASHED = 256;

/** Each code unit's rank in the base32 alphabet in code unit order (`2`–`7`, then `A`–`Z`), or -1. */
const BASE32_RANK = (() => {
  const rank = new Int8Array(128).fill(-1);
  const alphabet = "234567ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (let i = 0; i < alphabet.length; i++) rank[alphabet.charCodeAt(i)] = i;
  return rank;
})();

/**
 * The index in `prefixes` of `name`'s prefix when `name` is a hashed name (any prefix, then 16
 * base32 characters), adding the prefix while there is room; -1 for any other name.
 */
function hashedPrefixIndex(name: string, prefixes: string[]): number {
  const start = name.length - HASH_LENGTH;
  if (start < 0) return -1;
  for (let i = start; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || (BASE32_RANK[c] as number) < 0) return -1;
  }
  for (let p = 0; p < prefixes.length; p++) {
    const prefix = prefixes[p] as string;
    if (prefix.length === start && name.startsWith(prefix)) return p;
  }
  if (prefixes.length === MAX_PREFIXES) return -1;
  prefixes.push(name.slice(0, start));
  return prefixes.length - 1;
}

/**
 * Sorts by numbers where it can: a state's chains are nearly all hashed names (kube-proxy's
 * `KUBE-SEP-` and a few other prefixes, then 16 base32 characters), whose order is that of their
 * prefix and then their tail, as long as no prefix begins another. Each gets a number, exact in a
 * double: prefix rank, its first six tail characters and its index, and a typed array sorts those
 * natively, which costs a fraction of any sort in JavaScript and, above all, needs no JIT warm-up
 * in a fresh process. Names whose six characters tie are ordered by their whole text; the other
 * names (fixed and foreign chains) take the radix quicksort and are merged in.
 *
 * @returns false, doing nothing, when there are too few hashed names, too many names, or a
 *   prefix that begins another.
 */
function sortByHashKeys(names: string[], items: unknown[] | null): boolean {
  const n = names.length;
  if (n < MIN_HASHED || n >= INDEX_BITS) return false;
  const keys = new Float64Array(n);
  const prefixes: string[] = [];
  let hashed = 0;
  const otherNames: string[] = [];
  const otherItems: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const name = names[i] as string;
    const prefix = hashedPrefixIndex(name, prefixes);
    if (prefix < 0) {
      otherNames.push(name);
      if (items !== null) otherItems.push(items[i]);
      continue;
    }
    const start = name.length - HASH_LENGTH;
    let key = prefix;
    for (let k = 0; k < KEY_CHARS; k++) key = key * 32 + (BASE32_RANK[name.charCodeAt(start + k)] as number);
    keys[hashed++] = key * INDEX_BITS + i;
  }
  if (hashed < MIN_HASHED || !rankPrefixes(prefixes, keys.subarray(0, hashed))) return false;
  const order = keys.subarray(0, hashed).sort();
  // Index order, hashed names only; runs whose keys tie on the name part are ordered by text.
  const at = new Int32Array(hashed);
  for (let j = 0; j < hashed; j++) at[j] = (order[j] as number) % INDEX_BITS;
  for (let j = 0; j < hashed; ) {
    const part = Math.floor((order[j] as number) / INDEX_BITS);
    let end = j + 1;
    while (end < hashed && Math.floor((order[end] as number) / INDEX_BITS) === part) end++;
    if (end - j > 1) sortIndexRun(names, at, j, end);
    j = end;
  }
  sortRange(otherNames, items === null ? null : otherItems, 0, otherNames.length, 0);
  mergeInto(names, items, at, otherNames, otherItems);
  return true;
}

/**
 * Replaces each key's prefix number (order of first appearance) by the prefix's rank in sort
 * order. Returns false when one prefix begins another: names would then not sort by prefix.
 */
function rankPrefixes(prefixes: readonly string[], keys: Float64Array): boolean {
  const sorted = [...prefixes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // A prefix that begins others sorts right before the first of them.
  for (let p = 1; p < sorted.length; p++)
    if ((sorted[p] as string).startsWith(sorted[p - 1] as string)) return false;
  const shift = prefixes.map((prefix, p) => sorted.indexOf(prefix) - p);
  if (shift.every((d) => d === 0)) return true;
  for (let j = 0; j < keys.length; j++) {
    const key = keys[j] as number;
    keys[j] = key + (shift[Math.floor(key / PREFIX_BITS)] as number) * PREFIX_BITS;
  }
  return true;
}

/** Insertion sort of `at[lo, hi)` by the names the indexes point at (a tie run: a few at most). */
function sortIndexRun(names: readonly string[], at: Int32Array, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = at[i] as number;
    const name = names[v] as string;
    let j = i - 1;
    while (j >= lo && name < (names[at[j] as number] as string)) {
      at[j + 1] = at[j] as number;
      j--;
    }
    at[j + 1] = v;
  }
}

/**
 * Writes into `names` (and `items`) the merge of the hashed names, in the order `at` gives by
 * index, and the other names, sorted.
 */
function mergeInto(
  names: string[],
  items: unknown[] | null,
  at: Int32Array,
  otherNames: readonly string[],
  otherItems: readonly unknown[],
): void {
  const hashedNames = new Array<string>(at.length);
  const hashedItems = items === null ? null : new Array<unknown>(at.length);
  for (let j = 0; j < at.length; j++) {
    const i = at[j] as number;
    hashedNames[j] = names[i] as string;
    if (hashedItems !== null && items !== null) hashedItems[j] = items[i];
  }
  // The other names are few (fixed and foreign chains): each finds its place among the hashed
  // ones by binary search, and the hashed ones are copied between without comparing them.
  let a = 0;
  let out = 0;
  for (let b = 0; b < otherNames.length; b++) {
    const other = otherNames[b] as string;
    // The first hashed name after `other` (equal names cannot be in both lists).
    let lo = a;
    let hi = hashedNames.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((hashedNames[mid] as string) < other) lo = mid + 1;
      else hi = mid;
    }
    for (; a < lo; a++, out++) {
      names[out] = hashedNames[a] as string;
      if (items !== null && hashedItems !== null) items[out] = hashedItems[a];
    }
    names[out] = other;
    if (items !== null) items[out] = otherItems[b];
    out++;
  }
  for (; a < hashedNames.length; a++, out++) {
    names[out] = hashedNames[a] as string;
    if (items !== null && hashedItems !== null) items[out] = hashedItems[a];
  }
}
