/**
 * IP address and CIDR handling as kube-proxy does it: lenient parsing (legacy leading zeros),
 * canonical printing (IPv4 dotted decimal, IPv6 compressed), network addresses of CIDRs.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import type { IPFamily } from "./types.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const IPV4_LENIENT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const canonicalCache = new Map<string, string | null>();

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
 * The canonical text of an IP address, or `null` when it is not one.
 *
 * @example
 * canonicalIP("172.30.0.041") // "172.30.0.41"
 * canonicalIP("FD00:0::1")    // "fd00::1"
 */
export function canonicalIP(text: string): string | null {
  let out = canonicalCache.get(text);
  if (out === undefined) {
    const addr = parseAddress(text);
    out = addr === null ? null : addr.toString();
    canonicalCache.set(text, out);
  }
  return out;
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
    addr = ipaddr.IPv6.parse(addrText);
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
