/**
 * RuleSet → `iptables-restore` input, in the order the rule set holds (kube-proxy's order for a
 * generated payload).
 *
 * @module
 */
import { KubeIptablesError } from "../../errors.js";
import type { ChainDeclaration, Entry, RuleSet, Table } from "../../ir/types.js";
import { checkWritable, hasUnsafeCharacter, unsafeText } from "../unsafe-text.js";

/**
 * Whether `text` holds a character {@link quoteArgument} escapes (`"` or `\`). Text without one
 * is quoted by wrapping it, which lets a caller quote `prefix + suffix` from what it already
 * knows of the parts.
 */
export function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92) return true;
  }
  return false;
}

/**
 * One argument as iptables-restore reads it back: bare when it holds no blank, quote or
 * backslash (kube-proxy's own rule: only comments with spaces are quoted), otherwise in double
 * quotes with `"` and `\` escaped.
 *
 * @throws KubeIptablesError (`UNSAFE_TEXT`) for an argument holding `\n`, `\r` or NUL, which no
 *   quoting can carry.
 *
 * @example
 * quoteArgument("ns1/svc1:p80")             // "ns1/svc1:p80"
 * quoteArgument("ns1/svc1:p80 cluster IP")  // "\"ns1/svc1:p80 cluster IP\""
 */
export function quoteArgument(arg: string): string {
  if (arg.length === 0) return '""';
  let blank = false;
  for (let i = 0; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    if (c === 34 || c === 92) {
      if (hasUnsafeCharacter(arg)) throw unsafeText(arg, "");
      return `"${arg.replace(/["\\]/g, "\\$&")}"`;
    }
    // No quoting carries a line feed, NUL or carriage return (see unsafe-text.ts).
    if (c === 10 || c === 13 || c === 0) throw unsafeText(arg, "");
    // space, tab, vertical tab, form feed
    if (c === 32 || (c >= 9 && c <= 12)) blank = true;
  }
  // Most quoted arguments are comments with spaces and nothing to escape.
  return blank ? `"${arg}"` : arg;
}

function declarationLine(decl: ChainDeclaration): string {
  const counters =
    decl.counters === undefined ? "[0:0]" : `[${decl.counters.packets}:${decl.counters.bytes}]`;
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
    } else if ((c >= 9 && c <= 13) || c === 34 || c === 92 || c === 0) {
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
  head +=
    entry.index === undefined ? `${entry.op} ${entry.chain}` : `${entry.op} ${entry.chain} ${entry.index}`;
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

/**
 * Writes `iptables-restore` lines in chunks (see {@link CHUNK_LINES}). Shared by
 * {@link formatRestore} and the streaming `generateRestoreText`, so that both print every line
 * with the same code and cannot drift apart by a byte.
 *
 * @example
 * const out = new RestoreLineWriter();
 * out.line("*nat");
 * out.declaration({ name: "KUBE-SERVICES", policy: null });
 * out.finish() // "*nat\n:KUBE-SERVICES - [0:0]\n"
 */
export class RestoreLineWriter {
  private readonly done: string[] = [];
  private parts: string[] = [];
  private lines = 0;

  /** Writes one whole line (without its newline). */
  line(text: string): void {
    this.parts.push(text, "\n");
    if (++this.lines === CHUNK_LINES) this.flush();
  }

  /** Writes a chain declaration line (`:NAME POLICY [p:b]`). */
  declaration(decl: ChainDeclaration): void {
    this.line(declarationLine(decl));
  }

  /** Writes one command line; a rule is written as pieces (no per-line string) when its args need no quotes. */
  entry(entry: Entry): void {
    if (
      entry.kind !== "rule" ||
      entry.counters !== undefined ||
      entry.index !== undefined ||
      entry.args.length === 0
    ) {
      this.line(formatEntry(entry));
      return;
    }
    const args = entry.args;
    const joined = args.join(" ");
    if (!joinsCleanly(joined, args.length)) {
      this.line(formatEntry(entry));
      return;
    }
    this.parts.push(entry.op, " ", entry.chain, " ", joined, "\n");
    if (++this.lines === CHUNK_LINES) this.flush();
  }

  private flush(): void {
    if (this.parts.length > 0) this.done.push(this.parts.join(""));
    this.parts = [];
    this.lines = 0;
  }

  /**
   * The text written so far as flat chunks, in order; the writer is empty afterwards. Lets a
   * caller that writes sections out of order (filter before nat, declarations before rules)
   * concatenate several writers with one final join.
   */
  takeChunks(): string[] {
    this.flush();
    return this.done.splice(0, this.done.length);
  }

  /** The whole text written so far. */
  finish(): string {
    return this.takeChunks().join("");
  }
}

function writeTable(out: RestoreLineWriter, table: Table, t: number): void {
  checkWritable(table.name, `tables[${t}].name`);
  out.line(`*${table.name}`);
  const chains = table.chains;
  for (let c = 0; c < chains.length; c++) {
    const decl = chains[c] as ChainDeclaration;
    checkWritable(decl.name, `tables[${t}].chains[${c}].name`);
    if (decl.policy !== null) checkWritable(decl.policy, `tables[${t}].chains[${c}].policy`);
    out.declaration(decl);
  }
  const entries = table.entries;
  // Rules come grouped by chain: each chain name is checked when it changes.
  let checked = "";
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e] as Entry;
    if (entry.chain !== checked) {
      checkWritable(entry.chain, `tables[${t}].entries[${e}].chain`);
      checked = entry.chain;
    }
    if (entry.kind === "policy") checkWritable(entry.policy, `tables[${t}].entries[${e}].policy`);
    try {
      out.entry(entry);
    } catch (error) {
      throw withArgumentPath(error, entry, `tables[${t}].entries[${e}]`);
    }
  }
  out.line("COMMIT");
}

/** quoteArgument's error, given the path of the argument it refused. */
function withArgumentPath(error: unknown, entry: Entry, path: string): unknown {
  if (!(error instanceof KubeIptablesError) || entry.kind !== "rule") return error;
  const k = entry.args.findIndex(hasUnsafeCharacter);
  return k < 0 ? error : unsafeText(entry.args[k] as string, `${path}.args[${k}]`);
}

/**
 * Prints a rule set as `iptables-restore` input: per table, `*table`, the chain declarations,
 * the commands, `COMMIT`. For a generated payload this is byte for byte what kube-proxy writes.
 *
 * @example
 * formatRestore(generateRules(model))
 * // "*filter\n:KUBE-SERVICES - [0:0]\n…\nCOMMIT\n*nat\n…\nCOMMIT\n"
 * @throws KubeIptablesError (`UNSAFE_TEXT`, with the path of the value) when a table, chain,
 *   policy or argument holds `\n`, `\r` or NUL.
 */
export function formatRestore(ruleSet: RuleSet): string {
  const out = new RestoreLineWriter();
  for (let t = 0; t < ruleSet.tables.length; t++) writeTable(out, ruleSet.tables[t] as Table, t);
  return out.finish();
}
