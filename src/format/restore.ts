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

/**
 * Lines per chunk. The text is built as pieces pushed into a chunk array that is joined into one
 * flat string every this many lines: the per-line pieces then die young instead of surviving
 * every scavenge until one final join (a 10k-service payload has ~300k lines, and keeping them
 * all alive made garbage collection the larger part of formatting).
 */
const CHUNK_LINES = 2048;

/** Builds the text in chunks; see {@link CHUNK_LINES}. */
class ChunkWriter {
  private readonly chunks: string[] = [];
  private parts: string[] = [];
  private lines = 0;

  /** Appends pieces of the current line. */
  push(piece: string): void {
    this.parts.push(piece);
  }

  /** Ends the current line. */
  endLine(): void {
    this.parts.push("\n");
    if (++this.lines === CHUNK_LINES) this.flush();
  }

  private flush(): void {
    this.chunks.push(this.parts.join(""));
    this.parts = [];
    this.lines = 0;
  }

  /** The whole text. */
  finish(): string {
    this.flush();
    return this.chunks.join("");
  }
}

/** Writes one entry; a rule is written as pieces (no per-line string) when its args need no quotes. */
function writeEntry(out: ChunkWriter, entry: Entry): void {
  if (entry.kind !== "rule" || entry.counters !== undefined || entry.index !== undefined || entry.args.length === 0) {
    out.push(formatEntry(entry));
    out.endLine();
    return;
  }
  const args = entry.args;
  const joined = args.join(" ");
  if (joinsCleanly(joined, args.length)) {
    out.push(entry.op);
    out.push(" ");
    out.push(entry.chain);
    out.push(" ");
    out.push(joined);
  } else {
    out.push(formatEntry(entry));
  }
  out.endLine();
}

function writeTable(out: ChunkWriter, table: Table): void {
  out.push(`*${table.name}`);
  out.endLine();
  for (const decl of table.chains) {
    out.push(declarationLine(decl));
    out.endLine();
  }
  for (const entry of table.entries) writeEntry(out, entry);
  out.push("COMMIT");
  out.endLine();
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
  const out = new ChunkWriter();
  for (const table of ruleSet.tables) writeTable(out, table);
  return out.finish();
}
