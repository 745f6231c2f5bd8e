/**
 * IP address and CIDR handling as kube-proxy does it: sloppy parsing (legacy leading zeros read
 * as decimal, IPv4-mapped IPv6 read as IPv4: see `ip-sloppy.ts`), printing as Go prints a parsed
 * address (IPv4 dotted decimal, IPv6 compressed), network addresses of CIDRs.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import { formatIPv6Groups, zeroRunLength, zeroRunStart } from "./ip-format.js";
import { isMapped, scanIPv4, scanIPv6 } from "./ip-scan.js";
import { formatIP, parseCIDRSloppy, parseIPSloppy } from "./ip-sloppy.js";
import type { IPFamily } from "./types.js";

/** Scratch space for IPv6 groups (the scanner is synchronous, so one buffer is enough). */
const groups = new Uint16Array(8);

const COLON = 58;

/**
 * Whether `text`, scanned into `g`, is already what Go's `net.IP.String()` would print: then it is
 * its own canonical form, and no new string is made (most IPv6 input is written canonically).
 */
export function isCanonicalIPv6(text: string, g: Uint16Array): boolean {
  if (isMapped(g)) return false;
  const run = zeroRunStart(g);
  const runEnd = run < 0 ? 0 : run + zeroRunLength(g, run);
  let pos = 0;
  for (let i = 0; i < 8; ) {
    if (i === run) {
      if (text.charCodeAt(pos) !== COLON || text.charCodeAt(pos + 1) !== COLON) return false;
      pos += 2;
      i = runEnd;
      continue;
    }
    if (i > 0 && i !== runEnd) {
      if (text.charCodeAt(pos) !== COLON) return false;
      pos++;
    }
    // The group's lower-case hex digits, without leading zeros.
    const v = g[i] ?? 0;
    for (let shift = v >= 0x1000 ? 12 : v >= 0x100 ? 8 : v >= 0x10 ? 4 : 0; shift >= 0; shift -= 4) {
      const digit = (v >>> shift) & 15;
      if (text.charCodeAt(pos++) !== (digit < 10 ? 48 + digit : 87 + digit)) return false;
    }
    i++;
  }
  return pos === text.length;
}

/**
 * The text kube-proxy writes for an IP address (Go's `ParseIPSloppy(text).String()`), or `null`
 * when it is not one.
 *
 * Strict forms (nearly all input) are handled without allocating: IPv4 without leading zeros is
 * already in that form, and so is IPv6 written canonically. The rest (leading zeros, IPv4-mapped
 * IPv6, upper case, uncompressed IPv6) goes through the sloppy parser.
 *
 * @example
 * canonicalIP("172.30.0.041")    // "172.30.0.41"
 * canonicalIP("FD00:0::1")       // "fd00::1"
 * canonicalIP("::ffff:10.0.0.1") // "10.0.0.1"
 */
export function canonicalIP(text: string): string | null {
  if (scanIPv4(text, 0, text.length) >= 0) return text;
  if (scanIPv6(text, groups)) {
    if (isCanonicalIPv6(text, groups)) return text;
    if (!isMapped(groups)) return formatIPv6Groups(groups);
  }
  const bytes = parseIPSloppy(text);
  return bytes === null ? null : formatIP(bytes);
}

/**
 * The family of an address in canonical text (no parsing: a colon means IPv6).
 *
 * @example
 * familyOf("fd00::1") // "IPv6"
 */
export function familyOf(canonical: string): IPFamily {
  return canonical.includes(":") ? "IPv6" : "IPv4";
}

/** A parsed CIDR: its network address (host bits cleared) and prefix length. */
export interface Cidr {
  /** Network address, canonical. */
  readonly network: string;
  /** Prefix length. */
  readonly prefix: number;
  /** The family. */
  readonly family: IPFamily;
  /** `network/prefix`. */
  readonly text: string;
}

/**
 * Parses a CIDR as kube-proxy does (`ParseCIDRSloppy`, then `IPNet.String()`: see
 * `parseCIDRSloppy`): host bits cleared, leading zeros read as decimal, an IPv4-mapped network
 * read as IPv4. Returns `null` when it is not a CIDR.
 *
 * @example
 * parseCidr("10.0.0.1/24")?.text        // "10.0.0.0/24"
 * parseCidr("010.000.000.000/008")?.text // "10.0.0.0/8"
 */
export function parseCidr(text: string): Cidr | null {
  const cidr = parseCIDRSloppy(text);
  if (cidr === null) return null;
  const { network, prefix, family } = cidr;
  return { network, prefix, family, text: `${network}/${prefix}` };
}

/**
 * Whether a CIDR contains an address (canonical text of the same family).
 *
 * @example
 * cidrContains(parseCidr("10.0.0.0/8")!, "10.1.2.3") // true
 */
export function cidrContains(cidr: Cidr, ip: string): boolean {
  if (familyOf(ip) !== cidr.family) return false;
  const addr = ipaddr.parse(ip);
  const net = ipaddr.parse(cidr.network);
  return addr.kind() === net.kind() && (addr as ipaddr.IPv4).match(net as ipaddr.IPv4, cidr.prefix);
}

/**
 * Whether a source range (a canonical CIDR) contains an address.
 *
 * @example
 * rangeContains("192.168.0.0/24", "192.168.0.2") // true
 */
export function rangeContains(range: string, ip: string): boolean {
  const cidr = parseCidr(range);
  return cidr !== null && cidrContains(cidr, ip);
}

/**
 * `ip:port`, with brackets for IPv6 (Go's `JoinHostPort`).
 *
 * @example
 * joinHostPort("fd00::1", 80) // "[fd00::1]:80"
 */
export function joinHostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}
