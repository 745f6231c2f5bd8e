/**
 * How kube-proxy spells its masquerade mark in rules.
 *
 * @module
 */

/**
 * `fmt.Sprintf("%#08x", 1 << bit)`: Go pads the digits to eight, then adds `0x`.
 *
 * @example
 * masqueradeMark(14)        // "0x00004000"
 * masqueradeMark(14, false) // "0x4000" (what upstream unit tests inject)
 */
export function masqueradeMark(bit: number, padded = true): string {
  const hex = ((1 << bit) >>> 0).toString(16);
  return `0x${padded ? hex.padStart(8, "0") : hex}`;
}
