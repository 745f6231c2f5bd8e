/**
 * A diff → the `iptables-restore --noflush` payload that turns OLD's state into NEW's, safe at
 * every step: new chains are declared (in the header) before any rule jumps to them, changed
 * per-service chains are edited in place or rewritten (declared = flushed, then `-A`), whichever
 * is shorter, as the incremental engine does; other chains are edited rule by rule, and removed
 * chains are flushed by their declaration and deleted (`-X`) only at the end, after the rules
 * that jumped to them are gone.
 *
 * @module
 */
import { formatEntry, formatRestore } from "../iptables/index.js";
import { type ChainDeclaration, type Entry, isBuiltinChain, type RuleSet, type Table } from "../ir/types.js";
import { isServiceChain } from "../naming/kube-chains.js";
import type { ChainDiff, RuleSetDiff } from "./diff-rules.js";
import { editChain, type RuleList } from "./edit-script.js";

function bytesOf(entries: readonly Entry[], from: number): number {
  let n = 0;
  for (let i = from; i < entries.length; i++) n += formatEntry(entries[i] as Entry).length + 1;
  return n;
}

/**
 * A changed per-service chain: edited in place when that text is shorter than flushing and
 * refilling it (one endpoint replaced in a `KUBE-SVC-…` chain of ten is a `-D` and an `-I`, not
 * eleven lines), else rewritten. The chain is kube-proxy's alone and OLD says what it holds, so
 * its `-D`s go by number, as the incremental engine's do (a third the size of a specification).
 */
function serviceChainDelta(
  chain: string,
  old: RuleList,
  next: RuleList,
  decls: ChainDeclaration[],
  writes: Entry[],
): void {
  const mark = writes.length;
  editChain(chain, old, next, 0, old.rules.length, writes, undefined, true);
  const editBytes = bytesOf(writes, mark);
  // The rewrite: its declaration (`:NAME - [0:0]`) and every rule as `-A`.
  let rewriteBytes = chain.length + 10;
  for (const rule of next.rules)
    rewriteBytes += formatEntry({ kind: "rule", op: "-A", chain, args: rule.args }).length + 1;
  if (editBytes <= rewriteBytes) return;
  writes.length = mark;
  decls.push({ name: chain, policy: null });
  for (const rule of next.rules) writes.push({ kind: "rule", op: "-A", chain, args: rule.args });
}

function tableDelta(name: string, chains: readonly ChainDiff[]): Table | null {
  const decls: ChainDeclaration[] = [];
  const writes: Entry[] = [];
  const edits: Entry[] = [];
  const deletes: Entry[] = [];
  for (const d of chains) {
    const builtin = isBuiltinChain(name, d.chain);
    if (d.status === "added") {
      decls.push({ name: d.chain, policy: builtin ? (d.policy?.new ?? "ACCEPT") : null });
      for (const rule of d.new.rules)
        writes.push({ kind: "rule", op: "-A", chain: d.chain, args: rule.args });
    } else if (d.status === "removed") {
      if (builtin) {
        // A table NEW lacks cannot be dropped under --noflush: empty its built-in chains instead
        // (their rules may jump to chains deleted below) and give them a fresh table's policy.
        if (d.policy !== undefined && d.policy.new !== null) {
          edits.push({ kind: "policy", op: "-P", chain: d.chain, policy: d.policy.new });
        }
        editChain(d.chain, d.old, d.new, 0, d.old.rules.length, edits);
        continue;
      }
      decls.push({ name: d.chain, policy: null });
      deletes.push({ kind: "chain", op: "-X", chain: d.chain });
    } else if (isServiceChain(d.chain)) {
      serviceChainDelta(d.chain, d.old, d.new, decls, writes);
    } else {
      if (builtin && d.policy !== undefined && d.policy.new !== null) {
        edits.push({ kind: "policy", op: "-P", chain: d.chain, policy: d.policy.new });
      }
      editChain(d.chain, d.old, d.new, 0, d.old.rules.length, edits);
    }
  }
  if (decls.length === 0 && writes.length === 0 && edits.length === 0 && deletes.length === 0) return null;
  return { name, chains: decls, entries: [...writes, ...edits, ...deletes] };
}

/**
 * The payload that turns OLD into NEW with `iptables-restore --noflush`.
 *
 * @param diff - From `diffRules(old, new)`.
 * @returns A payload RuleSet (print it with `formatRestore`, or use {@link formatDelta}).
 * @example
 * formatRestore(deltaOf(diffRules(old, next)))
 * // "*nat\n:KUBE-SEP-NEW - [0:0]\n:KUBE-SVC-X - [0:0]\n-A KUBE-SEP-NEW …\n-X KUBE-SEP-OLD\nCOMMIT\n"
 */
export function deltaOf(diff: RuleSetDiff): RuleSet {
  const tables: Table[] = [];
  for (const t of diff.tables) {
    const table = tableDelta(t.name, t.chains);
    if (table !== null) tables.push(table);
  }
  return { family: diff.family, tables };
}

/**
 * The `iptables-restore --noflush` text that turns OLD's state into NEW's; `""` when they are
 * equal.
 *
 * @param diff - From `diffRules(old, new)`.
 * @returns The restore text.
 * @example
 * formatDelta(diffRules(state, state)) // ""
 */
export function formatDelta(diff: RuleSetDiff): string {
  const delta = deltaOf(diff);
  return delta.tables.length === 0 ? "" : formatRestore(delta);
}
