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

/** A UTF-16 surrogate, or a code unit that sorts after one (where code units and bytes disagree). */
const SURROGATE_OR_ABOVE = /[\uD800-\uFFFF]/;

/**
 * Sorts chain names in place, as `names.sort(compareChainNames)` would. Without a comparator
 * the engine sorts by UTF-16 code units, natively and several times faster than through a
 * JavaScript comparator; that order is UTF-8 byte order unless a surrogate decides, so names
 * with one (or with a code unit above them) take the comparator.
 *
 * @param names - The names; reordered in place.
 * @returns `names`.
 * @example
 * sortChainNames(["KUBE-SVC-B", "KUBE-SVC-A_", "KUBE-SVC-AB"]) // ["KUBE-SVC-AB", "KUBE-SVC-A_", "KUBE-SVC-B"]
 */
export function sortChainNames(names: string[]): string[] {
  for (let i = 0; i < names.length; i++)
    if (SURROGATE_OR_ABOVE.test(names[i] as string)) return names.sort(compareChainNames);
  return names.sort();
}
