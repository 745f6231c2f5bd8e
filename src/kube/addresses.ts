/**
 * IP address and CIDR checks for input validation, with the API server's rules for the legacy
 * fields Services and EndpointSlices have (cluster IPs, external IPs, load-balancer ingress IPs,
 * source ranges, endpoint addresses): apimachinery's `IsValidIPForLegacyField` /
 * `IsValidCIDRForLegacyField`, which parse with `ParseIPSloppy` / `ParseCIDRSloppy`. Their strict
 * mode (StrictIPCIDRValidation, 1.33+) refuses leading zeros, IPv4-mapped IPv6 and CIDRs with
 * host bits only in new or changed values, and ratchets old ones; a stored object read here was
 * accepted when it was written, so the sloppy forms are valid, and the family of an IPv4-mapped
 * address is IPv4, as kube-proxy reads it. Every check has a boolean twin and a variant that
 * says what is wrong.
 *
 * @module
 */

import { isMapped, scanIPv4, scanIPv6 } from "../model/ip-scan.js";
import { type IPBytes, isIPv4Bytes, parseCIDRSloppy, parseIPSloppy } from "../model/ip-sloppy.js";
import type { IPFamily } from "../model/types.js";

/** What {@link examine} found: the family the text looks like, and why it is invalid (if so). */
interface Examined {
  readonly family: IPFamily;
  /** `undefined` when valid; `""` when invalid for no particular reason worth naming. */
  readonly reason: string | undefined;
}

const VALID4: Examined = { family: "IPv4", reason: undefined };
const VALID6: Examined = { family: "IPv6", reason: undefined };
const INVALID4: Examined = { family: "IPv4", reason: "" };
const INVALID6: Examined = { family: "IPv6", reason: "" };
const ZONE: Examined = { family: "IPv6", reason: "zone indexes (%) are not allowed" };

/** Scratch space for IPv6 groups (the scanners are synchronous, so one buffer is enough). */
const groups = new Uint16Array(8);

/**
 * The family of an address as `ParseIPSloppy` reads it (an IPv4-mapped address is IPv4), or why
 * it is not one. Strict text, nearly all input, is scanned without allocating.
 */
function examine(text: string): Examined {
  if (!text.includes(":")) {
    if (scanIPv4(text, 0, text.length) >= 0) return VALID4;
  } else if (scanIPv6(text, groups)) {
    return isMapped(groups) ? VALID4 : VALID6;
  }
  const bytes = parseIPSloppy(text);
  if (bytes !== null) return isIPv4Bytes(bytes) ? VALID4 : VALID6;
  if (text.includes("%")) return ZONE;
  return text.includes(":") ? INVALID6 : INVALID4;
}

function article(family: IPFamily | undefined): string {
  return family === undefined ? "an IP" : `an ${family}`;
}

/**
 * Says what is wrong with an IP address, as the rest of a sentence that starts with the value;
 * `undefined` when it is a valid address (of `family`, when given).
 *
 * @param text - the address as written
 * @param family - the family it must have, if any
 * @returns `undefined`, or e.g. `is not a valid IPv4 address: leading zeros are not allowed`
 * @example
 * ipProblem("10.0.0.01")           // undefined (a legacy spelling of 10.0.0.1)
 * ipProblem("10.0.0.256")          // "is not a valid IP address"
 * ipProblem("fd00::1", "IPv4")     // "is an IPv6 address, not IPv4"
 */
export function ipProblem(text: string, family?: IPFamily): string | undefined {
  const found = examine(text);
  if (found.reason !== undefined) {
    const kind = article(family).slice(3);
    return `is not a valid ${kind} address${found.reason === "" ? "" : `: ${found.reason}`}`;
  }
  if (family !== undefined && found.family !== family)
    return `is ${article(found.family)} address, not ${family}`;
  return undefined;
}

/**
 * Says what is wrong with a CIDR (`address/prefix-length`; host bits may be set), as the rest of
 * a sentence that starts with the value; `undefined` when it is valid.
 *
 * @param text - the CIDR as written
 * @param family - the family it must have, if any
 * @returns `undefined`, or e.g. `is not a valid IPv4 CIDR: the prefix length must be 0-32`
 * @example
 * cidrProblem("10.0.0.0/8")   // undefined
 * cidrProblem("10.0.0.0/33")  // "is not a valid IPv4 CIDR: the prefix length must be 0-32"
 * cidrProblem("10.0.0.0")     // "is not a CIDR (address/prefix-length)"
 */
export function cidrProblem(text: string, family?: IPFamily): string | undefined {
  const slash = text.indexOf("/");
  if (slash < 0 || text.indexOf("/", slash + 1) >= 0) return "is not a CIDR (address/prefix-length)";
  const address = text.slice(0, slash);
  const found = examine(address);
  if (found.reason !== undefined) {
    const kind = article(family).slice(3);
    return `is not a valid ${kind} CIDR${found.reason === "" ? "" : `: ${found.reason}`}`;
  }
  const cidr = parseCIDRSloppy(text);
  if (cidr === null) {
    // The prefix length counts the bits of the address as written (128 for `::ffff:a.b.c.d`).
    const ipv6Text = address.includes(":");
    return `is not a valid ${ipv6Text ? "IPv6" : "IPv4"} CIDR: the prefix length must be 0-${ipv6Text ? 128 : 32}`;
  }
  if (family !== undefined && cidr.family !== family) return `is ${article(cidr.family)} CIDR, not ${family}`;
  return undefined;
}

/**
 * Whether a string is a valid IP address (of `family`, when given), as the API server's legacy
 * IP fields take it (see the module notes).
 *
 * @example
 * isValidIP("192.0.2.1")         // true
 * isValidIP("192.0.2.01")        // true (read as 192.0.2.1)
 * isValidIP("::ffff:192.0.2.1")  // true, and IPv4
 * isValidIP("192.0.2.1%eth0")    // false
 * isValidIP("2001:db8::1", "IPv4") // false
 */
export function isValidIP(text: string, family?: IPFamily): boolean {
  return ipProblem(text, family) === undefined;
}

/**
 * Whether a string is a valid CIDR (of `family`, when given), as the API server's legacy CIDR
 * fields take it; host bits may be set.
 *
 * @example
 * isValidCIDR("10.0.0.1/24")       // true
 * isValidCIDR("fd00::/129")        // false
 * isValidCIDR("10.0.0.0/8", "IPv6") // false
 */
export function isValidCIDR(text: string, family?: IPFamily): boolean {
  return cidrProblem(text, family) === undefined;
}

/**
 * The family of a valid address, or `undefined` when it is not one.
 *
 * @example
 * ipFamilyOf("fd00::1") // "IPv6"
 * ipFamilyOf("nope")    // undefined
 */
export function ipFamilyOf(text: string): IPFamily | undefined {
  const found = examine(text);
  return found.reason === undefined ? found.family : undefined;
}

/**
 * {@link specialIPProblem} for an IPv4 address already scanned (see `scanIPv4`).
 *
 * @param v - the address as an unsigned 32-bit number
 * @example
 * specialIPv4Problem(0x7f000001) // "is a loopback address (127.0.0.0/8, ::1/128)"
 */
export function specialIPv4Problem(v: number): string | undefined {
  const a = v >>> 24;
  const b = (v >>> 16) & 255;
  if (v === 0) return "is the unspecified address";
  if (a === 127) return "is a loopback address (127.0.0.0/8, ::1/128)";
  if (a === 169 && b === 254) return "is a link-local address (169.254.0.0/16, fe80::/10)";
  if (v >>> 8 === 0xe00000) return "is a link-local multicast address (224.0.0.0/24, ff02::/16)";
  return undefined;
}

/**
 * Says why a valid IP address may not be used as an endpoint or external IP (the API server's
 * `ValidateNonSpecialIP`): unspecified, loopback, link-local or link-local multicast.
 *
 * @param text - a valid address (see {@link isValidIP})
 * @returns `undefined`, or e.g. `is a loopback address (127.0.0.0/8, ::1/128)`
 * @example
 * specialIPProblem("127.0.0.1") // "is a loopback address (127.0.0.0/8, ::1/128)"
 * specialIPProblem("10.0.0.1")  // undefined
 */
export function specialIPProblem(text: string): string | undefined {
  if (!text.includes(":")) {
    const v = scanIPv4(text, 0, text.length);
    if (v >= 0) return specialIPv4Problem(v);
  }
  const bytes = parseIPSloppy(text);
  return bytes === null ? undefined : specialBytesProblem(bytes);
}

/** {@link specialIPProblem} for sloppily parsed bytes: an IPv4-mapped address is checked as IPv4. */
function specialBytesProblem(b: IPBytes): string | undefined {
  if (isIPv4Bytes(b))
    return specialIPv4Problem(
      (((b[12] ?? 0) << 24) | ((b[13] ?? 0) << 16) | ((b[14] ?? 0) << 8) | (b[15] ?? 0)) >>> 0,
    );
  for (let g = 0; g < 8; g++) groups[g] = ((b[2 * g] ?? 0) << 8) | (b[2 * g + 1] ?? 0);
  return specialIPv6Problem(groups);
}

/**
 * {@link specialIPProblem} for an IPv6 address already scanned into its eight groups.
 *
 * @example
 * specialIPv6Problem(new Uint16Array([0, 0, 0, 0, 0, 0, 0, 1])) // "is a loopback address (127.0.0.0/8, ::1/128)"
 */
export function specialIPv6Problem(g: Uint16Array): string | undefined {
  const first = g[0] ?? 0;
  let rest = 0;
  for (let i = 1; i < 7; i++) rest |= g[i] ?? 0;
  const last = g[7] ?? 0;
  if (first === 0 && rest === 0 && last === 0) return "is the unspecified address";
  if (first === 0 && rest === 0 && last === 1) return "is a loopback address (127.0.0.0/8, ::1/128)";
  if ((first & 0xffc0) === 0xfe80) return "is a link-local address (169.254.0.0/16, fe80::/10)";
  if ((first & 0xff0f) === 0xff02) return "is a link-local multicast address (224.0.0.0/24, ff02::/16)";
  return undefined;
}

/**
 * Scans `text` as a valid IPv6 address as {@link ipProblem} accepts it (not IPv4-mapped), once,
 * for callers that then ask more of it.
 *
 * @returns its eight groups in a buffer shared by every call (read it before the next one), or
 *   `null` when `text` is not such an address
 */
export function scanValidIPv6(text: string): Uint16Array | null {
  return scanIPv6(text, groups) && !isMapped(groups) ? groups : null;
}
