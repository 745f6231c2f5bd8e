/**
 * Two rule sets (states) → what changed, per table and chain. Rules compare by their canonical
 * text (what iptables-save prints), so a rule written in kube-proxy's order and the same rule as
 * a node's iptables-save prints it are equal.
 *
 * @module
 */

import { tokenizesTo } from "../format/tokenize.js";
import { isServiceChain } from "../generate/rules.js";
import { canonicalizeRuleOnce, formatCanonicalRule } from "../ir/canonical.js";
import { quickSaveLine } from "../ir/save-quick.js";
import { sourceLinesOf } from "../ir/state.js";
import type { Entry, IPFamily, Rule, RuleSet, Table } from "../ir/types.js";
import { commonSubsequence, type RuleList } from "./edit-script.js";
import { pinnedChains } from "./pinned-chains.js";
import {
  hasSaveText,
  type SavedChain,
  type SavedText,
  type SourceText,
  savedTextOf,
  sourceTextOf,
} from "./saved-state.js";

/**
 * What changed in one chain present on both sides (or added, or removed).
 *
 * @example
 * const chain = diffRules(before, after).tables[0]?.chains[0];
 * chain?.status     // "changed"
 * chain?.addedRules // the rules NEW has and OLD lacks, e.g. [{ kind: "rule", op: "-A", chain: "KUBE-SVC-…", args: […] }]
 */
export interface ChainDiff {
  /** The chain. */
  readonly chain: string;
  /** `added`: only in NEW; `removed`: only in OLD; `changed`: in both, rules differ. */
  readonly status: "added" | "removed" | "changed";
  /** OLD's policy and NEW's, when a built-in chain's policy changed. */
  readonly policy?: {
    /** OLD's policy (`ACCEPT`, `DROP`), or `null` when OLD does not declare the chain. */
    readonly old: string | null;
    /** NEW's policy, or `null` when NEW does not declare the chain. */
    readonly new: string | null;
  };
  /** Rules of NEW not kept from OLD. */
  readonly addedRules: readonly Rule[];
  /** Rules of OLD not kept in NEW. */
  readonly removedRules: readonly Rule[];
  /** Whether rules present on both sides changed their relative order. */
  readonly reordered: boolean;
  /** OLD's rules with their canonical keys (empty for an added chain). */
  readonly old: RuleList;
  /** NEW's rules with their canonical keys (empty for a removed chain). */
  readonly new: RuleList;
}

/**
 * What changed in one table.
 *
 * @example
 * const nat = diffRules(before, after).tables.find((t) => t.name === "nat");
 * nat?.chainsAdded // ["KUBE-SEP-…", "KUBE-SVC-…"]
 */
export interface TableDiff {
  /** The table. */
  readonly name: string;
  /** Chains only in NEW, in NEW's order. */
  readonly chainsAdded: readonly string[];
  /** Chains only in OLD, in OLD's order. */
  readonly chainsRemoved: readonly string[];
  /** Every chain that differs (added, removed or changed), in NEW's order then OLD's. */
  readonly chains: readonly ChainDiff[];
}

/**
 * What changed between two rule sets.
 *
 * @example
 * const diff = diffRules(generateState(oldModel), generateState(newModel));
 * diff.tables.map((t) => `${t.name}: +${t.chainsAdded.length} -${t.chainsRemoved.length}`) // ["filter: +0 -0", "nat: +2 -0"]
 * formatDelta(diff); // the iptables-restore --noflush delta
 */
export interface RuleSetDiff {
  /** The family. */
  readonly family: IPFamily;
  /** Tables with a difference. */
  readonly tables: readonly TableDiff[];
}

/**
 * Options of {@link diffRules}.
 *
 * @example
 * // Compare only kube-proxy's own chains of a node's dump:
 * diffRules(parseRulesOrThrow(dump), generateState(model), { chains: isKubeProxyChain });
 */
export interface DiffOptions {
  /** Compare only the chains for which this returns true (others are left alone). */
  readonly chains?: (table: string, chain: string) => boolean;
}

/** A per-service chain (always in nat), a node's stale ones included. */
function isServicePortChain(table: string, chain: string): boolean {
  return table === "nat" && isServiceChain(chain);
}
const FIXED = {
  filter: new Set([
    "KUBE-SERVICES",
    "KUBE-EXTERNAL-SERVICES",
    "KUBE-FORWARD",
    "KUBE-NODEPORTS",
    "KUBE-PROXY-FIREWALL",
    "KUBE-FIREWALL",
  ]),
  nat: new Set(["KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"]),
} as const;

/**
 * Whether kube-proxy (iptables mode) owns a chain: its fixed filter and nat chains and its
 * per-service chains. Built-in chains and other KUBE-* chains (kubelet's canaries) are not its.
 *
 * @example
 * isKubeProxyChain("nat", "KUBE-SEP-ABC") // true
 * isKubeProxyChain("filter", "INPUT")     // false
 */
export function isKubeProxyChain(table: string, chain: string): boolean {
  if (isServicePortChain(table, chain)) return true;
  return (table === "filter" || table === "nat") && FIXED[table].has(chain);
}

/**
 * The chains kube-proxy owns on a node where it writes `payload` (restore form, as
 * `generateRules` returns it): {@link isKubeProxyChain}'s chains that the payload declares, plus
 * every per-service chain (a node's stale ones included). A fixed chain the payload does not
 * declare belongs to another component there: kubelet fills `KUBE-FIREWALL` where kube-proxy
 * does not write it (IPv6, older profiles, `localhostNodePorts: false`).
 *
 * @example
 * diffRules(nodeDump, generateState(model), { chains: kubeProxyChainsOf(generateRules(model)) })
 */
export function kubeProxyChainsOf(payload: RuleSet): (table: string, chain: string) => boolean {
  const declared = new Set<string>();
  for (const table of payload.tables)
    for (const d of table.chains) declared.add(`${table.name}\u0000${d.name}`);
  return kubeProxyChainsOfDeclared(declared);
}

/**
 * {@link kubeProxyChainsOf} from the chains a payload declares, each as `table NUL chain`.
 *
 * @example
 * kubeProxyChainsOfDeclared(new Set(["filter\u0000KUBE-FIREWALL"]))("filter", "KUBE-FIREWALL") // true
 */
export function kubeProxyChainsOfDeclared(
  declared: ReadonlySet<string>,
): (table: string, chain: string) => boolean {
  return (table, chain) =>
    isServicePortChain(table, chain) ||
    (isKubeProxyChain(table, chain) && declared.has(`${table}\u0000${chain}`));
}

/** The chains a state's table declares (from its save text when it has one: no rules built). */
function chainNamesOf(state: RuleSet, table: string): { has(chain: string): boolean } {
  const saved = savedTextOf(state);
  if (saved !== undefined) return saved.tables.get(table) ?? new Set();
  return new Set(state.tables.find((n) => n.name === table)?.chains.map((c) => c.name));
}

/**
 * `chains` (a {@link DiffOptions} filter) without the chains OLD holds and NEW lacks that a rule
 * outside `chains` still jumps to: the delta leaves those rules, and `-X` of a chain a rule still
 * references fails (EBUSY), and the whole `iptables-restore` with it. On a node, a Docker or CNI
 * rule that jumps to a stale `KUBE-SVC-…` chain keeps it (and the chains it reaches).
 *
 * @example
 * diffRules(nodeDump, desired, { chains: sparingReferenced(nodeDump, desired, isKubeProxyChain) })
 */
export function sparingReferenced(
  oldState: RuleSet,
  newState: RuleSet,
  chains: (table: string, chain: string) => boolean,
): (table: string, chain: string) => boolean {
  const pinned = new Map<string, Set<string>>();
  for (const t of oldState.tables) {
    const kept = chainNamesOf(newState, t.name);
    const compared = (chain: string): boolean => chains(t.name, chain);
    const set = pinnedChains(
      t,
      (chain) => compared(chain) && kept.has(chain),
      (chain) => compared(chain) && !kept.has(chain),
    );
    if (set.size > 0) pinned.set(t.name, set);
  }
  if (pinned.size === 0) return chains;
  return (table, chain) => chains(table, chain) && pinned.get(table)?.has(chain) !== true;
}

/**
 * The canonical key of a rule: its iptables-save text without the chain (argv if it cannot be
 * canonicalized). Rules in kube-proxy's shapes are printed by the quick save printer, the rest
 * by the canonicalizer. A diff asks once per rule, so the canonical form is not memoized: on a
 * node with 10,000 services that memo kept ~640,000 object graphs alive for the collector.
 */
export function canonicalKey(rule: Rule, family: IPFamily): string {
  const quick = quickSaveLine("", rule.args, 0, rule.args.length, family);
  if (quick !== null) return quick;
  const c = canonicalizeRuleOnce(rule, family);
  return c.ok ? formatCanonicalRule("", c.rule) : `\u0000${rule.args.join(" ")}`;
}

interface ChainView {
  readonly policy: string | null;
  readonly rules: Rule[];
  /** Its place among the declared chains (-1: not declared, only reached by rules). */
  index: number;
  /** Found on the other side too (set by `diffRules`). */
  matched: boolean;
}

/**
 * The chains of `table` that `keep` accepts, with their rules. A node's table holds ~110,000
 * chains, and each probe of a map that size is a few cache misses: the rules are matched to their
 * chain by position where they can be, one probe per run of rules only when the order breaks.
 */
function chainsOf(table: Table | undefined, keep: (chain: string) => boolean): Map<string, ChainView> {
  const out = new Map<string, ChainView>();
  if (table === undefined) return out;
  for (const d of table.chains) {
    if (keep(d.name)) out.set(d.name, { policy: d.policy, rules: [], index: -1, matched: false });
  }
  // Declaration order (a chain declared twice keeps its first place and its last policy).
  const declared = [...out.values()];
  const names = [...out.keys()];
  for (let i = 0; i < declared.length; i++) (declared[i] as ChainView).index = i;
  // A chain's rules come in one run (as iptables-save prints them), runs nearly always in the
  // order the chains were declared: the next declared chain is tried before the map.
  let chain: string | undefined;
  let view: ChainView | undefined;
  let next = 0;
  for (const e of table.entries) {
    if (e.kind !== "rule" || e.op !== "-A") continue;
    if (e.chain !== chain) {
      chain = e.chain;
      if (next < names.length && names[next] === chain) {
        view = declared[next++];
      } else {
        view = out.get(chain);
        if (view === undefined && keep(chain)) {
          view = { policy: null, rules: [], index: -1, matched: false };
          out.set(chain, view);
        } else if (view !== undefined && view.index >= 0) {
          next = view.index + 1;
        }
      }
    }
    view?.rules.push(e);
  }
  return out;
}

function listOf(rules: readonly Rule[], family: IPFamily): RuleList {
  return { rules, keys: rules.map((r) => canonicalKey(r, family)) };
}

const EMPTY: RuleList = { rules: [], keys: [] };

function countKeys(keys: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** How every key of a rule begins: `-A `, the empty chain, and the space before the arguments. */
const KEY_HEAD = "-A ";

/**
 * Whether each rule of `rules` is the one its key in `keys` was printed from, read back: a rule
 * read from a line equal to its canonical form has that form as its key (canonical text is a
 * fixed point of reading and printing). Parsing a node's dump gives exactly such rules, so a
 * chain that did not change is recognized without printing its rules again.
 */
function spelledBy(keys: readonly string[], rules: readonly Rule[]): boolean {
  if (keys.length !== rules.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // (A key that is NUL and argv, for a rule that cannot be canonicalized, is never spelled.)
    if (!key.startsWith(KEY_HEAD) || !tokenizesTo(key, KEY_HEAD.length, key.length, (rules[i] as Rule).args))
      return false;
  }
  return true;
}

function compareChain(chain: string, a: ChainView, b: ChainView, family: IPFamily): ChainDiff | null {
  const next = listOf(b.rules, family);
  const policy = a.policy !== b.policy ? { old: a.policy, new: b.policy } : undefined;
  // Most chains of two states of one node are equal: no edit script for them, and when OLD's
  // rules read as NEW's keys spell them (a node's dump against what it should hold), not even
  // OLD's keys.
  if (policy === undefined && spelledBy(next.keys, a.rules)) return null;
  const old = listOf(a.rules, family);
  if (policy === undefined && sameKeys(old.keys, next.keys)) return null;
  const kept = commonSubsequence(old.keys, next.keys);
  if (kept.length === old.keys.length && kept.length === next.keys.length && policy === undefined)
    return null;
  const keptOld = new Set(kept.map(([i]) => i));
  const keptNew = new Set(kept.map(([, j]) => j));
  const removedRules = old.rules.filter((_, i) => !keptOld.has(i));
  const addedRules = next.rules.filter((_, j) => !keptNew.has(j));
  // Reordered: the rules both sides share (as multisets) outnumber the ones kept in place.
  const oc = countKeys(old.keys);
  let shared = 0;
  for (const [k, n] of countKeys(next.keys)) shared += Math.min(n, oc.get(k) ?? 0);
  return {
    chain,
    status: "changed",
    ...(policy === undefined ? {} : { policy }),
    addedRules,
    removedRules,
    reordered: shared > kept.length,
    old,
    new: next,
  };
}

/**
 * Compares two rule sets (kernel states: declarations and `-A` rules) chain by chain.
 *
 * @param oldState - What the kernel holds.
 * @param newState - What it should hold.
 * @param options - Which chains to compare (default: all).
 * @returns Per table: chains added and removed, and per chain the rules added, removed, reordered.
 * @example
 * const d = diffRules(generateState(before), parseRulesOrThrow(nodeDump));
 * d.tables.find((t) => t.name === "nat")?.chainsAdded // ["KUBE-SEP-…"]
 */
export function diffRules(oldState: RuleSet, newState: RuleSet, options: DiffOptions = {}): RuleSetDiff {
  // A side generated from a model has its save text: against a side of rules (a node's dump)
  // most chains are seen equal on that text, and only the others are compared rule by rule
  // (building the generated side's rules, once). Two generated sides are compared by rules:
  // printing both as text would only add to that whenever anything differs.
  if (hasSaveText(oldState) === hasSaveText(newState)) return diffByRules(oldState, newState, options);
  const oldText = savedTextOf(oldState);
  const newText = savedTextOf(newState);
  const differing = differingChains(oldState, oldText, newState, newText, options.chains);
  if (differing.size === 0) return { family: newState.family, tables: [] };
  return diffByRules(oldState, newState, { chains: (t, c) => differing.get(t)?.has(c) === true });
}

/** A chain of a parsed side (see `withSourceText`): its policy and where its rules are. */
interface RunChain {
  readonly policy: string | null;
  /** Index in the table's entries of its first `-A` rule (-1: none). */
  first: number;
  /** How many `-A` rules it holds. */
  count: number;
  /** Whether they are one run of entries. */
  oneRun: boolean;
  /** Its place among the declared chains (-1: not declared). */
  index: number;
  /** Found on the other side too (set by `differingChains`). */
  matched: boolean;
}

/**
 * The chains of a parsed table and where their rules are, without a list of rules per chain:
 * one probe per run of rules, as in `chainsOf`.
 */
function runsOf(table: Table): Map<string, RunChain> {
  const out = new Map<string, RunChain>();
  // Declaration order (a chain declared twice keeps its first place and its last policy).
  for (const d of table.chains)
    out.set(d.name, { policy: d.policy, first: -1, count: 0, oneRun: true, index: -1, matched: false });
  const declared = [...out.values()];
  const names = [...out.keys()];
  for (let i = 0; i < declared.length; i++) (declared[i] as RunChain).index = i;
  let next = 0;
  let chain: string | undefined;
  let run: RunChain | undefined;
  const entries = table.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Entry;
    if (e.kind !== "rule" || e.op !== "-A") {
      chain = undefined;
      continue;
    }
    if (e.chain !== chain) {
      chain = e.chain;
      if (next < names.length && names[next] === chain) run = declared[next++] as RunChain;
      else {
        run = out.get(chain);
        if (run === undefined) {
          run = { policy: null, first: -1, count: 0, oneRun: true, index: -1, matched: false };
          out.set(chain, run);
        } else if (run.index >= 0) next = run.index + 1;
      }
      if (run.first >= 0) run.oneRun = false;
      else run.first = i;
    }
    (run as RunChain).count++;
  }
  return out;
}

/**
 * A side's chains of one table: as rules (those `keep` accepts), as ranges of its save text, or
 * as runs of the text it was parsed from (`all`: every chain, `keep` is asked as they are
 * visited, the index is not copied).
 */
type SideChains =
  | { readonly all: false; readonly chains: ReadonlyMap<string, ChainView> }
  | { readonly all: true; readonly text: string; readonly chains: ReadonlyMap<string, SavedChain> }
  | {
      readonly all: true;
      readonly source: SourceText;
      readonly lines: readonly number[];
      readonly chains: ReadonlyMap<string, RunChain>;
    };

const NO_CHAINS: ReadonlyMap<string, SavedChain> = new Map();

function sideChains(
  state: RuleSet,
  saved: SavedText | undefined,
  table: string,
  keep: (chain: string) => boolean,
): SideChains {
  if (saved !== undefined)
    return { all: true, text: saved.text, chains: saved.tables.get(table) ?? NO_CHAINS };
  const t = state.tables.find((x) => x.name === table);
  const source = sourceTextOf(state);
  const lines = t === undefined ? undefined : sourceLinesOf(t);
  if (t !== undefined && source !== undefined && lines !== undefined)
    return { all: true, source, lines: lines.entries, chains: runsOf(t) };
  return { all: false, chains: chainsOf(t, keep) };
}

/** Whether the save lines of `chain` (its `-A` lines in `text`) read as exactly `rules`. */
function linesSpell(text: string, saved: SavedChain, chain: string, rules: readonly Rule[]): boolean {
  if (saved.count !== rules.length) return false;
  let start = saved.start;
  for (let i = 0; i < rules.length; i++) {
    let end = text.indexOf("\n", start);
    if (end < 0 || end > saved.end) end = saved.end;
    // `-A CHAIN` then the arguments (none: the line ends there).
    if (!tokenizesTo(text, start + 3 + chain.length, end, (rules[i] as Rule).args)) return false;
    start = end + 1;
  }
  return true;
}

/**
 * Whether a parsed chain's lines are byte for byte the save lines of the other side's chain. The
 * rules read from them are then the rules those save lines spell; one byte apart (a counter, a
 * blank) and the chain is compared rule by rule.
 */
function runSpells(
  side: { readonly source: SourceText; readonly lines: readonly number[] },
  run: RunChain,
  text: string,
  saved: SavedChain,
): boolean {
  if (run.count !== saved.count) return false;
  if (run.count === 0) return true;
  if (!run.oneRun) return false;
  const first = side.lines[run.first];
  const last = side.lines[run.first + run.count - 1];
  // Its rules must be consecutive lines (nothing between them).
  if (first === undefined || last === undefined || last - first !== run.count - 1) return false;
  const starts = side.source.lineStarts;
  const start = starts[first - 1] as number;
  const end = (starts[last] as number) - 1;
  if (end - start !== saved.end - saved.start) return false;
  return side.source.text.slice(start, end) === text.slice(saved.start, saved.end);
}

/**
 * Whether one chain is certainly equal on both sides, one of them save text and the other rules
 * or parsed text (false: compare it rule by rule).
 */
function sameChain(
  chain: string,
  a: SideChains,
  before: ChainView | SavedChain | RunChain,
  b: SideChains,
  after: ChainView | SavedChain | RunChain,
): boolean {
  if (before.policy !== after.policy) return false;
  if ("text" in b) {
    if ("source" in a) return runSpells(a, before as RunChain, b.text, after as SavedChain);
    return linesSpell(b.text, after as SavedChain, chain, (before as ChainView).rules);
  }
  if ("text" in a) {
    if ("source" in b) return runSpells(b, after as RunChain, a.text, before as SavedChain);
    return linesSpell(a.text, before as SavedChain, chain, (after as ChainView).rules);
  }
  return false;
}

/** Per table, the chains (that `filter` keeps) not certainly equal on the two sides. */
function differingChains(
  oldState: RuleSet,
  oldText: SavedText | undefined,
  newState: RuleSet,
  newText: SavedText | undefined,
  filter: DiffOptions["chains"],
): Map<string, Set<string>> {
  const names: string[] = [];
  const add = (state: RuleSet, saved: SavedText | undefined): void => {
    for (const name of saved?.tables.keys() ?? state.tables.map((t) => t.name))
      if (!names.includes(name)) names.push(name);
  };
  add(newState, newText);
  add(oldState, oldText);
  const differing = new Map<string, Set<string>>();
  for (const name of names) {
    const keep = (chain: string): boolean => filter === undefined || filter(name, chain);
    const a = sideChains(oldState, oldText, name, keep);
    const b = sideChains(newState, newText, name, keep);
    const differ = new Set<string>();
    const aChains: ReadonlyMap<string, ChainView | SavedChain | RunChain> = a.chains;
    const bChains: ReadonlyMap<string, ChainView | SavedChain | RunChain> = b.chains;
    // `keep` is asked once per chain: on a node it runs ~200,000 times.
    for (const [chain, after] of bChains) {
      if (b.all && !keep(chain)) continue;
      // (A chain of rules was kept when its side was read.)
      const before = aChains.get(chain);
      if (before === undefined) {
        differ.add(chain);
        continue;
      }
      if ("matched" in before) before.matched = true;
      if (!sameChain(chain, a, before, b, after)) differ.add(chain);
    }
    for (const [chain, before] of aChains) {
      // A chain of rules or runs that was matched above is in both, and kept by both.
      if ("matched" in before && before.matched) continue;
      if (a.all && !keep(chain)) continue;
      if (!bChains.has(chain) || (b.all && !keep(chain))) differ.add(chain);
    }
    if (differ.size > 0) differing.set(name, differ);
  }
  return differing;
}

function diffByRules(oldState: RuleSet, newState: RuleSet, options: DiffOptions): RuleSetDiff {
  const family = newState.family;
  const filter = options.chains;
  const names: string[] = [];
  for (const t of [...newState.tables, ...oldState.tables]) if (!names.includes(t.name)) names.push(t.name);
  const tables: TableDiff[] = [];
  for (const name of names) {
    const keep = (chain: string): boolean => filter === undefined || filter(name, chain);
    const a = chainsOf(
      oldState.tables.find((t) => t.name === name),
      keep,
    );
    const b = chainsOf(
      newState.tables.find((t) => t.name === name),
      keep,
    );
    const chains: ChainDiff[] = [];
    const chainsAdded: string[] = [];
    const chainsRemoved: string[] = [];
    for (const [chain, view] of b) {
      const before = a.get(chain);
      if (before === undefined) {
        chainsAdded.push(chain);
        const list = listOf(view.rules, family);
        chains.push({
          chain,
          status: "added",
          addedRules: list.rules,
          removedRules: [],
          reordered: false,
          old: EMPTY,
          new: list,
        });
        continue;
      }
      before.matched = true;
      const d = compareChain(chain, before, view, family);
      if (d !== null) chains.push(d);
    }
    for (const [chain, view] of a) {
      if (view.matched) continue;
      chainsRemoved.push(chain);
      const list = listOf(view.rules, family);
      // Only built-in chains have a policy; one of a table NEW lacks returns to a fresh table's.
      const reset = view.policy !== null && view.policy !== "ACCEPT";
      chains.push({
        chain,
        status: "removed",
        ...(reset ? { policy: { old: view.policy, new: "ACCEPT" } } : {}),
        addedRules: [],
        removedRules: list.rules,
        reordered: false,
        old: list,
        new: EMPTY,
      });
    }
    if (chains.length > 0) tables.push({ name, chainsAdded, chainsRemoved, chains });
  }
  return { family, tables };
}
