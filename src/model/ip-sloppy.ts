/**
 * IP addresses and CIDRs read as kube-proxy reads them: k8s.io/utils `ParseIPSloppy` and
 * `ParseCIDRSloppy`, Go's parser from before Go 1.17. It reads leading zeros as decimal
 * (`010.001.002.003` is 10.1.2.3, not octal), takes any number of leading zeros in a number
 * (`0010.1.2.3`, `fd00::00001`, `10.0.0.0/008`), and keeps an IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`) as the IPv4 address it maps (Go's `To4`). Objects stored by API servers
 * before 1.31 hold such spellings, and the API server still accepts them in stored objects.
 * The address is then printed as Go's `net.IP.String()` prints it.
 *
 * Written for this project from the behaviour described; ipaddr.js cannot stand in for the
 * parser (its `parse` reads `010` as octal and accepts one- to three-part IPv4).
 *
 * @module
 */

import { formatIPv6Groups } from "./ip-format.js";

const DOT = 46;
const COLON = 58;
const ZERO = 48;
const NINE = 57;

/** Go's `net.IP` in 16-byte form: an IPv4 address is stored IPv4-mapped. */
export type IPBytes = Uint8Array;

function hexDigit(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * Reads dotted-decimal IPv4 from `text[start..]` to the end into `out[at..at+4)`: four numbers of
 * any number of decimal digits, each at most 255, separated by dots.
 */
function readIPv4(text: string, start: number, out: IPBytes, at: number): boolean {
  let i = start;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (text.charCodeAt(i) !== DOT) return false;
      i++;
    }
    const first = i;
    let value = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c < ZERO || c > NINE) break;
      value = value * 10 + (c - ZERO);
      if (value > 255) return false;
      i++;
    }
    if (i === first) return false;
    out[at + part] = value;
  }
  return i === text.length;
}

/** Sets `out` to the IPv4-mapped form of the IPv4 address written in `text`. */
function readIPv4Mapped(text: string, out: IPBytes): boolean {
  out.fill(0);
  out[10] = 0xff;
  out[11] = 0xff;
  return readIPv4(text, 0, out, 12);
}

/**
 * Reads IPv6 text into 16 bytes: groups of any number of hex digits worth at most 0xffff, one
 * `::` standing for at least one zero group, and a dotted IPv4 tail where its four bytes fit
 * (after a `::`, or as the last 32 bits).
 */
function readIPv6(text: string, out: IPBytes): boolean {
  out.fill(0);
  const end = text.length;
  let i = 0;
  let filled = 0; // bytes written so far
  let gap = -1; // where the `::` stands, in bytes
  if (end >= 2 && text.charCodeAt(0) === COLON && text.charCodeAt(1) === COLON) {
    gap = 0;
    i = 2;
    if (i === end) return true;
  }
  while (filled < 16) {
    const first = i;
    let value = 0;
    while (i < end) {
      const h = hexDigit(text.charCodeAt(i));
      if (h < 0) break;
      value = value * 16 + h;
      if (value > 0xffff) return false;
      i++;
    }
    if (i === first) return false;
    if (i < end && text.charCodeAt(i) === DOT) {
      // The group just read is the start of a dotted IPv4 tail, which ends the text.
      if ((gap < 0 && filled !== 12) || filled + 4 > 16) return false;
      if (!readIPv4(text, first, out, filled)) return false;
      filled += 4;
      i = end;
      break;
    }
    out[filled] = value >>> 8;
    out[filled + 1] = value & 0xff;
    filled += 2;
    if (i === end) break;
    // A group is followed by `:` and more text, or by `::`.
    if (text.charCodeAt(i) !== COLON || i + 1 === end) return false;
    i++;
    if (text.charCodeAt(i) === COLON) {
      if (gap >= 0) return false;
      gap = filled;
      i++;
      if (i === end) break;
    }
  }
  if (i !== end) return false;
  if (filled === 16) return gap < 0; // a `::` must stand for at least one group
  if (gap < 0) return false;
  // Move what follows the `::` to the end, zeros in between.
  const tail = filled - gap;
  for (let k = 1; k <= tail; k++) out[16 - k] = out[filled - k] ?? 0;
  for (let k = gap; k < 16 - tail; k++) out[k] = 0;
  return true;
}

/**
 * Parses an IP address as kube-proxy's `ParseIPSloppy` does (see the module notes): the text is
 * IPv4 when a `.` comes before any `:`, IPv6 when a `:` does.
 *
 * @returns 16 bytes (IPv4 as IPv4-mapped), or `null` when it is not an address
 * @example
 * formatIP(parseIPSloppy("010.001.002.003")!) // "10.1.2.3"
 * parseIPSloppy("fe80::1%eth0")               // null (no zones)
 */
export function parseIPSloppy(text: string): IPBytes | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT) {
      const out = new Uint8Array(16);
      return readIPv4Mapped(text, out) ? out : null;
    }
    if (c === COLON) {
      const out = new Uint8Array(16);
      return readIPv6(text, out) ? out : null;
    }
  }
  return null;
}

/**
 * Whether 16 bytes hold an IPv4 address (IPv4-mapped: Go's `To4() != nil`, and so kube-proxy's
 * IPv4 family).
 *
 * @example
 * isIPv4Bytes(parseIPSloppy("::ffff:10.0.0.1")!) // true
 * isIPv4Bytes(parseIPSloppy("::10.0.0.1")!)      // false (IPv4-compatible is IPv6)
 */
export function isIPv4Bytes(b: IPBytes): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/**
 * Prints 16 bytes as Go's `net.IP.String()`: dotted decimal for an IPv4(-mapped) address,
 * otherwise RFC 5952 IPv6 (lower-case hex, the leftmost longest run of two or more zero groups
 * as `::`).
 *
 * @example
 * formatIP(parseIPSloppy("::ffff:1.2.3.4")!) // "1.2.3.4"
 * formatIP(parseIPSloppy("FD00:0::01")!)     // "fd00::1"
 */
export function formatIP(b: IPBytes): string {
  if (isIPv4Bytes(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups = new Uint16Array(8);
  for (let g = 0; g < 8; g++) groups[g] = ((b[2 * g] ?? 0) << 8) | (b[2 * g + 1] ?? 0);
  return formatIPv6Groups(groups);
}

/** A CIDR as kube-proxy holds it after `ParseCIDRSloppy`: its network and how Go prints it. */
export interface SloppyCidr {
  /** The network address (host bits cleared), as Go prints it. */
  readonly network: string;
  /** The prefix length as Go prints it (an IPv4-mapped network counts IPv4 bits). */
  readonly prefix: number;
  /** The family kube-proxy assigns (`IPFamilyOfCIDR`: IPv4 when the network is IPv4-mapped). */
  readonly family: "IPv4" | "IPv6";
}

/**
 * Parses a CIDR as kube-proxy's `ParseCIDRSloppy` does and describes the network as Go's
 * `IPNet.String()` prints it: host bits cleared, leading zeros read as decimal (in the address
 * and in the prefix length), an IPv6 network that is IPv4-mapped printed as IPv4 with 96 fewer
 * prefix bits (`::ffff:10.0.0.0/104` is `10.0.0.0/8`).
 *
 * @returns the network, or `null` when the text is not a CIDR
 * @example
 * parseCIDRSloppy("203.0.113.000/025") // { network: "203.0.113.0", prefix: 25, family: "IPv4" }
 */
export function parseCIDRSloppy(text: string): SloppyCidr | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const address = text.slice(0, slash);
  const bytes = new Uint8Array(16);
  let bits: number;
  if (readIPv4Mapped(address, bytes)) bits = 32;
  else if (readIPv6(address, bytes)) bits = 128;
  else return null;
  let prefix = 0;
  const digits = text.length - slash - 1;
  if (digits === 0) return null;
  for (let i = slash + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < ZERO || c > NINE) return null;
    prefix = prefix * 10 + (c - ZERO);
    if (prefix > bits) return null;
  }
  // Clear the host bits, counting from the start of the 16 bytes (an IPv4 address sits in the
  // last four, after the 96-bit mapped prefix, which an IPv4 mask keeps).
  const keep = bits === 32 ? prefix + 96 : prefix;
  for (let i = 0; i < 16; i++) {
    const kept = Math.max(0, Math.min(8, keep - i * 8));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - kept)) & 0xff);
  }
  if (isIPv4Bytes(bytes)) return { network: formatIP(bytes), prefix: keep - 96, family: "IPv4" };
  return { network: formatIP(bytes), prefix, family: "IPv6" };
}
