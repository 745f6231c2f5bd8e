/**
 * How one slot's value prints in `iptables-save` form, per slot kind, for the values that keep a
 * shape's structure. Each printer is the canonicalizer's own value rule (addresses:
 * `canonicalAddress`; comments: `truncateBytes` and `saveString`; probabilities:
 * `probabilityToStored` and `probabilityToText`; ports, seconds and DNAT destinations as the
 * tcp, recent and DNAT readers print them), with a shortcut for the common spellings that are
 * already canonical (a dotted-quad host, a canonical IPv6 host, a plain comment, a decimal port).
 *
 * A printer returns `null` for a value that does not keep the structure (a `/0` network drops the
 * `-s`, an address list expands into several rules, a comment over 255 bytes is cut, a value with
 * characters iptables-save escapes) or that iptables refuses: such values take the general path
 * through the canonicalizer, which prints them or reports the problem.
 *
 * @module
 */

import type { IPFamily } from "../../ir/types.js";
import { isCanonicalIPv6 } from "../../model/ip.js";
import { scanIPv6 } from "../../model/ip-scan.js";
import { canonicalAddress } from "../canonical/address.js";
import { PASS_THROUGH_TARGETS, TARGET_EXTENSIONS } from "../canonical/targets.js";
import {
  isBareSaveString,
  probabilityToStored,
  probabilityToText,
  truncateBytes,
} from "../canonical/values.js";
import type { SlotKind } from "./types.js";

// Slot kinds as small numbers (the template fill switches on them).
const K_CHAIN = 0;
const K_COMMENT = 1;
const K_ADDRESS = 3;
const K_PORT = 4;
const K_PROBABILITY = 5;
const K_SECONDS = 6;
const K_DESTINATION = 7;
const K_INTERFACE = 8;
const K_WORD = 9;

/**
 * The printer code of a protocol slot: a save layout holds its protocol as literal text, never
 * as a slot.
 *
 * @example
 * KIND_CODES.protocol === K_PROTOCOL // true
 */
export const K_PROTOCOL = 2;

/**
 * The printer code of each slot kind (`address` and `cidr` print alike: `ADDR/MASK`).
 *
 * @example
 * KIND_CODES.cidr === KIND_CODES.address // true
 */
export const KIND_CODES: Readonly<Record<SlotKind, number>> = {
  chain: K_CHAIN,
  comment: K_COMMENT,
  protocol: K_PROTOCOL,
  address: K_ADDRESS,
  cidr: K_ADDRESS,
  port: K_PORT,
  probability: K_PROBABILITY,
  seconds: K_SECONDS,
  destination: K_DESTINATION,
  interface: K_INTERFACE,
  word: K_WORD,
};

/**
 * Whether values of a kind print differently per family (and so are valid in one family only).
 *
 * @example
 * FAMILY_KINDS.has(KIND_CODES.address) // true
 */
export const FAMILY_KINDS: ReadonlySet<number> = new Set([K_ADDRESS, K_DESTINATION]);

/**
 * The longest chain name taken as it is (UTF-16 units): recent's `--name` keeps 199 bytes, and
 * 66 units are at most 198 bytes.
 */
const MAX_CHAIN_UNITS = 66;

/** `-j NAME` / `--name NAME`: a chain or verdict (no target extension), printed as given. */
function savedChain(v: string): string | null {
  const n = v.length;
  if (n === 0 || n > MAX_CHAIN_UNITS) return null;
  // No target extension is named KUBE-…: kube-proxy's chains skip the two lookups.
  if (n > 5 && v.charCodeAt(4) === 45 && v.startsWith("KUBE")) return v;
  return TARGET_EXTENSIONS.has(v) || PASS_THROUGH_TARGETS.has(v) ? null : v;
}

/**
 * `--comment TEXT`: iptables-save's string rule (`saveString`) when the kernel keeps the whole
 * text (255 bytes) and nothing needs a backslash.
 */
function savedComment(v: string): string | null {
  if (truncateBytes(v, 255) !== v) return null;
  const n = v.length;
  let bare = n > 0;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    // 0-9, A-Z, a-z, '_' and '-' print bare
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)
      continue;
    if (c === 34 || c === 92 || c === 39) return null;
    bare = false;
  }
  return bare ? v : `"${v}"`;
}

/** Whether `v[from, to)` is a strict dotted quad: four decimal parts ≤ 255, no leading zeros. */
function isDottedQuad(v: string, from: number, to: number): boolean {
  let parts = 0;
  let digits = 0;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = v.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || parts === 3) return false;
      parts++;
      digits = 0;
      value = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && value === 0) return false;
      value = value * 10 + (c - 48);
      if (value > 255) return false;
      digits++;
    } else return false;
  }
  return parts === 3 && digits > 0;
}

const groups = new Uint16Array(8);

/**
 * Whether glibc's `inet_ntop` prints this IPv6 address exactly as written: the canonical text
 * (RFC 5952, which `isCanonicalIPv6` checks and which refuses IPv4-mapped addresses), except for
 * the IPv4-compatible `::a.b.c.d` that glibc prints dotted.
 */
function printsAsWritten(v: string): boolean {
  if (!scanIPv6(v, groups) || !isCanonicalIPv6(v, groups)) return false;
  const g = groups;
  const compatible = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0;
  return !compatible || g[6] === 0;
}

/**
 * `-s`/`-d ADDR[/MASK]`: `canonicalAddress`'s text and mask (a plain host gets `/32` or `/128`).
 * A `/0` network (dropped, or refused inverted) and anything invalid take the general path.
 */
function savedAddress(v: string, family: IPFamily): string | null {
  const n = v.length;
  if (family === "IPv4") {
    if (isDottedQuad(v, 0, n)) return `${v}/32`;
    if (n > 3 && v.charCodeAt(n - 3) === 47 && v.endsWith("32") && isDottedQuad(v, 0, n - 3)) return v;
  } else if (v.indexOf("/") < 0 && printsAsWritten(v)) return `${v}/128`;
  const a = canonicalAddress(v, family);
  if (typeof a === "string" || a.prefixLength === 0) return null;
  return `${a.address}/${a.mask}`;
}

/** Whether `v[from, to)` is a decimal number up to `max` without a leading zero (`0` itself is fine). */
function isDecimal(v: string, from: number, to: number, max: number): boolean {
  const n = to - from;
  if (n === 0 || n > 10 || (n > 1 && v.charCodeAt(from) === 48)) return false;
  let x = 0;
  for (let i = from; i < to; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
    x = x * 10 + (c - 48);
  }
  return x <= max;
}

/** `--dport P`: the tcp/udp/sctp readers take a decimal port and print it back unchanged. */
function savedPort(v: string): string | null {
  return isDecimal(v, 0, v.length, 65535) ? v : null;
}

/**
 * `--seconds S`: recent prints the decimal it read (0 is refused); above 2^31 - 1 iptables 1.8.9
 * prints it as a signed int, which the general path does.
 */
function savedSeconds(v: string): string | null {
  return v !== "0" && isDecimal(v, 0, v.length, 0x7fffffff) ? v : null;
}

/** Printed probabilities by their text, `""` for refused ones (a rule set uses few distinct values). */
const probabilities = new Map<string, string>();

/** `--probability P`: stored as `lround(P × 2^31)` and printed from that (spec §6.2). */
function savedProbability(v: string): string | null {
  let text = probabilities.get(v);
  if (text === undefined) {
    const k = probabilityToStored(v);
    text = k < 0 ? "" : probabilityToText(k);
    if (probabilities.size >= 4096) probabilities.clear();
    probabilities.set(v, text);
  }
  return text === "" ? null : text;
}

/**
 * DNAT's `--to-destination`: one host, optionally with one decimal port (IPv6 in brackets when
 * it has one), already in the form DNAT prints. Ranges and other spellings take the general path.
 */
function savedDestination(v: string, family: IPFamily): string | null {
  const n = v.length;
  if (family === "IPv4") {
    const colon = v.indexOf(":");
    if (colon < 0) return isDottedQuad(v, 0, n) ? v : null;
    return isDottedQuad(v, 0, colon) && isDecimal(v, colon + 1, n, 65535) ? v : null;
  }
  if (v.charCodeAt(0) !== 91 /* [ */) return printsAsWritten(v) ? v : null;
  const close = v.indexOf("]");
  // Brackets without a port print without the brackets: the general path's business.
  if (close < 0 || v.charCodeAt(close + 1) !== 58 /* : */ || !isDecimal(v, close + 2, n, 65535)) return null;
  return printsAsWritten(v.slice(1, close)) ? v : null;
}

/** `-i NAME`: printed as given; 1–15 characters, and not `+` (which matches anything and is dropped). */
function savedInterface(v: string): string | null {
  return v.length > 0 && v.length <= 15 && v !== "+" ? v : null;
}

/**
 * A slot's value as `iptables-save` prints it, or `null` when the value would change the
 * shape's structure or be refused (then the rule takes the general path).
 *
 * @param kind - The slot's printer code ({@link KIND_CODES}).
 * @param value - The value.
 * @param family - The rule set's family.
 * @example
 * saveSlotValue(KIND_CODES.address, "10.96.0.10", "IPv4") // "10.96.0.10/32"
 * saveSlotValue(KIND_CODES.address, "0.0.0.0/0", "IPv4") // null
 * saveSlotValue(KIND_CODES.probability, "0.5000000000", "IPv4") // "0.50000000000"
 */
export function saveSlotValue(kind: number, value: string, family: IPFamily): string | null {
  switch (kind) {
    case K_CHAIN:
      return savedChain(value);
    case K_COMMENT:
      return savedComment(value);
    case K_ADDRESS:
      return savedAddress(value, family);
    case K_PORT:
      return savedPort(value);
    case K_PROBABILITY:
      return savedProbability(value);
    case K_SECONDS:
      return savedSeconds(value);
    case K_DESTINATION:
      return savedDestination(value, family);
    case K_INTERFACE:
      return savedInterface(value);
    case K_PROTOCOL:
      return value === "tcp" || value === "udp" || value === "sctp" ? value : null;
    default:
      return isBareSaveString(value) ? value : null;
  }
}

/**
 * Sample values of a kind for deriving a save layout: set 0 prints bare (one token of the save
 * line, found by its text), set 1 takes the other common spellings (a quoted comment, an
 * `ADDR/32`, a network, a non-KUBE chain). Distinct per slot index, so that every slot is found
 * apart from the others.
 *
 * @example
 * sampleValue("port", 3, "IPv4", 0) // "40003"
 */
export function sampleValue(kind: SlotKind, index: number, family: IPFamily, set: 0 | 1): string {
  const v4 = family === "IPv4";
  switch (kind) {
    case "chain":
      return set === 0 ? `KUBE-SAMPLE-SLOT${index}` : `sample_${index}`;
    case "comment":
      return set === 0 ? `zz-sample-comment-${index}` : `ns/sample:${index} cluster IP`;
    case "protocol":
      return "tcp";
    case "address":
      if (v4) return set === 0 ? `198.18.${index}.7` : `198.19.${index}.9/32`;
      return set === 0 ? `fd00::${index + 1}:7` : `FD00:0:0:0:${index + 1}::9`;
    case "cidr":
      if (v4) return set === 0 ? `198.18.${index}.0/24` : `10.${index}.0.0/16`;
      return set === 0 ? `fd00:${index + 1}::/64` : `fd01:${index + 1}::/48`;
    case "port":
      return String((set === 0 ? 40000 : 30000) + index);
    case "probability":
      return set === 0 ? `0.2${index}00000000` : `0.3${index}33333333`;
    case "seconds":
      return String((set === 0 ? 10800 : 3600) + index);
    case "destination":
      if (v4) return set === 0 ? `198.18.100.${index + 1}:${8080 + index}` : `198.18.101.${index + 1}`;
      return set === 0 ? `[fd00::a:${index + 1}]:${8080 + index}` : `fd00::b:${index + 1}`;
    case "interface":
      return set === 0 ? `zzif${index}` : `veth${index}+`;
    case "word":
      return set === 0 ? `zzword${index}` : `word_${index}`;
  }
}
