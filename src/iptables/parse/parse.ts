/**
 * The parser for both text forms: `iptables-restore` input (kube-proxy's form, with `-X`, `-I`,
 * `-D`, `-F`, `-N` and `[p:b]` counters) and `iptables-save` output. It tokenizes exactly as
 * iptables-restore does, keeps every rule as argv (extensions it does not model included), and
 * checks each rule with the canonicalizer, so that what iptables would refuse is a problem with
 * a line and column, never a silent skip.
 *
 * Most lines of a large payload take a fast path: plain lines are split by {@link WordReader},
 * and `-A` rules that the shape matcher recognizes as one of kube-proxy's rule shapes, with values
 * that keep the shape's save layout, skip the canonicalizer (whose result the parser would only
 * drop; the layout was derived by it). Every other line, and every rule the matcher cannot vouch
 * for (all invalid ones among them), takes the general path, so problems, their messages and their
 * columns are the canonicalizer's. {@link parseRulesReference} runs the general path
 * only; the tests hold the two to the same output.
 *
 * @module
 */

import { KubeIptablesError, type Problem } from "../../errors.js";
import type { Backend, CanonicalMatch, CanonicalTarget } from "../../ir/canonical-types.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type Counters,
  type Entry,
  type IPFamily,
  type Rule,
  type RuleSet,
  type Table,
} from "../../ir/types.js";
import { utf8Length } from "../../utf8.js";
import {
  expandAddressLists,
  INTERFACE_LIMITED_CHAINS,
  tryCanonicalizeRule,
} from "../canonical/canonicalize.js";
import { PASS_THROUGH_TARGETS, TARGET_EXTENSIONS, VERDICTS } from "../canonical/targets.js";
import {
  type IndexedSaveText,
  NO_TARGET,
  namedTargetPlace,
  type SaveTextChain,
  type SaveTextChains,
} from "../output/save-text.js";
import { IPV4, IPV6, matchFamilies } from "../shape/match.js";
import { recordSourceLines } from "../state.js";
import { deferredTable } from "./deferred.js";
import { EntryLog } from "./entry-log.js";
import {
  type KnownChains,
  natDropMessage,
  type ProblemToken,
  type RuleTarget,
  TableStructure,
} from "./table-structure.js";
import { TokenCache, tokenizeLine, WordReader } from "./tokenize.js";

/**
 * Options of {@link parseRules}.
 *
 * @example
 * parseRules(ip6tablesSaveOutput, { family: "IPv6", backend: "legacy" });
 */
export interface ParseOptions {
  /** The family; by default IPv6 when any `-s`/`-d` address contains `:`, else IPv4. */
  readonly family?: IPFamily;
  /** Backend to imitate where nft and legacy accept different input (spec §12); default `"nft"`. */
  readonly backend?: Backend;
  /**
   * Read the text as an `iptables-restore --noflush` payload (kube-proxy's form): a rule may
   * append to, or jump to, a chain the kernel already holds. By default every such chain must
   * be declared above the rule in its table, as iptables-restore requires without `--noflush`
   * (and as `iptables-save` output always is).
   */
  readonly noflush?: boolean;
  /**
   * Build the rules of kube-proxy's shapes only when they are asked for (see `deferred.ts`):
   * every line is checked all the same, and the result is the same; a trace or a diff that reads
   * a few chains of a node's dump then builds only theirs.
   *
   * @internal
   */
  readonly deferred?: boolean;
  /**
   * The text the parsed text is expected to be, as `generateIndexedSaveText` printed it for
   * this family and backend (a diff of a node's dump against its cluster). A run of `-A` lines
   * byte for byte the same chain's rules there is lines our writers print, which
   * iptables-restore accepts: they are recorded as the fast path records them without being
   * tokenized or matched to a shape. Everything else is read as without it, and the result is
   * the same. Only with {@link deferred}; ignored when the family or backend differs.
   *
   * @internal
   */
  readonly expected?: ExpectedText;
}

/**
 * What {@link ParseOptions.expected} holds: a generated save text, its index, and what it was
 * printed for.
 *
 * @example
 * const expected: ExpectedText = { saved: generateIndexedSaveText(model), family: "IPv4", backend: "nft" };
 */
export interface ExpectedText {
  /** The text and where each chain's rules are in it. */
  readonly saved: IndexedSaveText;
  /** The family it was printed for. */
  readonly family: IPFamily;
  /** The backend it was printed for. */
  readonly backend: Backend;
}

/** One table of an {@link ExpectedText}, as the parser walks it. */
interface ExpectedTable {
  /** Its chains, in the text's order. */
  readonly chains: SaveTextChains;
  /** The chain the next run most likely is (runs follow the text's order). */
  next: number;
  /** The chain the next declaration most likely is (declarations follow the text's order too). */
  nextDeclared: number;
  /** Per chain of the text (by its index): its id in the table's structure once declared, else -1. */
  readonly ids: Int32Array;
  /** Per chain of the text: 1 once a run of its lines was read as expected lines. */
  readonly matched: Uint8Array;
  /** Per chain of the text: its policy as last declared (`null` for `-`, or not declared). */
  readonly policies: (string | null)[];
  /**
   * Per target the writer recorded by name ({@link SaveTextChains.targetNames}): its code in the
   * table's structure, once looked up ({@link UNKNOWN_CODE} before).
   */
  readonly nameCodes: Int32Array;
}

/** A target name's structure code not looked up yet (no code is this large). */
const UNKNOWN_CODE = 0x7fffffff;

/**
 * The place of a declared chain in the expected text (-1: it has none), looked for where the
 * last declaration left off first.
 */
function declaredIndex(expected: ExpectedTable, name: string): number {
  const chains = expected.chains;
  let k = expected.nextDeclared;
  if (chains.names[k] !== name) k = chains.get(name)?.index ?? -1;
  if (k >= 0) expected.nextDeclared = k + 1;
  return k;
}

/** Notes the structure's id of a declared chain `k` of the expected text (its first declaration's) and its policy (the last one's). */
function noteDeclared(expected: ExpectedTable, k: number, id: number, policy: string | null): void {
  if ((expected.ids[k] as number) < 0) expected.ids[k] = id;
  expected.policies[k] = policy;
}

/** The expected text's chains of a table, as its structure looks them up. */
function knownChainsOf(chains: SaveTextChains): KnownChains {
  return { size: chains.size, indexOf: (name) => chains.get(name)?.index ?? -1 };
}

function expectedTable(chains: SaveTextChains | undefined): ExpectedTable | null {
  if (chains === undefined) return null;
  const ids = new Int32Array(chains.size).fill(-1);
  const policies = new Array<string | null>(chains.size).fill(null);
  const nameCodes = new Int32Array(chains.targetNames.length).fill(UNKNOWN_CODE);
  return { chains, next: 0, nextDeclared: 0, ids, matched: new Uint8Array(chains.size), policies, nameCodes };
}

/**
 * The result of {@link parseRules}.
 *
 * @example
 * const { ruleSet, problems } = parseRules("*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n");
 * ruleSet.tables[0]?.name // "nat"
 * problems                // []
 */
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
/**
 * iptables-restore reads a line with `fgets` into a 10240-byte buffer (iptables-restore.c), so a
 * line of more than 10239 bytes (its newline aside) is cut, and the rest read as another line.
 */
const MAX_LINE_BYTES = 10239;
/** xshared.c add_param_to_argv: one argument fills at most a 1024-byte buffer with its NUL. */
const MAX_ARGUMENT_BYTES = 1023;
/** xshared.c add_argv: argv holds at most 255 entries; the program name, `-t` and the table take 3. */
const MAX_ARGUMENTS = 251;
const JUMP_FLAGS = new Set(["-j", "--jump", "-g", "--goto"]);

/** A table block being read. */
interface OpenTable {
  readonly name: string;
  readonly valid: boolean;
  readonly chains: ChainDeclaration[];
  /** The entries (when deferring, the fast path's lines and runs are built later). */
  readonly log: EntryLog;
  readonly chainLines: number[];
  /** What the structure check needs of its declarations and entries, recorded as they are read. */
  readonly structure: TableStructure;
  /** The same table of the expected text, if any (see {@link ParseOptions.expected}). */
  readonly expected: ExpectedTable | null;
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
  /** Its table's structure, and its entry there (its target is known once it is checked). */
  readonly structure: TableStructure;
  readonly entry: number;
}

function parseCounters(text: string): Counters | null {
  if (text === "[0:0]") return ZERO;
  const m = COUNTERS.exec(text);
  if (m === null) return null;
  const packets = BigInt(m[1] as string);
  const bytes = BigInt(m[2] as string);
  return packets > MAX_U64 || bytes > MAX_U64 ? null : { packets, bytes };
}

/**
 * A rule line's `[packets:bytes]` prefix as iptables-restore reads it (`tokenize_rule_counters`):
 * the command starts after the first `]` of the line; the counters are `strtok(s + 1, ":")` and
 * `strtok(NULL, "]")` over the rest of the line, so a missing part is an error ("need :" or
 * "need ]"), and the NUL strtok writes at a `:` or `]` past that first `]` ends the line there.
 * Returns the first `]` and where the line now ends, or the error.
 */
function countersPrefix(
  text: string,
  start: number,
  end: number,
  newline: boolean,
): { close: number; end: number } | string {
  // fgets keeps the newline: strtok sees it as one more character.
  const stop = newline ? end + 1 : end;
  const close = text.indexOf("]", start);
  if (close < 0 || close >= end) return "need ]";
  let i = start + 1;
  while (i < end && text.charCodeAt(i) === 58 /* : */) i++;
  if (i >= stop) return "need :";
  const colon = text.indexOf(":", i);
  if (colon < 0 || colon >= end) return "need ]";
  let j = colon + 1;
  while (j < end && text.charCodeAt(j) === 93 /* ] */) j++;
  if (j >= stop) return "need ]";
  let bytesEnd = text.indexOf("]", j);
  if (bytesEnd < 0 || bytesEnd >= end) bytesEnd = end;
  let cut = end;
  if (colon > close) cut = colon;
  else if (bytesEnd > close) cut = bytesEnd;
  return { close, end: cut };
}

class Parser {
  readonly text: string;
  readonly backend: Backend;
  /** Whether plain lines take the fast paths (off only in {@link parseRulesReference}). */
  readonly fast: boolean;
  /** The families (IPV4, IPV6 bits) in which the fast path may vouch for a rule. */
  readonly fastFamilies: number;
  readonly problems: Problem[] = [];
  readonly tables: Table[] = [];
  readonly pending: PendingRule[] = [];
  current: OpenTable | null = null;
  sawIPv6Address = false;
  /** How many rules the fast path took as valid in IPv4 only (all wrong if the family turns out IPv6). */
  quickIPv4Rules = 0;
  /** How many it took as valid in IPv6 only (all wrong if the family turns out IPv4). */
  quickIPv6Rules = 0;
  readonly tokens: TokenCache = new TokenCache();
  readonly reader: WordReader;
  /** Source lines (of declarations, of records) and structure of each table in {@link tables}. */
  readonly tableLines: {
    readonly chains: number[];
    readonly records: Int32Array;
    readonly structure: TableStructure;
  }[] = [];
  /** Where each line starts, built on the first problem that needs a column. */
  lineStarts: number[] | null = null;

  /** Whether rules of the fast path are left to be built on demand ({@link ParseOptions.deferred}). */
  readonly deferred: boolean;

  /** The expected text (see {@link ParseOptions.expected}), when it can be used. */
  readonly expected: ExpectedText | null;
  /** Where the text after the last run read by {@link expectedRun} or {@link expectedDeclarations} starts. */
  afterRun = 0;
  /** The target codes of {@link expectedRun}'s lines (grown as needed). */
  runCodes = new Int32Array(1024);
  /** How many lines {@link expectedRun} and {@link expectedDeclarations} read. */
  expectedLines = 0;

  constructor(
    text: string,
    backend: Backend,
    fast: boolean,
    fastFamilies: number,
    deferred: boolean,
    expected: ExpectedText | null = null,
  ) {
    this.text = text;
    this.backend = backend;
    this.fast = fast;
    this.fastFamilies = fastFamilies;
    this.deferred = deferred && fast;
    this.expected = this.deferred && expected?.backend === backend ? expected : null;
    // Deferred rules keep no word: sharing equal words (a cache lookup per word) would buy nothing.
    this.reader = new WordReader(text, !this.deferred);
  }

  problem(line: number, column: number, message: string): void {
    this.problems.push({ code: "PARSE", path: "", message, severity: "error", line, column });
  }

  closeTable(): void {
    const t = this.current;
    this.current = null;
    if (t === null || !t.valid) return;
    const { log, chainLines } = t;
    const built = this.deferred ? null : log.allBuilt();
    const text = this.text;
    const table: Table =
      built !== null
        ? { name: t.name, chains: t.chains, entries: built }
        : deferredTable(text, {
            name: t.name,
            chains: t.chains,
            log,
            structure: t.structure,
            matches: t.expected,
          });
    recordSourceLines(
      table,
      built !== null
        ? { chains: chainLines, entries: [...log.lines()] }
        : {
            chains: chainLines,
            // (The runs are cut into lines only if a line is asked for.)
            get entries(): readonly number[] {
              return log.entries(text).lines;
            },
          },
    );
    this.tables.push(table);
    this.tableLines.push({ chains: chainLines, records: log.lines(), structure: t.structure });
  }

  run(): void {
    const text = this.text;
    const length = text.length;
    let pos = 0;
    let line = 0;
    // iptables-restore handles each line as a C string: a NUL ends what it reads of the line
    // (its newline included). Searched for once per text, as most texts have none.
    let nul = -1;
    /** Where the previous line starts. */
    let previous = -1;
    const expecting = this.expected !== null;
    while (pos < length) {
      if (expecting && text.charCodeAt(pos) === 58 /* : */) {
        const lines = this.expectedDeclarations(pos, line + 1);
        if (lines > 0) {
          line += lines;
          previous = -1;
          pos = this.afterRun;
          continue;
        }
      }
      if (
        expecting &&
        text.charCodeAt(pos) === 45 /* - */ &&
        text.charCodeAt(pos + 1) === 65 /* A */ &&
        text.charCodeAt(pos + 2) === 32
      ) {
        const lines = this.expectedRun(pos, previous, line + 1);
        if (lines > 0) {
          line += lines;
          // (The run's last line starts after its second to last newline: not needed again.)
          previous = -1;
          pos = this.afterRun;
          continue;
        }
      }
      previous = pos;
      const nl = text.indexOf("\n", pos);
      const end = nl < 0 ? length : nl;
      line++;
      if (nul < pos) nul = text.indexOf("\0", pos) >>> 0; // -1 becomes 2^32: no NUL
      if (nul < end) {
        // fgets reads the bytes after the NUL all the same: the whole line must fit its buffer.
        if (!this.tooLong(pos, end, line)) this.parseLine(pos, nul, false, line);
      } else this.parseLine(pos, end, nl >= 0, line);
      pos = end + 1;
    }
    if (this.current !== null) {
      this.problem(line + 1, 1, `table ${this.current.name}: missing COMMIT`);
      this.current = null;
    }
  }

  /**
   * Reads the `-A` lines at `start` as runs of the expected text when they are, byte for byte,
   * the same chain's rules there in the same table (tried only where a run of the chain begins:
   * `previous`, the line before, is not one of its rules), and goes on with the chains the text
   * puts next for as long as the lines are theirs. Returns how many lines it read (0: none, the
   * line is read as usual), and sets {@link afterRun}.
   *
   * Such lines are printed by our writers and accepted by iptables-restore: they are recorded
   * as the fast path records its rules (entries built on demand), with the targets the writer
   * recorded for the structure check, and never tokenized. A run that is not plain (counters,
   * `-g`, a NUL, a tab: see plain-lines.ts) or holds a long line is read as usual.
   */
  expectedRun(start: number, previous: number, line: number): number {
    const table = this.current;
    const expected = table?.expected;
    if (table === null || expected === undefined || expected === null) return 0;
    const text = this.text;
    let nameEnd = start + 3;
    for (let c = text.charCodeAt(nameEnd); nameEnd < text.length && c !== 32 && c !== 10; )
      c = text.charCodeAt(++nameEnd);
    const nameLength = nameEnd - start - 3;
    if (previous >= 0 && sameAppendChain(text, previous, start + 3, nameLength)) return 0;
    // The chain the text's order puts next (past chains without rules), else found by name.
    const all = expected.chains.chains;
    let k = nextWithRules(all, expected.next);
    const saved = (this.expected as ExpectedText).saved.text;
    let chain = all[k];
    let run = chain === undefined ? null : runAt(text, start, saved, chain);
    if (run === null) {
      chain = expected.chains.get(text.slice(start + 3, nameEnd));
      if (chain === undefined || chain.count === 0) return 0;
      run = runAt(text, start, saved, chain);
      if (run === null) return 0;
      k = chain.index;
    }
    if (!this.takeRun(table, expected, k, run, start, line)) return 0;
    // The chains after it, while the text goes on with their lines (their lines follow on in the
    // expected text, so their own runs start where the last one ended).
    let lines = (chain as SaveTextChain).count;
    let at = this.afterRun;
    for (;;) {
      const next = nextWithRules(all, k + 1);
      const following = all[next];
      if (following === undefined) break;
      const more = runAt(text, at, saved, following);
      if (more === null || !this.takeRun(table, expected, next, more, at, line + lines)) break;
      k = next;
      lines += following.count;
      at = this.afterRun;
    }
    this.afterRun = at;
    return lines;
  }

  /**
   * Records `run`, the lines at `start` equal to those of the expected text's chain `k`, as that
   * chain's rules (see {@link expectedRun}); false, recording nothing, when they must be read as
   * usual. Sets {@link afterRun}.
   */
  takeRun(
    table: OpenTable,
    expected: ExpectedTable,
    k: number,
    run: string,
    start: number,
    line: number,
  ): boolean {
    const chains = expected.chains;
    const chain = chains.chains[k] as SaveTextChain;
    // The writer of the text recorded each line's target, and whether its lines are plain: a run
    // the usual reading might see otherwise (see plain-lines.ts) is left to it.
    const targets = chain.targets;
    if (targets === undefined || chain.plain !== true) return false;
    // (A line that long may break iptables-restore's limits on arguments: read as usual.)
    if (run.length > MAX_ARGUMENT_BYTES / 3)
      for (let at = 0, n = 0; n < chain.count; n++) {
        let end = run.indexOf("\n", at);
        if (end < 0) end = run.length;
        if (end - at > MAX_ARGUMENT_BYTES / 3) return false;
        at = end + 1;
      }
    expected.next = k + 1;
    expected.matched[k] = 1;
    // As the fast path does for a rule valid in IPv6 only (an IPv4 text has no IPv6 address).
    if (this.expected?.family === "IPv6") {
      for (let at = 0, n = 0; n < chain.count && !this.sawIPv6Address; n++) {
        let end = run.indexOf("\n", at);
        if (end < 0) end = run.length;
        const words = tokenizeLine(run, at + 3, end, false);
        this.sawIPv6Address = hasIPv6Address(words, 1, words.length);
        at = end + 1;
      }
    }
    const structure = table.structure;
    const ids = expected.ids;
    if (this.runCodes.length < chain.count) this.runCodes = new Int32Array(chain.count * 2);
    const codes = this.runCodes;
    const serialIndex = chains.serialIndex;
    const nameCodes = expected.nameCodes;
    for (let n = 0; n < chain.count; n++) {
      const target = targets[n] as number;
      let code: number;
      if (target >= 0) {
        // A chain of the text, taken by its id when the table declared it (no name looked up).
        const index = serialIndex[target] as number;
        const id = index < 0 ? -1 : (ids[index] as number);
        const name = chains.serialNames[target] as string;
        const isChain = isChainName(name);
        code = id >= 0 && isChain ? id : structure.targetCodeOf(name, isChain);
      } else if (target === NO_TARGET) code = structure.targetCodeOf(null, false);
      else {
        const place = namedTargetPlace(target);
        code = nameCodes[place] as number;
        if (code === UNKNOWN_CODE) {
          const name = chains.targetNames[place] as string;
          code = structure.targetCodeOf(name, isChainName(name));
          nameCodes[place] = code;
        }
      }
      codes[n] = code;
    }
    const declared = ids[k] as number;
    const name = chains.names[k] as string;
    if (declared >= 0) structure.runOfDeclared(declared, name, codes.subarray(0, chain.count));
    else structure.run(name, codes.subarray(0, chain.count));
    table.log.addRun(start + 3, start + run.length, line, chain.count);
    this.afterRun = start + run.length + 1;
    this.expectedLines += chain.count;
    return true;
  }

  /**
   * Reads the `:CHAIN - [0:0]` lines at `start` that are, byte for byte, the expected text's
   * declarations of its user chains, from the first one on (the built-in chains' lines, whose
   * counters differ on a node, are read as usual before). Returns how many lines it read, as
   * {@link parseDeclaration} would have (0: none), and sets {@link afterRun}. A line whose name
   * the tokenizer might read otherwise than as a plain word stops it there.
   */
  expectedDeclarations(start: number, line: number): number {
    const table = this.current;
    const expected = table?.expected;
    if (table === null || expected === undefined || expected === null) return 0;
    const block = expected.chains.declarations;
    if (block === null || expected.nextDeclared !== block.first) return 0;
    const text = this.text;
    const saved = (this.expected as ExpectedText).saved.text;
    const equal = commonLength(text, start, saved, block.start, block.end - block.start);
    const end = text.lastIndexOf("\n", start + equal - 1);
    if (end < start) return 0;
    let n = 0;
    let at = start;
    for (let k = block.first; at <= end; k++, n++) {
      const nl = text.indexOf("\n", at);
      if (nl - at > MAX_LINE_BYTES / 3) break;
      // Each line is `:NAME - [0:0]` (as the writer prints them).
      const name = text.slice(at + 1, nl - 8);
      if (!PLAIN_CHAIN_NAME.test(name)) break;
      if (this.checkChainName(name, line + n, 2)) {
        table.chains.push({ name, policy: null });
        table.chainLines.push(line + n);
        noteDeclared(expected, k, table.structure.declare(name, k), null);
        expected.nextDeclared = k + 1;
      }
      at = nl + 1;
    }
    this.afterRun = at;
    this.expectedLines += n;
    return n;
  }

  /** Reports a line longer than iptables-restore's line buffer holds (see {@link MAX_LINE_BYTES}). */
  tooLong(start: number, end: number, line: number): boolean {
    // A line can hold 10239 bytes only if it has at least 10239 / 3 code units (UTF-8 needs at
    // most 3 bytes per UTF-16 code unit): only longer lines are measured.
    if (end - start <= MAX_LINE_BYTES / 3 || utf8Length(this.text, start, end) <= MAX_LINE_BYTES)
      return false;
    this.problem(
      line,
      1,
      `line is longer than iptables-restore reads (${MAX_LINE_BYTES} bytes): it would be cut in two`,
    );
    return true;
  }

  parseLine(start: number, end: number, newline: boolean, line: number): void {
    const text = this.text;
    if (start === end) return;
    if (this.tooLong(start, end, line)) return;
    const first = text.charCodeAt(start);
    if (first === 35 /* # */) return;
    if (first === 42 /* * */) {
      if (this.current !== null) {
        this.problem(line, 1, `table ${this.current.name}: missing COMMIT before a new table`);
        this.closeTable();
      }
      // iptables-restore takes the first blank-separated word (strtok on " \t"): blanks before
      // it and anything after it are ignored, so a pasted `*filter ` still names filter.
      let from = start + 1;
      while (from < end && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
      let to = from;
      while (to < end && text.charCodeAt(to) !== 32 && text.charCodeAt(to) !== 9) to++;
      const name = text.slice(from, to);
      const valid = BUILTIN_CHAINS[name] !== undefined;
      if (name === "") this.problem(line, 2, `line ${line} table name invalid`);
      else if (!valid) this.problem(line, from - start + 1, `unable to initialize table '${name}'`);
      const expected = valid ? expectedTable(this.expected?.saved.tables.get(name)) : null;
      this.current = {
        name,
        valid,
        chains: [],
        log: new EntryLog(),
        chainLines: [],
        structure: new TableStructure(name, expected === null ? null : knownChainsOf(expected.chains)),
        expected,
      };
      return;
    }
    if (first === 67 /* C */ && text.startsWith("COMMIT", start)) {
      if (end - start !== 6) {
        this.problem(line, 1, "Bad argument `COMMIT': COMMIT must be alone on its line");
        return;
      }
      if (this.current === null) this.problem(line, 1, "COMMIT outside of a table");
      else if (!newline && this.backend === "legacy") {
        // Legacy iptables-restore compares the line with "COMMIT\n", newline and all.
        this.problem(line, 1, "Bad argument `COMMIT': legacy iptables-restore needs a newline after COMMIT");
        this.current = null;
      } else this.closeTable();
      return;
    }
    const table = this.current;
    if (table === null) {
      this.problem(line, 1, "command outside of a table (missing *table line)");
      return;
    }
    if (first === 58 /* : */) this.parseDeclaration(table, start, end, line);
    else if (!this.parseAppend(table, start, end, line)) this.parseCommand(table, start, end, newline, line);
  }

  /**
   * The fast path for `-A CHAIN ARGS` lines whose argv is one of kube-proxy's rule shapes with
   * values that keep its layout ({@link matchFamilies}): no canonicalization, no pending check. Returns false (having recorded nothing) for any other
   * line, which then takes the general path and gets the full check.
   */
  parseAppend(table: OpenTable, start: number, end: number, line: number): boolean {
    const text = this.text;
    if (
      !this.fast ||
      text.charCodeAt(start) !== 45 /* - */ ||
      text.charCodeAt(start + 1) !== 65 /* A */ ||
      text.charCodeAt(start + 2) !== 32
    )
      return false;
    const reader = this.reader;
    const count = reader.read(start + 3, end);
    if (count < 1) return false;
    const words = reader.words;
    // Only a long line can hold too many or too long arguments (see checkArgumentLimits).
    if (end - start > MAX_ARGUMENT_BYTES / 3) return false;
    // `-c P B` anywhere in argv (even as another option's value) is the counters: general path.
    for (let k = 1; k < count; k++) {
      const w = words[k] as string;
      if (w.length < 15 && (w === "-c" || w === "--set-counters")) return false;
    }
    const chain = words[0] as string;
    // `-i` in OUTPUT, `-o` in INPUT … is refused by the chain's name (the shapes do not know
    // it): the general path judges those (a comment's value `-i` only sends it there too).
    if (chain.length >= 5 && INTERFACE_LIMITED_CHAINS.has(chain) && hasInterfaceOption(words, count))
      return false;
    const verdict = matchFamilies(words, 1, count, this.fastFamilies, this.backend);
    if (verdict === 0) return false;
    // A rule valid in one family only counts against the other. Family detection needs only the
    // IPv6 ones: an address valid in IPv4 holds no `:`.
    if (verdict === IPV4) this.quickIPv4Rules++;
    else if (verdict === IPV6) {
      this.quickIPv6Rules++;
      if (!this.sawIPv6Address) this.sawIPv6Address = hasIPv6Address(words, 1, count);
    }
    if (this.deferred) table.log.addLine(start + 3, end, line);
    else table.log.addBuilt({ kind: "rule", op: "-A", chain, args: words.slice(1, count) }, line);
    // One of the rule shapes (its values keep the layout): its target is after the last `-j`.
    let target: string | null = null;
    for (let a = count - 2; a >= 1; a--) {
      if (words[a] === "-j") {
        target = words[a + 1] as string;
        break;
      }
    }
    table.structure.ruleTo(chain, target, target !== null && isChainName(target));
    return true;
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
    let count = this.fast ? this.reader.read(start + 1, end) : -1;
    let parts: readonly string[] = this.reader.words;
    if (count < 0) {
      parts = tokenizeLine(this.text, start + 1, end, false);
      count = parts.length;
    }
    const name = count > 0 ? (parts[0] as string) : "";
    if (!this.checkChainName(name, line, 2)) return;
    if (count < 2) {
      this.problem(line, 1, `line ${line} policy invalid`);
      return;
    }
    const policy = parts[1] as string;
    // iptables-restore without --counters never reads a chain line's counters, nor anything
    // after them: `[x:y]`, `[0:0]\r` and extra fields all load. Valid counters are kept.
    const counters = count > 2 ? (parseCounters(parts[2] as string) ?? undefined) : undefined;
    const isBuiltin = (BUILTIN_CHAINS[table.name] ?? []).includes(name);
    const decl: ChainDeclaration =
      counters === undefined || !isBuiltin
        ? { name, policy: policy === "-" ? null : policy }
        : { name, policy: policy === "-" ? null : policy, counters };
    table.chains.push(decl);
    table.chainLines.push(line);
    const k = table.expected === null ? -1 : declaredIndex(table.expected, name);
    const id = table.structure.declare(name, k);
    if (k >= 0) noteDeclared(table.expected as ExpectedTable, k, id, decl.policy);
    if (
      this.backend === "nft" &&
      !isBuiltin &&
      table.structure.declarationOf(id) !== table.chains.length - 1
    ) {
      // iptables-nft declares a user chain it already has by flushing it (legacy refuses it).
      pushBuilt(table, { kind: "chain", op: "-F", chain: name }, line);
      table.structure.command("-F", name);
    }
  }

  /**
   * iptables-restore's own limits on a command line: at most {@link MAX_ARGUMENTS} arguments
   * (a `[p:b]` prefix is not one) of at most {@link MAX_ARGUMENT_BYTES} bytes each. A line of
   * fewer than 342 code units can break neither, so only longer ones are looked at.
   */
  checkArgumentLimits(
    tokens: readonly string[],
    start: number,
    end: number,
    newline: boolean,
    line: number,
  ): boolean {
    if (end - start <= MAX_ARGUMENT_BYTES / 3) return true;
    const prefix = tokens[0]?.charCodeAt(0) === 91 /* [ */ ? 1 : 0;
    if (tokens.length - prefix > MAX_ARGUMENTS) {
      this.problem(
        line,
        this.tokenColumn(start, end, newline, prefix + MAX_ARGUMENTS),
        `Parser cannot handle more arguments (iptables-restore reads at most ${MAX_ARGUMENTS} on a line)`,
      );
      return false;
    }
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k] as string;
      if (t.length > MAX_ARGUMENT_BYTES / 3 && utf8Length(t) > MAX_ARGUMENT_BYTES) {
        this.problem(
          line,
          this.tokenColumn(start, end, newline, k),
          `Parameter too long! (iptables-restore reads arguments of at most ${MAX_ARGUMENT_BYTES} bytes)`,
        );
        return false;
      }
    }
    return true;
  }

  parseCommand(table: OpenTable, start: number, end: number, newline: boolean, line: number): void {
    let tokens: string[];
    let k = 0;
    let counters: Counters | undefined;
    if (this.text.charCodeAt(start) === 91 /* [ */) {
      const prefix = countersPrefix(this.text, start, end, newline);
      if (typeof prefix === "string") {
        this.problem(line, 1, `Bad line ${line}: ${prefix}`);
        return;
      }
      // The command starts after the first `]`; the prefix's strtok may have cut the line.
      if (prefix.end < end) {
        end = prefix.end;
        newline = false;
      }
      const starts: number[] = [];
      tokens = tokenizeLine(this.text, start, end, newline, starts, this.tokens);
      while (k < tokens.length && (starts[k] as number) <= prefix.close) k++;
      const last = k - 1;
      const glued = (starts[last] as number) + (tokens[last] as string).length - (prefix.close + 1);
      if (last >= 0 && glued > 0 && this.text.charCodeAt(starts[last] as number) !== 34 /* " */) {
        // Text glued after the `]` is an argument of its own: the command, if it is one.
        const rest = (tokens[last] as string).slice(-glued);
        if (rest.charCodeAt(0) !== 45 /* - */) {
          this.problem(line, prefix.close - start + 2, `Bad argument \`${rest}'`);
          return;
        }
        tokens[last] = rest;
        k = last;
      } else if (k === 1) counters = parseCounters(tokens[0] as string) ?? undefined;
    } else tokens = tokenizeLine(this.text, start, end, newline, undefined, this.tokens);
    if (!this.checkArgumentLimits(tokens, start, end, newline, line)) return;
    const head = tokens[0];
    if (head === undefined) {
      this.problem(line, 1, "no command specified");
      return;
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
    const chainOp = CHAIN_OPS[command];
    if (chainOp !== undefined) {
      if (tokens.length > k + 2) {
        this.problem(line, this.tokenColumn(start, end, newline, k + 2), `Bad argument \`${tokens[k + 2]}'`);
        return;
      }
      if (chainOp === "-N" && (chain === undefined || !this.checkChainName(chain, line, 1))) {
        if (chain === undefined)
          this.problem(line, this.tokenColumn(start, end, newline, k), `option "-N" requires a chain name`);
        return;
      }
      pushBuilt(table, { kind: "chain", op: chainOp, chain: chain ?? "" }, line);
      table.structure.command(chainOp, chain ?? "");
      return;
    }
    if (command === "-P" || command === "--policy") {
      const policy = tokens[k + 2];
      if (chain === undefined || policy === undefined || tokens.length > k + 3) {
        this.problem(line, this.tokenColumn(start, end, newline, k), "-P needs a chain and a policy");
        return;
      }
      // iptables' command parser refuses it; a `:CHAIN DROP` line in nat is taken.
      if (policy === "DROP" && table.structure.table === "nat") {
        this.problem(line, this.tokenColumn(start, end, newline, k + 2), natDropMessage("nat"));
        return;
      }
      pushBuilt(table, { kind: "policy", op: "-P", chain, policy }, line);
      table.structure.command(null, chain);
      return;
    }
    // A line of dots is where a pasted listing was cut short (iptables-restore refuses it too).
    const elided = /^(\.{3,}|…)$/.test(command) ? ": a line left out of a pasted listing; remove it" : "";
    this.problem(
      line,
      this.tokenColumn(start, end, newline, k),
      `unknown command \`${command}' in a restore file${elided}`,
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
    if (!this.sawIPv6Address) this.sawIPv6Address = hasIPv6Address(args, 0, args.length);
    pushBuilt(table, rule, line);
    // Until the canonicalizer reads it (below, for all but a deletion by number), its target
    // is taken as the fast path's is.
    const entry = table.structure.rule(chain, op === "-A", lastJump(args));
    if (!(op === "-D" && index !== undefined)) {
      this.pending.push({
        rule,
        line,
        lineStart: start,
        lineEnd: end,
        argOffset: argStart,
        countersAt,
        structure: table.structure,
        entry,
      });
    }
  }

  /** Checks every rule's argv with the canonicalizer (the family is known only now). */
  checkRules(family: IPFamily): void {
    for (const p of this.pending) {
      const options = { backend: this.backend, chain: p.rule.chain };
      const result = tryCanonicalizeRule(p.rule.args, family, options);
      if (result.ok) {
        p.structure.setTarget(p.entry, structureTarget(result.rule.target));
        for (const m of result.rule.matches) {
          const label = restrictedMatch(m);
          if (label !== null) p.structure.restrictMatch(p.entry, label);
        }
        continue;
      }
      if (result.addressList) {
        const expanded = expandAddressLists(p.rule.args, family) ?? [];
        for (const args of expanded) {
          const one = tryCanonicalizeRule(args, family, options);
          if (!one.ok) {
            this.ruleProblem(p, one.message, one.argIndex);
            break;
          }
          // Every rule of the expansion has the same target.
          p.structure.setTarget(p.entry, structureTarget(one.rule.target));
        }
        continue;
      }
      this.ruleProblem(p, result.message, result.argIndex);
    }
  }

  /** Runs the block-wide checks of {@link TableStructure} on every table read. */
  checkStructure(noflush: boolean): void {
    for (let t = 0; t < this.tables.length; t++) {
      const table = this.tables[t] as Table;
      const lines = this.tableLines[t] as Parser["tableLines"][number];
      const found = lines.structure.check({
        chains: table.chains,
        chainLines: lines.chains,
        recordLines: lines.records,
        backend: this.backend,
        noflush,
      });
      for (const f of found) this.problem(f.line, this.columnOf(f.line, f.token), f.message);
    }
  }

  /** The 1-based column of a structure problem's token (only computed for a problem). */
  columnOf(line: number, token: ProblemToken): number {
    if (this.lineStarts === null) {
      const starts = [0];
      const text = this.text;
      for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
      this.lineStarts = starts;
    }
    const start = this.lineStarts[line - 1] ?? 0;
    const next = this.lineStarts[line];
    const end = next === undefined ? this.text.length : next - 1;
    const starts: number[] = [];
    const declaration = token.kind === "declaration";
    const tokens = tokenizeLine(this.text, declaration ? start + 1 : start, end, next !== undefined, starts);
    let k = -1;
    if (token.kind === "declaration") k = token.index;
    else if (token.kind === "chain") {
      k = tokens[0]?.charCodeAt(0) === 91 /* [ */ ? 2 : 1;
    } else if (token.kind === "match") {
      for (let a = 0; a + 1 < tokens.length; a++) {
        if ((tokens[a] === "-m" || tokens[a] === "--match") && tokens[a + 1] === token.name) {
          k = a;
          break;
        }
      }
    } else {
      for (let a = tokens.length - 2; a >= 0; a--) {
        if (JUMP_FLAGS.has(tokens[a] as string) && tokens[a + 1] === token.name) {
          k = a + 1;
          break;
        }
      }
    }
    const at = starts[k];
    return at === undefined ? 1 : at - start + 1;
  }

  ruleProblem(p: PendingRule, message: string, argIndex: number): void {
    p.structure.setTarget(p.entry, undefined);
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

/**
 * Whether the line at `previous` is an `-A` rule of the chain whose name is `text[name, name +
 * length)` (then the line after it continues that chain's run).
 */
function sameAppendChain(text: string, previous: number, name: number, length: number): boolean {
  if (!text.startsWith("-A ", previous)) return false;
  const c = text.charCodeAt(previous + 3 + length);
  if (c !== 32 && c !== 10 && previous + 3 + length < text.length) return false;
  for (let i = 0; i < length; i++)
    if (text.charCodeAt(previous + 3 + i) !== text.charCodeAt(name + i)) return false;
  return true;
}

/** The first of `chains` from `k` on that has rules (`chains.length` when none has). */
function nextWithRules(chains: readonly SaveTextChain[], k: number): number {
  while (k < chains.length && (chains[k] as SaveTextChain).count === 0) k++;
  return k;
}

/**
 * The lines of `text` at `start` when they are, byte for byte, the rules of `chain` in the
 * expected text `saved` (and end there, at a newline or at the end of the text); else null.
 */
function runAt(text: string, start: number, saved: string, chain: SaveTextChain): string | null {
  if (chain.count === 0) return null;
  const after = start + chain.end - chain.start;
  if (after > text.length || (after < text.length && text.charCodeAt(after) !== 10)) return null;
  const run = text.slice(start, after);
  return run === saved.slice(chain.start, chain.end) ? run : null;
}

/**
 * A chain name the tokenizer reads as one plain word: printable ASCII without a blank, a quote
 * or a backslash.
 */
const PLAIN_CHAIN_NAME = /^[!#-&(-[\]-~]+$/;

/**
 * How many code units of `a` from `aStart` equal those of `b` from `bStart`, up to `length`:
 * compared a chunk at a time, and a chunk that differs halved until the place is found.
 */
function commonLength(a: string, aStart: number, b: string, bStart: number, length: number): number {
  const max = Math.min(length, a.length - aStart, b.length - bStart);
  let n = 0;
  let step = 1 << 16;
  while (n < max) {
    const size = Math.min(step, max - n);
    if (a.slice(aStart + n, aStart + n + size) === b.slice(bStart + n, bStart + n + size)) n += size;
    else if (size === 1) break;
    else step = size >> 1;
  }
  return n;
}

/** Whether `words[1..count)` hold an interface option (or a value spelled like one). */
function hasInterfaceOption(words: readonly string[], count: number): boolean {
  for (let k = 1; k < count; k++) {
    const w = words[k] as string;
    if (w === "-i" || w === "-o" || w === "--in-interface" || w === "--out-interface") return true;
  }
  return false;
}

/** Whether a target name is a chain: not a verdict nor a target extension iptables ships. */
function isChainName(name: string): boolean {
  // No verdict or target extension is named KUBE-…: kube-proxy's chains skip the lookups.
  if (name.length > 5 && name.charCodeAt(4) === 45 && name.startsWith("KUBE")) return true;
  return !VERDICTS.has(name) && !TARGET_EXTENSIONS.has(name) && !PASS_THROUGH_TARGETS.has(name);
}

/** The target after a rule's last `-j`, as the fast path reads one (`null`: none). */
function lastJump(args: readonly string[]): RuleTarget | null {
  for (let a = args.length - 2; a >= 0; a--) {
    if (args[a] === "-j") {
      const name = args[a + 1] as string;
      return { name, isChain: isChainName(name) };
    }
  }
  return null;
}

/**
 * The structure check's view of a canonical rule's target (a verdict too: DROP is not for nat);
 * not ir/types.ts' `ruleTarget`, which reads a rule's argv.
 */
function structureTarget(target: CanonicalTarget | null): RuleTarget | null {
  if (target === null) return null;
  return { name: target.name, isChain: target.kind === "chain" };
}

/**
 * The label of a match the kernel allows in some tables or hooks only (see the structure
 * check's match places), or null.
 */
function restrictedMatch(m: CanonicalMatch): string | null {
  switch (m.name) {
    case "owner":
    case "socket":
    case "rpfilter":
      return m.name;
    case "addrtype":
      if (m.kind !== "addrtype") return null;
      return m.limitIfaceIn
        ? "addrtype --limit-iface-in"
        : m.limitIfaceOut
          ? "addrtype --limit-iface-out"
          : null;
    case "physdev": {
      let out = false;
      let bridged = false;
      for (const o of m.options) {
        if (o.name === "--physdev-out" || o.name === "--physdev-is-out") out = true;
        else if (o.name === "--physdev-is-bridged" && !o.negated) bridged = true;
      }
      return out && !bridged ? "physdev --physdev-out" : null;
    }
    default:
      return null;
  }
}

/** Adds an entry built as it was read (a deferring table notes that it needs no building). */
function pushBuilt(table: OpenTable, entry: Entry, line: number): void {
  table.log.addBuilt(entry, line);
}

/**
 * Whether `args[from, to)` has an `-s`/`-d` value containing `:` (the family detection of
 * {@link parseRules}).
 */
function hasIPv6Address(args: readonly string[], from: number, to: number): boolean {
  for (let a = from; a < to - 1; a++) {
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

function familyBit(family: IPFamily): number {
  return family === "IPv4" ? IPV4 : IPV6;
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
  return parse(text, options, true);
}

/**
 * {@link parseRules} without its fast paths: every line through {@link tokenizeLine} and every
 * rule through the canonicalizer. Not public; the tests check that both give the same result.
 *
 * @internal
 * @param text - The text.
 * @param options - Family and backend.
 * @returns What {@link parseRules} returns.
 * @example
 * parseRulesReference("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n").problems // []
 */
export function parseRulesReference(text: string, options?: ParseOptions): ParseResult {
  return parse(text, options, false);
}

function parse(text: string, options: ParseOptions | undefined, fast: boolean): ParseResult {
  const backend = options?.backend ?? "nft";
  const given = options?.family;
  const deferred = options?.deferred === true;
  const fastFamilies = given === undefined ? IPV4 | IPV6 : familyBit(given);
  const expected = options?.expected;
  const expecting = expected !== undefined && (given === undefined || given === expected.family);
  let parser = new Parser(text, backend, fast, fastFamilies, deferred, expecting ? expected : null);
  parser.run();
  if (parser.expected !== null && (given ?? (parser.sawIPv6Address ? "IPv6" : "IPv4")) !== expected?.family) {
    // The text is of the other family: the expected lines may not be valid in it. Read it as usual.
    parser = new Parser(text, backend, fast, fastFamilies, deferred);
    parser.run();
  }
  const family: IPFamily = given ?? (parser.sawIPv6Address ? "IPv6" : "IPv4");
  if (family === "IPv6" ? parser.quickIPv4Rules > 0 : parser.quickIPv6Rules > 0) {
    // Rules valid only in the other family (IPv4 addresses in an IPv6 rule set): wrong after all.
    // Read the text again with the family known, so that they get the full check (and problems).
    parser = new Parser(text, backend, fast, familyBit(family), deferred);
    parser.run();
  }
  parser.checkRules(family);
  parser.checkStructure(options?.noflush === true);
  parser.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const ruleSet: RuleSet = { family, tables: parser.tables };
  if (parser.expectedLines > 0) EXPECTED_LINES.set(ruleSet, parser.expectedLines);
  return { ruleSet, problems: parser.problems };
}

const EXPECTED_LINES = new WeakMap<RuleSet, number>();

/**
 * How many lines of the text a rule set was parsed from were read as lines of
 * {@link ParseOptions.expected}: its rules and its user chains' declarations (the tests check that
 * the shortcuts are taken).
 *
 * @internal
 * @example
 * expectedLinesOf(parseRules(dump, { deferred: true, expected }).ruleSet) // 430000
 */
export function expectedLinesOf(ruleSet: RuleSet): number {
  return EXPECTED_LINES.get(ruleSet) ?? 0;
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
