/**
 * Which plain YAML scalars are numbers, as kubectl reads them. kubectl turns YAML into JSON with
 * sigs.k8s.io/yaml, which parses with go-yaml v2: YAML 1.1 booleans (`yes`, `no`, `on`, `off`,
 * `y`, `n`), and numbers as Go's `strconv` reads them once every `_` is removed (`resolve.go`):
 *
 * - an integer in Go's base-prefix syntax: `0x50` and `0X50` (hex), `0120` (octal), `0o120`,
 *   `0b1010000`, `+80`, `-0x10`, `1_000` (int64; without a sign, also larger);
 * - else a float of the form `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (so `08` is 8
 *   and `80.0` is 80); `.inf`, `-.inf`, `.nan` in their three spellings;
 * - everything else is a string: no sexagesimal (`1:20`), no timestamps (`2024-01-02` stays
 *   text when read into JSON), no hex floats, no float out of range (`1e400`).
 *
 * Unlike YAML 1.2, where `0120` is 120; unlike the YAML 1.1 schema of the `yaml` package, which
 * reads `1:20` as 80 and `2024-01-02` as a date.
 *
 * @module
 */

const GO_INT = /^([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[bB]([01]+)|0[oO]([0-7]+)|(0[0-7]*)|([1-9][0-9]*))$/;
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const SPECIAL: ReadonlyMap<string, number> = new Map([
  [".nan", Number.NaN],
  [".NaN", Number.NaN],
  [".NAN", Number.NaN],
  [".inf", Number.POSITIVE_INFINITY],
  [".Inf", Number.POSITIVE_INFINITY],
  [".INF", Number.POSITIVE_INFINITY],
  ["+.inf", Number.POSITIVE_INFINITY],
  ["+.Inf", Number.POSITIVE_INFINITY],
  ["+.INF", Number.POSITIVE_INFINITY],
  ["-.inf", Number.NEGATIVE_INFINITY],
  ["-.Inf", Number.NEGATIVE_INFINITY],
  ["-.INF", Number.NEGATIVE_INFINITY],
]);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** A plain scalar's first character that makes go-yaml try it as a number. */
export const NUMBER_START: RegExp = /^[-+.0-9]/;

/** Go's `strconv.ParseInt(text, 0, 64)`, then `ParseUint` and `big.Int` (no sign): the value, or undefined. */
function goInteger(text: string): number | undefined {
  const m = GO_INT.exec(text);
  if (m === null) return undefined;
  const [, sign, hex, bin, oct, zeroOct, dec] = m;
  const value =
    hex !== undefined
      ? BigInt(`0x${hex}`)
      : bin !== undefined
        ? BigInt(`0b${bin}`)
        : oct !== undefined
          ? BigInt(`0o${oct}`)
          : zeroOct !== undefined
            ? BigInt(zeroOct.length > 1 ? `0o${zeroOct.slice(1)}` : "0")
            : BigInt(dec as string);
  const fits =
    sign === "-" ? value <= INT64_MAX + 1n : value <= INT64_MAX || (sign === "" && value <= UINT64_MAX);
  // Past 64 bits, sigs.k8s.io/yaml's go-yaml keeps an unsigned integer as a big one; a signed
  // one is a float when decimal (below), else text.
  if (!fits) return sign === "" ? Number(value) : undefined;
  return sign === "-" && value !== 0n ? -Number(value) : Number(value);
}

/**
 * The number a plain (unquoted, untagged) YAML scalar is for kubectl, or `undefined` when it is
 * text (see the module's description).
 *
 * @example
 * goYamlNumber("0120")  // 80
 * goYamlNumber("0x50")  // 80
 * goYamlNumber("1_000") // 1000
 * goYamlNumber("08")    // 8
 * goYamlNumber("1:20")  // undefined
 */
export function goYamlNumber(text: string): number | undefined {
  const special = SPECIAL.get(text);
  if (special !== undefined) return special;
  const first = text.charCodeAt(0);
  if (first === 46 /* . */) return DOT_FLOAT.test(text) ? Number(text) : undefined;
  if (!NUMBER_START.test(text)) return undefined;
  const plain = text.replaceAll("_", "");
  const integer = goInteger(plain);
  if (integer !== undefined) return integer;
  if (!YAML_STYLE_FLOAT.test(plain)) return undefined;
  const float = Number(plain);
  // Go's ParseFloat refuses a value out of range; go-yaml then keeps the text.
  return Number.isFinite(float) ? float : undefined;
}
