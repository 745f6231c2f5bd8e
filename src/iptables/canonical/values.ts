/**
 * Small value parsers and printers shared by the canonicalizer's match and target modules:
 * iptables' string quoting, byte-length truncation, C-style integers, ports, and the statistic
 * match's fixed-point probability.
 *
 * @module
 */

import type { PortRange } from "../../ir/canonical-types.js";

export type { PortRange };

/**
 * Thrown by the canonicalizer's helpers; `argIndex` points into the rule's argv so the parser
 * can turn it into a column. Never escapes the package: `canonicalizeRule` wraps it.
 */
export class RuleSpecError extends Error {
  /** Index in the rule's argv of the offending argument (or -1 for the rule as a whole). */
  readonly argIndex: number;
  /** Builds the error. */
  constructor(message: string, argIndex: number) {
    super(message);
    this.name = "RuleSpecError";
    this.argIndex = argIndex;
  }
}

/**
 * Whether iptables-save prints `value` bare: non-empty and only `[A-Za-z0-9_-]` (spec §4.1).
 *
 * @example
 * isBareSaveString("a_b-c09") // true
 * isBareSaveString("ns/svc:p") // false
 */
export function isBareSaveString(value: string): boolean {
  const n = value.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    // 0-9, A-Z, a-z, '_' and '-'
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) {
      return false;
    }
  }
  return true;
}

const SAVE_ESCAPE = /["\\']/g;

/**
 * Prints a string the way iptables-save prints comments, log prefixes and nfacct names
 * (`xtables_save_string`, spec §4.1): bare when it is a plain word, otherwise in double quotes
 * with `"`, `\` and `'` escaped by a backslash.
 *
 * @example
 * saveString("ns1/svc1:p80") // '"ns1/svc1:p80"'
 * saveString("it's") // '"it\\\'s"'
 */
export function saveString(value: string): string {
  if (isBareSaveString(value)) return value;
  return `"${value.replace(SAVE_ESCAPE, "\\$&")}"`;
}

/**
 * Quotes a pass-through value only when it could not be read back as one argument (blank,
 * quote, backslash-quote, empty); otherwise prints it raw, as most extensions do.
 *
 * @example
 * rawOrQuoted("KUBE-X") // "KUBE-X"
 * rawOrQuoted("a b") // '"a b"'
 */
export function rawOrQuoted(value: string): string {
  if (value.length === 0) return '""';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 34) return saveString(value);
  }
  return value;
}

/**
 * Cuts `value` to at most `maxBytes` UTF-8 bytes, as the kernel's fixed-size fields do. A cut
 * inside a multibyte character keeps its first bytes there, which iptables-save prints as they
 * are and which read back as one U+FFFD: the string ends with that (a JS string cannot hold the
 * partial bytes themselves). Reading such a printed value again cuts it to the same string.
 *
 * @example
 * truncateBytes("abc", 2) // "ab"
 * truncateBytes("aé", 2) // "a\uFFFD"
 */
export function truncateBytes(value: string, maxBytes: number): string {
  // Fast path: every UTF-16 unit is at most 3 UTF-8 bytes.
  if (value.length * 3 <= maxBytes) return value;
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let size: number;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      size = 4; // a surrogate pair is one 4-byte character
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) return bytes < maxBytes ? `${value.slice(0, i)}\uFFFD` : value.slice(0, i);
    bytes += size;
    i += units - 1;
  }
  return value;
}

/** C's isspace in the C locale. */
function isCSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * Parses an unsigned integer as iptables' `xtables_strtoul` does (C's `strtoul(s, &end, base)`
 * over the whole string; base 0: `0x` hex, leading-`0` octal, otherwise decimal): blanks and
 * one `+` may lead, a `-` may not. Returns -1 when invalid or above `max`.
 *
 * @example
 * parseCUnsigned("0x4000", 0xffffffff) // 16384
 * parseCUnsigned("010", 255) // 8
 * parseCUnsigned("+80", 65535) // 80
 * parseCUnsigned("010", 255, 10) // 10
 */
export function parseCUnsigned(text: string, max: number, base0: 0 | 10 = 0): number {
  const n = text.length;
  let i = 0;
  while (i < n && isCSpace(text.charCodeAt(i))) i++;
  if (i < n && text.charCodeAt(i) === 43) i++;
  if (i === n) return -1;
  let base = 10;
  if (base0 === 0 && text.charCodeAt(i) === 48 && i + 1 < n) {
    const x = text.charCodeAt(i + 1) | 0x20;
    if (x === 120) {
      base = 16;
      i += 2;
      if (i === n) return -1;
    } else {
      base = 8;
      i += 1;
    }
  }
  let value = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (base === 16 && (c | 0x20) >= 97 && (c | 0x20) <= 102) d = (c | 0x20) - 87;
    else return -1;
    if (d >= base) return -1;
    value = value * base + d;
    if (value > max) return -1;
  }
  return value;
}

/**
 * Parses a plain decimal unsigned integer (no sign, no leading `0x`); -1 when invalid or above
 * `max`.
 *
 * @example
 * parseDecimal("10800", 0xffffffff) // 10800
 */
export function parseDecimal(text: string, max: number): number {
  const n = text.length;
  if (n === 0 || n > 20) return -1;
  let value = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    value = value * 10 + (c - 48);
  }
  return value > max ? -1 : value;
}

/** Prints a 32-bit value as iptables does: `0x` + lower-case hex, no padding. */
export function hex32(value: number): string {
  return `0x${(value >>> 0).toString(16)}`;
}

/** Well-known service names iptables resolves through /etc/services (tcp/udp). */
const SERVICES: ReadonlyMap<string, number> = new Map([
  ["ftp-data", 20],
  ["ftp", 21],
  ["ssh", 22],
  ["telnet", 23],
  ["smtp", 25],
  ["domain", 53],
  ["bootps", 67],
  ["bootpc", 68],
  ["tftp", 69],
  ["http", 80],
  ["www", 80],
  ["pop3", 110],
  ["ntp", 123],
  ["imap", 143],
  ["imap2", 143],
  ["snmp", 161],
  ["ldap", 389],
  ["https", 443],
  ["syslog", 514],
  ["ldaps", 636],
  ["imaps", 993],
  ["pop3s", 995],
  ["mysql", 3306],
  ["postgresql", 5432],
]);

/**
 * Parses one port as tcp, sctp and multiport do: a number (C base 0) or, when `named`, a
 * service name (iptables looks names up for the rule's protocol: tcp and udp have them, sctp,
 * udplite and dccp none in /etc/services). Returns -1 when invalid.
 *
 * @example
 * parsePort("http") // 80
 * parsePort("010") // 8
 * parsePort("http", false) // -1
 */
export function parsePort(text: string, named = true): number {
  const n = parseCUnsigned(text, 65535);
  return n >= 0 ? n : named ? (SERVICES.get(text) ?? -1) : -1;
}

const TWO64 = 1n << 64n;

/**
 * Parses one port as getaddrinfo reads a service (udp's and conntrack's ports, through
 * `xtables_getportbyname`): `strtoul(s, &end, 10)` over the whole text (blanks, `+` and `-`
 * lead), taken as a C int that must not be negative, of which the port keeps the low 16 bits
 * (`65536` is 0); else a service name. Returns -1 when invalid.
 *
 * @example
 * parseServicePort("70000") // 4464
 * parseServicePort("010") // 10
 * parseServicePort("0x50") // -1
 */
export function parseServicePort(text: string): number {
  const n = text.length;
  let i = 0;
  while (i < n && isCSpace(text.charCodeAt(i))) i++;
  let negative = false;
  const sign = text.charCodeAt(i);
  if (sign === 43 || sign === 45) {
    negative = sign === 45;
    i++;
  }
  if (i === n) return SERVICES.get(text) ?? -1;
  for (let k = i; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return SERVICES.get(text) ?? -1;
  }
  let v = BigInt(text.slice(i));
  if (v >= TWO64) v = TWO64 - 1n;
  else if (negative) v = (TWO64 - v) % TWO64;
  const asInt = Number(BigInt.asIntN(32, v));
  return asInt < 0 ? -1 : asInt & 0xffff;
}

/**
 * Parses `P`, `P:Q`, `P:` or `:Q` as tcp, sctp and multiport do; throws {@link RuleSpecError}.
 *
 * @example
 * parsePortRange("1000:", 3) // { min: 1000, max: 65535 }
 */
export function parsePortRange(text: string, argIndex: number, named = true): PortRange {
  const colon = text.indexOf(":");
  if (colon < 0) {
    const p = parsePort(text, named);
    if (p < 0) throw new RuleSpecError(`invalid port/service \`${text}' specified`, argIndex);
    return { min: p, max: p };
  }
  const lo = colon === 0 ? 0 : parsePort(text.slice(0, colon), named);
  const hi = colon === text.length - 1 ? 65535 : parsePort(text.slice(colon + 1), named);
  if (lo < 0 || hi < 0) throw new RuleSpecError(`invalid port/service \`${text}' specified`, argIndex);
  if (lo > hi) throw new RuleSpecError("invalid portrange (min > max)", argIndex);
  return { min: lo, max: hi };
}

/**
 * Parses a port range as iptables' guided parser does (udp's `--dport`, conntrack's ports):
 * at most two `:`-separated parts read by {@link parseServicePort}, an empty one left at its
 * default (0 and 65535; a lone empty value is 0), `min > max` taken as given.
 *
 * @example
 * parseGuidedPortRange("70000:70001", "udp", "--destination-port", 3) // { min: 4464, max: 4465 }
 */
export function parseGuidedPortRange(
  text: string,
  owner: string,
  option: string,
  argIndex: number,
): PortRange {
  const parts = text.split(":");
  if (parts.length > 2) {
    throw new RuleSpecError(`${owner}: Too many components for option "${option}" (max: 2)`, argIndex);
  }
  const values = [0, 65535];
  parts.forEach((part, k) => {
    if (part.length === 0) return;
    const p = parseServicePort(part);
    if (p < 0) throw new RuleSpecError(`Port "${part}" does not resolve to anything`, argIndex);
    values[k] = p;
  });
  const min = values[0] as number;
  return { min, max: parts.length === 1 ? min : (values[1] as number) };
}

/** Prints a port range as iptables-save does: `P` or `P:Q`. */
export function formatPortRange(range: PortRange): string {
  return range.min === range.max ? String(range.min) : `${range.min}:${range.max}`;
}

const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?$/;
const TWO31 = 2147483648;

/** Reads a C `strtod` number (decimal or hex float); NaN when `strtod` would not consume it all. */
function strtod(text: string): number {
  if (DECIMAL_FLOAT.test(text)) return Number(text);
  const m = HEX_FLOAT.exec(text);
  if (m === null) return Number.NaN;
  const intPart = m[2] ?? "";
  const fracPart = m[3] ?? "";
  if (intPart.length + fracPart.length === 0) return Number.NaN;
  let value = 0;
  for (const ch of intPart + fracPart) value = value * 16 + Number.parseInt(ch, 16);
  value *= 2 ** (Number(m[4] ?? "0") - 4 * fracPart.length);
  return m[1] === "-" ? -value : value;
}

/**
 * The statistic match's stored value `k = lround(p × 2^31)` for a `--probability` string
 * (spec §6.2); -1 when the string is not a number in [0, 1].
 *
 * @example
 * probabilityToStored("0.5") // 1073741824
 * probabilityToStored("1.5") // -1
 */
export function probabilityToStored(text: string): number {
  const p = strtod(text);
  if (!(p >= 0 && p <= 1)) return -1;
  const x = p * TWO31; // exact: scaling by a power of two
  let k = Math.floor(x);
  if (x - k >= 0.5) k += 1; // lround: ties away from zero
  return k === 0 ? 0 : k; // never -0 (from "-0")
}

const savedProbabilities = new Map<number, string>();

/**
 * Prints a stored probability `k` as iptables-save does: `k / 2^31` with `%.11f`, exact binary
 * value rounded half-to-even (spec §6.2). Memoized: a rule set uses few distinct values.
 *
 * @example
 * probabilityToText(715827883) // "0.33333333349"
 * probabilityToText(524288) // "0.00024414062"
 */
export function probabilityToText(k: number): string {
  let text = savedProbabilities.get(k);
  if (text === undefined) {
    const D = 2147483648n;
    const num = BigInt(k) * 100_000_000_000n;
    let q = num / D;
    const twiceRem = (num % D) * 2n;
    if (twiceRem > D || (twiceRem === D && (q & 1n) === 1n)) q += 1n;
    const s = q.toString().padStart(12, "0");
    text = `${s.slice(0, -11)}.${s.slice(-11)}`;
    savedProbabilities.set(k, text);
  }
  return text;
}
