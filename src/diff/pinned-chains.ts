/**
 * Chains a delta must not delete although it would like to: `-X` of a chain that a rule still
 * jumps to fails (EBUSY), and the whole `iptables-restore` with it. On a node, a Docker or CNI
 * rule may still jump to a removed Service's `KUBE-SVC-…` chain. Both the CLI's diff against a
 * node's dump and `createSync`'s adoption of one keep such chains.
 *
 * @module
 */
import { appendChainsOf, entryOf } from "../iptables/index.js";
import type { Rule, Table } from "../ir/types.js";

/** The chain a rule jumps or goes to, if any (the last `-j`/`-g`: iptables keeps one). */
function targetOf(rule: Rule): string | null {
  for (let i = rule.args.length - 2; i >= 0; i--) {
    const a = rule.args[i];
    if (a === "-j" || a === "-g" || a === "--jump" || a === "--goto") return rule.args[i + 1] ?? null;
  }
  return null;
}

/**
 * The chains of `table` that `deletable` names but that a rule the delta leaves in place still
 * reaches: from a chain that is neither rewritten nor deletable (another program's), directly or
 * through other deletable chains.
 *
 * @param rewritten - chains whose rules the delta replaces: their jumps pin nothing.
 * @param deletable - chains the delta would delete.
 * @example
 * // FORWARD → DOCKER-X → KUBE-SVC-OLD: the stale chain stays.
 * pinnedChains(nat, (c) => declared.has(c), (c) => c.startsWith("KUBE-SVC-")) // Set { "KUBE-SVC-OLD" }
 */
export function pinnedChains(
  table: Table,
  rewritten: (chain: string) => boolean,
  deletable: (chain: string) => boolean,
): Set<string> {
  // The rules that stay, by chain. A chain's rules come in one run (as iptables-save prints
  // them): one test and one lookup per run, not per rule (a node's nat table holds ~320,000),
  // and only these rules are read (a parsed dump builds no other: see `appendChainsOf`).
  const rulesOf = new Map<string, Rule[]>();
  const chains = appendChainsOf(table);
  let chain: string | null = null;
  let list: Rule[] | undefined;
  for (let i = 0; i < chains.length; i++) {
    const name = chains[i] as string | null;
    if (name === null) continue;
    if (name !== chain) {
      chain = name;
      list = undefined;
      if (!rewritten(chain)) {
        list = rulesOf.get(chain);
        if (list === undefined) {
          list = [];
          rulesOf.set(chain, list);
        }
      }
    }
    list?.push(entryOf(table, i) as Rule);
  }
  const pinned = new Set<string>();
  const work: string[] = [];
  const reach = (from: string): void => {
    for (const rule of rulesOf.get(from) ?? []) {
      const to = targetOf(rule);
      if (to !== null && deletable(to) && !pinned.has(to)) {
        pinned.add(to);
        work.push(to);
      }
    }
  };
  for (const from of rulesOf.keys()) if (!deletable(from)) reach(from);
  for (let next = work.pop(); next !== undefined; next = work.pop()) reach(next);
  return pinned;
}
