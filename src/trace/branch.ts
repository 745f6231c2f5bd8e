/**
 * One path of a packet through the tables: the packet as the rules see it now, what happened
 * to it so far, and how likely it is.
 *
 * @module
 */
import { condition, type Fact } from "./conditions.js";
import type { Fraction } from "./fraction.js";
import type { SocketAddress, SourceNat, TraceCondition, TraceStep } from "./types.js";

/** The mutable state of one path; cloned where a statistic match splits it. */
export interface Branch {
  /** Source address bytes. */
  src: readonly number[];
  /** Source address, canonical text. */
  srcText: string;
  /** Destination address bytes (after DNAT). */
  dst: readonly number[];
  /** Destination address, canonical text (after DNAT). */
  dstText: string;
  /**
   * Set once REDIRECT in PREROUTING sent the packet to its input interface's first address,
   * which the rules do not name (`the address of cbr0`); `dst` is then all zeros and tests of
   * the destination address are facts about that address.
   */
  dstAlias: string | null;
  /** Source port. */
  sport: number;
  /** Destination port (after DNAT). */
  dport: number;
  /** The packet mark. */
  mark: number;
  /** The connection's mark (`CONNMARK`, `-m connmark`): 0 for a new connection until a rule sets it. */
  ctmark: number;
  /** Connection tracking was turned off for the packet (`NOTRACK`, `CT --notrack`): no NAT. */
  untracked: boolean;
  /** The facts this path assumes (see `conditions.ts`). */
  conditions: TraceCondition[];
  /**
   * Addresses this path took as not the node's though the node's addresses are not known,
   * without a split (a pod-range address, a node's `-o` test, the split budget spent): later
   * `addrtype` tests and the route agree with that.
   */
  routedRemote: string[];
  /** The fact splits this path went through: `<id>+` (the fact holds) or `<id>-`, in order. */
  splits: string[];
  /** The path's probability so far. */
  probability: Fraction;
  /** The rules matched so far. */
  steps: TraceStep[];
  /** The DNAT destination, when translated. */
  dnat: SocketAddress | null;
  /** Source rewritten by MASQUERADE. */
  masquerade: boolean;
  /** Source rewritten by SNAT, to where. */
  snat: SourceNat | null;
  /** The last endpoint chain entered. */
  endpointChain: string | null;
  /** `recent` lists this packet sets. */
  recentSet: string[];
}

/**
 * A copy of a branch that can be changed independently (the other half of a statistic split).
 *
 * @example
 * const other = cloneBranch(b); other.steps.push(step); b.steps.length // unchanged
 */
export function cloneBranch(b: Branch): Branch {
  return {
    ...b,
    steps: b.steps.slice(),
    recentSet: b.recentSet.slice(),
    conditions: b.conditions.slice(),
    splits: b.splits.slice(),
    routedRemote: b.routedRemote.slice(),
  };
}

/**
 * Splits a path on a fact: `b` goes on assuming it holds, and the returned copy assuming it does
 * not; split `id` marks both sides (`<id>+`, `<id>-`) so that sides ending alike can be folded.
 *
 * @example
 * const other = splitOn(b, { kind: "local-address", subject: "10.0.0.5", test: "" }, 3);
 * b.splits // [..., "3+"]; other.splits // [..., "3-"]
 */
export function splitOn(b: Branch, fact: Fact, id: number): Branch {
  const other = cloneBranch(b);
  other.conditions.push(condition(fact, false));
  other.splits.push(`${id}-`);
  b.conditions.push(condition(fact, true));
  b.splits.push(`${id}+`);
  return other;
}
