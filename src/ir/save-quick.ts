/**
 * A direct printer for the rule shapes kube-proxy writes: argv → the `iptables-save` line,
 * without building the canonicalizer's object graph. A 10k-service state has ~320,000 rules in
 * a handful of shapes (only addresses, ports, comments, chain names and probabilities vary);
 * reading each argv once with a few locals and printing from them costs a fraction of the
 * general path.
 *
 * Like {@link quickCheckRule}, it answers only when it is sure: every rule it prints is one the
 * canonicalizer accepts and prints identically, on both backends (no `/0` address, no repeated
 * or full-range port match). Anything else — other extensions, spellings, repeats, option
 * orders, and every invalid rule — gets `null`, and the caller takes the canonicalizer, which
 * also reports problems. Property tests (test/save-text.test.ts) hold every printed line to
 * the canonicalizer's.
 *
 * @module
 */

import {
  type CanonicalAddress,
  canonicalAddress,
  formatHost,
  parseHostBytes,
} from "../iptables/canonical/address.js";
import { PASS_THROUGH_TARGETS, TARGET_EXTENSIONS } from "../iptables/canonical/targets.js";
import {
  probabilityToStored,
  probabilityToText,
  saveString,
  truncateBytes,
} from "../iptables/canonical/values.js";
import { isDottedQuad, isKubeChain, isPositive, isProbability, portAt } from "./canonical-quick.js";
import type { IPFamily } from "./types.js";

// Matches, by the bit that says a rule has loaded one (each at most once).
const M_COMMENT = 1;
const M_PORTS = 2;
const M_STATISTIC = 4;
const M_RECENT = 8;
const M_ADDRTYPE = 16;

/** Bits per match in a rule's packed match order (5 kinds, each loaded at most once: 25 bits). */
const MATCH_BITS = 5;
const MATCH_MASK = (1 << MATCH_BITS) - 1;

// Targets.
const T_NONE = 0;
const T_CHAIN = 1;
const T_DNAT = 2;
const T_REJECT = 3;

/** The end of recent's options: the default `--mask` of the family and side, always printed. */
export const RECENT_MASK_SOURCE: Readonly<Record<IPFamily, string>> = {
  IPv4: " --mask 255.255.255.255 --rsource",
  IPv6: " --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource",
};

/**
 * A comment's value as iptables-save prints it: the kernel keeps at most 255 bytes of it.
 *
 * @example
 * savedComment("ns/svc:p cluster IP") // '"ns/svc:p cluster IP"'
 */
export function savedComment(text: string): string {
  return saveString(truncateBytes(text, 255));
}

/** REJECT with the family's default type, always printed. */
const REJECT_IPV4 = " -j REJECT --reject-with icmp-port-unreachable";
const REJECT_IPV6 = " -j REJECT --reject-with icmp6-port-unreachable";

/** Address types valid in both families (IPv6 refuses BROADCAST and BLACKHOLE), each printed as is. */
const ADDR_TYPES = new Set(["UNSPEC", "UNICAST", "LOCAL", "ANYCAST", "MULTICAST"]);

/** The M_* bit of a `-m` name this printer knows (tcp/udp/sctp: M_PORTS), else 0. */
function matchBit(name: string): number {
  switch (name) {
    case "comment":
      return M_COMMENT;
    case "tcp":
    case "udp":
    case "sctp":
      return M_PORTS;
    case "statistic":
      return M_STATISTIC;
    case "recent":
      return M_RECENT;
    case "addrtype":
      return M_ADDRTYPE;
    default:
      return 0;
  }
}

/** The kind of a `-j` target this printer knows, or T_NONE. */
function targetKind(name: string): number {
  if (isKubeChain(name)) return T_CHAIN; // no target extension is named KUBE-…
  if (name === "DNAT") return T_DNAT;
  if (name === "REJECT") return T_REJECT;
  // A verdict or a chain: no extension, no options.
  if (name.length === 0 || TARGET_EXTENSIONS.has(name) || PASS_THROUGH_TARGETS.has(name)) return T_NONE;
  return T_CHAIN;
}

/** `-s`/`-d` read: a plain IPv4 address (printed with `/32`), or a canonical address. */
const PLAIN = 1;

/**
 * Reads `-s`/`-d`'s value: {@link PLAIN} for a canonical dotted quad (printed as `ADDR/32`),
 * else the canonical address, or null for a list, a `/0` or an invalid address.
 */
function readAddress(text: string, family: IPFamily): typeof PLAIN | CanonicalAddress | null {
  if (family === "IPv4" && isDottedQuad(text, text.length)) return PLAIN;
  if (text.indexOf(",") >= 0) return null;
  const a = canonicalAddress(text, family);
  // A /0 address is dropped, or refused when inverted on nft: the canonicalizer's business.
  if (typeof a === "string" || a.prefixLength === 0) return null;
  return a;
}

/** Pushes ` [!] FLAG ADDR/MASK` for an address read by {@link readAddress}. */
function pushAddress(
  out: string[],
  flag: string,
  negated: boolean,
  text: string,
  read: typeof PLAIN | CanonicalAddress,
): void {
  out.push(negated ? " ! " : " ", flag);
  if (read === PLAIN) out.push(text, "/32");
  else out.push(read.address, "/", read.mask);
}

/**
 * A `-s`/`-d` value as this printer prints it (`ADDR/MASK`), or null where it would decline (a
 * list, a `/0`, an invalid address).
 *
 * @example
 * savedAddress("10.0.0.1", "IPv4") // "10.0.0.1/32"
 */
export function savedAddress(text: string, family: IPFamily): string | null {
  const read = readAddress(text, family);
  if (read === null) return null;
  return read === PLAIN ? `${text}/32` : `${read.address}/${read.mask}`;
}

/**
 * DNAT's printed `--to-destination` for one address and an optional single port (IPv6 in
 * brackets when a port is given), or null for ranges and anything invalid. `portProtocol`:
 * whether a tcp/udp/sctp `-p` came before (a port needs one).
 */
export function savedDestination(text: string, family: IPFamily, portProtocol: boolean): string | null {
  let address = text;
  let port: string | null = null;
  if (family === "IPv4") {
    const colon = text.indexOf(":");
    if (colon >= 0) {
      // The common case, `A.B.C.D:PORT`, is already canonical.
      if (!portProtocol || portAt(text, colon + 1, text.length) < 0) return null;
      if (isDottedQuad(text, colon)) return text;
      address = text.slice(0, colon);
      port = text.slice(colon + 1);
    } else if (isDottedQuad(text, text.length)) return text;
  } else if (text.charCodeAt(0) === 91 /* [ */) {
    const close = text.indexOf("]");
    if (close < 0) return null;
    address = text.slice(1, close);
    if (close + 1 < text.length) {
      if (text.charCodeAt(close + 1) !== 58 /* : */) return null;
      port = text.slice(close + 2);
      if (!portProtocol || portAt(port, 0, port.length) < 0) return null;
    }
  }
  if (address.length === 0 || address.indexOf("-") >= 0) return null;
  const bytes = parseHostBytes(address, family);
  if (bytes === null) return null;
  const host = formatHost(bytes);
  if (port === null) return host;
  return family === "IPv6" ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Prints one rule as `iptables-save` does (`-A CHAIN …`, no newline) when it is in a shape
 * kube-proxy writes: `-s`/`-d`/`-i`/`-o`, `-p tcp|udp|sctp`, comment, tcp/udp/sctp ports,
 * statistic (random), recent (session affinity) and addrtype matches, and plain jumps, DNAT
 * (one address, optional port) and REJECT (default type) targets.
 *
 * @param chain - The chain the rule is in.
 * @param args - The rule specification as in `Rule.args`; the rule is `args[from, to)`.
 * @param family - The rule set's family.
 * @returns The line, or null when the rule is outside these shapes or invalid: print it with
 *   the canonicalizer, which then also reports the problem.
 * @example
 * quickSaveLine("X", ["-m", "tcp", "-p", "tcp", "-d", "10.0.0.1", "--dport", "80", "-j", "KUBE-SVC-A"], 0, 10, "IPv4")
 * // "-A X -d 10.0.0.1/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-A"
 */
export function quickSaveLine(
  chain: string,
  args: readonly string[],
  from: number,
  to: number,
  family: IPFamily,
): string | null {
  const out: string[] = [];
  return appendQuickSaveLine(out, chain, args, from, to, family) ? out.join("") : null;
}

/**
 * {@link quickSaveLine} as pieces pushed onto `out` (joined, they are the line): a caller that
 * joins many lines at once then copies each piece once, and builds no string per line.
 *
 * @returns Whether the rule was printed; when false, `out` is untouched.
 * @example
 * const out: string[] = [];
 * appendQuickSaveLine(out, "X", ["-s", "10.0.0.1", "-j", "DROP"], 0, 4, "IPv4"); // true
 * out.join("") // "-A X -s 10.0.0.1/32 -j DROP"
 */
export function appendQuickSaveLine(
  out: string[],
  chain: string,
  args: readonly string[],
  from: number,
  to: number,
  family: IPFamily,
): boolean {
  // The IP part: each address as given and as read, with whether it is negated.
  let source = "";
  let sourceRead: typeof PLAIN | CanonicalAddress | null = null;
  let sourceNegated = false;
  let destination = "";
  let destinationRead: typeof PLAIN | CanonicalAddress | null = null;
  let destinationNegated = false;
  let inInterface = "";
  let inNegated = false;
  let outInterface = "";
  let outNegated = false;
  let protocol = "";
  // The matches loaded (bits), and their order: one M_* code per MATCH_BITS bits, the first
  // loaded in the lowest (a number, not an array: no allocation per rule).
  let loaded = 0;
  let order = 0;
  let matches = 0;
  let comment: string | null = null;
  let portMatch = "";
  let sport = "";
  let sportNegated = false;
  let dport = "";
  let dportNegated = false;
  let mode = false;
  let probability = "";
  let probabilityNegated = false;
  let recentCommand = "";
  let seconds = "";
  let reap = false;
  let rsource = false;
  let listName = "";
  let srcType = "";
  let srcTypeNegated = false;
  let dstType = "";
  let dstTypeNegated = false;
  let target = T_NONE;
  let targetName = "";
  let toDestination = "";
  let negated = false;
  let i = from;
  while (i < to) {
    const arg = args[i] as string;
    if (arg === "!") {
      if (negated) return false;
      negated = true;
      i++;
      continue;
    }
    if (target !== T_NONE) {
      // After the target only DNAT's address (the canonicalizer asks the target first).
      if (negated || target !== T_DNAT || arg !== "--to-destination" || toDestination !== "" || i + 1 >= to)
        return false;
      const saved = savedDestination(args[i + 1] as string, family, protocol !== "");
      if (saved === null) return false;
      toDestination = saved;
      i += 2;
      continue;
    }
    if ((loaded & M_RECENT) !== 0) {
      // recent's flags take no value.
      const isFlag = arg === "--set" || arg === "--rcheck" || arg === "--reap" || arg === "--rsource";
      if (isFlag) {
        if (negated) return false;
        if (arg === "--reap") {
          if (reap) return false;
          reap = true;
        } else if (arg === "--rsource") {
          if (rsource) return false;
          rsource = true;
        } else {
          if (recentCommand !== "") return false;
          recentCommand = arg;
        }
        i++;
        continue;
      }
    }
    if (i + 1 >= to) return false;
    const value = args[i + 1] as string;
    switch (arg) {
      case "-s":
        if (sourceRead !== null) return false;
        sourceRead = readAddress(value, family);
        if (sourceRead === null) return false;
        source = value;
        sourceNegated = negated;
        break;
      case "-d":
        if (destinationRead !== null) return false;
        destinationRead = readAddress(value, family);
        if (destinationRead === null) return false;
        destination = value;
        destinationNegated = negated;
        break;
      case "-i":
        // `-i +` matches anything and is dropped: the canonicalizer's business.
        if (inInterface !== "" || !isInterface(value)) return false;
        inInterface = value;
        inNegated = negated;
        break;
      case "-o":
        if (outInterface !== "" || !isInterface(value)) return false;
        outInterface = value;
        outNegated = negated;
        break;
      case "-p":
        if (negated || protocol !== "" || matchBit(value) !== M_PORTS) return false;
        protocol = value;
        break;
      case "-m": {
        const bit = matchBit(value);
        if (negated || bit === 0 || (loaded & bit) !== 0) return false;
        loaded |= bit;
        order |= bit << (MATCH_BITS * matches++);
        if (bit === M_PORTS) portMatch = value;
        break;
      }
      case "-j":
        if (negated) return false;
        target = targetKind(value);
        if (target === T_NONE) return false;
        targetName = value;
        break;
      case "--comment":
        if (negated || (loaded & M_COMMENT) === 0 || comment !== null) return false;
        comment = value;
        break;
      case "--sport":
      case "--dport":
        if ((loaded & M_PORTS) === 0) {
          // iptables loads the protocol's match where its first option appears.
          if (protocol === "") return false;
          loaded |= M_PORTS;
          order |= M_PORTS << (MATCH_BITS * matches++);
          portMatch = protocol;
        }
        if (portAt(value, 0, value.length) < 0) return false;
        if (arg === "--sport") {
          if (sport !== "") return false;
          sport = value;
          sportNegated = negated;
        } else {
          if (dport !== "") return false;
          dport = value;
          dportNegated = negated;
        }
        break;
      case "--mode":
        if (negated || (loaded & M_STATISTIC) === 0 || mode || value !== "random") return false;
        mode = true;
        break;
      case "--probability": {
        if ((loaded & M_STATISTIC) === 0 || probability !== "" || !isProbability(value)) return false;
        const k = probabilityToStored(value);
        if (k < 0) return false;
        probability = probabilityToText(k);
        probabilityNegated = negated;
        break;
      }
      case "--src-type":
        if ((loaded & M_ADDRTYPE) === 0 || srcType !== "" || !ADDR_TYPES.has(value)) return false;
        srcType = value;
        srcTypeNegated = negated;
        break;
      case "--dst-type":
        if ((loaded & M_ADDRTYPE) === 0 || dstType !== "" || !ADDR_TYPES.has(value)) return false;
        dstType = value;
        dstTypeNegated = negated;
        break;
      case "--name":
        // The kernel keeps at most 199 bytes of the name: longer ones take the general path.
        if (negated || (loaded & M_RECENT) === 0 || listName !== "" || value.length === 0) return false;
        if (truncateBytes(value, 199) !== value) return false;
        listName = value;
        break;
      case "--seconds":
        if (negated || (loaded & M_RECENT) === 0 || seconds !== "" || !isPositive(value)) return false;
        seconds = value;
        break;
      default:
        return false;
    }
    negated = false;
    i += 2;
  }
  if (negated) return false;
  // Every loaded match got what it needs, and a port match sits on its own protocol.
  if ((loaded & M_COMMENT) !== 0 && comment === null) return false;
  if ((loaded & M_STATISTIC) !== 0 && (!mode || probability === "")) return false;
  if ((loaded & M_ADDRTYPE) !== 0 && srcType === "" && dstType === "") return false;
  if ((loaded & M_PORTS) !== 0 && portMatch !== protocol) return false;
  if ((loaded & M_RECENT) !== 0) {
    // One command and a name; --seconds only with --rcheck, --reap only with --seconds.
    if (recentCommand === "" || listName === "") return false;
    if (seconds !== "" && recentCommand !== "--rcheck") return false;
    if (reap && seconds === "") return false;
  }
  if (target === T_DNAT && toDestination === "") return false;

  out.push("-A ", chain);
  if (sourceRead !== null) pushAddress(out, "-s ", sourceNegated, source, sourceRead);
  if (destinationRead !== null) pushAddress(out, "-d ", destinationNegated, destination, destinationRead);
  if (inInterface !== "") out.push(inNegated ? " ! -i " : " -i ", inInterface);
  if (outInterface !== "") out.push(outNegated ? " ! -o " : " -o ", outInterface);
  if (protocol !== "") out.push(" -p ", protocol);
  for (let m = 0; m < matches; m++) {
    switch ((order >>> (MATCH_BITS * m)) & MATCH_MASK) {
      case M_COMMENT:
        // The kernel keeps at most 255 bytes of a comment.
        out.push(" -m comment --comment ", savedComment(comment as string));
        break;
      case M_PORTS:
        out.push(" -m ", portMatch);
        if (sport !== "") out.push(sportNegated ? " ! --sport " : " --sport ", sport);
        if (dport !== "") out.push(dportNegated ? " ! --dport " : " --dport ", dport);
        break;
      case M_STATISTIC:
        out.push(
          probabilityNegated
            ? " -m statistic --mode random ! --probability "
            : " -m statistic --mode random --probability ",
          probability,
        );
        break;
      case M_RECENT:
        out.push(" -m recent ", recentCommand);
        if (seconds !== "") out.push(" --seconds ", seconds);
        if (reap) out.push(" --reap");
        out.push(" --name ", listName, RECENT_MASK_SOURCE[family]);
        break;
      default:
        out.push(" -m addrtype");
        if (srcType !== "") out.push(srcTypeNegated ? " ! --src-type " : " --src-type ", srcType);
        if (dstType !== "") out.push(dstTypeNegated ? " ! --dst-type " : " --dst-type ", dstType);
    }
  }
  if (target === T_CHAIN) out.push(" -j ", targetName);
  else if (target === T_DNAT) out.push(" -j DNAT --to-destination ", toDestination);
  else if (target === T_REJECT) out.push(family === "IPv4" ? REJECT_IPV4 : REJECT_IPV6);
  return true;
}

/** An interface name `-i`/`-o` print as given: 1–15 characters, not the match-anything `+`. */
function isInterface(name: string): boolean {
  return name.length > 0 && name.length <= 15 && name !== "+";
}
