/**
 * RuleSet → `iptables-restore` input, in the order the rule set holds (kube-proxy's order for a
 * generated payload).
 *
 * @module
 */
import type { ChainDeclaration, Entry, RuleSet, Table } from "../ir/types.js";

/**
 * One argument as iptables-restore reads it back: bare when it holds no blank, quote or
 * backslash (kube-proxy's own rule: only comments with spaces are quoted), otherwise in double
 * quotes with `"` and `\` escaped.
 *
 * @example
 * quoteArgument("ns1/svc1:p80")             // "ns1/svc1:p80"
 * quoteArgument("ns1/svc1:p80 cluster IP")  // "\"ns1/svc1:p80 cluster IP\""
 */
export function quoteArgument(arg: string): string {
  if (arg.length === 0) return '""';
  for (let i = 0; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    // space, tab, newline, CR, vertical tab, form feed, ", \
    if (c === 32 || (c >= 9 && c <= 13) || c === 34 || c === 92) {
      return `"${arg.replace(/["\\]/g, "\\$&")}"`;
    }
  }
  return arg;
}

function declarationLine(decl: ChainDeclaration): string {
  const counters = decl.counters === undefined ? "[0:0]" : `[${decl.counters.packets}:${decl.counters.bytes}]`;
  return `:${decl.name} ${decl.policy ?? "-"} ${counters}`;
}

/**
 * Whether an argv joined with single spaces can be read back unchanged: no argument is empty or
 * holds a blank, quote or backslash. Checked on the joined text in one pass, which is much
 * cheaper than a check per argument on the generation hot path.
 */
function joinsCleanly(joined: string, argCount: number): boolean {
  let spaces = 0;
  let previous = 32;
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    if (c === 32) {
      if (previous === 32) return false; // an empty argument
      spaces++;
    } else if ((c >= 9 && c <= 13) || c === 34 || c === 92) {
      return false;
    }
    previous = c;
  }
  return spaces === argCount - 1 && (argCount === 0 || previous !== 32);
}

/** One command line of a table block, without the newline. */
export function formatEntry(entry: Entry): string {
  if (entry.kind === "chain") return entry.chain === "" ? entry.op : `${entry.op} ${entry.chain}`;
  if (entry.kind === "policy") return `-P ${entry.chain} ${entry.policy}`;
  let head = entry.counters === undefined ? "" : `[${entry.counters.packets}:${entry.counters.bytes}] `;
  head += entry.index === undefined ? `${entry.op} ${entry.chain}` : `${entry.op} ${entry.chain} ${entry.index}`;
  const args = entry.args;
  if (args.length === 0) return head;
  const joined = args.join(" ");
  if (joinsCleanly(joined, args.length)) return `${head} ${joined}`;
  let line = head;
  for (let i = 0; i < args.length; i++) line += ` ${quoteArgument(args[i] as string)}`;
  return line;
}

function pushTable(out: string[], table: Table): void {
  out.push(`*${table.name}`);
  for (const decl of table.chains) out.push(declarationLine(decl));
  for (const entry of table.entries) out.push(formatEntry(entry));
  out.push("COMMIT");
}

/**
 * Prints a rule set as `iptables-restore` input: per table, `*table`, the chain declarations,
 * the commands, `COMMIT`. For a generated payload this is byte for byte what kube-proxy writes.
 *
 * @example
 * formatRestore(generateRules(model))
 * // "*filter\n:KUBE-SERVICES - [0:0]\n…\nCOMMIT\n*nat\n…\nCOMMIT\n"
 */
export function formatRestore(ruleSet: RuleSet): string {
  const out: string[] = [];
  for (const table of ruleSet.tables) pushTable(out, table);
  out.push("");
  return out.join("\n");
}
