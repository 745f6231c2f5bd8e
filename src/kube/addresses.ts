/**
 * Strict IP address and CIDR checks for input validation: four-part decimal IPv4 without leading
 * zeros, and valid IPv6 without zone indexes or IPv4-mapped forms (the API server's strict
 * validation). Every check has a non-throwing boolean twin and a variant that says what is wrong.
 *
 * @module
 */

import { isMapped, scanIPv4, scanIPv6 } from "../model/ip-scan.js";
import type { IPFamily } from "../model/types.js";
import { DECIMAL, IPV4_LENIENT, LEADING_ZERO } from "./patterns.js";

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
const LEADING_ZEROS: Examined = { family: "IPv4", reason: "leading zeros are not allowed" };
const ZONE: Examined = { family: "IPv6", reason: "zone indexes (%) are not allowed" };
const MAPPED: Examined = {
  family: "IPv6",
  reason: "IPv4-mapped IPv6 addresses are not allowed (write it as IPv4)",
};

/** Scratch space for IPv6 groups (the scanners are synchronous, so one buffer is enough). */
const groups = new Uint16Array(8);

function examine(text: string): Examined {
  if (!text.includes(":")) {
    if (scanIPv4(text, 0, text.length) >= 0) return VALID4;
    const lenient =
      IPV4_LENIENT.test(text) && LEADING_ZERO.test(text) && text.split(".").every((o) => Number(o) < 256);
    return lenient ? LEADING_ZEROS : INVALID4;
  }
  if (!scanIPv6(text, groups)) return text.includes("%") ? ZONE : INVALID6;
  return isMapped(groups) ? MAPPED : VALID6;
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
 * ipProblem("10.0.0.1")            // undefined
 * ipProblem("10.0.0.01")           // "is not a valid IP address: leading zeros are not allowed"
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
  const found = examine(text.slice(0, slash));
  if (found.reason !== undefined) {
    const kind = article(family).slice(3);
    return `is not a valid ${kind} CIDR${found.reason === "" ? "" : `: ${found.reason}`}`;
  }
  const bits = text.slice(slash + 1);
  const max = found.family === "IPv4" ? 32 : 128;
  if (!DECIMAL.test(bits) || Number(bits) > max) {
    return `is not a valid ${found.family} CIDR: the prefix length must be 0-${max}`;
  }
  if (family !== undefined && found.family !== family)
    return `is ${article(found.family)} CIDR, not ${family}`;
  return undefined;
}

/**
 * Whether a string is a valid IP address (of `family`, when given), strictly.
 *
 * @example
 * isValidIP("192.0.2.1")         // true
 * isValidIP("192.0.2.01")        // false (leading zero)
 * isValidIP("::ffff:192.0.2.1")  // false (IPv4-mapped)
 * isValidIP("2001:db8::1", "IPv4") // false
 */
export function isValidIP(text: string, family?: IPFamily): boolean {
  return ipProblem(text, family) === undefined;
}

/**
 * Whether a string is a valid CIDR (of `family`, when given), strictly; host bits may be set.
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
    return v < 0 ? undefined : specialIPv4Problem(v);
  }
  return scanIPv6(text, groups) ? specialIPv6Problem(groups) : undefined;
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
