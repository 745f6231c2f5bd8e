/**
 * A quick acceptance test for the rule shapes kube-proxy writes. Parsing a 10k-service payload
 * means checking ~300,000 rules; the canonicalizer builds (and the parser then drops) a whole
 * canonical object graph for each. This test reads argv with a few counters instead and
 * answers only "certainly valid" or "don't know": every option it accepts is one the
 * canonicalizer accepts for the same argv, and anything else — other extensions, spellings,
 * repeats, option orders, and every invalid rule — is "don't know", so that problems and their
 * messages always come from the canonicalizer itself.
 *
 * The accepted subset behaves the same on both backends (no `/0` address, no repeated port
 * match, no port range), so the answer does not depend on the backend. Property tests
 * (test/parse-fast-path.test.ts) hold every "valid" to the canonicalizer's verdict.
 *
 * @module
 */

import { PASS_THROUGH_TARGETS, TARGET_EXTENSIONS } from "../iptables/canonical/targets.js";

/** What {@link quickCheckRule} can tell. */
export type QuickVerdict = 0 | 1 | 2;
/** Not known: run the canonicalizer. */
export const QUICK_UNKNOWN = 0;
/** Valid in either family (the rule holds no address). */
export const QUICK_VALID = 1;
/** Valid in the IPv4 family only (it holds dotted-quad addresses, so none an IPv6 reader takes). */
export const QUICK_VALID_IPV4 = 2;

// Match slots (bit flags of what a rule has loaded).
const M_COMMENT = 1;
const M_STATISTIC = 2;
const M_MARK = 4;
const M_CONNTRACK = 8;
const M_ADDRTYPE = 16;
const M_RECENT = 32;

// recent's options.
const R_SET = 1;
const R_RCHECK = 2;
const R_REAP = 4;
const R_RSOURCE = 8;
const R_NAME = 16;
const R_SECONDS = 32;

// Targets.
const T_NONE = 0;
const T_CHAIN = 1;
const T_DNAT = 2;
const T_MARK = 3;
const T_MASQUERADE = 4;
const T_REJECT = 5;

// Protocols (also the name of the port match each implies).
const P_TCP = 6;
const P_UDP = 17;
const P_SCTP = 132;

const CT_STATES = new Set(["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED", "SNAT", "DNAT"]);
/** Without BROADCAST and BLACKHOLE, which the IPv6 module refuses. */
const ADDR_TYPES = new Set(["LOCAL", "UNICAST", "MULTICAST", "ANYCAST", "UNSPEC"]);

/** The number of a `-p`/`-m` name among tcp, udp and sctp (as written by kube-proxy), else 0. */
function protocolOf(name: string): number {
  return name === "tcp" ? P_TCP : name === "udp" ? P_UDP : name === "sctp" ? P_SCTP : 0;
}

/** Decimal digits in `text[from, to)` forming 1–65535 without a leading zero; -1 otherwise. */
export function portAt(text: string, from: number, to: number): number {
  if (to <= from || to - from > 5 || text.charCodeAt(from) === 48) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v <= 65535 ? v : -1;
}

/**
 * Whether `text[0, to)` is a strict dotted quad (four decimal parts ≤ 255, no leading zeros),
 * a spelling every IPv4 reader of the canonicalizer accepts.
 */
export function isDottedQuad(text: string, to: number): boolean {
  let parts = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i < to; i++) {
    const c = text.charCodeAt(i);
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

/** `A.B.C.D` or `A.B.C.D/N` with N in 1–32 (a `/0` would depend on `!` and the backend). */
function isAddress(text: string): boolean {
  const slash = text.indexOf("/");
  if (slash < 0) return isDottedQuad(text, text.length);
  const bits = portAt(text, slash + 1, text.length);
  return bits >= 1 && bits <= 32 && isDottedQuad(text, slash);
}

/** `0x` and one to eight hex digits, in `text[from, to)`. */
function isHex32(text: string, from: number, to: number): boolean {
  const n = to - from;
  if (n < 3 || n > 10 || text.charCodeAt(from) !== 48 || text.charCodeAt(from + 1) !== 120) return false;
  for (let i = from + 2; i < to; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A mark value `0xV` or, when `mask` is allowed, `0xV/0xM`. */
function isMark(text: string, mask: boolean): boolean {
  const slash = text.indexOf("/");
  if (slash < 0) return isHex32(text, 0, text.length);
  return mask && isHex32(text, 0, slash) && isHex32(text, slash + 1, text.length);
}

/** `0.` and one or more digits: a probability in [0, 1). */
export function isProbability(text: string): boolean {
  const n = text.length;
  if (n < 3 || text.charCodeAt(0) !== 48 || text.charCodeAt(1) !== 46) return false;
  for (let i = 2; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A comma list of names from `known` (upper case, none empty). */
function isNameList(text: string, known: ReadonlySet<string>): boolean {
  let from = 0;
  for (;;) {
    const comma = text.indexOf(",", from);
    const end = comma < 0 ? text.length : comma;
    if (!known.has(text.slice(from, end))) return false;
    if (comma < 0) return true;
    from = comma + 1;
  }
}

/**
 * Tells, without building anything, whether the canonicalizer certainly accepts a rule's argv
 * (on either backend). Covers what kube-proxy writes: `-s`/`-d` (dotted quads), `-i`/`-o`,
 * `-p tcp|udp|sctp`, the comment, tcp/udp/sctp ports, statistic (random), mark, conntrack
 * state, addrtype and recent (session affinity) matches, and plain jumps, DNAT, MARK,
 * MASQUERADE and REJECT targets.
 *
 * @param args - The rule specification as in `Rule.args`.
 * @param ipv4 - Whether rules that are valid only in the IPv4 family (they hold dotted-quad
 *   addresses) may be accepted: false when the family is IPv6.
 * @param from - Where the rule starts in `args` (default 0).
 * @param to - Where it ends (default `args.length`).
 * @returns {@link QUICK_VALID}, {@link QUICK_VALID_IPV4} (holds IPv4 addresses) or
 *   {@link QUICK_UNKNOWN} (run the canonicalizer, which also finds any problem).
 * @example
 * quickCheckRule(["-s", "10.0.0.1", "-j", "KUBE-MARK-MASQ"], true) // QUICK_VALID_IPV4
 * quickCheckRule(["-p", "tcp", "--dport", "99999"], true) // QUICK_UNKNOWN
 */
export function quickCheckRule(
  args: readonly string[],
  ipv4: boolean,
  from = 0,
  to: number = args.length,
): QuickVerdict {
  let addresses = false;
  let seen = 0; // bits: 1 -s, 2 -d, 4 -i, 8 -o
  let protocol = 0;
  let portMatch = 0; // protocol of the loaded tcp/udp/sctp match, 0: none
  let ports = 0; // bits: 1 --sport, 2 --dport
  let loaded = 0; // M_* bits
  let given = 0; // M_* bits of the matches whose required option was given
  let statisticMode = false;
  let addrtypeSeen = 0; // bits: 1 --src-type, 2 --dst-type
  let recent = 0; // R_* bits
  let target = T_NONE;
  let targetOptions = 0; // DNAT, MARK: 1 once given; MASQUERADE: bits of its flags
  let negated = false;
  let i = from;
  while (i < to) {
    const arg = args[i] as string;
    if (arg === "!") {
      if (negated) return QUICK_UNKNOWN;
      negated = true;
      i++;
      continue;
    }
    // Every option below takes one value, except where `i++; continue` says otherwise.
    const value = i + 1 < to ? (args[i + 1] as string) : null;
    if (target !== T_NONE) {
      // After the target only its own options (the canonicalizer asks the target first).
      if (negated) return QUICK_UNKNOWN;
      if (target === T_MASQUERADE) {
        const bit = arg === "--random" ? 1 : arg === "--random-fully" ? 2 : 0;
        if (bit === 0 || (targetOptions & bit) !== 0) return QUICK_UNKNOWN;
        targetOptions |= bit;
        i++;
        continue;
      }
      if (value === null || targetOptions !== 0) return QUICK_UNKNOWN;
      if (target === T_DNAT) {
        if (arg !== "--to-destination" || !ipv4) return QUICK_UNKNOWN;
        const colon = value.indexOf(":");
        if (colon < 0) {
          if (!isDottedQuad(value, value.length)) return QUICK_UNKNOWN;
        } else if (
          // A port needs a (non-negated) port protocol before it.
          protocol === 0 ||
          !isDottedQuad(value, colon) ||
          portAt(value, colon + 1, value.length) < 0
        ) {
          return QUICK_UNKNOWN;
        }
        addresses = true;
      } else if (target === T_MARK) {
        const mask = arg === "--set-xmark" || arg === "--set-mark";
        if (!mask && arg !== "--or-mark" && arg !== "--xor-mark" && arg !== "--and-mark")
          return QUICK_UNKNOWN;
        if (!isMark(value, mask)) return QUICK_UNKNOWN;
      } else return QUICK_UNKNOWN;
      targetOptions = 1;
      i += 2;
      continue;
    }
    // recent's flags (no value, not inverted here).
    const flag = (loaded & M_RECENT) === 0 ? 0 : recentFlag(arg);
    if (flag !== 0) {
      if (negated || (recent & flag) !== 0) return QUICK_UNKNOWN;
      recent |= flag;
      if (flag === R_SET || flag === R_RCHECK) given |= M_RECENT;
      i++;
      continue;
    }
    if (value === null) return QUICK_UNKNOWN;
    switch (arg) {
      case "-s":
      case "-d": {
        const bit = arg === "-s" ? 1 : 2;
        if ((seen & bit) !== 0 || !ipv4 || !isAddress(value)) return QUICK_UNKNOWN;
        seen |= bit;
        addresses = true;
        break;
      }
      case "-i":
      case "-o": {
        const bit = arg === "-i" ? 4 : 8;
        if ((seen & bit) !== 0 || value.length === 0 || value.length > 15 || value === "+")
          return QUICK_UNKNOWN;
        seen |= bit;
        break;
      }
      case "-p":
        if (negated || protocol !== 0) return QUICK_UNKNOWN;
        protocol = protocolOf(value);
        if (protocol === 0) return QUICK_UNKNOWN;
        break;
      case "-m": {
        if (negated) return QUICK_UNKNOWN;
        const p = protocolOf(value);
        if (p !== 0) {
          if (portMatch !== 0) return QUICK_UNKNOWN;
          portMatch = p;
          break;
        }
        const bit = matchBit(value);
        if (bit === 0 || (loaded & bit) !== 0) return QUICK_UNKNOWN;
        loaded |= bit;
        break;
      }
      case "-j":
        if (negated) return QUICK_UNKNOWN;
        target = targetKind(value);
        if (target === T_NONE) return QUICK_UNKNOWN;
        break;
      case "--comment":
        if (negated || (loaded & M_COMMENT) === 0 || (given & M_COMMENT) !== 0) return QUICK_UNKNOWN;
        given |= M_COMMENT;
        break;
      case "--sport":
      case "--dport": {
        const bit = arg === "--sport" ? 1 : 2;
        if (portMatch === 0) {
          // iptables loads the protocol's match where its first option appears.
          if (protocol === 0) return QUICK_UNKNOWN;
          portMatch = protocol;
        }
        if ((ports & bit) !== 0 || portAt(value, 0, value.length) < 0) return QUICK_UNKNOWN;
        ports |= bit;
        break;
      }
      case "--mode":
        if (negated || (loaded & M_STATISTIC) === 0 || statisticMode || value !== "random")
          return QUICK_UNKNOWN;
        statisticMode = true;
        break;
      case "--probability":
        if ((loaded & M_STATISTIC) === 0 || (given & M_STATISTIC) !== 0 || !isProbability(value))
          return QUICK_UNKNOWN;
        given |= M_STATISTIC;
        break;
      case "--mark":
        if ((loaded & M_MARK) === 0 || (given & M_MARK) !== 0 || !isMark(value, true)) return QUICK_UNKNOWN;
        given |= M_MARK;
        break;
      case "--ctstate":
        if ((loaded & M_CONNTRACK) === 0 || (given & M_CONNTRACK) !== 0 || !isNameList(value, CT_STATES))
          return QUICK_UNKNOWN;
        given |= M_CONNTRACK;
        break;
      case "--src-type":
      case "--dst-type": {
        const bit = arg === "--src-type" ? 1 : 2;
        if ((loaded & M_ADDRTYPE) === 0 || (addrtypeSeen & bit) !== 0 || !isNameList(value, ADDR_TYPES))
          return QUICK_UNKNOWN;
        addrtypeSeen |= bit;
        given |= M_ADDRTYPE;
        break;
      }
      case "--name":
        if (negated || (loaded & M_RECENT) === 0 || (recent & R_NAME) !== 0 || value.length === 0)
          return QUICK_UNKNOWN;
        recent |= R_NAME;
        break;
      case "--seconds":
        if (negated || (loaded & M_RECENT) === 0 || (recent & R_SECONDS) !== 0 || !isPositive(value))
          return QUICK_UNKNOWN;
        recent |= R_SECONDS;
        break;
      default:
        return QUICK_UNKNOWN;
    }
    negated = false;
    i += 2;
  }
  if (negated || given !== loaded || ((loaded & M_STATISTIC) !== 0 && !statisticMode)) return QUICK_UNKNOWN;
  // recent: one command; --seconds only with --rcheck; --reap only with --seconds.
  if ((recent & R_SET) !== 0 && (recent & R_RCHECK) !== 0) return QUICK_UNKNOWN;
  if ((recent & R_SECONDS) !== 0 && (recent & R_RCHECK) === 0) return QUICK_UNKNOWN;
  if ((recent & R_REAP) !== 0 && (recent & R_SECONDS) === 0) return QUICK_UNKNOWN;
  // A port match needs the same protocol, not negated (only `-p NAME` is accepted above).
  if (portMatch !== 0 && portMatch !== protocol) return QUICK_UNKNOWN;
  // DNAT needs its address, MARK its operation.
  if ((target === T_DNAT || target === T_MARK) && targetOptions === 0) return QUICK_UNKNOWN;
  return addresses ? QUICK_VALID_IPV4 : QUICK_VALID;
}

/** The M_* bit of a `-m` name this test knows, else 0. */
function matchBit(name: string): number {
  switch (name) {
    case "comment":
      return M_COMMENT;
    case "statistic":
      return M_STATISTIC;
    case "mark":
      return M_MARK;
    case "conntrack":
      return M_CONNTRACK;
    case "addrtype":
      return M_ADDRTYPE;
    case "recent":
      return M_RECENT;
    default:
      return 0;
  }
}

/** The R_* bit of a valueless recent option this test knows, else 0. */
function recentFlag(arg: string): number {
  switch (arg) {
    case "--set":
      return R_SET;
    case "--rcheck":
      return R_RCHECK;
    case "--reap":
      return R_REAP;
    case "--rsource":
      return R_RSOURCE;
    default:
      return 0;
  }
}

/** 1 to 999,999,999 in decimal without a leading zero (a `--seconds` the kernel takes). */
export function isPositive(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > 9 || text.charCodeAt(0) === 48) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The kind of a `-j` target this test knows, or T_NONE. */
function targetKind(name: string): number {
  if (name === "DNAT") return T_DNAT;
  if (name === "MARK") return T_MARK;
  if (name === "MASQUERADE") return T_MASQUERADE;
  // Without --reject-with (which depends on the family), REJECT takes the family's default.
  if (name === "REJECT") return T_REJECT;
  // What the canonicalizer reads as a verdict or a chain: no extension, no options. kube-proxy's
  // chains (no target extension is named KUBE-…) skip the two lookups.
  if (isKubeChain(name)) return T_CHAIN;
  if (name.length === 0 || TARGET_EXTENSIONS.has(name) || PASS_THROUGH_TARGETS.has(name)) return T_NONE;
  return T_CHAIN;
}

/** Whether `name` starts with `KUBE-`. */
export function isKubeChain(name: string): boolean {
  return (
    name.length > 5 &&
    name.charCodeAt(4) === 45 &&
    name.charCodeAt(0) === 75 &&
    name.charCodeAt(1) === 85 &&
    name.charCodeAt(2) === 66 &&
    name.charCodeAt(3) === 69
  );
}
