/**
 * Whether one rule matches one path's packet: the IP part and every match. What the first
 * packet of a new connection determines is decided exactly (conntrack state NEW, a SYN, no
 * IPsec policy, no local socket for a forwarded packet); what depends on facts outside the
 * rules (the interface a route leaves by, an ipset's contents, whether an address is the
 * node's) is a {@link Fact} the caller splits the path on, never a guess.
 *
 * @module
 */
import type {
  AddrtypeMatch,
  CanonicalMatch,
  CanonicalOption,
  CanonicalRule,
  InterfaceMatch,
  NameList,
  PortCondition,
  RecentMatch,
} from "../ir/canonical-types.js";
import type { IPFamily } from "../ir/types.js";
import { hostBytes, inside, isLocal, type LocalAddresses } from "./addresses.js";
import type { Branch } from "./branch.js";
import { decide, type Fact } from "./conditions.js";
import { type Fraction, multiply, ONE, statisticShare } from "./fraction.js";
import type { ChainRef } from "./types.js";

/** What a hook knows besides the packet. */
export interface MatchContext {
  /** The family. */
  readonly family: IPFamily;
  /** The table being walked. */
  readonly table: string;
  /** The input interface: `""` when there is none (locally generated), null when not known. */
  readonly inInterface: string | null;
  /**
   * The output interface: `""` before routing and for INPUT, a name when known (given, or `lo`
   * for a node's packet to itself), null when it depends on the route to the destination.
   */
  readonly outInterface: string | null;
  /** Whether the packet was sent by the node itself (it may have a local socket). */
  readonly fromNode: boolean;
  /** The connection's conntrack states for this hook (`NEW`, plus `DNAT` once translated). */
  readonly ctStates: ReadonlySet<string>;
  /** The packet's protocol number and name. */
  readonly protocolNumber: number;
  /** The protocol's name (`tcp`, `udp`, `sctp`). */
  readonly protocolName: string;
  /** The node's addresses. */
  readonly local: LocalAddresses;
  /** `recent` entries: list name → [address bytes, last seen]. */
  readonly recent: ReadonlyMap<string, readonly (readonly [readonly number[], number])[]>;
  /** The current time in seconds. */
  readonly now: number;
  /** The interface the given routes send an address to, or null when none covers it. */
  readonly routeOf: (bytes: readonly number[]) => string | null;
  /** How many more times the trace may split a path on a fact (shared by all its paths). */
  readonly budget: { splits: number; next: number };
  /**
   * The chains the input lacks (`table chain` → the chain, from the options), and those the
   * trace's paths entered, in order (shared by all its paths).
   */
  readonly absent: { readonly chains: ReadonlyMap<string, ChainRef>; readonly entered: Set<ChainRef> };
}

/** The outcome of matching a rule. */
export type MatchResult =
  | { readonly kind: "no" }
  | {
      readonly kind: "yes";
      /** The share of packets that match (statistic), or null when all do. */
      readonly share: Fraction | null;
      /** `recent --set` lists this rule records. */
      readonly sets: readonly string[];
    }
  | { readonly kind: "unknown"; readonly reason: string }
  /** The rule's match depends on a fact the path has not assumed yet: split on it and try again. */
  | { readonly kind: "depends"; readonly fact: Fact };

const NO: MatchResult = { kind: "no" };
const NONE: readonly string[] = [];

function unknown(reason: string): MatchResult {
  return { kind: "unknown", reason };
}

/** What one match (or one part of a rule) comes to: decided, a statistic share, or undecided. */
type Part = boolean | Fraction | MatchResult;

function depends(fact: Fact): MatchResult {
  return { kind: "depends", fact };
}

/** A fact's truth under the path's conditions, or the request to split on it. */
function fact(kind: Fact["kind"], subject: string, test: string, b: Branch): boolean | MatchResult {
  const f: Fact = { kind, subject, test };
  return decide(f, b.conditions) ?? depends(f);
}

/** `want` (with its `!`) against an interface: known, or a fact about it. */
function interfaceHit(
  want: InterfaceMatch,
  have: string | null,
  kind: "in-interface" | "out-interface",
  b: Branch,
): boolean | MatchResult {
  if (have !== null) {
    const name = want.name;
    const hit = name.endsWith("+") ? have.startsWith(name.slice(0, -1)) : have === name;
    return hit !== want.negated;
  }
  const r = fact(kind, kind === "out-interface" ? b.dstText : "", want.name, b);
  return typeof r === "boolean" ? r !== want.negated : r;
}

function inRange(port: number, c: PortCondition): boolean {
  return (port >= c.min && port <= c.max) !== c.negated;
}

function namesHit(list: NameList, have: (name: string) => boolean): boolean {
  let hit = false;
  for (const n of list.names) if (have(n)) hit = true;
  return hit !== list.negated;
}

const PORT_OPTIONS = new Set(["--sport", "--dport", "--source-port", "--destination-port"]);
const CONNTRACK_OPTIONS = new Set(["--ctstate", "--state"]);
// The first packet of a new TCP connection carries SYN alone.
const FIRST_TCP_FLAGS = 0x02;
const TCP_FLAG_BITS: Readonly<Record<string, number>> = {
  FIN: 0x01,
  SYN: 0x02,
  RST: 0x04,
  PSH: 0x08,
  ACK: 0x10,
  URG: 0x20,
  ALL: 0x3f,
  NONE: 0,
};

function tcpFlagBits(text: string): number {
  let bits = 0;
  for (const n of text.split(",")) bits |= TCP_FLAG_BITS[n] ?? 0;
  return bits;
}

/** The packet as a match's condition names it. */
function packetText(b: Branch): string {
  const sock = (a: string, p: number) => (a.indexOf(":") >= 0 ? `[${a}]:${p}` : `${a}:${p}`);
  return `${sock(b.srcText, b.sport)} → ${sock(b.dstText, b.dport)}`;
}

/** A match as iptables-save prints it, optionally with some options only. */
function matchText(m: CanonicalMatch, options = m.options): string {
  const parts = [`-m ${m.name}`];
  for (const o of options) parts.push(`${o.negated ? "! " : ""}${[o.name, ...o.values].join(" ")}`);
  return parts.join(" ");
}

/**
 * A match the tracer cannot evaluate, as facts about the packet: each physdev option on its own
 * (they are ANDed), otherwise the whole match, with a single negated option read as the
 * contrary of the plain one (`! --match-set X dst` is "not in X").
 */
function matchFacts(m: CanonicalMatch, b: Branch): boolean | MatchResult {
  const subject = packetText(b);
  const atoms = m.name === "physdev" ? m.options.map((o) => [o]) : [m.options];
  let pending: MatchResult | null = null;
  for (const opts of atoms) {
    const only = opts.length === 1 ? (opts[0] as CanonicalOption) : null;
    const negated = only?.negated === true;
    const plain = only !== null && negated ? [{ ...only, negated: false }] : opts;
    const r = fact("match", subject, matchText(m, plain), b);
    if (typeof r !== "boolean") pending ??= r;
    else if (r === negated) return false;
  }
  return pending ?? true;
}

function optionValue(m: CanonicalMatch, name: string): CanonicalOption | undefined {
  return m.options.find((o) => o.name === name);
}

function compareBytes(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `-m iprange --src-range A-B --dst-range C-D`. */
function iprangeHit(m: CanonicalMatch, b: Branch, ctx: MatchContext): boolean | MatchResult {
  for (const o of m.options) {
    const dst = b.dstAlias === null ? b.dst : null;
    const addr = o.name === "--src-range" ? b.src : o.name === "--dst-range" ? dst : null;
    const [lo, hi] = (o.values[0] ?? "").split("-");
    const min = lo === undefined ? null : hostBytes(lo, ctx.family);
    const max = hi === undefined ? min : hostBytes(hi, ctx.family);
    if (addr === null || min === null || max === null) return matchFacts(m, b);
    const hit = compareBytes(addr, min) >= 0 && compareBytes(addr, max) <= 0;
    if (hit === o.negated) return false;
  }
  return true;
}

/** The link-layer type the first packet has: by its destination address (xt_pkttype for routed packets). */
function pkttypeHit(m: CanonicalMatch, b: Branch): boolean | MatchResult {
  const o = optionValue(m, "--pkt-type");
  if (o === undefined || m.options.length !== 1) return matchFacts(m, b);
  const first = b.dst[0] ?? 0;
  const multicast = b.dst.length === 4 ? (first & 0xf0) === 0xe0 : first === 0xff;
  const broadcast = b.dst.length === 4 && b.dst.every((x) => x === 255);
  const type = multicast ? "multicast" : broadcast ? "broadcast" : "unicast";
  return ((o.values[0] ?? "").toLowerCase() === type) !== o.negated;
}

/**
 * `-m owner` looks at the packet's local socket: a forwarded packet has none, and then the match
 * holds only when every option is negated (xt_owner). A node's own packet has one: a fact.
 */
function ownerHit(m: CanonicalMatch, b: Branch, ctx: MatchContext): boolean | MatchResult {
  if (ctx.fromNode) return matchFacts(m, b);
  return m.options.every((o) => o.negated);
}

/** `-m policy --pol none|ipsec`: the tracer's packet was not IPsec-transformed. */
function policyHit(m: CanonicalMatch, b: Branch): boolean | MatchResult {
  const pol = optionValue(m, "--pol");
  if (pol === undefined || !m.options.every((o) => o.name === "--pol" || o.name === "--dir"))
    return matchFacts(m, b);
  return pol.values[0] === "none";
}

/**
 * `-m rpfilter`: the route back to the source must leave by the interface the packet came in on
 * (`--loose`: any route back will do). Decided when the given routes cover the source and the
 * input interface is known; otherwise a fact. `--validmark` and `--accept-local` change only
 * which routes are looked up.
 */
function rpfilterHit(m: CanonicalMatch, b: Branch, ctx: MatchContext): boolean | MatchResult {
  const back = ctx.routeOf(b.src);
  if (back === null || ctx.inInterface === null || ctx.inInterface === "") return matchFacts(m, b);
  const loose = m.options.some((o) => o.name === "--loose");
  const invert = m.options.some((o) => o.name === "--invert");
  return (loose || back === ctx.inInterface) !== invert;
}

function recentHit(m: RecentMatch, b: Branch, ctx: MatchContext): Part {
  if (m.hitCount > 1 || m.rttl) return matchFacts(m, b);
  if (m.command === "set") return true;
  const addr = m.side === "source" ? b.src : b.dst;
  if (b.recentSet.includes(m.listName)) return !m.negated;
  // A REDIRECTed destination is an address the rules do not name: whether a list holds it is a fact.
  if (m.side !== "source" && b.dstAlias !== null) return matchFacts(m, b);
  const mask = hostBytes(m.mask, ctx.family);
  if (mask === null) return unknown(`recent --mask ${m.mask}`);
  let hit = false;
  for (const [bytes, lastSeen] of ctx.recent.get(m.listName) ?? []) {
    const masked = bytes.map((x, i) => x & (mask[i] ?? 0));
    if (!inside(addr, { bytes: masked, maskBytes: mask })) continue;
    // xt_recent: the entry counts while its stamp is after now − seconds.
    if (m.seconds === 0 || lastSeen > ctx.now - m.seconds) hit = true;
  }
  return hit !== m.negated;
}

/** Whether an address is the node's: known, assumed on this path, or a fact to split on. */
function localHit(
  bytes: readonly number[],
  text: string,
  b: Branch,
  ctx: MatchContext,
): boolean | MatchResult {
  if (text === b.dstAlias) return true; // a REDIRECT's address: the input interface's
  const known = isLocal(bytes, text, ctx.local);
  if (known !== null) return known;
  return b.routedRemote.includes(text) ? false : fact("local-address", text, "", b);
}

/**
 * `-m addrtype`: LOCAL from the node's addresses; UNICAST, MULTICAST and BROADCAST from the
 * address (an address that is neither the node's nor a group address is taken as unicast:
 * routes of type blackhole or prohibit are not in the rules); other types are facts.
 */
function addrtypeHit(m: AddrtypeMatch, b: Branch, ctx: MatchContext): boolean | MatchResult {
  if (m.limitIfaceIn || m.limitIfaceOut) return matchFacts(m, b);
  let pending: MatchResult | null = null;
  const sides = [
    [m.sourceTypes, b.src, b.srcText],
    [m.destinationTypes, b.dst, b.dstText],
  ] as const;
  const modelled = ["LOCAL", "UNICAST", "MULTICAST", "BROADCAST"];
  for (const [list] of sides) if (list?.names.some((n) => !modelled.includes(n))) return matchFacts(m, b);
  for (const [list, bytes, text] of sides) {
    if (list === null) continue;
    const local = localHit(bytes, text, b, ctx);
    if (typeof local !== "boolean") {
      pending ??= local;
      continue;
    }
    const first = bytes[0] ?? 0;
    const group = bytes.length === 4 ? (first & 0xf0) === 0xe0 : first === 0xff;
    const broadcast = bytes.length === 4 && bytes.every((x) => x === 255);
    const type = local ? "LOCAL" : group ? "MULTICAST" : broadcast ? "BROADCAST" : "UNICAST";
    if (!namesHit(list, (n) => n === type)) return false;
  }
  return pending ?? true;
}

/** Evaluates one match: true/false, a share for a statistic match, or an undecided result. */
function matchOne(m: CanonicalMatch, b: Branch, ctx: MatchContext): Part {
  switch (m.kind) {
    case "comment":
      return true;
    case "nfacct":
      return true; // accounting only
    case "ports": {
      if (m.name !== ctx.protocolName) return false;
      if (m.sourcePort !== null && !inRange(b.sport, m.sourcePort)) return false;
      if (m.destinationPort !== null && !inRange(b.dport, m.destinationPort)) return false;
      for (const o of m.options) {
        if (PORT_OPTIONS.has(o.name)) continue;
        if (o.name === "--tcp-flags") {
          const [mask, comp] = o.values.map(tcpFlagBits);
          if (((FIRST_TCP_FLAGS & (mask ?? 0)) === comp) === o.negated) return false;
          continue;
        }
        return matchFacts({ ...m, options: [o] }, b); // --tcp-option, --chunk-types
      }
      return true;
    }
    case "multiport": {
      const ports =
        m.direction === "source" ? [b.sport] : m.direction === "destination" ? [b.dport] : [b.sport, b.dport];
      let hit = false;
      for (const r of m.ports) for (const p of ports) if (p >= r.min && p <= r.max) hit = true;
      return hit !== m.negated;
    }
    case "statistic":
      // nth counts packets on the node: which count this packet gets is a fact.
      if (m.mode !== "random") return matchFacts(m, b);
      return statisticShare(m.probability, !m.negated);
    case "recent":
      return recentHit(m, b, ctx);
    case "mark": {
      const value = m.name === "connmark" ? b.ctmark : b.mark;
      return ((value & m.mask) >>> 0 === m.value >>> 0) !== m.negated;
    }
    case "addrtype":
      return addrtypeHit(m, b, ctx);
    case "conntrack": {
      for (const o of m.options) if (!CONNTRACK_OPTIONS.has(o.name)) return matchFacts(m, b);
      return m.states === null || namesHit(m.states, (n) => ctx.ctStates.has(n));
    }
    case "icmp":
      return false; // tcp, udp and sctp packets only
    case "generic":
      switch (m.name) {
        case "iprange":
          return iprangeHit(m, b, ctx);
        case "pkttype":
          return pkttypeHit(m, b);
        case "owner":
          return ownerHit(m, b, ctx);
        case "policy":
          return policyHit(m, b);
        case "rpfilter":
          return rpfilterHit(m, b, ctx);
        default:
          return matchFacts(m, b);
      }
  }
}

/**
 * Whether `rule` matches the path's packet, with the matched share when a statistic match
 * splits the path; `depends` names a fact to split the path on before deciding.
 *
 * @example
 * matchRule(canonicalizeRule(["-p", "tcp", "-d", "10.96.0.10"], "IPv4"), branch, ctx) // { kind: "yes", share: null, sets: [] }
 */
export function matchRule(rule: CanonicalRule, b: Branch, ctx: MatchContext): MatchResult {
  if (rule.source !== null && inside(b.src, rule.source) === rule.source.negated) return NO;
  const d = rule.destination;
  if (d !== null && b.dstAlias === null && inside(b.dst, d) === d.negated) return NO;
  if (rule.protocol !== null && (rule.protocol.number === ctx.protocolNumber) === rule.protocol.negated)
    return NO;
  if (rule.fragment !== null && !rule.fragment.negated) return NO; // the first packet is not a later fragment
  // A rule is a conjunction: a condition that surely fails rules it out whatever comes before
  // it (Docker's `-o docker0 -m conntrack --ctstate RELATED,ESTABLISHED` for a new connection),
  // so the path splits on a fact (or stops at an unknown) only when nothing else fails.
  let depending: MatchResult | null = null;
  let stuck: MatchResult | null = null;
  const note = (r: MatchResult): void => {
    if (r.kind === "depends") depending ??= r;
    else stuck ??= r;
  };
  for (const [want, have, kind] of [
    [rule.inInterface, ctx.inInterface, "in-interface"],
    [rule.outInterface, ctx.outInterface, "out-interface"],
  ] as const) {
    if (want === null) continue;
    const r = interfaceHit(want, have, kind, b);
    if (r === false) return NO;
    if (r !== true) note(r);
  }
  if (d !== null && b.dstAlias !== null) {
    // A REDIRECTed packet's address is its input interface's: which one, the rules do not say.
    const r = fact("match", b.dstAlias, `-d ${d.address}/${d.mask}`, b);
    if (r === d.negated) return NO;
    if (typeof r !== "boolean") note(r);
  }
  let share: Fraction | null = null;
  let sets: string[] | null = null;
  for (const m of rule.matches) {
    const r = matchOne(m, b, ctx);
    if (r === false) return NO;
    if (r === true) {
      if (m.kind === "recent" && m.command === "set") {
        if (sets === null) sets = [];
        sets.push(m.listName);
      }
      continue;
    }
    if ("numerator" in r) {
      share = share === null ? r : multiply(share, r);
      continue;
    }
    note(r);
  }
  if (share !== null && share.numerator === 0n) return NO;
  if (depending !== null) return depending;
  if (stuck !== null) return stuck;
  if (share !== null && share.numerator === share.denominator) share = null;
  return { kind: "yes", share: share === null || share === ONE ? null : share, sets: sets ?? NONE };
}
