/**
 * IPv4 and IPv6 addresses as iptables reads and prints them (spec §2.1, §14.3, §14.4):
 * iptables' lenient IPv4 spellings (`10.1`, octal `010.0.0.1`), strict IPv6 (`inet_pton`),
 * masks as prefix lengths or in address form, host bits cleared, glibc `inet_ntop` printing.
 * Results are memoized per family, because a rule set repeats the same few addresses.
 *
 * @module
 */

import type { CanonicalAddress } from "../../ir/canonical-types.js";
import type { IPFamily } from "../../ir/types.js";
import { parseCUnsigned, parseDecimal } from "./values.js";

export type { CanonicalAddress };

/** Parses iptables' IPv4 spelling (1 to 4 parts, each C base-0 ≤ 255; missing parts are 0). */
function parseIPv4Bytes(text: string, strictFourParts: boolean): number[] | null {
  const bytes = [0, 0, 0, 0];
  let start = 0;
  for (let part = 0; part < 4; part++) {
    const dot = text.indexOf(".", start);
    const end = dot < 0 || part === 3 ? text.length : dot;
    const value = parseCUnsigned(text.slice(start, end), 255);
    if (value < 0) return null;
    bytes[part] = value;
    if (end === text.length) {
      if (strictFourParts && part !== 3) return null;
      return bytes;
    }
    start = end + 1;
  }
  return null;
}

/** Parses a strict dotted-quad IPv4 (as `inet_pton` does: decimal, no leading zeros). */
function parseDottedQuad(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (p.length === 0 || p.length > 3 || (p.length > 1 && p.charCodeAt(0) === 48)) return null;
    const v = parseDecimal(p, 255);
    if (v < 0) return null;
    out.push(v);
  }
  return out;
}

/** Parses one to four hex digits; -1 when invalid. */
function parseHexGroup(text: string): number {
  if (text.length === 0 || text.length > 4) return -1;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (c >= 48 && c <= 57) v = v * 16 + (c - 48);
    else if (c >= 97 && c <= 102) v = v * 16 + (c - 87);
    else return -1;
  }
  return v;
}

/** Parses IPv6 text as `inet_pton` does into 16 bytes; null when invalid. */
export function parseIPv6Bytes(text: string): number[] | null {
  const dbl = text.indexOf("::");
  if (dbl >= 0 && text.indexOf("::", dbl + 1) >= 0) return null;
  const parseSide = (side: string, allowV4Tail: boolean): number[] | null => {
    if (side.length === 0) return [];
    const groups = side.split(":");
    const words: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] ?? "";
      if (allowV4Tail && i === groups.length - 1 && g.indexOf(".") >= 0) {
        const v4 = parseDottedQuad(g);
        if (v4 === null) return null;
        words.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else {
        const w = parseHexGroup(g);
        if (w < 0) return null;
        words.push(w);
      }
    }
    return words;
  };
  let words: number[];
  if (dbl < 0) {
    const all = parseSide(text, true);
    if (all === null || all.length !== 8) return null;
    words = all;
  } else {
    const head = parseSide(text.slice(0, dbl), false);
    const tail = parseSide(text.slice(dbl + 2), true);
    if (head === null || tail === null || head.length + tail.length > 7) return null;
    words = head.concat(new Array<number>(8 - head.length - tail.length).fill(0), tail);
  }
  const bytes: number[] = [];
  for (const w of words) bytes.push(w >> 8, w & 0xff);
  return bytes;
}

/**
 * Prints 16 bytes as glibc `inet_ntop` does (spec §14.3): longest run (≥ 2) of zero words as
 * `::`, first run on ties, IPv4-compatible and IPv4-mapped tails dotted.
 *
 * @example
 * formatIPv6([0xfd, 0, ...Array(13).fill(0), 1]) // "fd00::1"
 */
export function formatIPv6(bytes: readonly number[]): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestStart = -1;
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += "::";
      i += bestLen - 1;
      continue;
    }
    if (i === 6 && bestStart === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      if (!out.endsWith(":")) out += ":";
      out += `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
      break;
    }
    if (out.length > 0 && !out.endsWith(":")) out += ":";
    out += (words[i] ?? 0).toString(16);
  }
  return out;
}

/** Prints 4 bytes as dotted decimal. */
export function formatIPv4(bytes: readonly number[]): string {
  return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
}

/** The prefix length of a mask, or -1 when it is not contiguous. */
function prefixLengthOf(mask: readonly number[]): number {
  let bits = 0;
  let i = 0;
  while (i < mask.length && mask[i] === 0xff) {
    bits += 8;
    i++;
  }
  if (i < mask.length) {
    const b = mask[i] ?? 0;
    let lead = 0;
    while (lead < 8 && (b & (0x80 >> lead)) !== 0) lead++;
    if (((b << lead) & 0xff) !== 0) return -1;
    bits += lead;
    for (i++; i < mask.length; i++) if (mask[i] !== 0) return -1;
  }
  return bits;
}

/** Mask bytes for a prefix length. */
function maskFromPrefix(bits: number, size: number): number[] {
  const mask: number[] = [];
  for (let i = 0; i < size; i++) {
    const left = bits - i * 8;
    mask.push(left >= 8 ? 0xff : left <= 0 ? 0 : (0xff << (8 - left)) & 0xff);
  }
  return mask;
}

/** Parses a bare host address for `family` (no mask); null when invalid. */
export function parseHostBytes(text: string, family: IPFamily): number[] | null {
  return family === "IPv4" ? parseIPv4Bytes(text, false) : parseIPv6Bytes(text);
}

/** Prints host bytes for their family. */
export function formatHost(bytes: readonly number[]): string {
  return bytes.length === 4 ? formatIPv4(bytes) : formatIPv6(bytes);
}

const caches: Record<IPFamily, Map<string, CanonicalAddress | string>> = {
  IPv4: new Map(),
  IPv6: new Map(),
};

/**
 * How many addresses each family's memo holds before it starts over: a long-running process
 * parsing dump after dump of an IPv6 cluster (every IPv6 address is memoized) would otherwise
 * grow it forever. 2^18 is more than the distinct addresses of a 50,000-service node.
 */
const MAX_CACHED_ADDRESSES = 1 << 18;

/**
 * Canonicalizes `ADDR[/MASK]` as `-s`/`-d` do: host bits cleared, the mask a prefix length when
 * contiguous. Returns the error message (a string) when invalid. Memoized per family.
 *
 * @example
 * canonicalAddress("10.0.0.5/24", "IPv4") // { address: "10.0.0.0", mask: "24", prefixLength: 24, … }
 * canonicalAddress("300.1.1.1", "IPv4") // "host/network `300.1.1.1' not found"
 */
export function canonicalAddress(text: string, family: IPFamily): CanonicalAddress | string {
  if (family === "IPv4") {
    const plain = plainIPv4Host(text);
    if (plain !== null) return plain;
  }
  const cache = caches[family];
  let hit = cache.get(text);
  if (hit === undefined) {
    hit = computeCanonicalAddress(text, family);
    if (cache.size >= MAX_CACHED_ADDRESSES) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}

const HOST_MASK_V4: readonly number[] = Object.freeze([255, 255, 255, 255]);

/**
 * The common case, `a.b.c.d` or `a.b.c.d/32` in canonical decimal (no leading zeros): already
 * what iptables prints, so it is read with one scan and not memoized. Parsed rule sets hold
 * ~100,000 distinct endpoint addresses that would otherwise each stay in the memo for good.
 * Returns null for any other spelling, which takes the general path.
 */
function plainIPv4Host(text: string): CanonicalAddress | null {
  let end = text.length;
  if (end > 3 && text.charCodeAt(end - 3) === 47 /* / */) {
    if (text.charCodeAt(end - 2) !== 51 /* 3 */ || text.charCodeAt(end - 1) !== 50 /* 2 */) return null;
    end -= 3;
  }
  const bytes = [0, 0, 0, 0];
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || part === 3) return null;
      bytes[part++] = value;
      value = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && value === 0) return null; // a leading zero (octal in iptables' reading)
      value = value * 10 + (c - 48);
      if (value > 255) return null;
      digits++;
    } else {
      return null;
    }
  }
  if (digits === 0 || part !== 3) return null;
  bytes[3] = value;
  return {
    address: end === text.length ? text : text.slice(0, end),
    mask: "32",
    prefixLength: 32,
    bytes,
    maskBytes: HOST_MASK_V4,
  };
}

/**
 * A host name, as iptables resolves it where no name server answers (a private network
 * namespace): through /etc/hosts only, whose one entry every system has is IPv4's `localhost`
 * (matched without regard to case). Other names depend on the machine that loads the rules and
 * are refused, as iptables refuses a name it cannot resolve.
 */
function resolveName(text: string, family: IPFamily): number[] | null {
  return family === "IPv4" && text.toLowerCase() === "localhost" ? [127, 0, 0, 1] : null;
}

function computeCanonicalAddress(text: string, family: IPFamily): CanonicalAddress | string {
  const size = family === "IPv4" ? 4 : 16;
  const slash = text.indexOf("/");
  const hostText = slash < 0 ? text : text.slice(0, slash);
  const host = parseHostBytes(hostText, family) ?? resolveName(hostText, family);
  if (host === null) return `host/network \`${hostText}' not found`;
  let mask: number[];
  if (slash < 0) {
    mask = maskFromPrefix(size * 8, size);
  } else {
    const maskText = text.slice(slash + 1);
    const isAddressForm = family === "IPv4" ? maskText.indexOf(".") >= 0 : maskText.indexOf(":") >= 0;
    if (isAddressForm) {
      const m = family === "IPv4" ? parseIPv4Bytes(maskText, true) : parseIPv6Bytes(maskText);
      if (m === null) return `invalid mask \`${maskText}' specified`;
      mask = m;
    } else {
      const bits = parseCUnsigned(maskText, size * 8);
      if (bits < 0) return `invalid mask \`${maskText}' specified`;
      mask = maskFromPrefix(bits, size);
    }
  }
  const bytes = host.map((b, i) => b & (mask[i] ?? 0));
  const prefixLength = prefixLengthOf(mask);
  return {
    address: formatHost(bytes),
    mask: prefixLength >= 0 ? String(prefixLength) : formatHost(mask),
    prefixLength,
    bytes,
    maskBytes: mask,
  };
}

/**
 * Canonicalizes a mask given in address form (recent's `--mask`): always printed as an address.
 * Returns the error message when invalid.
 *
 * @example
 * canonicalMaskAddress("255.255.255.0", "IPv4") // "255.255.255.0"
 */
export function canonicalMaskAddress(text: string, family: IPFamily): string | { error: string } {
  const bytes = family === "IPv4" ? parseIPv4Bytes(text, true) : parseIPv6Bytes(text);
  if (bytes === null) return { error: `invalid mask \`${text}' specified` };
  return formatHost(bytes);
}
