/**
 * IPv6 text as Go's `net.IP.String()` (and ipaddr.js's `toString`) print it: RFC 5952,
 * lower-case hex without leading zeros, the leftmost longest run of two or more zero groups as
 * `::`.
 *
 * @module
 */

/**
 * Where the leftmost longest run of two or more zero groups starts, or -1 (RFC 5952).
 *
 * @example
 * zeroRunStart(new Uint16Array([1, 0, 0, 2, 0, 0, 0, 3])) // 4
 */
export function zeroRunStart(g: Uint16Array): number {
  let bestStart = -1;
  let bestLength = 1; // a single zero group is not compressed
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    const start = i;
    while (i < 8 && g[i] === 0) i++;
    if (i - start > bestLength) {
      bestStart = start;
      bestLength = i - start;
    }
  }
  return bestStart;
}

/**
 * How many zero groups follow from `start` (the run `::` stands for).
 *
 * @example
 * zeroRunLength(new Uint16Array([1, 0, 0, 2, 0, 0, 0, 3]), 4) // 3
 */
export function zeroRunLength(g: Uint16Array, start: number): number {
  let i = start;
  while (i < 8 && g[i] === 0) i++;
  return i - start;
}

/**
 * Prints eight IPv6 groups in RFC 5952 form (IPv4-mapped addresses included: callers that print
 * those as IPv4, as Go does, check first).
 *
 * @example
 * formatIPv6Groups(new Uint16Array([0xfd00, 0, 0, 0, 0, 0, 0, 1])) // "fd00::1"
 */
export function formatIPv6Groups(g: Uint16Array): string {
  const run = zeroRunStart(g);
  const runEnd = run < 0 ? 0 : run + zeroRunLength(g, run);
  let out = "";
  for (let i = 0; i < 8; ) {
    if (i === run) {
      out += "::";
      i = runEnd;
      continue;
    }
    // No separator right after the `::`.
    if (i > 0 && i !== runEnd) out += ":";
    out += (g[i] ?? 0).toString(16);
    i++;
  }
  return out;
}
