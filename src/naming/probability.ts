/**
 * The load-balancing probability kube-proxy writes: Go's `%0.10f` of `1/n`.
 *
 * @module
 */

const cache: string[] = [];

/**
 * `1/n` with ten decimals, rounded as Go's `fmt` rounds: the exact binary value, ties to even.
 * JavaScript's `toFixed` rounds ties up; a tie needs `1/n` to be exact with eleven decimals, which
 * among integers happens only for n = 2048 (`0.00048828125`), but the check below is general.
 *
 * @example
 * probability(3)    // "0.3333333333"
 * probability(2048) // "0.0004882812"
 */
export function probability(n: number): string {
  const cached = cache[n];
  if (cached !== undefined) return cached;
  const value = 1 / n;
  let text = value.toFixed(10);
  // A power of two is the only n whose reciprocal is exact in binary; check it for a tie.
  if ((n & (n - 1)) === 0 && n > 1) text = roundHalfEven(value);
  if (n < 1_000_000) cache[n] = text;
  return text;
}

/** Exact decimal rounding of a power-of-two reciprocal, half to even. */
function roundHalfEven(value: number): string {
  const exact = exactDecimal(value); // "0.000488281250..." as digits after the point
  const digits = exact.padEnd(11, "0");
  let kept = BigInt(digits.slice(0, 10));
  const rest = digits.slice(10);
  const half = `5${"0".repeat(rest.length - 1)}`;
  if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
  const s = kept.toString().padStart(10, "0");
  return s.length > 10 ? `1.${s.slice(1)}` : `0.${s}`;
}

/** The fractional digits of a value in (0, 1] that is an exact binary fraction. */
function exactDecimal(value: number): string {
  if (value === 1) return "";
  // value = 1 / 2^k exactly; its decimal expansion is 5^k / 10^k.
  const k = Math.round(-Math.log2(value));
  return (5n ** BigInt(k)).toString().padStart(k, "0");
}
