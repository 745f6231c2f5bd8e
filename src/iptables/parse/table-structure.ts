/**
 * The checks of a parsed table that need the whole block: iptables-restore refuses a rule that
 * appends to, or jumps to, a chain not declared above it in its table; a bad policy; a user
 * chain declared twice (legacy); and a target the kernel does not allow in that table or at the
 * hooks its chain is reached from (REJECT only in filter, MASQUERADE only in nat POSTROUTING …).
 * Every rule was already checked on its own; this module looks at how they fit together.
 *
 * @module
 */

import { IntList } from "../../int-list.js";
import type { Backend } from "../../ir/canonical-types.js";
import { BUILTIN_CHAINS, type ChainDeclaration } from "../../ir/types.js";

/**
 * Where a target may be used: tables (null: any) and hooks (bits of {@link HOOK_BITS}); and a
 * table iptables itself refuses it in, before the kernel sees it (with its own message).
 */
interface TargetPlace {
  readonly tables: readonly string[] | null;
  readonly hooks: number;
  readonly refusedIn?: string;
  /** nft takes it anywhere (it has an expression of its own: TRACE is `meta nftrace`). */
  readonly legacyOnly?: boolean;
  /**
   * The hooks are the module's own check, not its static hooks: nft_compat gives it the hooks
   * of base chains only, so nft judges the rule only where it sits in a built-in chain.
   */
  readonly checkedHooks?: boolean;
}

/** The netfilter hook of each built-in chain, as a bit. */
const HOOK_BITS: Readonly<Record<string, number>> = {
  PREROUTING: 1,
  INPUT: 2,
  FORWARD: 4,
  OUTPUT: 8,
  POSTROUTING: 16,
};
const ANY_HOOK = 31;

/**
 * The targets whose kernel module is restricted to tables or hooks (the `table` and `hooks` of
 * each xt target in the kernel's net/netfilter and net/ipv4/netfilter sources), checked against
 * the real kernel (test/kernel/restore-strictness.test.ts). Targets that need objects outside
 * the rules (SECMARK, SET, HMARK) are not judged here.
 */
const TARGET_PLACES: ReadonlyMap<string, TargetPlace> = new Map<string, TargetPlace>([
  // iptables' command parser refuses DROP in nat (the kernel would take it).
  ["DROP", { tables: null, hooks: ANY_HOOK, refusedIn: "nat" }],
  // xt_REJECT (ipt_REJECT / ip6t_REJECT): table "filter".
  ["REJECT", { tables: ["filter"], hooks: ANY_HOOK }],
  // nf_nat: DNAT and REDIRECT rewrite the destination before routing (PREROUTING, OUTPUT) …
  ["DNAT", { tables: ["nat"], hooks: 1 | 8 }],
  ["REDIRECT", { tables: ["nat"], hooks: 1 | 8 }],
  // … SNAT the source after it (POSTROUTING, INPUT); MASQUERADE only on the way out.
  ["SNAT", { tables: ["nat"], hooks: 16 | 2 }],
  ["MASQUERADE", { tables: ["nat"], hooks: 16 }],
  ["NETMAP", { tables: ["nat"], hooks: ANY_HOOK }],
  ["CT", { tables: ["raw"], hooks: ANY_HOOK }],
  ["NOTRACK", { tables: ["raw"], hooks: ANY_HOOK }],
  ["TRACE", { tables: ["raw"], hooks: ANY_HOOK, legacyOnly: true }],
  ["TPROXY", { tables: ["mangle"], hooks: 1 }],
  ["CHECKSUM", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["DSCP", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TOS", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TTL", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["HL", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["ECN", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TCPOPTSTRIP", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["CONNSECMARK", { tables: ["mangle", "security"], hooks: ANY_HOOK }],
  ["TCPMSS", { tables: null, hooks: 4 | 8 | 16, checkedHooks: true }],
  ["CLASSIFY", { tables: null, hooks: 4 | 8 | 16 }],
  ["SYNPROXY", { tables: null, hooks: 2 | 4 }],
]);

/**
 * Where a match may be used: tables (null: any) and hooks; `anyDepth` when the kernel judges the
 * hooks of every chain that reaches the rule (the module's static hooks) on both backends, else
 * only legacy does and nft judges the rule where it sits in a built-in chain (the module's own
 * check, which nft_compat gives the hooks of base chains only). Checked on the real kernel.
 */
interface MatchPlace {
  readonly tables: readonly string[] | null;
  readonly hooks: number;
  readonly anyDepth: boolean;
}

/** The matches whose kernel module is restricted to tables or hooks, by the label of their options. */
const MATCH_PLACES: ReadonlyMap<string, MatchPlace> = new Map<string, MatchPlace>([
  // xt_owner: the socket of a packet leaving the host.
  ["owner", { tables: null, hooks: 8 | 16, anyDepth: true }],
  // xt_socket: a socket the packet arrives for.
  ["socket", { tables: null, hooks: 1 | 2, anyDepth: true }],
  // xt_rpfilter: before routing, in raw or mangle.
  ["rpfilter", { tables: ["raw", "mangle"], hooks: 1, anyDepth: true }],
  // xt_physdev: an output bridge port without --physdev-is-bridged is unknown to OUTPUT.
  ["physdev --physdev-out", { tables: null, hooks: 1 | 2 | 4 | 16, anyDepth: false }],
  // xt_addrtype: the interface a limit names must exist at the hook.
  ["addrtype --limit-iface-in", { tables: null, hooks: 1 | 2 | 4, anyDepth: false }],
  ["addrtype --limit-iface-out", { tables: null, hooks: 4 | 8 | 16, anyDepth: false }],
]);
const MATCH_PLACE_NAMES: readonly string[] = [...MATCH_PLACES.keys()];
const MATCH_PLACE_LIST: readonly MatchPlace[] = [...MATCH_PLACES.values()];
/** Restricted entries of the check: target places below this, match places from it. */
const MATCH_BASE = 1000;

/**
 * What iptables says to `-j DROP` (or `-P … DROP`) in the nat table.
 *
 * @example
 * natDropMessage("nat") // 'The "nat" table is not intended for filtering, the use of DROP is therefore inhibited.'
 */
export function natDropMessage(table: string): string {
  return `The "${table}" table is not intended for filtering, the use of DROP is therefore inhibited.`;
}

const HOOK_NAMES = ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"] as const;

function hookNames(bits: number): string {
  return HOOK_NAMES.filter((_, k) => (bits & (1 << k)) !== 0).join(", ");
}

/** A rule's target as the structure check needs it: a chain it jumps to, or a target name. */
export interface RuleTarget {
  /** The name after `-j` / `-g`. */
  readonly name: string;
  /** Whether it names a chain (not a verdict or a target extension). */
  readonly isChain: boolean;
}

/** What the structure check reports: a line, which token of it, and the message. */
export interface StructureProblem {
  /** 1-based line. */
  readonly line: number;
  /** Which token of the line the problem is at (see {@link ProblemToken}). */
  readonly token: ProblemToken;
  /** The message. */
  readonly message: string;
}

/**
 * The token a problem points at: the chain a command names, the target after `-j`/`-g`, or
 * argument `k` of a `:` declaration.
 */
export type ProblemToken =
  | { readonly kind: "chain" }
  | { readonly kind: "match"; readonly name: string }
  | { readonly kind: "target"; readonly name: string }
  | { readonly kind: "declaration"; readonly index: number };

/** The places of {@link TARGET_PLACES} by number, and their names. */
const PLACE_NAMES: readonly string[] = [...TARGET_PLACES.keys()];
const PLACES: readonly TargetPlace[] = [...TARGET_PLACES.values()];
const PLACE_CODES: ReadonlyMap<string, number> = new Map(PLACE_NAMES.map((name, k) => [name, k]));

// What a record is to the check (its `ops` code): an `-A` rule, another rule command, a command,
// or a run of `-A` rules of one chain (lines of an expected text: see {@link TableStructure.run}).
const OP_APPEND = 0;
const OP_RULE = 1;
const OP_NEW = 2;
const OP_DELETE = 3;
const OP_DELETE_ALL = 4;
const OP_NONE = 5;
const OP_RUN = 6;

// A rule's target code: a chain's id (≥ 0), or one of these; a restricted target is
// `TARGET_PLACE - k` for `PLACES[k]`.
const TARGET_NONE = -1;
/** The rule has a problem of its own: the check passes it by. */
const TARGET_SKIP = -2;
const TARGET_PLACE = -3;

/**
 * One table block as the parser reads it, in the form the structure check needs: every chain
 * name a number (the built-in chains first), each record (an entry, or a run of `-A` rules the
 * parser read as an expected text's) its chain's number and its target's code, kept in typed
 * lists as the lines are read. A node's table holds ~110,000 chains and ~320,000 rules: the
 * check then walks numbers, with no lookup per rule, and a chain's rules come in a run (its name
 * looked up once), the runs nearly always in the order the chains were declared.
 *
 * @example
 * const s = new TableStructure("filter");
 * s.rule("X", null);
 * s.check({ chains: [], chainLines: [], recordLines: [2], backend: "nft", noflush: false })
 * // [{ line: 2, token: { kind: "chain" }, message: "chain `X' does not exist in table filter (no `:X' line above)" }]
 */
export class TableStructure {
  /** The table. */
  readonly table: string;
  private readonly builtins: number;
  /** The ids of the chains looked up by name (a known chain declared by its place is not here). */
  private readonly ids = new Map<string, number>();
  /** Each id's chain name. */
  private readonly names: string[] = [];
  /** Each id's place among the declarations (-1: not declared). */
  private readonly declaredAt: number[] = [];
  /** The id of each declaration. */
  private readonly declarations: number[] = [];
  /**
   * Per record: its {@link OP_RULE}… code, its chain's id (-1: none), its target's code (for a
   * run: where its count and its rules' codes start in {@link runCodes}).
   */
  private readonly ops = new IntList(1024);
  private readonly chainIds = new IntList(1024);
  private readonly targets = new IntList(1024);
  /** Each run's count, then the target code of each of its rules. */
  private readonly runCodes = new IntList(1024);
  /** The declaration the next run of rules most likely belongs to. */
  private next = 0;
  private lastChain: string | null = null;
  private lastChainId = -1;
  // The last two targets looked up (a kube-proxy chain's rules alternate between two).
  private lastTarget: string | null = null;
  private lastIsChain = false;
  private lastTargetCode = TARGET_NONE;
  private otherTarget: string | null = null;
  private otherIsChain = false;
  private otherTargetCode = TARGET_NONE;

  /** The chains of the expected text's table, if any, and each one's id here (-1: none yet). */
  private readonly known: KnownChains | null;
  private readonly knownIds: Int32Array | null;

  /**
   * Starts the structure of a table block.
   *
   * @param table - The table's name.
   * @param known - The chains of the same table of the text the block is expected to be: their
   *   ids are kept by their place there, so that declaring them adds no name to a map.
   */
  constructor(table: string, known: KnownChains | null = null) {
    this.table = table;
    this.known = known;
    this.knownIds = known === null ? null : new Int32Array(known.size).fill(-1);
    const builtins = BUILTIN_CHAINS[table] ?? [];
    this.builtins = builtins.length;
    for (const b of builtins) this.idOf(b);
  }

  private idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      // (A known chain looked up by name is kept in the map too: a rule's target, say.)
      const k = this.known === null ? -1 : this.known.indexOf(name);
      id = k >= 0 ? this.idOfKnown(name, k) : this.newId(name);
      this.ids.set(name, id);
    }
    return id;
  }

  /** The id of `name`, chain `k` of the known chains. */
  private idOfKnown(name: string, k: number): number {
    const ids = this.knownIds as Int32Array;
    let id = ids[k] as number;
    if (id < 0) {
      id = this.newId(name);
      ids[k] = id;
    }
    return id;
  }

  private newId(name: string): number {
    this.names.push(name);
    this.declaredAt.push(-1);
    return this.names.length - 1;
  }

  /** The id of the chain a rule appends to: the last one again, or the next declared, or looked up. */
  private chainOf(name: string): number {
    if (name === this.lastChain) return this.lastChainId;
    let id: number;
    const expected = this.declarations[this.next];
    if (expected !== undefined && this.names[expected] === name) {
      id = expected;
      this.next++;
    } else {
      id = this.idOf(name);
      const at = this.declaredAt[id] as number;
      if (at >= 0) this.next = at + 1;
    }
    this.lastChain = name;
    this.lastChainId = id;
    return id;
  }

  /** The code of a target name (a chain's id, or its place), the last two remembered. */
  private targetCode(name: string, isChain: boolean): number {
    if (name === this.lastTarget && isChain === this.lastIsChain) return this.lastTargetCode;
    if (name === this.otherTarget && isChain === this.otherIsChain) return this.otherTargetCode;
    let code = TARGET_NONE;
    if (isChain) code = this.idOf(name);
    else {
      const place = PLACE_CODES.get(name);
      if (place !== undefined) code = TARGET_PLACE - place;
    }
    this.otherTarget = this.lastTarget;
    this.otherIsChain = this.lastIsChain;
    this.otherTargetCode = this.lastTargetCode;
    this.lastTarget = name;
    this.lastIsChain = isChain;
    this.lastTargetCode = code;
    return code;
  }

  /**
   * Records a `:CHAIN` declaration (in the order of the table's `chains`); returns the chain's
   * id. `known` is its place among the known chains, when the caller found it (-1: look it up).
   */
  declare(name: string, known = -1): number {
    const id = known >= 0 ? this.idOfKnown(name, known) : this.idOf(name);
    if ((this.declaredAt[id] as number) < 0) this.declaredAt[id] = this.declarations.length;
    this.declarations.push(id);
    return id;
  }

  /** Per restricted match: its record and its place among {@link MATCH_PLACES}, in record order. */
  private readonly matchRecords = new IntList();

  /**
   * Records that the rule of `record` has a match only some tables or hooks allow (a label of
   * {@link MATCH_PLACES}, e.g. `owner`); records are given in order.
   */
  restrictMatch(record: number, label: string): void {
    const place = MATCH_PLACE_NAMES.indexOf(label);
    if (place < 0) return;
    this.matchRecords.push(record);
    this.matchRecords.push(place);
  }

  /**
   * Records a rule entry and its target: `null` for none (or a verdict), `undefined` for a rule
   * that has a problem of its own. Returns the record's number, for {@link setTarget}.
   */
  rule(chain: string, append: boolean, target: RuleTarget | null | undefined): number {
    this.record(append ? OP_APPEND : OP_RULE, this.chainOf(chain), this.codeOf(target));
    return this.ops.length - 1;
  }

  private record(op: number, chain: number, target: number): void {
    this.ops.push(op);
    this.chainIds.push(chain);
    this.targets.push(target);
  }

  /**
   * Records a rule entry whose target is the chain or target `name` (`isChain` says which), or
   * none (`null`): the parser's fast path, which knows the name without building a target.
   */
  ruleTo(chain: string, name: string | null, isChain: boolean): void {
    this.record(OP_APPEND, this.chainOf(chain), this.targetCodeOf(name, isChain));
  }

  /**
   * The code of a rule's target for {@link run}: the chain or target `name` (`isChain` says
   * which), or none (`null`).
   */
  targetCodeOf(name: string | null, isChain: boolean): number {
    return name === null ? TARGET_NONE : this.targetCode(name, isChain);
  }

  /**
   * Records `codes.length` `-A` rules of `chain` as one record: lines the parser read as an
   * expected text's, each with its target's code ({@link targetCodeOf}, or a chain's id as
   * {@link declare} returned it).
   */
  run(chain: string, codes: Int32Array): void {
    this.runOf(this.chainOf(chain), codes);
  }

  /** {@link run} of the chain `id` (as {@link declare} returned it) named `chain`: no name looked up. */
  runOfDeclared(id: number, chain: string, codes: Int32Array): void {
    this.lastChain = chain;
    this.lastChainId = id;
    const at = this.declaredAt[id] as number;
    if (at >= 0) this.next = at + 1;
    this.runOf(id, codes);
  }

  private runOf(id: number, codes: Int32Array): void {
    const at = this.runCodes.length;
    this.runCodes.push(codes.length);
    this.runCodes.pushAll(codes);
    this.record(OP_RUN, id, at);
  }

  /** Sets the target of rule record `record` once it is known (see {@link rule}). */
  setTarget(record: number, target: RuleTarget | null | undefined): void {
    this.targets.set(record, this.codeOf(target));
  }

  /** How many rules record `record` is: a run's count, else 1. */
  private countOf(record: number): number {
    return this.ops.at(record) === OP_RUN ? this.runCodes.at(this.targets.at(record)) : 1;
  }

  private codeOf(target: RuleTarget | null | undefined): number {
    if (target === undefined) return TARGET_SKIP;
    return target === null ? TARGET_NONE : this.targetCode(target.name, target.isChain);
  }

  /** Records a chain command (`-N`, `-X`, `-F`, `-Z`) or a policy command (`-P`: `op` null). */
  command(op: string | null, chain: string): void {
    let code = OP_NONE;
    let id = -1;
    if (op === "-N") {
      code = OP_NEW;
      id = this.idOf(chain);
    } else if (op === "-X") {
      code = chain === "" ? OP_DELETE_ALL : OP_DELETE;
      if (chain !== "") id = this.idOf(chain);
    }
    this.record(code, id, TARGET_NONE);
  }

  /**
   * Checks the block as iptables-restore would load it, declarations and commands in line
   * order, and returns what it would refuse.
   */
  check(input: StructureInput): StructureProblem[] {
    return checkStructure(this, input);
  }

  /** The id of a chain the block names (declared, appended to or jumped to), if any. */
  idOfChain(name: string): number | undefined {
    const id = this.ids.get(name);
    if (id !== undefined) return id;
    const k = this.known === null ? -1 : this.known.indexOf(name);
    const known = k < 0 ? -1 : ((this.knownIds as Int32Array)[k] as number);
    return known < 0 ? undefined : known;
  }

  /** Where the chain `id` is first declared among the block's declarations (-1: it is not). */
  declarationOf(id: number): number {
    return this.declaredAt[id] ?? -1;
  }

  /** Per entry: the chain name of an `-A` rule, `null` for any other entry. */
  appendChains(): (string | null)[] {
    const out: (string | null)[] = [];
    const ops = this.ops;
    for (let r = 0; r < ops.length; r++) {
      const op = ops.at(r);
      const name = op === OP_APPEND || op === OP_RUN ? (this.names[this.chainIds.at(r)] as string) : null;
      for (let n = this.countOf(r); n > 0; n--) out.push(name);
    }
    return out;
  }

  /** How many `-A` rules each chain id has. */
  appendCounts(): Int32Array {
    const counts = new Int32Array(this.names.length);
    const ops = this.ops;
    const chainIds = this.chainIds;
    for (let r = 0; r < ops.length; r++) {
      const op = ops.at(r);
      if (op !== OP_APPEND && op !== OP_RUN) continue;
      const id = chainIds.at(r);
      counts[id] = (counts[id] as number) + this.countOf(r);
    }
    return counts;
  }

  /** The name of each chain id (declared, appended to or jumped to). */
  chainNames(): readonly string[] {
    return this.names;
  }

  /**
   * The `-A` rules of every chain: `at[first[id]]` to `at[first[id + 1]]` are the entries of the
   * chain `id`, in order (one pass, counting them per chain first).
   */
  appendsByChain(): { readonly first: Int32Array; readonly at: Int32Array } {
    const n = this.names.length;
    const counts = this.appendCounts();
    const first = new Int32Array(n + 1);
    for (let id = 0; id < n; id++) first[id + 1] = (first[id] as number) + (counts[id] as number);
    const at = new Int32Array(first[n] as number);
    const next = first.slice(0, n);
    const ops = this.ops;
    for (let r = 0, entry = 0; r < ops.length; r++) {
      const op = ops.at(r);
      const count = this.countOf(r);
      if (op === OP_APPEND || op === OP_RUN) {
        const id = this.chainIds.at(r);
        let k = next[id] as number;
        for (let e = entry; e < entry + count; e++) at[k++] = e;
        next[id] = k;
      }
      entry += count;
    }
    return { first, at };
  }

  /** @internal The arrays {@link checkStructure} walks. */
  view(): StructureView {
    return {
      table: this.table,
      builtins: this.builtins,
      names: this.names,
      declarations: this.declarations,
      ops: this.ops.view(),
      chainIds: this.chainIds.view(),
      targets: this.targets.view(),
      runCodes: this.runCodes.view(),
      matchRecords: this.matchRecords.view(),
    };
  }
}

/** The chains of a table that a {@link TableStructure} knows by their place (an expected text's). */
export interface KnownChains {
  /** How many. */
  readonly size: number;
  /** The place of the chain `name` (-1: not one of them). */
  indexOf(name: string): number;
}

/** What {@link TableStructure.view} hands the check. */
interface StructureView {
  readonly table: string;
  readonly builtins: number;
  readonly names: readonly string[];
  readonly declarations: readonly number[];
  /** Pairs of a record and a match place (see {@link TableStructure.restrictMatch}). */
  readonly matchRecords: ArrayLike<number>;
  readonly ops: Int32Array;
  readonly chainIds: Int32Array;
  readonly targets: Int32Array;
  readonly runCodes: Int32Array;
}

/** What {@link TableStructure.check} needs besides what was recorded. */
export interface StructureInput {
  /** The declarations, as recorded (in the same order). */
  readonly chains: readonly ChainDeclaration[];
  /** Line of each declaration, and the (first) line of each record, as recorded (in line order). */
  readonly chainLines: readonly number[];
  readonly recordLines: ArrayLike<number>;
  readonly backend: Backend;
  /** `--noflush`: chains may already exist in the kernel, so undeclared names are not refused. */
  readonly noflush: boolean;
}

function checkStructure(structure: TableStructure, input: StructureInput): StructureProblem[] {
  const { table, builtins, names, declarations, ops, chainIds, targets, runCodes, matchRecords } =
    structure.view();
  /** The next pair of {@link matchRecords} to look at. */
  let nextMatch = 0;
  const { chains, chainLines, recordLines, backend, noflush } = input;
  const problems: StructureProblem[] = [];
  /** Per id: whether the chain is declared now (`user` of iptables-restore's view). */
  const user = new Uint8Array(names.length);
  const isBuiltin = (id: number): boolean => id >= 0 && id < builtins;
  /** The jumps, as triples: a chain's id, the id of the chain a rule of it jumps to, the line. */
  const jumps = new IntList(1024);
  /** Whether a command may have taken a jump away again (-D, -R, -F, -X …): loops are not judged. */
  let jumpsMayVanish = false;
  /** The rules whose target only some hooks allow: their chain, their place, their line. */
  const restricted = new IntList();
  let c = 0;
  let r = 0;
  while (c < declarations.length || r < ops.length) {
    const chainLine = chainLines[c] ?? Number.POSITIVE_INFINITY;
    const recordLine = recordLines[r] ?? Number.POSITIVE_INFINITY;
    if (c < declarations.length && chainLine <= recordLine) {
      declare(declarations[c] as number, chains[c] as ChainDeclaration, chainLine);
      c++;
    } else {
      apply(r, recordLine);
      r++;
    }
  }
  const graph = jumpGraph(names.length, jumps);
  checkPlaces();
  if (!jumpsMayVanish) checkLoops();
  return problems;

  function declare(id: number, d: ChainDeclaration, line: number): void {
    if (isBuiltin(id)) {
      // `-` keeps the policy; anything else must be a verdict a base chain can end in.
      if (d.policy !== null && d.policy !== "ACCEPT" && d.policy !== "DROP")
        problems.push({
          line,
          token: { kind: "declaration", index: 1 },
          message: `Can't set policy \`${d.policy}' on \`${d.name}': Bad policy name`,
        });
      return;
    }
    // iptables-nft ignores a user chain's policy and a second declaration; legacy's libiptc
    // refuses both (iptc_set_policy on a non-built-in chain, iptc_create_chain on an existing one).
    if (backend === "legacy") {
      if (d.policy !== null) {
        problems.push({
          line,
          token: { kind: "declaration", index: 1 },
          message: `Can't set policy \`${d.policy}' on \`${d.name}': Bad built-in chain name`,
        });
        return;
      }
      if (user[id] === 1) {
        problems.push({
          line,
          token: { kind: "declaration", index: 0 },
          message: `error creating chain '${d.name}': File exists`,
        });
        return;
      }
    }
    user[id] = 1;
  }

  function apply(record: number, line: number): void {
    const op = ops[record] as number;
    const from = chainIds[record] as number;
    if (op === OP_RUN) {
      // A run's rules are on consecutive lines (no declaration between them).
      const at = targets[record] as number;
      const count = runCodes[at] as number;
      for (let n = 0; n < count; n++) rule(from, runCodes[at + 1 + n] as number, line + n);
    } else if (op === OP_APPEND || op === OP_RULE) {
      while (nextMatch < matchRecords.length && matchRecords[nextMatch] === record) {
        match(from, matchRecords[nextMatch + 1] as number, line);
        nextMatch += 2;
      }
      rule(from, targets[record] as number, line);
    } else if (op === OP_NEW) user[from] = 1;
    else if (op === OP_DELETE) user[from] = 0;
    else if (op === OP_DELETE_ALL) user.fill(0);
    if (op !== OP_APPEND && op !== OP_RUN && op !== OP_NEW) jumpsMayVanish = true;
  }

  /** A rule of `from` with the restricted match `place` (of {@link MATCH_PLACES}). */
  function match(from: number, place: number, line: number): void {
    const { tables, hooks, anyDepth } = MATCH_PLACE_LIST[place] as MatchPlace;
    const label = MATCH_PLACE_NAMES[place] as string;
    const name = label.split(" ")[0] as string;
    if (tables !== null && !tables.includes(table)) {
      problems.push({
        line,
        token: { kind: "match", name },
        message: onlyInTables(`match ${label}`, tables, table),
      });
      return;
    }
    if (anyDepth || backend === "legacy") {
      restricted.push(from);
      restricted.push(MATCH_BASE + place);
      restricted.push(line);
      return;
    }
    const bit = isBuiltin(from) ? (HOOK_BITS[names[from] as string] ?? 0) : 0;
    if ((bit & ~hooks) !== 0) {
      problems.push({
        line,
        token: { kind: "match", name },
        message: `match ${label} is only valid in ${hookNames(hooks)}, not in ${names[from]}`,
      });
    }
  }

  function rule(from: number, target: number, line: number): void {
    if (target === TARGET_SKIP) return; // the rule has a problem already
    if (!noflush && user[from] !== 1 && !isBuiltin(from)) {
      const chain = names[from] as string;
      problems.push({
        line,
        token: { kind: "chain" },
        message: `chain \`${chain}' does not exist in table ${table} (no \`:${chain}' line above)`,
      });
      return;
    }
    if (target === TARGET_NONE) return;
    if (target >= 0) {
      if (isBuiltin(target) || (!noflush && user[target] !== 1)) {
        const name = names[target] as string;
        problems.push({
          line,
          token: { kind: "target", name },
          message: isBuiltin(target)
            ? `Couldn't load target \`${name}': a built-in chain cannot be a jump target`
            : `Couldn't load target \`${name}': no chain of that name is declared above in table ${table}`,
        });
        return;
      }
      // (A chain's rules often jump to one chain in turn: the same jump is kept once.)
      const n = jumps.length;
      if (n === 0 || jumps.at(n - 3) !== from || jumps.at(n - 2) !== target) {
        jumps.push(from);
        jumps.push(target);
        jumps.push(line);
      }
      return;
    }
    const place = TARGET_PLACE - target;
    const name = PLACE_NAMES[place] as string;
    const { tables, hooks, refusedIn, legacyOnly, checkedHooks } = PLACES[place] as TargetPlace;
    if (legacyOnly === true && backend === "nft") return;
    if (refusedIn === table) {
      problems.push({ line, token: { kind: "target", name }, message: natDropMessage(table) });
      return;
    }
    if (tables !== null && !tables.includes(table)) {
      problems.push({
        line,
        token: { kind: "target", name },
        message: onlyInTables(`target ${name}`, tables, table),
      });
      return;
    }
    if (hooks === ANY_HOOK) return;
    if (checkedHooks === true && backend === "nft") {
      const bit = isBuiltin(from) ? (HOOK_BITS[names[from] as string] ?? 0) : 0;
      if ((bit & ~hooks) !== 0) {
        problems.push({
          line,
          token: { kind: "target", name },
          message: `target ${name} is only valid in ${hookNames(hooks)}, not in ${names[from]}`,
        });
      }
      return;
    }
    restricted.push(from);
    restricted.push(place);
    restricted.push(line);
  }

  /** The hooks each restricted rule's chain is reached from, against those its target allows. */
  function checkPlaces(): void {
    if (restricted.length === 0) return;
    const n = names.length;
    const { first, to } = graph;
    const reached = new Uint8Array(n);
    const stack = new Int32Array(n);
    for (let b = 0; b < builtins; b++) {
      const bit = HOOK_BITS[names[b] as string] ?? 0;
      if (bit === 0 || ((reached[b] as number) & bit) !== 0) continue;
      // Each chain is pushed once per hook: when the hook's bit is first set on it.
      reached[b] = (reached[b] as number) | bit;
      stack[0] = b;
      let top = 1;
      while (top > 0) {
        const chain = stack[--top] as number;
        for (let k = first[chain] as number, end = first[chain + 1] as number; k < end; k++) {
          const next = to[k] as number;
          const had = reached[next] as number;
          if ((had & bit) !== 0) continue;
          reached[next] = had | bit;
          stack[top++] = next;
        }
      }
    }
    let found = false;
    for (let k = 0; k < restricted.length; k += 3) {
      const chain = restricted.at(k);
      const place = restricted.at(k + 1);
      const isMatch = place >= MATCH_BASE;
      const hooks = isMatch
        ? (MATCH_PLACE_LIST[place - MATCH_BASE] as MatchPlace).hooks
        : (PLACES[place] as TargetPlace).hooks;
      const bad = (reached[chain] as number) & ~hooks;
      if (bad === 0) continue;
      const label = isMatch
        ? (MATCH_PLACE_NAMES[place - MATCH_BASE] as string)
        : (PLACE_NAMES[place] as string);
      const name = label.split(" ")[0] as string;
      problems.push({
        line: restricted.at(k + 2),
        token: isMatch ? { kind: "match", name } : { kind: "target", name },
        message: `${isMatch ? "match" : "target"} ${label} is only valid in ${hookNames(hooks)}; chain ${names[chain]} is reached from ${hookNames(bad)}`,
      });
      found = true;
    }
    if (found) problems.sort((a, b) => a.line - b.line);
  }

  /**
   * A loop of jumps reached from a built-in chain: the kernel refuses it (nft: "Too many links"
   * at the rule that closes it; legacy: the whole table). One not reached is taken. One walk
   * (depth first, each chain entered once), reported at the latest line of the path and loop.
   */
  function checkLoops(): void {
    const { first, to, line } = graph;
    const n = names.length;
    if (to.length === 0) return;
    // 0: not entered, 1: on the walk's path, 2: done.
    const state = new Uint8Array(n);
    const path = new Int32Array(n);
    const cursor = new Int32Array(n);
    /** The jump that entered each chain of the path (-1 for the built-in chain). */
    const via = new Int32Array(n);
    for (let b = 0; b < builtins; b++) {
      if (state[b] !== 0) continue;
      let depth = 0;
      path[0] = b;
      cursor[0] = first[b] as number;
      via[0] = -1;
      state[b] = 1;
      while (depth >= 0) {
        const chain = path[depth] as number;
        const k = cursor[depth] as number;
        if (k >= (first[chain + 1] as number)) {
          state[chain] = 2;
          depth--;
          continue;
        }
        cursor[depth] = k + 1;
        const next = to[k] as number;
        if (state[next] === 0) {
          depth++;
          path[depth] = next;
          cursor[depth] = first[next] as number;
          via[depth] = k;
          state[next] = 1;
        } else if (state[next] === 1) {
          reportLoop(path, via, depth, k, next);
          return;
        }
      }
    }

    function reportLoop(
      path: Int32Array,
      via: Int32Array,
      depth: number,
      closing: number,
      back: number,
    ): void {
      let last = closing;
      let start = depth;
      for (let d = 1; d <= depth; d++) {
        const k = via[d] as number;
        if ((line[k] as number) > (line[last] as number)) last = k;
        if (path[d] === back) start = d;
      }
      if (path[0] === back) start = 0;
      const loop: string[] = [];
      for (let d = start; d <= depth && loop.length < 8; d++) loop.push(names[path[d] as number] as string);
      if (depth - start + 1 > loop.length) loop.push("…");
      loop.push(names[back] as string);
      problems.push({
        line: line[last] as number,
        token: { kind: "target", name: names[to[last] as number] as string },
        message: `RULE_APPEND failed (Too many links): the jumps ${loop.join(" -> ")} loop, reached from ${names[path[0] as number]}`,
      });
      problems.sort((a, b) => a.line - b.line);
    }
  }
}

/** The jumps of each chain in one array (`to[first[id]]` to `to[first[id + 1]]`), with their lines. */
function jumpGraph(
  n: number,
  jumps: IntList,
): { readonly first: Int32Array; readonly to: Int32Array; readonly line: Int32Array } {
  const triples = jumps.view();
  const first = new Int32Array(n + 1);
  for (let k = 0; k < triples.length; k += 3) {
    const from = triples[k] as number;
    first[from + 1] = (first[from + 1] as number) + 1;
  }
  for (let id = 0; id < n; id++) first[id + 1] = (first[id + 1] as number) + (first[id] as number);
  const to = new Int32Array(triples.length / 3);
  const line = new Int32Array(triples.length / 3);
  const filled = first.slice(0, n);
  for (let k = 0; k < triples.length; k += 3) {
    const from = triples[k] as number;
    const at = filled[from] as number;
    filled[from] = at + 1;
    to[at] = triples[k + 1] as number;
    line[at] = triples[k + 2] as number;
  }
  return { first, to, line };
}

/** iptables' words for a match or target used outside the tables it allows. */
function onlyInTables(what: string, tables: readonly string[], table: string): string {
  return `${what} is only valid in the ${tables.join(" or ")} table${tables.length > 1 ? "s" : ""}, not in ${table}`;
}
