/**
 * Addresses as the tracer compares them: bytes, canonical text, and which ones are the node's.
 *
 * @module
 */
import { formatHost, parseHostBytes } from "../iptables/index.js";
import type { AddressMatch } from "../ir/canonical-types.js";
import type { IPFamily } from "../ir/types.js";

/**
 * Parses a host address of the family into bytes; null when it is not one. Only the strict
 * forms people write (dotted quad, IPv6 text) are meant here, but iptables' spellings pass too.
 *
 * @example
 * hostBytes("10.0.0.1", "IPv4") // [10, 0, 0, 1]
 */
export function hostBytes(text: string, family: IPFamily): number[] | null {
  if (family === "IPv4" && text.indexOf(":") >= 0) return null;
  if (family === "IPv6" && text.indexOf(":") < 0) return null;
  return parseHostBytes(text, family);
}

/**
 * Whether `bytes` lies inside an `-s`/`-d` address and mask (ignoring `!`).
 *
 * @example
 * inside([10, 1, 2, 3], canonicalAddress("10.0.0.0/8", "IPv4")) // true
 */
export function inside(bytes: readonly number[], a: Pick<AddressMatch, "bytes" | "maskBytes">): boolean {
  const n = a.bytes.length;
  if (bytes.length !== n) return false;
  for (let i = 0; i < n; i++)
    if (((bytes[i] ?? 0) & (a.maskBytes[i] ?? 0)) !== (a.bytes[i] ?? 0)) return false;
  return true;
}

/**
 * The canonical text of host bytes.
 *
 * @example
 * hostText([10, 0, 0, 1]) // "10.0.0.1"
 */
export function hostText(bytes: readonly number[]): string {
  return formatHost(bytes);
}

/** What the tracer knows of the node's addresses (what `addrtype LOCAL` and routing see). */
export interface LocalAddresses {
  /** Canonical texts of the node's addresses (the given ones, and the source of a node's packet). */
  readonly addresses: ReadonlySet<string>;
  /** True when the node's addresses were given: an address not among them is not local. */
  readonly complete: boolean;
  /** Addresses known not to be the node's though the list is not complete (cluster IPs, outside sources). */
  readonly remote: ReadonlySet<string>;
}

function isLoopback(bytes: readonly number[], text: string): boolean {
  return (bytes.length === 4 && bytes[0] === 127) || (bytes.length === 16 && text === "::1");
}

/** Multicast (224.0.0.0/4, ff00::/8) or the limited broadcast: never a node's unicast address. */
function isGroupAddress(bytes: readonly number[]): boolean {
  const first = bytes[0] ?? 0;
  if (bytes.length === 4) return (first & 0xf0) === 0xe0 || bytes.every((x) => x === 255);
  return first === 0xff;
}

/**
 * Whether an address is local to the node: loopback (127.0.0.0/8 is all local on Linux; ::1 for
 * IPv6) or one of its addresses; null when the tracer cannot know (the node's addresses were
 * not given and the address is neither loopback nor known to be elsewhere).
 *
 * @example
 * isLocal([127, 0, 0, 5], "127.0.0.5", { addresses: new Set(), complete: false, remote: new Set() }) // true
 */
export function isLocal(bytes: readonly number[], text: string, local: LocalAddresses): boolean | null {
  if (isLoopback(bytes, text) || local.addresses.has(text)) return true;
  if (local.complete || local.remote.has(text) || isGroupAddress(bytes)) return false;
  return null;
}
