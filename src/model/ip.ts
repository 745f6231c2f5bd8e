/**
 * IP address and CIDR handling as kube-proxy does it: lenient parsing (legacy leading zeros),
 * canonical printing (IPv4 dotted decimal, IPv6 compressed), network addresses of CIDRs.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import { isMapped, scanIPv4, scanIPv6 } from "./ip-scan.js";
import type { IPFamily } from "./types.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const IPV4_LENIENT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Scratch space for IPv6 groups (the scanner is synchronous, so one buffer is enough). */
const groups = new Uint16Array(8);

/** Parses an IPv4 address in four-part decimal, leading zeros read as decimal (Go's legacy parser). */
function parseIPv4Lenient(text: string): ipaddr.IPv4 | null {
  const m = IPV4_LENIENT.exec(text);
  if (m === null) return null;
  const octets = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  if (octets.some((o) => o > 255)) return null;
  return new ipaddr.IPv4(octets);
}

function parseAddress(text: string): Address | null {
  if (text.includes(":")) {
    if (!ipaddr.IPv6.isValid(text)) return null;
    const v6 = ipaddr.IPv6.parse(text);
    // Go prints an IPv4-mapped address as plain IPv4.
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  return parseIPv4Lenient(text);
}

/**
 * An IPv6 address whose dotted IPv4 tail has leading zeros (`::ffff:10.0.0.01`), read as Go's
 * lenient parser reads it; null for anything else. ipaddr.js is not used here: it reads the
 * IPv4-compatible `::a.b.c.d` as IPv4-mapped, where Go keeps it IPv6 (`::102:304`).
 */
function lenientDottedIPv6(text: string): string | null {
  const colon = text.lastIndexOf(":");
  if (colon < 0 || !text.includes(".", colon)) return null;
  const v4 = parseIPv4Lenient(text.slice(colon + 1));
  if (v4 === null) return null;
  return scanIPv6(`${text.slice(0, colon + 1)}${v4.toString()}`, groups) ? formatIPv6(groups) : null;
}

/** Where the leftmost longest run of two or more zero groups starts, or -1 (RFC 5952). */
function zeroRunStart(g: Uint16Array): number {
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

/** How many zero groups follow from `start` (the run `::` stands for). */
function zeroRunLength(g: Uint16Array, start: number): number {
  let i = start;
  while (i < 8 && g[i] === 0) i++;
  return i - start;
}

/**
 * Prints eight scanned IPv6 groups as ipaddr.js's `toString` does (RFC 5952: lower-case hex
 * without leading zeros, the leftmost longest run of two or more zero groups as `::`), and an
 * IPv4-mapped address as plain IPv4, as Go does.
 */
function formatIPv6(g: Uint16Array): string {
  if (isMapped(g)) {
    const hi = g[6] ?? 0;
    const lo = g[7] ?? 0;
    return `${hi >>> 8}.${hi & 255}.${lo >>> 8}.${lo & 255}`;
  }
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

const COLON = 58;

/**
 * Whether `text`, scanned into `g`, is already what {@link formatIPv6} would print: then it is
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
 * The canonical text of an IP address, or `null` when it is not one.
 *
 * Strict forms (nearly all input) are handled by hand: IPv4 without leading zeros is already
 * canonical, and strict IPv6 is scanned and printed without ipaddr.js. Only the lenient rest
 * (leading zeros, zone indexes) goes through ipaddr.js.
 *
 * @example
 * canonicalIP("172.30.0.041") // "172.30.0.41"
 * canonicalIP("FD00:0::1")    // "fd00::1"
 */
export function canonicalIP(text: string): string | null {
  if (scanIPv4(text, 0, text.length) >= 0) return text;
  if (scanIPv6(text, groups)) return isCanonicalIPv6(text, groups) ? text : formatIPv6(groups);
  const dotted = lenientDottedIPv6(text);
  if (dotted !== null) return dotted;
  const addr = parseAddress(text);
  return addr === null ? null : addr.toString();
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
 * Parses a CIDR leniently (as Go's `ParseCIDR` after kube-proxy's clean-up) and clears host bits.
 * Returns `null` when it is not a CIDR.
 *
 * @example
 * parseCidr("10.0.0.1/24")?.text // "10.0.0.0/24"
 */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const addrText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  let addr: Address | null;
  if (addrText.includes(":")) {
    if (!ipaddr.IPv6.isValid(addrText)) return null;
    // ipaddr.js reads the IPv4-compatible `::a.b.c.d` as IPv4-mapped; Go does not. The
    // canonical text (dotless) reads the same in both.
    const canonical = canonicalIP(addrText);
    const plain = canonical?.includes(":") === true && !canonical.includes("%");
    addr = ipaddr.IPv6.parse(plain ? canonical : addrText);
  } else {
    addr = parseIPv4Lenient(addrText);
  }
  if (addr === null) return null;
  const bits = addr.kind() === "ipv4" ? 32 : 128;
  if (prefix > bits) return null;
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  const network = ipaddr.fromByteArray(bytes).toString();
  const family: IPFamily = bits === 32 ? "IPv4" : "IPv6";
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
 * `ip:port`, with brackets for IPv6 (Go's `JoinHostPort`).
 *
 * @example
 * joinHostPort("fd00::1", 80) // "[fd00::1]:80"
 */
export function joinHostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}
