/**
 * Exact probabilities. The statistic match stores `k = lround(p × 2^31)` and matches when
 * `get_random_u32() & 0x7FFFFFFF < k`, so each rule splits a path into shares k/2^31 and
 * (2^31 − k)/2^31 exactly; a path's probability is a product of such factors. Floating point
 * would lose the last digits that tell `0.33333333349` from one third, so we keep bigints.
 *
 * @module
 */

/** An exact non-negative rational `numerator / denominator`, reduced. */
export interface Fraction {
  /** The numerator. */
  readonly numerator: bigint;
  /** The denominator (positive). */
  readonly denominator: bigint;
}

/** 2^31: the statistic match's fixed-point scale. */
export const STATISTIC_SCALE = 2147483648n;

/** The probability 1. */
export const ONE: Fraction = { numerator: 1n, denominator: 1n };

/** The probability 0. */
export const ZERO: Fraction = { numerator: 0n, denominator: 1n };

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

function reduce(numerator: bigint, denominator: bigint): Fraction {
  if (numerator === 0n) return ZERO;
  const g = gcd(numerator, denominator);
  return g === 1n ? { numerator, denominator } : { numerator: numerator / g, denominator: denominator / g };
}

/**
 * The fraction `numerator / denominator`, reduced.
 *
 * @example
 * fraction(2n, 4n) // { numerator: 1n, denominator: 2n }
 */
export function fraction(numerator: bigint, denominator: bigint): Fraction {
  return reduce(numerator, denominator);
}

/**
 * The product of two fractions.
 *
 * @example
 * multiply(fraction(1n, 2n), fraction(2n, 3n)) // { numerator: 1n, denominator: 3n }
 */
export function multiply(a: Fraction, b: Fraction): Fraction {
  return reduce(a.numerator * b.numerator, a.denominator * b.denominator);
}

/**
 * The sum of two fractions.
 *
 * @example
 * add(fraction(1n, 3n), fraction(2n, 3n)) // { numerator: 1n, denominator: 1n }
 */
export function add(a: Fraction, b: Fraction): Fraction {
  return reduce(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator);
}

/**
 * Whether two fractions are equal (both are kept reduced).
 *
 * @example
 * equals(fraction(2n, 4n), fraction(1n, 2n)) // true
 */
export function equals(a: Fraction, b: Fraction): boolean {
  return a.numerator === b.numerator && a.denominator === b.denominator;
}

/**
 * The share of packets a statistic match with stored value `k` lets through (`matched`) or
 * passes on (`!matched`): k/2^31 or (2^31 − k)/2^31. A negated match swaps the two.
 *
 * @example
 * statisticShare(1073741824, true) // { numerator: 1n, denominator: 2n }
 */
export function statisticShare(k: number, matched: boolean): Fraction {
  const kk = BigInt(k);
  return reduce(matched ? kk : STATISTIC_SCALE - kk, STATISTIC_SCALE);
}

/**
 * Prints a fraction as a decimal with `digits` decimals, rounded half up.
 *
 * @example
 * formatFraction(fraction(1n, 3n)) // "0.333333333"
 * formatFraction(fraction(715827883n, 2147483648n)) // "0.333333333"
 */
export function formatFraction(f: Fraction, digits = 9): string {
  const scale = 10n ** BigInt(digits);
  const scaled = f.numerator * scale;
  let q = scaled / f.denominator;
  if ((scaled % f.denominator) * 2n >= f.denominator) q += 1n;
  const s = q.toString().padStart(digits + 1, "0");
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}
