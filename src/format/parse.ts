/**
 * The parser for both text forms: `iptables-restore` input (kube-proxy's form, with `-X`, `-I`,
 * `-D`, `-F`, `-N` and `[p:b]` counters) and `iptables-save` output. It tokenizes exactly as
 * iptables-restore does, keeps every rule as argv (extensions it does not model included), and
 * checks each rule with the canonicalizer, so that what iptables would refuse is a problem with
 * a line and column, never a silent skip.
 *
 * @module
 */

import { KubeIptablesError, type Problem } from "../errors.js";
import { expandAddressLists, tryCanonicalizeRule } from "../ir/canonical.js";
import type { Backend } from "../ir/canonical-types.js";
import { recordSourceLines } from "../ir/state.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type Counters,
  type Entry,
  type IPFamily,
  type Rule,
  type RuleSet,
  type Table,
} from "../ir/types.js";
import { TokenCache, tokenizeLine } from "./tokenize.js";

/** Options of {@link parseRules}. */
export interface ParseOptions {
  /** The family; by default IPv6 when any `-s`/`-d` address contains `:`, else IPv4. */
  readonly family?: IPFamily;
  /** Backend to imitate where nft and legacy accept different input (spec §12); default `"nft"`. */
  readonly backend?: Backend;
}

/** The result of {@link parseRules}. */
export interface ParseResult {
  /** The rules read (lines with problems are left out). */
  readonly ruleSet: RuleSet;
  /** Every problem, each with a 1-based line and column. */
  readonly problems: Problem[];
}

const RULE_OPS: Readonly<Record<string, Rule["op"]>> = {
  "-A": "-A",
  "--append": "-A",
  "-I": "-I",
  "--insert": "-I",
  "-D": "-D",
  "--delete": "-D",
  "-R": "-R",
  "--replace": "-R",
};
const CHAIN_OPS: Readonly<Record<string, "-F" | "-X" | "-Z" | "-N">> = {
  "-F": "-F",
  "--flush": "-F",
  "-X": "-X",
  "--delete-chain": "-X",
  "-Z": "-Z",
  "--zero": "-Z",
  "-N": "-N",
  "--new-chain": "-N",
};
/** Names iptables keeps for verdicts; no chain may take them (spec §13). */
const RESERVED_CHAIN_NAMES = new Set(["ACCEPT", "DROP", "RETURN", "QUEUE"]);
const ZERO: Counters = { packets: 0n, bytes: 0n };
const COUNTERS = /^\[(\d{1,20}):(\d{1,20})\]$/;
const MAX_U64 = 18446744073709551615n;

/** A table block being read. */
interface OpenTable {
  readonly name: string;
  readonly valid: boolean;
  readonly chains: ChainDeclaration[];
  readonly entries: Entry[];
  readonly chainLines: number[];
  readonly entryLines: number[];
}

/** A rule whose argv still has to be checked once the family is known. */
interface PendingRule {
  readonly rule: Rule;
  readonly line: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  /** How many tokens of the line precede `args` (counters prefix, command, chain, index). */
  readonly argOffset: number;
  /** Where a `-c P B` pair was removed from args (-1: none). */
  readonly countersAt: number;
}

function parseCounters(text: string): Counters | null {
  if (text === "[0:0]") return ZERO;
  const m = COUNTERS.exec(text);
  if (m === null) return null;
  const packets = BigInt(m[1] as string);
  const bytes = BigInt(m[2] as string);
  return packets > MAX_U64 || bytes > MAX_U64 ? null : { packets, bytes };
}

class Parser {
  readonly text: string;
  readonly backend: Backend;
  readonly problems: Problem[] = [];
  readonly tables: Table[] = [];
  readonly pending: PendingRule[] = [];
  current: OpenTable | null = null;
  sawIPv6Address = false;
  readonly tokens: TokenCache = new TokenCache();

  constructor(text: string, backend: Backend) {
    this.text = text;
    this.backend = backend;
  }

  problem(line: number, column: number, message: string): void {
    this.problems.push({ code: "PARSE", path: "", message, severity: "error", line, column });
  }

  closeTable(): void {
    const t = this.current;
    this.current = null;
    if (t === null || !t.valid) return;
    const table: Table = { name: t.name, chains: t.chains, entries: t.entries };
    recordSourceLines(table, { chains: t.chainLines, entries: t.entryLines });
    this.tables.push(table);
  }

  run(): void {
    const text = this.text;
    const length = text.length;
    let pos = 0;
    let line = 0;
    while (pos < length) {
      const nl = text.indexOf("\n", pos);
      const end = nl < 0 ? length : nl;
      line++;
      this.parseLine(pos, end, nl >= 0, line);
      pos = end + 1;
    }
    if (this.current !== null) {
      this.problem(line + 1, 1, `table ${this.current.name}: missing COMMIT`);
      this.current = null;
    }
  }

  parseLine(start: number, end: number, newline: boolean, line: number): void {
    const text = this.text;
    if (start === end) return;
    const first = text.charCodeAt(start);
    if (first === 35 /* # */) return;
    if (first === 42 /* * */) {
      if (this.current !== null) {
        this.problem(line, 1, `table ${this.current.name}: missing COMMIT before a new table`);
        this.closeTable();
      }
      const name = text.slice(start + 1, end);
      const valid = BUILTIN_CHAINS[name] !== undefined;
      if (!valid) this.problem(line, 2, `unable to initialize table '${name}'`);
      this.current = { name, valid, chains: [], entries: [], chainLines: [], entryLines: [] };
      return;
    }
    if (first === 67 /* C */ && text.startsWith("COMMIT", start)) {
      if (end - start !== 6) {
        this.problem(line, 1, "Bad argument `COMMIT': COMMIT must be alone on its line");
        return;
      }
      if (this.current === null) this.problem(line, 1, "COMMIT outside of a table");
      else this.closeTable();
      return;
    }
    const table = this.current;
    if (table === null) {
      this.problem(line, 1, "command outside of a table (missing *table line)");
      return;
    }
    if (first === 58 /* : */) this.parseDeclaration(table, start, end, line);
    else this.parseCommand(table, start, end, newline, line);
  }

  checkChainName(name: string, line: number, column: number): boolean {
    if (name.length === 0) {
      this.problem(line, column, "empty chain name");
      return false;
    }
    if (name.length > 28) {
      this.problem(line, column, `Invalid chain name \`${name}' (28 chars max)`);
      return false;
    }
    if (RESERVED_CHAIN_NAMES.has(name)) {
      this.problem(line, column, `error creating chain '${name}': File exists`);
      return false;
    }
    const c = name.charCodeAt(0);
    if (this.backend === "nft" && (c === 45 || c === 33)) {
      this.problem(line, column, `chain name not allowed to start with \`${name[0]}'`);
      return false;
    }
    return true;
  }

  parseDeclaration(table: OpenTable, start: number, end: number, line: number): void {
    const starts: number[] = [];
    const parts = tokenizeLine(this.text, start + 1, end, false, starts);
    const name = parts[0] ?? "";
    if (!this.checkChainName(name, line, 2)) return;
    const policy = parts[1];
    if (policy === undefined) {
      this.problem(line, 1, `line ${line} policy invalid`);
      return;
    }
    let counters: Counters | undefined;
    const countersText = parts[2];
    if (countersText !== undefined) {
      const parsed = parseCounters(countersText);
      if (parsed === null) {
        this.problem(line, (starts[2] ?? start) - start + 1, `invalid counters \`${countersText}'`);
        return;
      }
      counters = parsed;
    }
    if (parts.length > 3) {
      this.problem(line, (starts[3] ?? start) - start + 1, `Bad argument \`${parts[3]}'`);
      return;
    }
    const isBuiltin = (BUILTIN_CHAINS[table.name] ?? []).includes(name);
    const decl: ChainDeclaration =
      counters === undefined || !isBuiltin
        ? { name, policy: policy === "-" ? null : policy }
        : { name, policy: policy === "-" ? null : policy, counters };
    table.chains.push(decl);
    table.chainLines.push(line);
  }

  parseCommand(table: OpenTable, start: number, end: number, newline: boolean, line: number): void {
    const tokens = tokenizeLine(this.text, start, end, newline, undefined, this.tokens);
    let k = 0;
    let counters: Counters | undefined;
    const head = tokens[0];
    if (head === undefined) {
      this.problem(line, 1, "no command specified");
      return;
    }
    if (head.charCodeAt(0) === 91 /* [ */) {
      const c = parseCounters(head);
      if (c === null) {
        this.problem(line, 1, `invalid counters \`${head}'`);
        return;
      }
      counters = c;
      k = 1;
    }
    const command = tokens[k];
    if (command === undefined) {
      this.problem(line, this.tokenColumn(start, end, newline, k), "no command specified");
      return;
    }
    const chain = tokens[k + 1];
    const ruleOp = RULE_OPS[command];
    if (ruleOp !== undefined) {
      if (chain === undefined) {
        this.problem(
          line,
          this.tokenColumn(start, end, newline, k),
          `option "${command}" requires a chain name`,
        );
        return;
      }
      this.parseRule(table, tokens, k, ruleOp, chain, counters, start, end, line);
      return;
    }
    if (counters !== undefined) {
      this.problem(line, 1, "counters are only allowed before a rule");
      return;
    }
    const chainOp = CHAIN_OPS[command];
    if (chainOp !== undefined) {
      if (tokens.length > 2) {
        this.problem(line, this.tokenColumn(start, end, newline, k), `Bad argument \`${tokens[2]}'`);
        return;
      }
      if (chainOp === "-N" && (chain === undefined || !this.checkChainName(chain, line, 1))) {
        if (chain === undefined)
          this.problem(line, this.tokenColumn(start, end, newline, k), `option "-N" requires a chain name`);
        return;
      }
      table.entries.push({ kind: "chain", op: chainOp, chain: chain ?? "" });
      table.entryLines.push(line);
      return;
    }
    if (command === "-P" || command === "--policy") {
      const policy = tokens[2];
      if (chain === undefined || policy === undefined || tokens.length > 3) {
        this.problem(line, this.tokenColumn(start, end, newline, k), "-P needs a chain and a policy");
        return;
      }
      table.entries.push({ kind: "policy", op: "-P", chain, policy });
      table.entryLines.push(line);
      return;
    }
    this.problem(
      line,
      this.tokenColumn(start, end, newline, k),
      `unknown command \`${command}' in a restore file`,
    );
  }

  /** The 1-based column of token `k` of a line (computed only for error messages). */
  tokenColumn(start: number, end: number, newline: boolean, k: number): number {
    const starts: number[] = [];
    tokenizeLine(this.text, start, end, newline, starts);
    return (starts[k] ?? start) - start + 1;
  }

  parseRule(
    table: OpenTable,
    tokens: string[],
    k: number,
    op: Rule["op"],
    chain: string,
    prefixCounters: Counters | undefined,
    start: number,
    end: number,
    line: number,
  ): void {
    let argStart = k + 2;
    let index: number | undefined;
    const maybeIndex = tokens[argStart];
    if (op !== "-A" && maybeIndex !== undefined && /^\d+$/.test(maybeIndex)) {
      index = Number(maybeIndex);
      argStart++;
    }
    if (op === "-R" && index === undefined) {
      this.problem(line, 1, "-R needs a rule number");
      return;
    }
    let args = tokens.slice(argStart);
    if (op === "-D" && index !== undefined && args.length > 0) {
      this.problem(line, 1, "-D takes either a rule number or a rule specification");
      return;
    }
    // `-c PACKETS BYTES` inside the rule is the other spelling of the `[p:b]` prefix.
    let counters = prefixCounters;
    let countersAt = -1;
    for (let a = 0; a < args.length; a++) {
      const t = args[a];
      if (t !== "-c" && t !== "--set-counters") continue;
      const p = args[a + 1];
      const b = args[a + 2];
      const c = p !== undefined && b !== undefined ? parseCounters(`[${p}:${b}]`) : null;
      if (c === null || counters !== undefined) {
        this.problem(line, 1, "-c needs PACKETS BYTES (once)");
        return;
      }
      counters = c;
      countersAt = a;
      args = args.slice(0, a).concat(args.slice(a + 3));
      break;
    }
    let rule: Rule = { kind: "rule", op, chain, args };
    if (index !== undefined) rule = { ...rule, index };
    if (counters !== undefined) rule = { ...rule, counters };
    if (!this.sawIPv6Address) this.sawIPv6Address = hasIPv6Address(args);
    table.entries.push(rule);
    table.entryLines.push(line);
    if (!(op === "-D" && index !== undefined)) {
      this.pending.push({ rule, line, lineStart: start, lineEnd: end, argOffset: argStart, countersAt });
    }
  }

  /** Checks every rule's argv with the canonicalizer (the family is known only now). */
  checkRules(family: IPFamily): void {
    const options = { backend: this.backend } as const;
    for (const p of this.pending) {
      const result = tryCanonicalizeRule(p.rule.args, family, options);
      if (result.ok) continue;
      if (result.addressList) {
        const expanded = expandAddressLists(p.rule.args, family) ?? [];
        for (const args of expanded) {
          const one = tryCanonicalizeRule(args, family, options);
          if (!one.ok) {
            this.ruleProblem(p, one.message, one.argIndex);
            break;
          }
        }
        continue;
      }
      this.ruleProblem(p, result.message, result.argIndex);
    }
  }

  ruleProblem(p: PendingRule, message: string, argIndex: number): void {
    let column = 1;
    if (argIndex >= 0) {
      const starts: number[] = [];
      tokenizeLine(this.text, p.lineStart, p.lineEnd, true, starts);
      let token = argIndex;
      if (p.countersAt >= 0 && argIndex >= p.countersAt) token += 3;
      column = (starts[p.argOffset + token] ?? p.lineStart) - p.lineStart + 1;
    }
    this.problem(p.line, column, message);
  }
}

/** Whether argv has an `-s`/`-d` value containing `:` (the family detection of {@link parseRules}). */
function hasIPv6Address(args: readonly string[]): boolean {
  for (let a = 0; a < args.length - 1; a++) {
    const t = args[a] as string;
    if (t.length > 1 && t.charCodeAt(0) === 45) {
      if (
        t === "-s" ||
        t === "-d" ||
        t === "--source" ||
        t === "--destination" ||
        t === "--src" ||
        t === "--dst"
      ) {
        if ((args[a + 1] as string).indexOf(":") >= 0) return true;
      }
    }
  }
  return false;
}

/**
 * Parses iptables-restore input or iptables-save output into a RuleSet, collecting problems.
 *
 * @param text - The text (`#` lines are skipped).
 * @param options - Family (detected when absent) and backend.
 * @returns The rule set and every problem (with 1-based line and column).
 * @example
 * const { ruleSet, problems } = parseRules("*nat\n:KUBE-X - [0:0]\n-A KUBE-X -p tcp --dport 99999 -j RETURN\nCOMMIT\n");
 * problems[0] // { code: "PARSE", line: 3, column: 28, message: "invalid port/service `99999' specified", … }
 */
export function parseRules(text: string, options?: ParseOptions): ParseResult {
  const parser = new Parser(text, options?.backend ?? "nft");
  parser.run();
  const family: IPFamily = options?.family ?? (parser.sawIPv6Address ? "IPv6" : "IPv4");
  parser.checkRules(family);
  parser.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { ruleSet: { family, tables: parser.tables }, problems: parser.problems };
}

/**
 * {@link parseRules} that throws when there is any problem.
 *
 * @param text - The text.
 * @param options - Family and backend.
 * @returns The rule set.
 * @throws KubeIptablesError listing every problem.
 * @example
 * parseRulesOrThrow("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n").tables[0]?.entries.length // 1
 */
export function parseRulesOrThrow(text: string, options?: ParseOptions): RuleSet {
  const { ruleSet, problems } = parseRules(text, options);
  if (problems.length > 0) throw new KubeIptablesError(problems);
  return ruleSet;
}
