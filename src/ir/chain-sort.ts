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
  sortRange(names, null, 0, names.length, 0);
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
  sortRange(names, items, 0, names.length, 0);
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
