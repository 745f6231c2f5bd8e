/**
 * Match extensions the canonicalizer understands (spec §3–§7): their option spellings and how
 * their options are validated, normalized and ordered the way iptables-save prints them.
 * Matches not listed here but known to iptables are passed through faithfully.
 *
 * @module
 */

import type { CanonicalMatch, CanonicalOption, NameList, PortCondition } from "../../ir/canonical-types.js";
import { canonicalAddress, canonicalMaskAddress } from "./address.js";
import {
  type ExtensionContext,
  familyExtensions,
  firstValue,
  keptOptions,
  type OptionSpec,
  onceTable,
  option,
  optionTable,
  type RawOption,
  rejectRepeat,
  type TableExtension,
} from "./extension.js";
import { protocolNumber } from "./protocols.js";
import {
  formatPortRange,
  hex32,
  type PortRange,
  parseCUnsigned,
  parseGuidedPortRange,
  parsePortRange,
  probabilityToStored,
  probabilityToText,
  RuleSpecError,
  truncateBytes,
} from "./values.js";

/** A match extension: its options and how to turn the collected options into a canonical match. */
export interface MatchExtension {
  /** Option spellings it owns. */
  readonly options: ReadonlyMap<string, OptionSpec>;
  /** Options iptables refuses twice in one `-m` (see {@link onceTable}); others check in `finish`. */
  readonly once?: ReadonlyMap<string, string>;
  /**
   * Builds the canonical match from the options given to one `-m name` (in input order), or
   * returns null when the backend drops the whole match.
   */
  finish(
    name: string,
    raw: readonly RawOption[],
    ctx: ExtensionContext,
    argIndex: number,
  ): CanonicalMatch | null;
}

const fail = (message: string, argIndex: number): never => {
  throw new RuleSpecError(message, argIndex);
};

// ---------------------------------------------------------------------------- comment

const comment: MatchExtension = {
  options: optionTable([[["--comment"], 1, false]]),
  finish(name, raw, _ctx, argIndex) {
    let text: string | null = null;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      text = truncateBytes(firstValue(r), 255);
    }
    if (text === null) return fail(`comment: option "--comment" must be specified`, argIndex);
    return { kind: "comment", name, comment: text, options: [option("--comment", false, [text])] };
  },
};

// ---------------------------------------------------------------------------- tcp / udp / sctp

const TCP_FLAGS: readonly (readonly [string, number])[] = [
  ["FIN", 0x01],
  ["SYN", 0x02],
  ["RST", 0x04],
  ["PSH", 0x08],
  ["ACK", 0x10],
  ["URG", 0x20],
];

function parseTcpFlags(text: string, argIndex: number): number {
  let bits = 0;
  for (const part of text.split(",")) {
    const upper = part.toUpperCase();
    if (upper === "ALL") bits |= 0x3f;
    else if (upper === "NONE") continue;
    else {
      const hit = TCP_FLAGS.find(([n]) => n === upper);
      if (hit === undefined) fail(`Unknown TCP flag \`${part}'`, argIndex);
      else bits |= hit[1];
    }
  }
  return bits;
}

function formatTcpFlags(bits: number): string {
  if (bits === 0) return "NONE";
  const names: string[] = [];
  for (const [n, b] of TCP_FLAGS) if ((bits & b) !== 0) names.push(n);
  return names.join(",");
}

const PROTOCOL_OF: Readonly<Record<string, number>> = { tcp: 6, udp: 17, sctp: 132 };

/** Checks that a protocol match sits on a rule with the same non-negated `-p`. */
function requireProtocol(name: string, wanted: number, ctx: ExtensionContext, argIndex: number): void {
  const p = ctx.protocol;
  if (p === null || p.number !== wanted || p.negated) {
    fail(`${name} match requires \`-p ${name === "icmp6" ? "ipv6-icmp" : name}'`, argIndex);
  }
}

/**
 * What iptables says to a repeated option of tcp, udp or sctp: tcp and sctp have their own
 * words, udp the generic one; `--syn` and `--tcp-flags` exclude each other.
 */
function portOnce(name: string): ReadonlyMap<string, string> {
  if (name === "udp") {
    return onceTable([
      [["--sport"], 'udp: option "--source-port" can only be used once'],
      [["--dport"], 'udp: option "--destination-port" can only be used once'],
    ]);
  }
  return onceTable([
    [["--sport"], "Only one `--source-port' allowed"],
    [["--dport"], "Only one `--destination-port' allowed"],
    [["--syn", "--tcp-flags"], "Only one of `--syn' or `--tcp-flags'  allowed"],
    [["--tcp-option"], "Only one `--tcp-option' allowed"],
    [["--chunk-types"], "Only one `--chunk-types' allowed"],
  ]);
}

function makePortMatch(protocolName: string): MatchExtension {
  return {
    once: portOnce(protocolName),
    options: optionTable([
      [["--sport", "--source-port"], 1, true],
      [["--dport", "--destination-port"], 1, true],
      [["--syn"], 0, true],
      [["--tcp-flags"], 2, true],
      [["--tcp-option"], 1, true],
      [["--chunk-types"], 2, true],
    ]),
    finish(name, raw, ctx, argIndex) {
      const isSctp = name === "sctp";
      const wanted = PROTOCOL_OF[name] ?? -1;
      // iptables-nft turns a tcp or udp match with ports or flags into expressions of its own,
      // which do not ask for the protocol: a negated -p of it is then taken (legacy's kernel
      // module refuses it, and so does nft's for a match it keeps as xt_tcpudp).
      const p = ctx.protocol;
      const nftNegated = ctx.backend === "nft" && !isSctp && p !== null && p.number === wanted && p.negated;
      if (!nftNegated) requireProtocol(name, wanted, ctx, argIndex);
      let sport: PortCondition | null = null;
      let dport: PortCondition | null = null;
      let invertedFullRange = false;
      let tcpOption: CanonicalOption | null = null;
      let tcpFlags: CanonicalOption | null = null;
      let chunks: CanonicalOption | null = null;
      for (const r of raw) {
        switch (r.name) {
          case "--sport":
          case "--dport": {
            // udp reads ports as getaddrinfo does; tcp and sctp with C base 0 (spec §5.1: `010`
            // is 8 for tcp, 10 for udp, and udp takes 65536 as 0 and a range upside down).
            const range =
              name === "udp"
                ? parseGuidedPortRange(
                    firstValue(r),
                    name,
                    r.name === "--sport" ? "--source-port" : "--destination-port",
                    r.argIndex + 1,
                  )
                : parsePortRange(firstValue(r), r.argIndex + 1, !isSctp);
            let cond: PortCondition | null = { min: range.min, max: range.max, negated: r.negated };
            // tcp/udp drop a full range; inverted, the match can never hit (spec §5.1).
            if (!isSctp && range.min === 0 && range.max === 65535) {
              if (r.negated) invertedFullRange = true;
              cond = null;
            }
            if (r.name === "--sport") sport = cond;
            else dport = cond;
            break;
          }
          case "--syn":
            if (name !== "tcp") fail(`unknown option "--syn"`, r.argIndex);
            tcpFlags = option("--tcp-flags", r.negated, ["FIN,SYN,RST,ACK", "SYN"]);
            break;
          case "--tcp-flags": {
            if (name !== "tcp") fail(`unknown option "--tcp-flags"`, r.argIndex);
            const mask = parseTcpFlags(r.values[0] ?? "", r.argIndex + 1);
            const comp = parseTcpFlags(r.values[1] ?? "", r.argIndex + 2);
            tcpFlags = option("--tcp-flags", r.negated, [formatTcpFlags(mask), formatTcpFlags(comp)]);
            break;
          }
          case "--tcp-option": {
            if (name !== "tcp") fail(`unknown option "--tcp-option"`, r.argIndex);
            const n = parseCUnsigned(firstValue(r), 255);
            if (n < 1) fail(`Unknown TCP option \`${firstValue(r)}'`, r.argIndex + 1);
            tcpOption = option("--tcp-option", r.negated, [String(n)]);
            break;
          }
          default:
            if (!isSctp) fail(`unknown option "${r.name}"`, r.argIndex);
            chunks = option("--chunk-types", r.negated, r.values);
        }
      }
      const options: CanonicalOption[] = [];
      if (sport !== null) options.push(option("--sport", sport.negated, [formatPortRange(sport)]));
      if (dport !== null) options.push(option("--dport", dport.negated, [formatPortRange(dport)]));
      if (tcpOption !== null) options.push(tcpOption);
      if (tcpFlags !== null) options.push(tcpFlags);
      if (chunks !== null) options.push(chunks);
      if (invertedFullRange && options.length === 0 && ctx.backend === "nft") return null;
      if (nftNegated && (options.length === 0 || tcpOption !== null))
        requireProtocol(name, wanted, ctx, argIndex);
      return { kind: "ports", name, sourcePort: sport, destinationPort: dport, options };
    },
  };
}

// ---------------------------------------------------------------------------- multiport

const MULTIPORT_PROTOCOLS = new Set([6, 17, 136, 132, 33]);

const multiport: MatchExtension = {
  options: optionTable([
    [["--sports", "--source-ports"], 1, true],
    [["--dports", "--destination-ports"], 1, true],
    [["--ports"], 1, true],
  ]),
  finish(name, raw, _ctx, argIndex) {
    if (raw.length === 0) return fail("multiport: no ports specified", argIndex);
    if (raw.length > 1) return fail("multiport can only have one option", raw[1]?.argIndex ?? argIndex);
    const r = raw[0] as RawOption;
    if (!MULTIPORT_PROTOCOLS.has(r.protocolSoFar)) {
      fail("multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'", r.argIndex);
    }
    const ports: PortRange[] = [];
    const printed: string[] = [];
    let slots = 0;
    for (const item of firstValue(r).split(",")) {
      const range = parsePortRange(item, r.argIndex + 1, r.protocolSoFar === 6 || r.protocolSoFar === 17);
      slots += range.min === range.max ? 1 : 2;
      ports.push(range);
      printed.push(formatPortRange(range));
    }
    if (slots > 15) fail("too many ports specified", r.argIndex + 1);
    const direction = r.name === "--sports" ? "source" : r.name === "--dports" ? "destination" : "either";
    return {
      kind: "multiport",
      name,
      direction,
      negated: r.negated,
      ports,
      options: [option(r.name, r.negated, [printed.join(",")])],
    };
  },
};

// ---------------------------------------------------------------------------- statistic

const statistic: MatchExtension = {
  options: optionTable([
    [["--mode"], 1, false],
    [["--probability"], 1, true],
    [["--every"], 1, true],
    [["--packet"], 1, false],
  ]),
  finish(name, raw, _ctx, argIndex) {
    let mode: "random" | "nth" | null = null;
    let k = -1;
    let every = -1;
    let packet = -1;
    let negated = false;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      const v = firstValue(r);
      switch (r.name) {
        case "--mode":
          if (v !== "random" && v !== "nth") fail(`Bad mode "${v}"`, r.argIndex + 1);
          mode = v as "random" | "nth";
          break;
        case "--probability":
          k = probabilityToStored(v);
          if (k < 0) {
            fail('statistic: bad value for option "--probability", or out of range (0-1).', r.argIndex + 1);
          }
          negated = r.negated;
          break;
        case "--every":
          every = parseCUnsigned(v, 0xffffffff);
          if (every < 1) {
            fail(
              'statistic: bad value for option "--every", or out of range (1-4294967295).',
              r.argIndex + 1,
            );
          }
          negated = r.negated;
          break;
        default:
          packet = parseCUnsigned(v, 0xffffffff);
          if (packet < 0) {
            fail(
              'statistic: bad value for option "--packet", or out of range (0-4294967295).',
              r.argIndex + 1,
            );
          }
      }
    }
    if (mode === null) return fail(`statistic: option "--mode" must be specified`, argIndex);
    if (mode === "random") {
      if (k < 0) fail("--probability must be specified when using random mode", argIndex);
      if (every >= 0 || packet >= 0) fail("--every and --packet only valid in nth mode", argIndex);
      return {
        kind: "statistic",
        name,
        mode,
        negated,
        probability: k,
        every: 0,
        packet: 0,
        options: [
          option("--mode", false, ["random"]),
          option("--probability", negated, [probabilityToText(k)]),
        ],
      };
    }
    if (k >= 0) fail("--probability only valid in random mode", argIndex);
    if (every < 0) fail("--every must be specified when using nth mode", argIndex);
    if (packet < 0) fail('statistic: option "--every" also requires "--packet".', argIndex);
    if (packet >= every) fail("--packet can't be larger than --every", argIndex);
    return {
      kind: "statistic",
      name,
      mode,
      negated,
      probability: 0,
      every,
      packet,
      options: [
        option("--mode", false, ["nth"]),
        option("--every", negated, [String(every)]),
        option("--packet", false, [String(packet)]),
      ],
    };
  },
};

// ---------------------------------------------------------------------------- mark / connmark

/**
 * Parses `VALUE[/MASK]` (C base 0, 32-bit); the mask defaults to all ones.
 *
 * @example
 * parseMarkValue("0x4000/0x4000", 0) // { value: 16384, mask: 16384, hasMask: true }
 */
export function parseMarkValue(
  text: string,
  argIndex: number,
): { value: number; mask: number; hasMask: boolean } {
  const slash = text.indexOf("/");
  const value = parseCUnsigned(slash < 0 ? text : text.slice(0, slash), 0xffffffff);
  const mask = slash < 0 ? 0xffffffff : parseCUnsigned(text.slice(slash + 1), 0xffffffff);
  if (value < 0 || mask < 0) fail(`Bad mark value \`${text}'`, argIndex);
  return { value, mask, hasMask: slash >= 0 };
}

const mark: MatchExtension = {
  options: optionTable([[["--mark"], 1, true]]),
  finish(name, raw, _ctx, argIndex) {
    let result: CanonicalMatch | null = null;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      const { value, mask } = parseMarkValue(firstValue(r), r.argIndex + 1);
      const printed = mask === 0xffffffff ? hex32(value) : `${hex32(value)}/${hex32(mask)}`;
      result = {
        kind: "mark",
        name,
        negated: r.negated,
        value,
        mask,
        options: [option("--mark", r.negated, [printed])],
      };
    }
    return result ?? fail(`${name}: option "--mark" must be specified`, argIndex);
  },
};

// ---------------------------------------------------------------------------- addrtype

const ADDRTYPES = [
  "UNSPEC",
  "UNICAST",
  "LOCAL",
  "BROADCAST",
  "ANYCAST",
  "MULTICAST",
  "BLACKHOLE",
  "UNREACHABLE",
  "PROHIBIT",
  "THROW",
  "NAT",
  "XRESOLVE",
] as const;

/** The address types the IPv6 addrtype module refuses. */
const IPV6_REFUSED_TYPES: ReadonlySet<string> = new Set([
  "BROADCAST",
  "BLACKHOLE",
  "PROHIBIT",
  "THROW",
  "NAT",
  "XRESOLVE",
]);

/** Parses a comma list of names against `known` (case-insensitive) and returns them in `known` order. */
function parseNameList(
  text: string,
  known: readonly string[],
  negated: boolean,
  argIndex: number,
  error: (part: string) => string,
): NameList {
  let bits = 0;
  for (const part of text.split(",")) {
    const i = known.indexOf(part.toUpperCase());
    if (i < 0) fail(error(part), argIndex);
    bits |= 1 << i;
  }
  return { negated, names: known.filter((_, i) => (bits & (1 << i)) !== 0) };
}

const addrtype: MatchExtension = {
  options: optionTable([
    [["--src-type"], 1, true],
    [["--dst-type"], 1, true],
    [["--limit-iface-in"], 0, false],
    [["--limit-iface-out"], 0, false],
  ]),
  finish(name, raw, ctx, argIndex) {
    let src: NameList | null = null;
    let dst: NameList | null = null;
    let limitIn = false;
    let limitOut = false;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.name === "--limit-iface-in") limitIn = true;
      else if (r.name === "--limit-iface-out") limitOut = true;
      else {
        const list = parseNameList(
          firstValue(r),
          ADDRTYPES,
          r.negated,
          r.argIndex + 1,
          (p) => `addrtype: bad type "${p}"`,
        );
        // The IPv6 kernel module refuses BROADCAST, BLACKHOLE and every type from PROHIBIT on
        // (spec §7.2; xt_addrtype: "ipv6 PROHIBIT (THROW, NAT ..) matching not supported").
        const refused = ctx.family === "IPv6" ? list.names.find((n) => IPV6_REFUSED_TYPES.has(n)) : undefined;
        if (refused !== undefined) {
          fail(`ip6tables: addrtype ${refused} is not supported for IPv6`, r.argIndex + 1);
        }
        if (r.name === "--src-type") src = list;
        else dst = list;
      }
    }
    if (limitIn && limitOut)
      fail("addrtype: you can't specify both --limit-iface-in and --limit-iface-out", argIndex);
    if (src === null && dst === null) fail("addrtype: you must specify --src-type or --dst-type", argIndex);
    const options: CanonicalOption[] = [];
    if (src !== null) options.push(option("--src-type", src.negated, [src.names.join(",")]));
    if (dst !== null) options.push(option("--dst-type", dst.negated, [dst.names.join(",")]));
    if (limitIn) options.push(option("--limit-iface-in", false, []));
    if (limitOut) options.push(option("--limit-iface-out", false, []));
    return {
      kind: "addrtype",
      name,
      sourceTypes: src,
      destinationTypes: dst,
      limitIfaceIn: limitIn,
      limitIfaceOut: limitOut,
      options,
    };
  },
};

// ---------------------------------------------------------------------------- conntrack / state

const CT_STATES = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED", "SNAT", "DNAT"] as const;
const STATE_STATES = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED"] as const;
const CT_STATUS = ["EXPECTED", "SEEN_REPLY", "ASSURED", "CONFIRMED"] as const;
/** Canonical print order of conntrack's options (spec §7.3). */
const CT_ORDER = [
  "--ctstate",
  "--ctproto",
  "--ctorigsrc",
  "--ctorigdst",
  "--ctreplsrc",
  "--ctrepldst",
  "--ctorigsrcport",
  "--ctorigdstport",
  "--ctreplsrcport",
  "--ctrepldstport",
  "--ctstatus",
  "--ctexpire",
  "--ctdir",
];

function conntrackValue(r: RawOption, ctx: ExtensionContext): string {
  const v = firstValue(r);
  switch (r.name) {
    case "--ctproto": {
      const n = protocolNumber(v);
      if (n < 0) fail(`unknown protocol "${v}" specified`, r.argIndex + 1);
      return String(n);
    }
    case "--ctorigsrc":
    case "--ctorigdst":
    case "--ctreplsrc":
    case "--ctrepldst": {
      const a = canonicalAddress(v, ctx.family);
      if (typeof a === "string") return fail(a, r.argIndex + 1);
      const full = ctx.family === "IPv4" ? 32 : 128;
      return a.prefixLength === full ? a.address : `${a.address}/${a.mask}`;
    }
    case "--ctstatus": {
      if (v.toUpperCase() === "NONE") return "NONE";
      return parseNameList(v, CT_STATUS, r.negated, r.argIndex + 1, (p) => `Bad ctstatus "${p}"`).names.join(
        ",",
      );
    }
    case "--ctexpire": {
      const colon = v.indexOf(":");
      const lo = parseCUnsigned(colon < 0 ? v : v.slice(0, colon), 0xffffffff);
      const hi = colon < 0 ? lo : parseCUnsigned(v.slice(colon + 1), 0xffffffff);
      if (lo < 0 || hi < 0 || lo > hi) fail(`conntrack: bad value for option "--ctexpire"`, r.argIndex + 1);
      return lo === hi ? String(lo) : `${lo}:${hi}`;
    }
    case "--ctdir": {
      const up = v.toUpperCase();
      if (up !== "ORIGINAL" && up !== "REPLY") fail(`Unknown --ctdir "${v}"`, r.argIndex + 1);
      return up;
    }
    default: {
      // the four port options
      const range = parseGuidedPortRange(v.replace("-", ":"), "conntrack", r.name, r.argIndex + 1);
      return formatPortRange(range);
    }
  }
}

const conntrack: MatchExtension = {
  options: optionTable([
    [["--ctstate"], 1, true],
    [["--ctproto"], 1, true],
    [["--ctorigsrc"], 1, true],
    [["--ctorigdst"], 1, true],
    [["--ctreplsrc"], 1, true],
    [["--ctrepldst"], 1, true],
    [["--ctorigsrcport"], 1, true],
    [["--ctorigdstport"], 1, true],
    [["--ctreplsrcport"], 1, true],
    [["--ctrepldstport"], 1, true],
    [["--ctstatus"], 1, true],
    [["--ctexpire"], 1, true],
    [["--ctdir"], 1, false],
  ]),
  finish(name, raw, ctx, argIndex) {
    const byName = new Map<string, CanonicalOption>();
    let states: NameList | null = null;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.name === "--ctstate") {
        states = parseNameList(
          firstValue(r),
          CT_STATES,
          r.negated,
          r.argIndex + 1,
          (p) => `Bad ctstate "${p}"`,
        );
        byName.set(r.name, option(r.name, r.negated, [states.names.join(",")]));
      } else {
        byName.set(r.name, option(r.name, r.negated, [conntrackValue(r, ctx)]));
      }
    }
    if (byName.size === 0) fail("conntrack: you must specify one or more options", argIndex);
    const options: CanonicalOption[] = [];
    for (const n of CT_ORDER) {
      const o = byName.get(n);
      if (o !== undefined) options.push(o);
    }
    return { kind: "conntrack", name, states, options };
  },
};

const state: MatchExtension = {
  options: optionTable([[["--state"], 1, true]]),
  finish(name, raw, _ctx, argIndex) {
    const r = raw[raw.length - 1];
    if (r === undefined) return fail(`state: option "--state" must be specified`, argIndex);
    if (raw.length > 1) fail(`state: option "--state" can only be used once`, r.argIndex);
    const states = parseNameList(
      firstValue(r),
      STATE_STATES,
      r.negated,
      r.argIndex + 1,
      (p) => `Bad state "${p}"`,
    );
    return {
      kind: "conntrack",
      name,
      states,
      options: [option("--state", r.negated, [states.names.join(",")])],
    };
  },
};

// ---------------------------------------------------------------------------- recent

const recent: MatchExtension = {
  options: optionTable([
    [["--set"], 0, true],
    [["--rcheck"], 0, true],
    [["--update"], 0, true],
    [["--remove"], 0, true],
    [["--seconds"], 1, false],
    [["--reap"], 0, false],
    [["--hitcount"], 1, false],
    [["--rttl"], 0, false],
    [["--name"], 1, false],
    [["--mask"], 1, false],
    [["--rsource"], 0, false],
    [["--rdest"], 0, false],
  ]),
  finish(name, raw, ctx, argIndex) {
    let command: string | null = null;
    let negated = false;
    let seconds = 0;
    let reap = false;
    let hitCount = 0;
    let rttl = false;
    let listName = "DEFAULT";
    let mask = ctx.family === "IPv4" ? "255.255.255.255" : "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
    let side: "source" | "destination" = "source";
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      const v = firstValue(r);
      switch (r.name) {
        case "--seconds":
          seconds = parseCUnsigned(v, 0xffffffff);
          if (seconds < 1) {
            fail('recent: bad value for option "--seconds", or out of range (1-4294967295).', r.argIndex + 1);
          }
          break;
        case "--hitcount":
          hitCount = parseCUnsigned(v, 0xffffffff);
          if (hitCount < 0) {
            fail(
              'recent: bad value for option "--hitcount", or out of range (0-4294967295).',
              r.argIndex + 1,
            );
          }
          // The kernel keeps at most 65535 hits per address (XT_RECENT_MAX_NSTAMPS).
          if (hitCount > 65535)
            fail(`recent: hitcount ${hitCount} is more than the kernel keeps (65535)`, r.argIndex + 1);
          break;
        case "--reap":
          reap = true;
          break;
        case "--rttl":
          rttl = true;
          if (command === "--set" || command === "--remove") {
            fail(`recent: option "--rttl" cannot be used together with "${command}"`, r.argIndex);
          }
          break;
        case "--name":
          // The kernel refuses an empty name and keeps at most 199 bytes (spec §7.4).
          listName = truncateBytes(v, 199);
          if (listName.length === 0) fail("recent: the list name must not be empty", r.argIndex + 1);
          break;
        case "--mask": {
          const m = canonicalMaskAddress(v, ctx.family);
          if (typeof m !== "string") fail(m.error, r.argIndex + 1);
          else mask = m;
          break;
        }
        case "--rsource":
          side = "source";
          break;
        case "--rdest":
          side = "destination";
          break;
        default:
          if (command !== null) {
            fail("recent: only one of --set, --rcheck, --update or --remove may be given", r.argIndex);
          }
          command = r.name;
          negated = r.negated;
          if (rttl && (command === "--set" || command === "--remove")) {
            fail(`recent: option "--rttl" cannot be used together with "${command}"`, r.argIndex);
          }
      }
    }
    if (command === null) {
      return fail("recent: you must specify one of `--set', `--rcheck', `--update' or `--remove'", argIndex);
    }
    if (reap && seconds === 0) fail("recent: --reap is only valid with --seconds", argIndex);
    if (command === "--set" || command === "--remove") {
      if (seconds !== 0 || hitCount !== 0 || (rttl && command === "--remove")) {
        fail("recent: --seconds and --hitcount are only valid with --rcheck or --update", argIndex);
      }
    }
    const options: CanonicalOption[] = [option(command, negated, [])];
    // iptables 1.8.9 prints the two counts as signed ints (4294967295 is -1).
    if (seconds !== 0) options.push(option("--seconds", false, [String(seconds | 0)]));
    if (reap) options.push(option("--reap", false, []));
    if (hitCount !== 0) options.push(option("--hitcount", false, [String(hitCount | 0)]));
    if (rttl) options.push(option("--rttl", false, []));
    options.push(option("--name", false, [listName]));
    options.push(option("--mask", false, [mask]));
    options.push(option(side === "source" ? "--rsource" : "--rdest", false, []));
    return {
      kind: "recent",
      name,
      negated,
      command: command.slice(2) as "set" | "rcheck" | "update" | "remove",
      listName,
      seconds,
      reap,
      hitCount,
      rttl,
      mask,
      side,
      options,
    };
  },
};

// ---------------------------------------------------------------------------- nfacct

const nfacct: MatchExtension = {
  options: optionTable([[["--nfacct-name"], 1, false]]),
  once: onceTable([[["--nfacct-name"], 'nfacct: option "--nfacct-name" can only be used once']]),
  finish(name, raw, _ctx, argIndex) {
    const r = raw[raw.length - 1];
    if (r === undefined) return fail(`nfacct: option "--nfacct-name" must be specified`, argIndex);
    const accountName = firstValue(r);
    if (truncateBytes(accountName, 31) !== accountName)
      fail("nfacct: name too long (31 bytes at most)", r.argIndex + 1);
    return { kind: "nfacct", name, accountName, options: [option("--nfacct-name", false, [accountName])] };
  },
};

// ---------------------------------------------------------------------------- physdev

const PHYSDEV_ORDER = [
  "--physdev-is-in",
  "--physdev-in",
  "--physdev-is-out",
  "--physdev-out",
  "--physdev-is-bridged",
];

const physdev: MatchExtension = {
  options: optionTable([
    [["--physdev-in"], 1, true],
    [["--physdev-out"], 1, true],
    [["--physdev-is-in"], 0, true],
    [["--physdev-is-out"], 0, true],
    [["--physdev-is-bridged"], 0, true],
  ]),
  finish(name, raw, _ctx, argIndex) {
    const byName = new Map<string, CanonicalOption>();
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.values.length > 0 && firstValue(r).length > 15) {
        fail(`interface name \`${firstValue(r)}' must be shorter than 16 characters`, r.argIndex + 1);
      }
      byName.set(r.name, option(r.name, r.negated, r.values));
    }
    if (byName.size === 0) fail("PHYSDEV: no physdev option specified", argIndex);
    const options: CanonicalOption[] = [];
    for (const n of PHYSDEV_ORDER) {
      const o = byName.get(n);
      if (o !== undefined) options.push(o);
    }
    return { kind: "generic", name, options };
  },
};

// ---------------------------------------------------------------------------- icmp / icmp6

/** ICMP type names: [name, type, codeMin, codeMax]. */
const ICMP4: readonly (readonly [string, number, number, number])[] = [
  ["any", 255, 0, 255],
  ["echo-reply", 0, 0, 255],
  ["pong", 0, 0, 255],
  ["destination-unreachable", 3, 0, 255],
  ["network-unreachable", 3, 0, 0],
  ["host-unreachable", 3, 1, 1],
  ["protocol-unreachable", 3, 2, 2],
  ["port-unreachable", 3, 3, 3],
  ["fragmentation-needed", 3, 4, 4],
  ["source-route-failed", 3, 5, 5],
  ["network-unknown", 3, 6, 6],
  ["host-unknown", 3, 7, 7],
  ["network-prohibited", 3, 9, 9],
  ["host-prohibited", 3, 10, 10],
  ["TOS-network-unreachable", 3, 11, 11],
  ["TOS-host-unreachable", 3, 12, 12],
  ["communication-prohibited", 3, 13, 13],
  ["host-precedence-violation", 3, 14, 14],
  ["precedence-cutoff", 3, 15, 15],
  ["source-quench", 4, 0, 255],
  ["redirect", 5, 0, 255],
  ["network-redirect", 5, 0, 0],
  ["host-redirect", 5, 1, 1],
  ["TOS-network-redirect", 5, 2, 2],
  ["TOS-host-redirect", 5, 3, 3],
  ["echo-request", 8, 0, 255],
  ["ping", 8, 0, 255],
  ["router-advertisement", 9, 0, 255],
  ["router-solicitation", 10, 0, 255],
  ["time-exceeded", 11, 0, 255],
  ["ttl-exceeded", 11, 0, 255],
  ["ttl-zero-during-transit", 11, 0, 0],
  ["ttl-zero-during-reassembly", 11, 1, 1],
  ["parameter-problem", 12, 0, 255],
  ["ip-header-bad", 12, 0, 0],
  ["required-option-missing", 12, 1, 1],
  ["timestamp-request", 13, 0, 255],
  ["timestamp-reply", 14, 0, 255],
  ["address-mask-request", 17, 0, 255],
  ["address-mask-reply", 18, 0, 255],
];

const ICMP6: readonly (readonly [string, number, number, number])[] = [
  ["destination-unreachable", 1, 0, 255],
  ["no-route", 1, 0, 0],
  ["communication-prohibited", 1, 1, 1],
  ["beyond-scope", 1, 2, 2],
  ["address-unreachable", 1, 3, 3],
  ["port-unreachable", 1, 4, 4],
  ["failed-policy", 1, 5, 5],
  ["reject-route", 1, 6, 6],
  ["packet-too-big", 2, 0, 255],
  ["time-exceeded", 3, 0, 255],
  ["ttl-exceeded", 3, 0, 255],
  ["ttl-zero-during-transit", 3, 0, 0],
  ["ttl-zero-during-reassembly", 3, 1, 1],
  ["parameter-problem", 4, 0, 255],
  ["bad-header", 4, 0, 0],
  ["unknown-header-type", 4, 1, 1],
  ["unknown-option", 4, 2, 2],
  ["echo-request", 128, 0, 255],
  ["ping", 128, 0, 255],
  ["echo-reply", 129, 0, 255],
  ["pong", 129, 0, 255],
  ["mld-listener-query", 130, 0, 255],
  ["mld-listener-report", 131, 0, 255],
  ["mld-listener-done", 132, 0, 255],
  ["router-solicitation", 133, 0, 255],
  ["router-advertisement", 134, 0, 255],
  ["neighbour-solicitation", 135, 0, 255],
  ["neighbor-solicitation", 135, 0, 255],
  ["neighbour-advertisement", 136, 0, 255],
  ["neighbor-advertisement", 136, 0, 255],
  ["redirect", 137, 0, 255],
];

function parseIcmpType(
  text: string,
  table: readonly (readonly [string, number, number, number])[],
  argIndex: number,
): readonly [number, number, number] {
  const lower = text.toLowerCase();
  const exact = table.find(([n]) => n.toLowerCase() === lower);
  if (exact !== undefined) return [exact[1], exact[2], exact[3]];
  const prefixed = table.filter(([n]) => n.toLowerCase().startsWith(lower));
  const first = prefixed[0];
  if (first === undefined) {
    // Not a name: a type and an optional code, each a C base-0 number (`010` is 8).
    const slash = text.indexOf("/");
    const type = parseCUnsigned(slash < 0 ? text : text.slice(0, slash), 255);
    const code = slash < 0 ? -2 : parseCUnsigned(text.slice(slash + 1), 255);
    if (type < 0 || code === -1) fail(`Invalid ICMP type \`${text}'`, argIndex);
    return code === -2 ? [type, 0, 255] : [type, code, code];
  }
  if (prefixed.some((p) => p[1] !== first[1] || p[2] !== first[2])) {
    fail(`Invalid ICMP type \`${text}'`, argIndex);
  }
  return [
    (first as readonly [string, number, number, number])[1],
    (first as readonly [string, number, number, number])[2],
    (first as readonly [string, number, number, number])[3],
  ];
}

function makeIcmp(
  optionName: string,
  protocol: number,
  table: readonly (readonly [string, number, number, number])[],
): MatchExtension {
  const owner = protocol === 1 ? "icmp" : "icmp6";
  return {
    options: optionTable([[[optionName], 1, true]]),
    once: onceTable([[[optionName], `${owner}: option "${optionName}" can only be used once`]]),
    finish(name, raw, ctx, argIndex) {
      requireProtocol(name, protocol, ctx, argIndex);
      const r = raw[raw.length - 1];
      if (r === undefined) {
        // `-m icmp` alone matches any type; iptables-save prints it without options.
        return { kind: "icmp", name, negated: false, type: 255, codeMin: 0, codeMax: 255, options: [] };
      }
      const [type, codeMin, codeMax] = parseIcmpType(firstValue(r), table, r.argIndex + 1);
      const printed =
        type === 255 && protocol === 1
          ? "any"
          : codeMin === 0 && codeMax === 255
            ? String(type)
            : `${type}/${codeMin}`;
      return {
        kind: "icmp",
        name,
        negated: r.negated,
        type,
        codeMin,
        codeMax,
        options: [option(optionName, r.negated, [printed])],
      };
    },
  };
}

// ---------------------------------------------------------------------------- limit

/** limit's time units, longest first, in the kernel's scale (10000 per second). */
const LIMIT_UNITS: readonly (readonly [string, string, number])[] = [
  ["day", "day", 864_000_000],
  ["hour", "hour", 36_000_000],
  ["minute", "min", 600_000],
  ["second", "sec", 10_000],
];

/** C's `atoi` read as the uint32 iptables keeps: blanks, a sign, then the leading digits. */
function atoiUint32(text: string): number {
  let i = 0;
  while (i < text.length && " \t\n\v\f\r".includes(text[i] as string)) i++;
  const negative = text[i] === "-";
  if (negative || text[i] === "+") i++;
  let end = i;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  if (end === i) return 0;
  if (end - i < 10 && !negative) return Number(text.slice(i, end));
  // strtol clamps to the 64-bit range; the int then keeps the low 32 bits.
  let v = BigInt(text.slice(i, end));
  const max = (1n << 63n) - 1n;
  if (negative) v = v > max + 1n ? -(max + 1n) : -v;
  else if (v > max) v = max;
  return Number(BigInt.asUintN(32, v));
}

/** `--limit N[/unit]` as the kernel stores it (its period per packet), or -1 when refused. */
function limitPeriod(text: string): number {
  const slash = text.indexOf("/");
  let scale = 10_000;
  if (slash >= 0) {
    const unit = text.slice(slash + 1).toLowerCase();
    const hit = unit.length === 0 ? undefined : LIMIT_UNITS.find(([word]) => word.startsWith(unit));
    if (hit === undefined) return -1;
    scale = hit[2];
  }
  const rate = atoiUint32(text);
  return rate === 0 ? -1 : Math.floor(scale / rate);
}

/** Prints a stored period as iptables-save does: the largest unit it divides well into. */
function formatLimit(period: number): string {
  let i = 1;
  for (; i < LIMIT_UNITS.length; i++) {
    const scale = (LIMIT_UNITS[i] as readonly [string, string, number])[2];
    if (period > scale || Math.floor(scale / period) < scale % period) break;
  }
  const [, name, scale] = LIMIT_UNITS[i - 1] as readonly [string, string, number];
  return `${Math.floor(scale / period)}/${name}`;
}

/**
 * xt_limit's `user2credits` in 32-bit arithmetic, with HZ × CREDITS_PER_JIFFY = 32000 (the value
 * for HZ 250 and for HZ 1000).
 */
function limitCredits(user: number): number {
  if (user > Math.floor(0xffffffff / 32000)) return (Math.floor(user / 10_000) * 32000) % 2 ** 32;
  return Math.floor((user * 32000) / 10_000);
}

const limit: MatchExtension = {
  options: optionTable([
    [["--limit"], 1, false],
    [["--limit-burst"], 1, false],
  ]),
  once: onceTable([
    [["--limit"], 'limit: option "--limit" can only be used once'],
    [["--limit-burst"], 'limit: option "--limit-burst" can only be used once'],
  ]),
  finish(name, raw, ctx, argIndex) {
    let period = 12_000_000; // 3/hour
    let burst = 5;
    for (const r of raw) {
      const v = firstValue(r);
      if (r.name === "--limit") {
        period = limitPeriod(v);
        if (period < 0) fail(`bad rate "${v}"'`, r.argIndex + 1);
        if (period === 0) fail(`Rate too fast "${v}"`, r.argIndex + 1);
      } else {
        burst = parseCUnsigned(v, 10_000);
        if (burst < 0) {
          fail('limit: bad value for option "--limit-burst", or out of range (0-10000).', r.argIndex + 1);
        }
      }
    }
    if (
      ctx.backend === "legacy" &&
      (burst === 0 || limitCredits((period * burst) % 2 ** 32) < limitCredits(period))
    ) {
      // xt_limit's check ("Overflow, try lower"); nft keeps the rate in a limit expression of its own.
      fail(
        `limit: the kernel refuses --limit ${formatLimit(period)} with a burst of ${burst} (overflow)`,
        argIndex,
      );
    }
    const options = [option("--limit", false, [formatLimit(period)])];
    // nft reads a burst of 0 back as the default.
    if (burst !== 5 && burst !== 0) options.push(option("--limit-burst", false, [String(burst)]));
    return { kind: "generic", name, options };
  },
};

// ---------------------------------------------------------------------------- registry

/** The match extensions the canonicalizer models, by `-m` name. */
export const MATCH_EXTENSIONS: ReadonlyMap<string, MatchExtension> = new Map<string, MatchExtension>([
  ["comment", comment],
  ["tcp", makePortMatch("tcp")],
  ["udp", makePortMatch("udp")],
  ["sctp", makePortMatch("sctp")],
  ["multiport", multiport],
  ["statistic", statistic],
  ["mark", mark],
  ["connmark", mark],
  ["addrtype", addrtype],
  ["conntrack", conntrack],
  ["state", state],
  ["recent", recent],
  ["nfacct", nfacct],
  ["physdev", physdev],
  ["limit", limit],
  ["icmp", makeIcmp("--icmp-type", 1, ICMP4)],
  ["icmp6", makeIcmp("--icmpv6-type", 58, ICMP6)],
]);

/**
 * Other match extensions iptables 1.8 ships, by `-m` name (`name/4`, `name/6`: one family's
 * only): their options as iptables' newest revision declares them (see {@link tableExtension}),
 * checked as iptables checks them, and kept as given.
 */
const TABLE_MATCHES: string =
  "ah/4 ahspi=!|ah/6 ahspi=! ahlen=! ahres|bpf bytecode= object-pinned=|cgroup path=! cgroup=!|" +
  "cluster cluster-total-nodes=* cluster-local-node=! cluster-local-nodemask=! cluster-hash-seed=*|" +
  "connbytes connbytes=!* connbytes-dir=* connbytes-mode=*|connlabel label=!* set|" +
  "connlimit connlimit-upto=! connlimit-above=! connlimit-mask= connlimit-saddr connlimit-daddr|" +
  "cpu cpu=!*|dccp source-port=! sport=! destination-port=! dport=! dccp-types=! dccp-option=!|" +
  "devgroup src-group=! dst-group=!|dscp dscp=! dscp-class=!|dst/6 dst-len=! dst-opts=|" +
  "ecn ecn-tcp-cwr! ecn-tcp-ece! ecn-ip-ect=!|esp espspi=!|eui64/6|" +
  "frag/6 fragid=! fraglen=! fragres fragfirst fragmore fraglast|" +
  "hashlimit hashlimit-upto=! hashlimit-above=! hashlimit=! hashlimit-srcmask= hashlimit-dstmask= hashlimit-burst= hashlimit-htable-size= hashlimit-htable-max= hashlimit-htable-gcinterval= hashlimit-htable-expire= hashlimit-mode= hashlimit-name=* hashlimit-rate-match hashlimit-rate-interval=|" +
  "hbh/6 hbh-len=! hbh-opts=|helper helper=!*|hl/6 hl-lt= hl-gt= hl-eq=! hl=|" +
  "iprange src-range=! dst-range=!|ipv6header/6 header=!* soft|" +
  "ipvs ipvs! vproto=! vaddr=! vport=! vdir= vmethod=! vportctl=!|length length=!*|" +
  "mac mac-source=!*|mh/6 mh-type=!|osf genre=!* ttl= log=|" +
  "owner uid-owner=! gid-owner=! socket-exists! suppl-groups|pkttype pkt-type=!*|" +
  "policy dir= pol= strict reqid=!+ spi=!+ tunnel-src=!+ tunnel-dst=!+ proto=!+ mode=!+ next+|" +
  "quota quota=!*|" +
  "rateest rateest1=!+ rateest=!+ rateest2=!+ rateest-bps1!+ rateest-pps1!+ rateest-bps2!+ rateest-pps2!+ rateest-bps!+ rateest-pps!+ rateest-delta!+ rateest-lt!+ rateest-gt!+ rateest-eq!+|" +
  "realm/4 realm=!*|rpfilter loose validmark accept-local invert|" +
  "rt/6 rt-type=! rt-segsleft=! rt-len=! rt-0-res rt-0-addrs= rt-0-not-strict|" +
  "set match-set==!+ set==!+ return-nomatch!+ update-counters!+ packets-eq=!+ packets-lt=!+ packets-gt=!+ bytes-eq=!+ bytes-lt=!+ bytes-gt=!+ update-subcounters!+|" +
  "socket transparent nowildcard restore-skmark|" +
  "srh/6 srh-next-hdr=! srh-hdr-len-eq=! srh-hdr-len-gt=! srh-hdr-len-lt=! srh-segs-left-eq=! srh-segs-left-gt=! srh-segs-left-lt=! srh-last-entry-eq=! srh-last-entry-gt=! srh-last-entry-lt=! srh-tag=! srh-psid=! srh-nsid=! srh-lsid=!|" +
  "string from= to= algo=* string=! hex-string=! icase|tcpmss mss=!*|" +
  "time datestart= datestop= timestart= timestop= contiguous weekdays=! monthdays=! localtz utc kerneltz|" +
  "tos tos=!*|ttl/4 ttl-lt= ttl-gt= ttl-eq=! ttl=|u32 u32=!*";

/** The match extensions of {@link TABLE_MATCHES}, by name and family. */
const tableMatches = familyExtensions(TABLE_MATCHES, tableMatch);

/**
 * The match extension of a pass-through match in `family`, or null when iptables of that
 * family has no such match.
 */
export function passThroughMatch(name: string, family: "IPv4" | "IPv6"): MatchExtension | null {
  return tableMatches.get(name, family);
}

function tableMatch(ext: TableExtension): MatchExtension {
  return {
    options: ext.options,
    once: ext.once,
    finish(name, raw, _ctx, argIndex) {
      return { kind: "generic", name, options: keptOptions(name, ext, raw, argIndex) };
    },
  };
}

/** The match iptables loads implicitly for an option of the rule's `-p` protocol (spec §3). */
export function implicitMatchName(protocol: number, family: "IPv4" | "IPv6"): string | null {
  switch (protocol) {
    case 6:
      return "tcp";
    case 17:
      return "udp";
    case 132:
      return "sctp";
    case 1:
      return family === "IPv4" ? "icmp" : null;
    case 58:
      return family === "IPv6" ? "icmp6" : null;
    default:
      return null;
  }
}
