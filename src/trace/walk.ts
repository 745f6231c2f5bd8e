/**
 * Walks one table's built-in chain for a set of paths, as the kernel's ipt_do_table does: rules
 * in order, jumps push, goto replaces, RETURN pops, the policy at the end of a built-in chain.
 * A statistic match splits a path in two with exact shares.
 *
 * @module
 */

import type { GenericTarget } from "../ir/canonical-types.js";
import { isEndpointChain } from "../naming/kube-chains.js";
import { hostBytes, hostText } from "./addresses.js";
import { type Branch, cloneBranch, splitOn } from "./branch.js";
import { candidates } from "./chain-index.js";
import { type CompiledChain, type CompiledRule, type CompiledState, ruleText } from "./compile.js";
import { type Fraction, fraction, multiply } from "./fraction.js";
import { type MatchContext, matchRule } from "./match.js";
import { applyRedirect, isRedirect, redirectFact } from "./redirect.js";
import type { TraceStep } from "./types.js";

/** How a path left a table. */
export interface TableEnd {
  /** The path. */
  readonly branch: Branch;
  /** `accept` goes on to the next hook; the others end the path. */
  readonly end: "accept" | "drop" | "reject" | "unknown";
  /** Why the path is unknown, or null. */
  readonly reason: string | null;
}

interface Frame {
  readonly chain: CompiledChain;
  /** Rule positions to visit (from the index), or null for all. */
  readonly order: readonly number[] | null;
  i: number;
}

interface Item {
  readonly branch: Branch;
  readonly frames: Frame[];
}

// Far beyond kube-proxy's depth (4) and any loop-free rule set; a guard against jump loops.
const MAX_DEPTH = 64;
const MAX_RULES_PER_PATH = 1_000_000;

function enter(chain: CompiledChain, b: Branch, ctx: MatchContext): Frame {
  // A REDIRECTed destination has no address the index could look up: every rule is a candidate.
  const order =
    chain.index === null || b.dstAlias !== null
      ? null
      : candidates(chain.index, b.dstText, ctx.protocolNumber, b.dport);
  return { chain, order, i: 0 };
}

function complement(share: Fraction): Fraction {
  return fraction(share.denominator - share.numerator, share.denominator);
}

/**
 * Walks `table`'s built-in `hook` chain for one path; returns how each resulting path left it.
 *
 * @example
 * walkTable(compileState(state), "nat", "PREROUTING", branch, ctx) // [{ branch, end: "accept", reason: null }, …]
 */
export function walkTable(
  state: CompiledState,
  table: string,
  hook: string,
  start: Branch,
  ctx: MatchContext,
): TableEnd[] {
  const builtin = state.chain(table, hook);
  if (builtin === undefined) return [{ branch: start, end: "accept", reason: null }];
  const ends: TableEnd[] = [];
  const work: Item[] = [{ branch: start, frames: [enter(builtin, start, ctx)] }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const end = run(state, item, ctx, work);
    ends.push(end);
  }
  return ends;
}

function policyEnd(b: Branch, chain: CompiledChain): TableEnd {
  if (chain.policy === "DROP") return { branch: b, end: "drop", reason: null };
  return { branch: b, end: "accept", reason: null };
}

function unknownEnd(b: Branch, reason: string): TableEnd {
  return { branch: b, end: "unknown", reason };
}

/** Runs one path until it leaves the table; pushes the other halves of splits onto `work`. */
function run(state: CompiledState, item: Item, ctx: MatchContext, work: Item[]): TableEnd {
  const b = item.branch;
  const frames = item.frames;
  const builtin = frames[0]?.chain;
  if (builtin === undefined) return unknownEnd(b, "no chain");
  for (let budget = 0; budget < MAX_RULES_PER_PATH; budget++) {
    const frame = frames[frames.length - 1];
    if (frame === undefined) return policyEnd(b, builtin);
    const chain = frame.chain;
    const pos = frame.order === null ? frame.i : frame.order[frame.i];
    if (pos === undefined || pos >= chain.rules.length) {
      frames.pop();
      if (frames.length === 0) return policyEnd(b, builtin);
      continue;
    }
    frame.i++;
    const rule = chain.rules[pos];
    if (rule === undefined) continue;
    const canonical = rule.canonical;
    if (canonical === null)
      return unknownEnd(b, `cannot read ${ctx.table} ${chain.name} rule ${rule.index}: ${rule.error ?? ""}`);
    let m = matchRule(canonical, b, ctx);
    if (m.kind === "no") continue;
    if (m.kind === "yes" && isRedirect(canonical.target, ctx)) {
      const needs = redirectFact(canonical.target, b, ctx);
      if (needs !== null) m = { kind: "depends", fact: needs };
    }
    if (m.kind === "depends") {
      if (ctx.budget.splits <= 0) {
        b.steps.push(step(ctx.table, chain, rule, true, null));
        return unknownEnd(
          b,
          `too many conditions on one trace (${ctx.table} ${chain.name} rule ${rule.index})`,
        );
      }
      ctx.budget.splits--;
      // Both truths of the fact go on from this rule again, now decided.
      frame.i--;
      const other = splitOn(b, m.fact, ctx.budget.next++);
      work.push({ branch: other, frames: frames.map((f) => ({ ...f })) });
      continue;
    }
    if (m.kind === "unknown") {
      b.steps.push(step(ctx.table, chain, rule, true, null));
      return unknownEnd(b, `${m.reason} (${ctx.table} ${chain.name} rule ${rule.index})`);
    }
    if (m.share !== null) {
      // The other half passes this rule and goes on with the next one.
      const other = cloneBranch(b);
      const rest = complement(m.share);
      other.probability = multiply(other.probability, rest);
      other.steps.push(step(ctx.table, chain, rule, false, rest));
      work.push({ branch: other, frames: frames.map((f) => ({ ...f })) });
      b.probability = multiply(b.probability, m.share);
    }
    b.steps.push(step(ctx.table, chain, rule, true, m.share));
    for (const list of m.sets) if (!b.recentSet.includes(list)) b.recentSet.push(list);
    const target = canonical.target;
    if (target === null) continue;
    switch (target.kind) {
      case "verdict":
        if (target.name === "ACCEPT") return { branch: b, end: "accept", reason: null };
        if (target.name === "DROP") return { branch: b, end: "drop", reason: null };
        if (target.name === "RETURN") {
          frames.pop();
          if (frames.length === 0) return policyEnd(b, builtin);
          continue;
        }
        return unknownEnd(b, `-j ${target.name} hands the packet to user space`);
      case "chain": {
        const next = state.chain(ctx.table, target.name);
        if (next === undefined) return unknownEnd(b, `-j ${target.name}: no such chain in ${ctx.table}`);
        if (frames.length >= MAX_DEPTH) return unknownEnd(b, "jumps nested too deep (a loop?)");
        if (isEndpointChain(target.name)) b.endpointChain = target.name;
        if (ctx.absent.chains.size > 0) noteAbsent(ctx, target.name);
        if (target.goto) frames.pop();
        frames.push(enter(next, b, ctx));
        continue;
      }
      case "mark":
        b.mark = ((b.mark & ~target.mask) ^ target.value) >>> 0;
        continue;
      case "nat": {
        if (ctx.table !== "nat") return unknownEnd(b, `-j ${target.name} outside the nat table`);
        if (target.name === "SNAT") {
          // Not a masquerade: the address is the rule's, which need not be the node's.
          // (The ports as a range: a `/B` base port of the rule's is not part of the outcome.)
          const ports = target.ports === null ? null : { min: target.ports.min, max: target.ports.max };
          b.snat = { address: target.minAddress, lastAddress: target.maxAddress, ports };
          return { branch: b, end: "accept", reason: null };
        }
        if (target.name !== "DNAT") return unknownEnd(b, `-j ${target.name}`);
        if (target.minAddress !== target.maxAddress) return unknownEnd(b, "DNAT to an address range");
        if (target.ports !== null && target.ports.min !== target.ports.max)
          return unknownEnd(b, "DNAT to a port range");
        if (target.minAddress !== "") {
          const bytes = hostBytes(target.minAddress, ctx.family);
          if (bytes === null) return unknownEnd(b, `DNAT to ${target.minAddress}`);
          b.dst = bytes;
          b.dstText = hostText(bytes);
        }
        if (target.ports !== null) b.dport = target.ports.min;
        b.dnat = { address: b.dstText, port: b.dport };
        return { branch: b, end: "accept", reason: null };
      }
      case "ports":
        if (target.name === "MASQUERADE" && ctx.table === "nat") {
          b.masquerade = true;
          return { branch: b, end: "accept", reason: null };
        }
        if (target.name === "REDIRECT" && ctx.table === "nat") {
          const end = applyRedirect(target, b, ctx);
          if (end === "accept" || end === "drop") return { branch: b, end, reason: null };
          return unknownEnd(b, end);
        }
        return unknownEnd(b, `-j ${target.name}`);
      case "reject":
        return { branch: b, end: "reject", reason: null };
      case "generic": {
        const end = genericTarget(target, b, ctx);
        if (end === null) continue;
        return unknownEnd(b, end);
      }
    }
  }
  return unknownEnd(b, "too many rules on one path (a loop?)");
}

/** Records that a path entered `chain` when the input lacks it (its emptiness is an assumption). */
function noteAbsent(ctx: MatchContext, chain: string): void {
  const absent = ctx.absent.chains.get(`${ctx.table} ${chain}`);
  if (absent !== undefined) ctx.absent.entered.add(absent);
}

// Targets that leave the packet's path as it is (they log, count, or change what no rule here
// tests: TTL, TOS, MSS, checksums, security labels) and let it go on to the next rule.
const NON_TERMINATING = new Set([
  "LOG",
  "NFLOG",
  "ULOG",
  "TRACE",
  "AUDIT",
  "CHECKSUM",
  "CLASSIFY",
  "CONNSECMARK",
  "SECMARK",
  "DSCP",
  "TOS",
  "ECN",
  "TTL",
  "HL",
  "TCPMSS",
  "TCPOPTSTRIP",
  "IDLETIMER",
  "LED",
  "RATEEST",
  "SET",
  "TEE",
]);

function markOption(target: GenericTarget, name: string): number | null {
  const o = target.options.find((x) => x.name === name);
  if (o === undefined) return null;
  const n = Number((o.values[0] ?? "").split("/")[0]);
  return Number.isInteger(n) ? n >>> 0 : null;
}

/**
 * A target the canonical form keeps generic: null when the path goes on with the next rule (after
 * its effect on the packet), else why the tracer stops.
 */
function genericTarget(target: GenericTarget, b: Branch, ctx: MatchContext): string | null {
  const name = target.name;
  if (NON_TERMINATING.has(name)) return null;
  if (name === "NOTRACK" || (name === "CT" && target.options.some((o) => o.name === "--notrack"))) {
    if (ctx.table !== "raw") return `-j ${name} outside the raw table`;
    b.untracked = true; // no conntrack entry: the nat table is not consulted, ctstate UNTRACKED
    return null;
  }
  if (name === "CT") return null; // zone, helper, timeout: nothing the rules here test
  if (name === "CONNMARK") return connmark(target, b);
  if (name === "NFQUEUE") return `-j ${name} hands the packet to user space`;
  return `-j ${name}: a target the tracer does not model`;
}

/** CONNMARK (xt_connmark revision 1): set, save (packet → connection) or restore (connection → packet). */
function connmark(target: GenericTarget, b: Branch): string | null {
  const set = target.options.find((o) => o.name === "--set-xmark");
  if (set !== undefined) {
    const [value, mask] = (set.values[0] ?? "").split("/").map((x) => Number(x) >>> 0);
    b.ctmark = ((b.ctmark & ~(mask ?? 0)) ^ (value ?? 0)) >>> 0;
    return null;
  }
  const nfmask = markOption(target, "--nfmask");
  const ctmask = markOption(target, "--ctmask");
  if (nfmask === null || ctmask === null) return "-j CONNMARK with options the tracer does not model";
  if (target.options.some((o) => o.name === "--save-mark")) {
    b.ctmark = ((b.ctmark & ~ctmask) ^ (b.mark & nfmask)) >>> 0;
    return null;
  }
  if (target.options.some((o) => o.name === "--restore-mark")) {
    b.mark = ((b.mark & ~nfmask) ^ (b.ctmark & ctmask)) >>> 0;
    return null;
  }
  return "-j CONNMARK with options the tracer does not model";
}

function step(
  table: string,
  chain: CompiledChain,
  rule: CompiledRule,
  matched: boolean,
  share: Fraction | null,
): TraceStep {
  return {
    table,
    chain: chain.name,
    index: rule.index,
    rule: ruleText(chain.name, rule),
    comment: rule.comment,
    matched,
    share,
  };
}
