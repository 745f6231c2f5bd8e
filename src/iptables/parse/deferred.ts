/**
 * Parsed tables whose fast-path rules are built when they are first asked for. The parser checks
 * every line as it reads it (tokenized, matched to a rule shape, its place in the block recorded
 * for the structure check); what a trace or a diff then needs is a few chains of the ~110,000 of
 * a node's table, and a `Rule` with its argv for each of ~320,000 lines is most of what the parse
 * allocates and keeps. A deferred table keeps where each such rule's line is, and reads the line
 * again into the same `Rule` (the tokenizer gives a plain line the words the fast path read) for
 * one chain ({@link parsedChainOf}) or, on first access to `entries`, for all of them.
 *
 * @module
 */

import type { ChainDeclaration, Entry, Rule, Table } from "../../ir/types.js";
import type { SaveTextChains } from "../output/save-text.js";
import type { EntryLog, LoggedEntries } from "./entry-log.js";
import type { TableStructure } from "./table-structure.js";
import { TokenCache, tokenizeLine } from "./tokenize.js";

/** The entries of a table read by the parser, some of them not built yet. */
class DeferredEntries {
  private complete = false;
  private readonly cache = new TokenCache();
  /** The `-A` entries of each chain, found on the first chain asked for. */
  private byChain: { readonly first: Int32Array; readonly at: Int32Array } | null = null;
  /** The chain of each `-A` entry, found when first asked for (a diff asks twice). */
  private appendChains: readonly (string | null)[] | null = null;
  /** What {@link expectedMatchesOf} returns, found when first asked for. */
  private found: FoundMatches | null = null;

  /**
   * @param text - The text parsed.
   * @param log - Its entries as the parser recorded them.
   */
  constructor(
    private readonly text: string,
    private readonly log: EntryLog,
    readonly chains: readonly ChainDeclaration[],
    readonly structure: TableStructure,
    readonly matches: ExpectedMatches | null,
  ) {}

  /** What was read against the expected text, with the counts and names a diff needs (once). */
  foundMatches(matches: ExpectedMatches): FoundMatches {
    if (this.found === null) {
      const structure = this.structure;
      const counts = structure.appendCounts();
      // The chains the table names (declared, appended to or jumped to) that the text lacks.
      const names = structure.chainNames();
      const known = new Uint8Array(names.length);
      for (const id of matches.ids) if (id >= 0) known[id] = 1;
      const unexpected: string[] = [];
      const others: string[] = [];
      for (let id = 0; id < names.length; id++) {
        const name = names[id] as string;
        if (known[id] === 1 || matches.chains.has(name)) continue;
        unexpected.push(name);
        if (structure.declarationOf(id) >= 0 || (counts[id] as number) > 0) others.push(name);
      }
      this.found = { ...matches, counts, unexpected, others };
    }
    return this.found;
  }

  /** The entries one by one (the parser's runs cut into lines on the first call). */
  logged(): LoggedEntries {
    return this.log.entries(this.text);
  }

  /** Entry `i`, built from its line if it was not yet. */
  entry(i: number): Entry {
    const { entries, starts, ends } = this.logged();
    const known = entries[i];
    if (known !== null && known !== undefined) return known;
    const words = tokenizeLine(
      this.text,
      starts[i] as number,
      ends[i] as number,
      false,
      undefined,
      this.cache,
    );
    const rule: Rule = { kind: "rule", op: "-A", chain: words[0] as string, args: words.slice(1) };
    entries[i] = rule;
    return rule;
  }

  /** The `-A` rules of the chain `id`, built. */
  appendsTo(id: number): Rule[] {
    this.byChain ??= this.structure.appendsByChain();
    const { first, at } = this.byChain;
    const rules: Rule[] = [];
    for (let k = first[id] as number, end = first[id + 1] as number; k < end; k++)
      rules.push(this.entry(at[k] as number) as Rule);
    return rules;
  }

  /** The chain of each entry that is an `-A` rule (`null` for any other entry). */
  chainsOfAppends(): readonly (string | null)[] {
    this.appendChains ??= this.structure.appendChains();
    return this.appendChains;
  }

  /** Every entry, built. */
  all(): readonly Entry[] {
    const { entries } = this.logged();
    if (!this.complete) {
      for (let i = 0; i < entries.length; i++) this.entry(i);
      this.complete = true;
    }
    return entries as Entry[];
  }
}

const DEFERRED = new WeakMap<Table, DeferredEntries>();

/**
 * What {@link deferredTable} takes: one table block as the parser read it.
 *
 * @example
 * // `-A X -j ACCEPT` on line 3 of "*filter\n:X - [0:0]\n-A X -j ACCEPT\n", its rule not built:
 * log.addLine(22, 33, 3);
 * const block: DeferredBlock = { name: "filter", chains, log, structure };
 */
export interface DeferredBlock {
  readonly name: string;
  readonly chains: ChainDeclaration[];
  /** The entries as the parser recorded them. */
  readonly log: EntryLog;
  readonly structure: TableStructure;
  /** What was read against the same table of an expected text (see `ParseOptions.expected`). */
  readonly matches?: ExpectedMatches | null;
}

/**
 * What the parser found of one table of an expected text (`ParseOptions.expected`) in the table
 * it read: the chains it declared and the chains whose lines it read as that text's.
 *
 * @example
 * const m: ExpectedMatches = { chains, ids: Int32Array.of(0, 5), matched: Uint8Array.of(1, 0) };
 */
export interface ExpectedMatches {
  /** The expected text's chains of the table. */
  readonly chains: SaveTextChains;
  /** Per chain of `chains` (by its index): its chain id in the parsed table once declared there, else -1. */
  readonly ids: Int32Array;
  /** Per chain of `chains`: 1 when a run of the parsed table's lines is, byte for byte, its rules. */
  readonly matched: Uint8Array;
  /** Per chain of `chains`: its policy in the parsed table's last declaration of it (else `null`). */
  readonly policies: readonly (string | null)[];
}

/**
 * A `Table` of a block the parser read, its rules built on first access to `entries` (or per
 * chain, by {@link parsedChainOf}).
 *
 * @example
 * const table = deferredTable(text, block);
 * parsedChainOf(table, "KUBE-SERVICES")?.rules.length // its rules, the others still unbuilt
 */
export function deferredTable(text: string, block: DeferredBlock): Table {
  const deferred = new DeferredEntries(text, block.log, block.chains, block.structure, block.matches ?? null);
  const table: Table = {
    name: block.name,
    chains: block.chains,
    get entries(): readonly Entry[] {
      return deferred.all();
    },
  };
  DEFERRED.set(table, deferred);
  return table;
}

/**
 * One chain of a parsed table: its policy (the first declaration's) and its `-A` rules.
 *
 * @example
 * const chain: ParsedChain = { policy: "ACCEPT", rules: [{ kind: "rule", op: "-A", chain: "INPUT", args: ["-j", "KUBE-FIREWALL"] }] };
 */
export interface ParsedChain {
  /** `ACCEPT`/`DROP` for a declared built-in chain, `null` for a user chain or one not declared. */
  readonly policy: string | null;
  /** Its `-A` rules, in order. */
  readonly rules: readonly Rule[];
}

/**
 * Whether a table came from {@link deferredTable} (its chains can be read one at a time).
 *
 * @example
 * isDeferredTable(parseRules(dump, { deferred: true }).ruleSet.tables[0]) // true
 */
export function isDeferredTable(table: Table): boolean {
  return DEFERRED.has(table);
}

/**
 * One chain of a table from {@link deferredTable}, building only its rules: `undefined` when the
 * table neither declares the chain nor appends to it (or did not come from the parser).
 *
 * @example
 * parsedChainOf(nat, "KUBE-SERVICES") // { policy: null, rules: [ … ] }
 */
export function parsedChainOf(table: Table, chain: string): ParsedChain | undefined {
  const deferred = DEFERRED.get(table);
  if (deferred === undefined) return undefined;
  const id = deferred.structure.idOfChain(chain);
  if (id === undefined) return undefined;
  const declared = deferred.structure.declarationOf(id);
  const rules = deferred.appendsTo(id);
  if (declared < 0 && rules.length === 0) return undefined;
  return {
    policy: declared < 0 ? null : ((deferred.chains[declared] as ChainDeclaration).policy ?? null),
    rules,
  };
}

/**
 * The chain of each entry of a table that is an `-A` rule (`null` for any other entry), without
 * building a rule of a table from {@link deferredTable}: a diff finds each chain's run of rules
 * with it. Equal names are one string.
 *
 * @example
 * appendChainsOf(nat)[0] // "PREROUTING"
 */
export function appendChainsOf(table: Table): readonly (string | null)[] {
  const deferred = DEFERRED.get(table);
  if (deferred !== undefined) return deferred.chainsOfAppends();
  return table.entries.map((e) => (e.kind === "rule" && e.op === "-A" ? e.chain : null));
}

/**
 * Entry `i` of a table, building only it when the table is from {@link deferredTable}.
 *
 * @example
 * entryOf(nat, 0) // { kind: "rule", op: "-A", chain: "PREROUTING", args: [ … ] }
 */
export function entryOf(table: Table, i: number): Entry {
  const deferred = DEFERRED.get(table);
  return deferred === undefined ? (table.entries[i] as Entry) : deferred.entry(i);
}

/** {@link ExpectedMatches} with what a diff needs besides (see {@link expectedMatchesOf}). */
export interface FoundMatches extends ExpectedMatches {
  /** How many `-A` rules each chain id has. */
  readonly counts: Int32Array;
  /** The chains the table names (declares, appends to or jumps to) that the expected text lacks. */
  readonly unexpected: readonly string[];
  /** Those of them it declares or appends to. */
  readonly others: readonly string[];
}

/**
 * What a table from {@link deferredTable} read against an expected text, with how many `-A`
 * rules each of its chains has (by chain id) and the chains it names that the text lacks: a chain of the expected text whose lines were read
 * as its own and that has no other rule is equal to it, with no line compared again.
 *
 * @example
 * const m = expectedMatchesOf(nat);
 * m !== undefined && m.matched[k] === 1 && m.counts[m.ids[k]] === chain.count // chain k is equal
 * m?.unexpected // the chains it names that the text lacks
 */
export function expectedMatchesOf(table: Table): FoundMatches | undefined {
  const deferred = DEFERRED.get(table);
  const matches = deferred?.matches;
  if (deferred === undefined || matches === null || matches === undefined) return undefined;
  return deferred.foundMatches(matches);
}
