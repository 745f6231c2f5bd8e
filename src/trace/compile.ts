/**
 * A rule set prepared for tracing: every chain's rules canonicalized (by the same
 * `canonicalizeRule` the save emitter and the parser use, so generated and parsed rule sets
 * trace alike), and large chains indexed by destination so that a packet visits only the rules
 * that can match it. Built lazily, once per rule set, and cached.
 *
 * @module
 */
import {
  canonicalizeRuleCached,
  formatCanonicalRule,
  isDeferredTable,
  parsedChainOf,
} from "../iptables/index.js";
import type { CanonicalRule } from "../ir/canonical-types.js";
import type { Entry, IPFamily, Rule, RuleSet, Table } from "../ir/types.js";
import { buildChainIndex, type ChainIndex } from "./chain-index.js";

/** One rule ready for the walk. */
export interface CompiledRule {
  /** 1-based position in the chain. */
  readonly index: number;
  /** The canonical structure, or null when the rule cannot be canonicalized. */
  readonly canonical: CanonicalRule | null;
  /** Why canonicalization failed, or null. */
  readonly error: string | null;
  /** The rule's comment, or null. */
  readonly comment: string | null;
  /** The argv the rule was given, for a rule that failed to canonicalize. */
  readonly args: readonly string[];
  /** The save text, computed on first use (only for rules a path passes). */
  text: string | null;
}

/** One chain ready for the walk. */
export interface CompiledChain {
  /** The table. */
  readonly table: string;
  /** The chain. */
  readonly name: string;
  /** The policy of a built-in chain, null for a user chain. */
  readonly policy: string | null;
  /** The rules in order. */
  readonly rules: readonly CompiledRule[];
  /** The destination index, for a chain long enough to need one. */
  readonly index: ChainIndex | null;
}

/** A rule set ready for tracing. */
export interface CompiledState {
  /** The family. */
  readonly family: IPFamily;
  /** The tables present, by name. */
  readonly tables: ReadonlySet<string>;
  /** Looks a chain up (compiling it on first use); undefined when the table has no such chain. */
  chain(table: string, name: string): CompiledChain | undefined;
}

// Below this length a linear walk is as fast as a lookup.
const INDEX_THRESHOLD = 16;

function compileRule(rule: Rule, position: number, family: IPFamily): CompiledRule {
  // The cached form: a state just printed with formatSave has every rule canonicalized already.
  const result = canonicalizeRuleCached(rule, family);
  const canonical = result.ok ? result.rule : null;
  const error = result.ok ? null : result.message;
  let comment: string | null = null;
  if (canonical !== null) {
    for (const m of canonical.matches)
      if (m.kind === "comment") comment = comment === null ? m.comment : comment;
  }
  return { index: position, canonical, error, comment, args: rule.args, text: null };
}

/** The save text of a compiled rule (memoized on it). */
export function ruleText(chain: string, rule: CompiledRule): string {
  if (rule.text === null) {
    rule.text =
      rule.canonical === null
        ? `-A ${chain} ${rule.args.join(" ")}`
        : formatCanonicalRule(chain, rule.canonical);
  }
  return rule.text;
}

const cache = new WeakMap<RuleSet, CompiledState>();

/**
 * Prepares a rule set (a `state`: only `-A` rules count) for tracing; cached per rule set
 * object, so repeated traces of one state reuse the canonical rules and indexes.
 *
 * @example
 * const compiled = compileState(generateState(model));
 * compiled.chain("nat", "KUBE-SERVICES")?.rules.length // e.g. 10001
 */
export function compileState(state: RuleSet): CompiledState {
  let compiled = cache.get(state);
  if (compiled === undefined) {
    compiled = createCompiledState(state);
    cache.set(state, compiled);
  }
  return compiled;
}

/** A chain's declaration and where its rules are among its table's entries. */
interface RawChain {
  readonly policy: string | null;
  readonly entries: readonly Entry[];
  /** Each run of its rules as `[from, to)` in `entries`, two numbers a run. */
  readonly runs: number[];
  /** Its place among the declared chains (-1: not declared). */
  readonly index: number;
}

/** The `-A` rules of a chain, from its runs. */
function rulesOf(c: RawChain): Rule[] {
  const rules: Rule[] = [];
  for (let r = 0; r < c.runs.length; r += 2) {
    for (let i = c.runs[r] as number; i < (c.runs[r + 1] as number); i++) {
      const e = c.entries[i] as Entry;
      if (e.kind === "rule" && e.op === "-A") rules.push(e);
    }
  }
  return rules;
}

/** A compiled chain from its policy and rules. */
function compileChain(
  table: string,
  name: string,
  policy: string | null,
  source: readonly Rule[],
  family: IPFamily,
): CompiledChain {
  const rules = source.map((r, i) => compileRule(r, i + 1, family));
  return {
    table,
    name,
    policy,
    rules,
    index: rules.length >= INDEX_THRESHOLD ? buildChainIndex(rules, family) : null,
  };
}

/**
 * A parsed dump's state, its chains read from the parser's record of each table (see
 * `deferred.ts`): only the chains a trace enters have their rules built.
 */
function createParsedCompiledState(state: RuleSet): CompiledState {
  const family = state.family;
  const tables = new Map<string, Table>();
  for (const table of state.tables) tables.set(table.name, table);
  const compiled = new Map<string, CompiledChain | undefined>();
  return {
    family,
    tables: new Set(tables.keys()),
    chain(table: string, name: string): CompiledChain | undefined {
      const key = `${table}\u0000${name}`;
      if (compiled.has(key)) return compiled.get(key);
      const source = tables.get(table);
      const parsed = source === undefined ? undefined : parsedChainOf(source, name);
      const c =
        parsed === undefined ? undefined : compileChain(table, name, parsed.policy, parsed.rules, family);
      compiled.set(key, c);
      return c;
    },
  };
}

function createCompiledState(state: RuleSet): CompiledState {
  // A parsed dump (each table once, as iptables-save prints it) is read chain by chain.
  const names = new Set(state.tables.map((t) => t.name));
  if (names.size === state.tables.length && state.tables.every(isDeferredTable))
    return createParsedCompiledState(state);
  const family = state.family;
  // Where each chain's rules are, found now (one pass); canonicalized per chain on first use.
  const raw = new Map<string, Map<string, RawChain>>();
  for (const table of state.tables) {
    let chains = raw.get(table.name);
    if (chains === undefined) {
      chains = new Map();
      raw.set(table.name, chains);
    }
    const entries = table.entries;
    // The chains in declaration order: their runs of rules nearly always come in that order
    // too (as iptables-save prints them), so the next one is tried before the map (a
    // 10,000-service nat table holds ~320,000 rules in ~110,000 chains).
    const declared: RawChain[] = [];
    const names: string[] = [];
    for (const decl of table.chains) {
      if (chains.has(decl.name)) continue;
      const c: RawChain = { policy: decl.policy, entries, runs: [], index: declared.length };
      chains.set(decl.name, c);
      declared.push(c);
      names.push(decl.name);
    }
    let next = 0;
    let name: string | undefined;
    let c: RawChain | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as Entry;
      if (entry.kind !== "rule" || entry.op !== "-A") continue;
      if (entry.chain !== name || c === undefined) {
        const chain = entry.chain;
        name = chain;
        if (next < names.length && names[next] === chain) c = declared[next++] as RawChain;
        else {
          c = chains.get(chain);
          if (c === undefined) {
            c = { policy: null, entries, runs: [], index: -1 };
            chains.set(chain, c);
          } else if (c.index >= 0) next = c.index + 1;
        }
        c.runs.push(i, i + 1);
      } else c.runs[c.runs.length - 1] = i + 1;
    }
  }
  const compiled = new Map<string, CompiledChain>();
  return {
    family,
    tables: new Set(raw.keys()),
    chain(table: string, name: string): CompiledChain | undefined {
      const key = `${table}\u0000${name}`;
      let c = compiled.get(key);
      if (c !== undefined) return c;
      const source = raw.get(table)?.get(name);
      if (source === undefined) return undefined;
      c = compileChain(table, name, source.policy, rulesOf(source), family);
      compiled.set(key, c);
      return c;
    },
  };
}
