/**
 * Exact probabilities. The statistic match stores `k = lround(p × 2^31)` and matches when
 * `get_random_u32() & 0x7FFFFFFF < k`, so each rule splits a path into shares k/2^31 and
 * (2^31 − k)/2^31 exactly; a path's probability is a product of such factors. Floating point
 * would lose the last digits that tell `0.33333333349` from one third, so we keep bigints.
 *
 * @module
 */

/**
 * An exact non-negative rational `numerator / denominator`, reduced.
 *
 * @example
 * const outcome = traceRules(generateState(model), packet).outcomes[0];
 * outcome?.probability // { numerator: 1n, denominator: 2n }: exact, from the kernel's fixed-point statistic
 */
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

/** log2 of a power of two, or -1 when `d` is not one. */
function log2Exact(d: bigint): number {
  if (d <= 0n || (d & (d - 1n)) !== 0n) return -1;
  return bitLength(d) - 1;
}

/** The number of bits of a positive bigint (hex printing is linear, unlike decimal). */
function bitLength(n: bigint): number {
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0] ?? "0", 16)));
}

/** The number of trailing zero bits of a positive bigint. */
function trailingZeros(n: bigint): number {
  if ((n & 0xffffffffn) !== 0n) return 31 - Math.clz32(Number(n & -n & 0xffffffffn));
  return bitLength(n & -n) - 1;
}

// Every probability the statistic match produces is dyadic (a power-of-two denominator): reduce
// those by shifting out common factors of two instead of a gcd, which on the 31·n-bit numbers
// of an n-endpoint chain would cost O(bits²) per step.
function reduce(numerator: bigint, denominator: bigint): Fraction {
  if (numerator === 0n) return ZERO;
  const e = log2Exact(denominator);
  if (e >= 0) {
    const z = Math.min(e, trailingZeros(numerator));
    if (z === 0) return { numerator, denominator };
    const shift = BigInt(z);
    return { numerator: numerator >> shift, denominator: denominator >> shift };
  }
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
  const ea = log2Exact(a.denominator);
  const eb = log2Exact(b.denominator);
  if (ea >= 0 && eb >= 0) {
    // Align on the larger power of two.
    if (ea >= eb) return reduce(a.numerator + (b.numerator << BigInt(ea - eb)), a.denominator);
    return reduce((a.numerator << BigInt(eb - ea)) + b.numerator, b.denominator);
  }
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
