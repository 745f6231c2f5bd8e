/**
 * Starting from what a node holds: the delta that turns a kernel state (an `iptables-save` dump,
 * parsed) into the state of kube-proxy's full sync, touching only kube-proxy's chains. It is the
 * `diff` command's answer to "what would kube-proxy change on this node" (`diffRules` over the
 * chains kube-proxy owns, then `deltaOf`), plus what kube-proxy ensures outside its payload: the
 * chains its built-in jumps go to, and the jumps themselves.
 *
 * @module
 */

import { canonicalKey, deltaOf, diffRules, pinnedChains } from "../diff/index.js";
import { builtinJumps, jumpTargetChains, stateAfterFullSync } from "../iptables/index.js";
import { type Entry, isBuiltinChain, type RuleSet, type Table } from "../ir/types.js";
import type { ProfileTraits } from "../model/profiles.js";
import { isServiceChain } from "../naming/kube-chains.js";
import { type DeltaCounts, zeroCounts } from "./delta.js";

/** The first delta of an engine that starts from a node's state. */
export interface Adoption {
  /** The `iptables-restore --noflush` payload from the node's state to the desired one. */
  readonly delta: RuleSet;
  /** What it does. */
  readonly counts: DeltaCounts;
}

const TABLES = ["filter", "nat"] as const;

function tableOf(set: RuleSet, name: string): Table | undefined {
  return set.tables.find((t) => t.name === name);
}

function chainNames(table: Table | undefined): Set<string> {
  return new Set(table?.chains.map((c) => c.name) ?? []);
}

/**
 * Which chains of `table` the delta may rewrite or delete: those the payload declares (kube-proxy
 * flushes and refills them on every full sync) and stale per-service chains, except stale ones
 * that a rule outside kube-proxy's chains still reaches: `-X` of a referenced chain fails, and
 * the whole restore with it (kube-proxy's own full sync does fail there), so they are kept.
 * Returned as a test rather than one set of every owned chain: the declared ones are already a
 * set, and a node's table holds ~110,000 chains.
 */
function ownedChains(
  current: Table | undefined,
  declared: Set<string>,
  traits: ProfileTraits,
): (chain: string) => boolean {
  const isNat = current?.name === "nat";
  // Stale per-service chains reached from foreign chains, directly or through other stale ones.
  const pinned =
    current === undefined || !isNat
      ? new Set<string>()
      : pinnedChains(
          current,
          (chain) => declared.has(chain),
          (chain) => isServiceChain(chain, traits) && !declared.has(chain),
        );
  // The node's per-service chains the payload does not declare, unless pinned.
  const stale = new Set<string>();
  if (isNat) {
    for (const c of current?.chains ?? []) {
      const name = c.name;
      if (isServiceChain(name, traits) && !pinned.has(name) && !declared.has(name)) stale.add(name);
    }
  }
  return stale.size === 0
    ? (chain) => declared.has(chain)
    : (chain) => declared.has(chain) || stale.has(chain);
}

/** Whether `table` declares `chain` (for a handful of names: no set of its ~110,000 chains). */
function declares(table: Table | undefined, chain: string): boolean {
  return table?.chains.some((c) => c.name === chain) === true;
}

/**
 * The delta that turns a node's kernel state into the state kube-proxy's full sync of `payload`
 * leaves, without touching rules that are not kube-proxy's. Shared KUBE-* chains are edited rule
 * by rule, per-service chains that differ are rewritten, missing chains are created, stale
 * per-service chains are flushed and deleted after the rules that jump to them are gone, missing
 * jump-target chains are created, and missing built-in jumps are inserted at the top of their
 * chain (as kube-proxy ensures them). Anything else (Docker's or a CNI's chains and rules,
 * other tables) stays as it is.
 *
 * @param current - What the kernel holds: a state, as `parseRules` reads an `iptables-save` dump.
 * @param payload - The full payload of the desired rules (`assemblePayload`, no stale chains).
 * @param traits - The profile, for the jumps and the per-service chain prefixes.
 */
export function adoptionDelta(current: RuleSet, payload: RuleSet, traits: ProfileTraits): Adoption {
  const desired = stateAfterFullSync(payload, traits);
  const owned = new Map<string, (chain: string) => boolean>();
  for (const name of TABLES) {
    owned.set(name, ownedChains(tableOf(current, name), chainNames(tableOf(payload, name)), traits));
  }
  const diff = diffRules(current, desired, {
    chains: (table, chain) => owned.get(table)?.(chain) === true,
  });
  const counts = zeroCounts();
  for (const t of diff.tables) {
    for (const c of t.chains) {
      if (c.status === "added") counts.chainsCreated++;
      else if (c.status === "removed") counts.chainsDeleted++;
      else if (isServiceChain(c.chain, traits)) counts.chainsRewritten++;
      else counts.chainsEdited++;
    }
  }
  const edited = deltaOf(diff);
  const targets = jumpTargetChains(traits);
  const jumps = builtinJumps(traits);
  const tables: Table[] = [];
  for (const name of TABLES) {
    const have = tableOf(current, name);
    const base = tableOf(edited, name);
    const chains = base?.chains.slice() ?? [];
    const declared = new Set(chains.map((c) => c.name));
    // Jump targets that are not the payload's (kubelet's, filled by it) must exist, empty or not.
    for (const chain of targets[name]) {
      if (declared.has(chain) || declares(have, chain)) continue;
      chains.push({ name: chain, policy: null });
      declared.add(chain);
      counts.chainsCreated++;
    }
    // Missing jumps go to the top of their chain, each in turn, as kube-proxy inserts them.
    const present = new Set<string>();
    for (const e of have?.entries ?? [])
      if (e.kind === "rule" && e.op === "-A" && isBuiltinChain(name, e.chain))
        present.add(`${e.chain} ${canonicalKey(e, current.family)}`);
    const entries: Entry[] = [];
    for (const jump of jumps) {
      if (jump.table !== name) continue;
      const rule = jump.rule;
      if (present.has(`${rule.chain} ${canonicalKey(rule, current.family)}`)) continue;
      entries.push({ kind: "rule", op: "-I", chain: rule.chain, args: rule.args, index: 1 });
    }
    for (const e of base?.entries ?? []) entries.push(e);
    if (chains.length === 0 && entries.length === 0) continue;
    tables.push({ name, chains, entries });
  }
  for (const t of tables) {
    for (const e of t.entries) {
      if (e.kind !== "rule") continue;
      if (e.op === "-D") counts.deleted++;
      else counts.inserted++;
    }
  }
  return { delta: { family: current.family, tables }, counts };
}

/**
 * `state` without the chains `payload` declares: what stays of the node's state whatever the
 * payload (built-in chains with their jumps, other programs' chains, kept stale chains).
 */
export function stateWithout(state: RuleSet, payload: RuleSet): RuleSet {
  return overlay(state, payload, false);
}

/** `rest` (from {@link stateWithout}) with the chains `payload` declares, as it writes them. */
export function stateWith(rest: RuleSet, payload: RuleSet): RuleSet {
  return overlay(rest, payload, true);
}

function overlay(state: RuleSet, payload: RuleSet, add: boolean): RuleSet {
  const tables: Table[] = state.tables.map((t) => {
    const p = tableOf(payload, t.name);
    if (p === undefined) return t;
    const mine = chainNames(p);
    const chains = t.chains.filter((c) => !mine.has(c.name));
    const entries = t.entries.filter((e) => e.kind !== "rule" || !mine.has(e.chain));
    if (add) {
      for (const c of p.chains) chains.push(c);
      for (const e of p.entries) if (e.kind === "rule" && e.op === "-A") entries.push(e);
    }
    return { name: t.name, chains, entries };
  });
  if (add) {
    for (const p of payload.tables) {
      if (tableOf(state, p.name) !== undefined) continue;
      tables.push({
        name: p.name,
        chains: p.chains,
        entries: p.entries.filter((e) => e.kind === "rule" && e.op === "-A"),
      });
    }
  }
  return { family: state.family, tables };
}
