/**
 * Whether one rule matches one path's packet: the IP part and every match the tracer models.
 * A match it does not model (or a modelled one with options it cannot decide, like `--nth`)
 * makes the result `unknown`, never a guess.
 *
 * @module
 */
import type {
  CanonicalMatch,
  CanonicalRule,
  InterfaceMatch,
  NameList,
  PortCondition,
  RecentMatch,
} from "../ir/canonical-types.js";
import type { IPFamily } from "../ir/types.js";
import { hostBytes, inside, isLocal, type LocalAddresses } from "./addresses.js";
import type { Branch } from "./branch.js";
import { type Fraction, multiply, ONE, statisticShare } from "./fraction.js";

/** What a hook knows besides the packet. */
export interface MatchContext {
  /** The family. */
  readonly family: IPFamily;
  /** The table being walked. */
  readonly table: string;
  /** The input interface: `""` when there is none (locally generated), null when not known. */
  readonly inInterface: string | null;
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
  | { readonly kind: "unknown"; readonly reason: string };

const NO: MatchResult = { kind: "no" };
const NONE: readonly string[] = [];

function unknown(reason: string): MatchResult {
  return { kind: "unknown", reason };
}

function interfaceMatches(want: InterfaceMatch, have: string): boolean {
  const name = want.name;
  const hit = name.endsWith("+") ? have.startsWith(name.slice(0, -1)) : have === name;
  return hit !== want.negated;
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

function recentHit(m: RecentMatch, b: Branch, ctx: MatchContext): MatchResult | boolean {
  if (m.hitCount > 1 || m.rttl) return unknown(`recent option the tracer does not model (${m.listName})`);
  if (m.command === "set") return true;
  const addr = m.side === "source" ? b.src : b.dst;
  if (b.recentSet.includes(m.listName)) return !m.negated;
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

/** Evaluates one match; a share for a statistic match, true/false, or an unknown result. */
function matchOne(m: CanonicalMatch, b: Branch, ctx: MatchContext): MatchResult | boolean | Fraction {
  switch (m.kind) {
    case "comment":
      return true;
    case "nfacct":
      return true; // accounting only
    case "ports": {
      if (m.name !== ctx.protocolName) return false;
      for (const o of m.options) if (!PORT_OPTIONS.has(o.name)) return unknown(`-m ${m.name} ${o.name}`);
      if (m.sourcePort !== null && !inRange(b.sport, m.sourcePort)) return false;
      if (m.destinationPort !== null && !inRange(b.dport, m.destinationPort)) return false;
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
      if (m.mode !== "random") return unknown("-m statistic --mode nth depends on a packet counter");
      return statisticShare(m.probability, !m.negated);
    case "recent":
      return recentHit(m, b, ctx);
    case "mark": {
      const value = m.name === "connmark" ? 0 : b.mark; // a new connection's ctmark is 0
      return ((value & m.mask) >>> 0 === m.value >>> 0) !== m.negated;
    }
    case "addrtype": {
      if (m.limitIfaceIn || m.limitIfaceOut) return unknown("-m addrtype --limit-iface-*");
      for (const list of [m.sourceTypes, m.destinationTypes]) {
        if (list?.names.some((n) => n !== "LOCAL")) return unknown(`-m addrtype ${list.names.join(",")}`);
      }
      if (m.sourceTypes !== null && !namesHit(m.sourceTypes, () => isLocal(b.src, b.srcText, ctx.local)))
        return false;
      if (
        m.destinationTypes !== null &&
        !namesHit(m.destinationTypes, () => isLocal(b.dst, b.dstText, ctx.local))
      )
        return false;
      return true;
    }
    case "conntrack": {
      if (ctx.table === "raw") return unknown("-m conntrack in the raw table (before connection tracking)");
      for (const o of m.options) if (!CONNTRACK_OPTIONS.has(o.name)) return unknown(`-m ${m.name} ${o.name}`);
      return m.states === null || namesHit(m.states, (n) => ctx.ctStates.has(n));
    }
    case "icmp":
      return false; // tcp, udp and sctp packets only
    case "generic":
      return unknown(`unknown match -m ${m.name}`);
  }
}

/**
 * Whether `rule` matches the path's packet, with the matched share when a statistic match
 * splits the path.
 *
 * @example
 * matchRule(canonicalizeRule(["-p", "tcp", "-d", "10.96.0.10"], "IPv4"), branch, ctx) // { kind: "yes", share: null, sets: [] }
 */
export function matchRule(rule: CanonicalRule, b: Branch, ctx: MatchContext): MatchResult {
  if (rule.source !== null && inside(b.src, rule.source) === rule.source.negated) return NO;
  if (rule.destination !== null && inside(b.dst, rule.destination) === rule.destination.negated) return NO;
  if (rule.protocol !== null && (rule.protocol.number === ctx.protocolNumber) === rule.protocol.negated)
    return NO;
  if (rule.fragment !== null && !rule.fragment.negated) return NO; // the first packet is not a later fragment
  // A condition the tracer cannot decide does not end the walk: a rule is a conjunction, so a
  // later condition that surely fails still rules it out (Docker's `-o docker0 -m conntrack
  // --ctstate RELATED,ESTABLISHED` for a new connection). Only then is it unknown.
  let undecided: MatchResult | null = null;
  if (rule.inInterface !== null) {
    if (ctx.inInterface === null)
      undecided = unknown("-i needs the packet's input interface (--in-interface)");
    else if (!interfaceMatches(rule.inInterface, ctx.inInterface)) return NO;
  }
  if (rule.outInterface !== null)
    undecided ??= unknown("-o: the tracer does not model routing to an output interface");
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
    undecided ??= r;
  }
  if (share !== null && share.numerator === 0n) return NO;
  if (undecided !== null) return undecided;
  if (share !== null && share.numerator === share.denominator) share = null;
  return { kind: "yes", share: share === null || share === ONE ? null : share, sets: sets ?? NONE };
}
