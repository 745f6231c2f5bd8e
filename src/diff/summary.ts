/**
 * A diff → readable text, grouped by the Service a change belongs to (told by the rule's
 * comment, `ns/name:port …`, or by the per-service chain it is in), then the rest per chain.
 *
 * @module
 */

import { canonicalizeRuleCached } from "../iptables/index.js";
import { type IPFamily, isBuiltinChain, type Rule } from "../ir/types.js";
import { oneLine } from "../one-line.js";
import type { RuleSetDiff } from "./diff-rules.js";

interface Group {
  added: number;
  removed: number;
  chainsAdded: string[];
  chainsRemoved: string[];
  reordered: string[];
}

/** A service port as kube-proxy's comments name it: `ns/name:port`, or `ns/name` for an unnamed port. */
const SERVICE_PORT = /^[a-z0-9.-]+\/[a-z0-9.-]+(?::\S+)?$/;
/**
 * The service port a comment names after `for`, in the comments of the external, firewall and
 * v1.22 XLB chains: `masquerade traffic for ns/name:port external destinations`, `pod traffic
 * for …`, `route LOCAL traffic for … LB IP to service chain`, `Balancing rule 0 for ns/name:port`.
 */
const FOR_SERVICE_PORT = /(?:^| )for ([a-z0-9.-]+\/[a-z0-9.-]+(?::\S+)?)(?: |$)/;
/** A per-service chain, and the hash its name shares with the other chains of the same service port. */
const PER_SERVICE = /^KUBE-(?:SVC|SVL|EXT|FW|XLB|SEP)-(\S+)$/;
/** The per-service chains named by the service port's hash (a KUBE-SEP- chain is named by its endpoint). */
const PORT_CHAIN = /^KUBE-(?:SVC|SVL|EXT|FW|XLB)-/;

// A kube-proxy comment names the service port by its first word (`ns/name:port`, `ns/name`), or
// after `for` (see FOR_SERVICE_PORT).
function serviceOf(rule: Rule, family: IPFamily): string | null {
  const c = canonicalizeRuleCached(rule, family);
  let text: string | undefined;
  if (c.ok) {
    for (const m of c.rule.matches) if (m.kind === "comment") text = m.comment;
  } else {
    const at = rule.args.indexOf("--comment");
    if (at >= 0) text = rule.args[at + 1];
  }
  if (text === undefined) return null;
  const word = text.split(" ")[0] ?? "";
  if (SERVICE_PORT.test(word)) return word;
  return FOR_SERVICE_PORT.exec(text)?.[1] ?? null;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * Summarizes a diff, one line per Service (or per chain for changes no Service claims).
 *
 * @param diff - From `diffRules`.
 * @returns The text, `"no changes\n"` when there are none.
 * @example
 * summarizeDiff(diffRules(old, next))
 * // "default/web:http: +2 rules, -1 rule; chains added KUBE-SEP-…\n"
 */
export function summarizeDiff(diff: RuleSetDiff): string {
  const groups = new Map<string, Group>();
  const group = (name: string): Group => {
    let g = groups.get(name);
    if (g === undefined) {
      g = { added: 0, removed: 0, chainsAdded: [], chainsRemoved: [], reordered: [] };
      groups.set(name, g);
    }
    return g;
  };
  // A per-service chain belongs to the service port its rules name. KUBE-SVC-, -SVL-, -EXT-, -FW-
  // and -XLB- chains share their name's hash: one whose rules name none (an external chain that
  // only jumps to the service chain) belongs to the port another chain of the same hash names.
  const ownerOf = new Map<string, string | null>();
  const byHash = new Map<string, string>();
  for (const table of diff.tables) {
    for (const c of table.chains) {
      const hash = PER_SERVICE.exec(c.chain)?.[1];
      if (hash === undefined) continue;
      const own =
        [...c.new.rules, ...c.old.rules].map((r) => serviceOf(r, diff.family)).find((s) => s !== null) ??
        null;
      ownerOf.set(`${table.name} ${c.chain}`, own);
      if (own !== null && PORT_CHAIN.test(c.chain) && !byHash.has(hash)) byHash.set(hash, own);
    }
  }
  for (const table of diff.tables) {
    for (const c of table.chains) {
      // A per-service chain belongs to its Service; else to the chain itself.
      const key = `${table.name} ${c.chain}`;
      const hash = PER_SERVICE.exec(c.chain)?.[1];
      const perService = hash !== undefined;
      const own =
        ownerOf.get(key) ?? (hash !== undefined && PORT_CHAIN.test(c.chain) ? byHash.get(hash) : undefined);
      const chainGroup = perService && own !== undefined && own !== null ? own : key;
      if (c.status === "added") group(chainGroup).chainsAdded.push(c.chain);
      // A built-in chain of a table NEW lacks is emptied, not removed: its rules count below.
      if (c.status === "removed" && !isBuiltinChain(table.name, c.chain))
        group(chainGroup).chainsRemoved.push(c.chain);
      if (c.reordered) group(chainGroup).reordered.push(c.chain);
      for (const r of c.addedRules)
        group(perService ? chainGroup : (serviceOf(r, diff.family) ?? chainGroup)).added++;
      for (const r of c.removedRules)
        group(perService ? chainGroup : (serviceOf(r, diff.family) ?? chainGroup)).removed++;
    }
  }
  if (groups.size === 0) return "no changes\n";
  const lines: string[] = [];
  for (const name of [...groups.keys()].sort()) {
    const g = groups.get(name) as Group;
    const parts: string[] = [];
    const counts: string[] = [];
    if (g.added > 0) counts.push(`+${plural(g.added, "rule")}`);
    if (g.removed > 0) counts.push(`-${plural(g.removed, "rule")}`);
    if (counts.length > 0) parts.push(counts.join(", "));
    if (g.chainsAdded.length > 0) parts.push(`chains added ${g.chainsAdded.join(" ")}`);
    if (g.chainsRemoved.length > 0) parts.push(`chains removed ${g.chainsRemoved.join(" ")}`);
    if (g.reordered.length > 0) parts.push(`reordered ${g.reordered.join(" ")}`);
    // Names come from the dumps as written (a chain may hold any byte iptables accepts).
    lines.push(oneLine(`${name}: ${parts.join("; ")}`));
  }
  return `${lines.join("\n")}\n`;
}
