// What a trace of a partial text (`iptables-save | grep`, `iptables -t nat -S`) cannot know, said
// in notes: the chains the packet went through that the text does not hold.
import type { HeaderlessRead } from "../iptables/index.js";
import { isBuiltinChain, type RuleSet } from "../ir/types.js";
import type { ChainRef, TraceResult } from "../trace/index.js";

/** How many chains a note names before it counts the rest. */
const NAMED = 4;

/**
 * The chains of `state` that its headerless text did not hold (see `HeaderlessRead.held`): those
 * its rules jump to without lines of their own, and those the completion added (kube-proxy's
 * chains behind its jumps from the built-in chains). The state has them empty, which the text
 * does not say. Built-in chains are not counted: they exist on every node.
 */
export function absentChains(state: RuleSet, held: HeaderlessRead["held"]): ChainRef[] {
  const keys = new Set(held.map((c) => `${c.table} ${c.chain}`));
  const out: ChainRef[] = [];
  for (const table of state.tables)
    for (const d of table.chains)
      if (!isBuiltinChain(table.name, d.name) && !keys.has(`${table.name} ${d.name}`))
        out.push({ table: table.name, chain: d.name });
  return out;
}

/** `a, b, c, d and 5 more`: the first few names and how many others. */
function someOf(names: readonly string[]): string {
  if (names.length <= NAMED) return names.join(", ");
  return `${names.slice(0, NAMED).join(", ")} and ${names.length - NAMED} more`;
}

/**
 * The note for a trace that went through chains its text does not hold (null when it went
 * through none): their names, and that the outcomes take them as empty.
 */
export function absentChainsNote(file: string, result: TraceResult): string | null {
  const entered = result.absentChains;
  if (entered.length === 0) return null;
  const names = someOf(entered.map((c) => `${c.table} ${c.chain}`));
  const [chains, them] = entered.length === 1 ? ["a chain", "it"] : [`${entered.length} chains`, "them"];
  return `${file}: the packet's paths went through ${chains} the text does not hold (${names}), traced as empty: the node's rules in ${them} may change the outcomes; give the whole iptables-save output`;
}
