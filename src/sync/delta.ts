/**
 * The delta of one incremental update: the `iptables-restore --noflush` commands that turn the
 * kernel state of the previous update into the new one. Own chains of changed service ports are
 * created, rewritten (declared = flushed, then `-A`) or edited in place, whichever is shorter;
 * shared chains are edited rule by rule; removed chains are flushed by their declaration and
 * deleted last, once nothing jumps to them.
 *
 * @module
 */
import { type EditCounts, editChain } from "../diff/edit-script.js";
import { formatEntry } from "../iptables/index.js";
import type { ChainDeclaration, Entry, Rule, RuleSet, Table } from "../ir/types.js";
import { type OwnChain, type PortEntry, SHARED_CHAINS, SLOTS } from "./blocks.js";

/** A change of one service port: old entry, new entry, or both. */
export interface PortChange {
  /** The entry before the update, `null` for an added port. */
  readonly old: PortEntry | null;
  /** The entry after the update, `null` for a removed port. */
  readonly next: PortEntry | null;
  /** Where the port's slice of each shared chain starts, in the new state (0-based). */
  readonly start: readonly number[];
}

/** Counters of what a delta does, for the update's stats. */
export interface DeltaCounts extends EditCounts {
  /** Chains declared for the first time. */
  chainsCreated: number;
  /** Chains declared (flushed) and written again. */
  chainsRewritten: number;
  /** Chains edited rule by rule. */
  chainsEdited: number;
  /** Chains flushed and deleted. */
  chainsDeleted: number;
}

/** A fresh set of zero counters. */
export function zeroCounts(): DeltaCounts {
  return { deleted: 0, inserted: 0, chainsCreated: 0, chainsRewritten: 0, chainsEdited: 0, chainsDeleted: 0 };
}

const userChain = (name: string): ChainDeclaration => ({ name, policy: null });

function bytesOf(entries: readonly Entry[], from: number): number {
  let n = 0;
  for (let i = from; i < entries.length; i++) n += formatEntry(entries[i] as Entry).length + 1;
  return n;
}

function writeChain(body: OwnChain, out: Entry[]): void {
  for (const rule of body.list.rules) out.push(rule);
}

/**
 * One port's own chains: new ones declared and filled, changed ones rewritten or edited in place
 * (the shorter text wins), removed ones declared (which flushes them) and deleted at the end.
 */
function ownChainDelta(
  change: PortChange,
  decls: ChainDeclaration[],
  writes: Entry[],
  deletes: Entry[],
  counts: DeltaCounts,
): void {
  const before = change.old?.chains;
  const after = change.next?.chains;
  if (after !== undefined) {
    for (const [chain, body] of after) {
      const prev = before?.get(chain);
      if (prev === undefined) {
        decls.push(userChain(chain));
        writeChain(body, writes);
        counts.chainsCreated++;
        counts.inserted += body.list.rules.length;
        continue;
      }
      if (prev.body === body.body) continue;
      // In place: the edit of an endpoint list usually touches a few rules of a long chain. The
      // chain is ours alone and we know what it holds, so deletes go by number (a third the size).
      const mark = writes.length;
      const edit = zeroCounts();
      editChain(chain, prev.list, body.list, 0, prev.list.rules.length, writes, edit, true);
      const editBytes = bytesOf(writes, mark);
      let rewriteBytes = chain.length + 8;
      for (const rule of body.list.rules) rewriteBytes += formatEntry(rule).length + 1;
      if (rewriteBytes < editBytes) {
        writes.length = mark;
        decls.push(userChain(chain));
        writeChain(body, writes);
        counts.chainsRewritten++;
        counts.inserted += body.list.rules.length;
      } else {
        counts.chainsEdited++;
        counts.deleted += edit.deleted;
        counts.inserted += edit.inserted;
      }
    }
  }
  if (before !== undefined) {
    for (const chain of before.keys()) {
      if (after?.has(chain) === true) continue;
      decls.push(userChain(chain));
      deletes.push({ kind: "chain", op: "-X", chain });
      counts.chainsDeleted++;
    }
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const EMPTY = { rules: [] as Rule[], keys: [] as string[] };

/**
 * Builds the delta of an update from the changed ports, in generation order (each `start` in the
 * new state's coordinates, so that editing left to right keeps every position valid).
 *
 * @param lengths - The length of each shared chain in the kernel now (fixed rules included).
 */
export function buildDelta(
  family: RuleSet["family"],
  changes: readonly PortChange[],
  lengths: readonly number[],
  counts: DeltaCounts,
): RuleSet {
  const decls: ChainDeclaration[] = [];
  const natWrites: Entry[] = [];
  const deletes: Entry[] = [];
  for (const change of changes) ownChainDelta(change, decls, natWrites, deletes, counts);
  const filterEdits: Entry[] = [];
  const natEdits: Entry[] = [];
  for (let s = 0; s < SLOTS; s++) {
    const shared = SHARED_CHAINS[s] as (typeof SHARED_CHAINS)[number];
    const out = shared.table === "filter" ? filterEdits : natEdits;
    let length = lengths[s] as number;
    for (const change of changes) {
      const old = change.old?.shared[s] ?? EMPTY;
      const next = change.next?.shared[s] ?? EMPTY;
      if (sameKeys(old.keys, next.keys)) continue;
      length = editChain(shared.chain, old, next, change.start[s] as number, length, out, counts);
    }
  }
  const tables: Table[] = [];
  if (filterEdits.length > 0) tables.push({ name: "filter", chains: [], entries: filterEdits });
  const natEntries = natWrites;
  for (const e of natEdits) natEntries.push(e);
  for (const e of deletes) natEntries.push(e);
  if (decls.length > 0 || natEntries.length > 0)
    tables.push({ name: "nat", chains: decls, entries: natEntries });
  return { family, tables };
}
