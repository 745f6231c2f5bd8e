/**
 * Two rule sets (states) → what changed, per table and chain. Rules compare by their canonical
 * text (what iptables-save prints), so a rule written in kube-proxy's order and the same rule as
 * a node's iptables-save prints it are equal.
 *
 * @module
 */

import {
  appendChainsOf,
  canonicalizeRuleOnce,
  entryOf,
  expectedMatchesOf,
  type FoundMatches,
  formatCanonicalRule,
  matchSaveLine,
  sourceLinesOf,
  type TableSourceLines,
  tokenizesTo,
} from "../iptables/index.js";
import type { IPFamily, Rule, RuleSet, Table } from "../ir/types.js";
import { isServiceChain } from "../naming/kube-chains.js";
import { commonSubsequence, type RuleList } from "./edit-script.js";
import { pinnedChains } from "./pinned-chains.js";
import {
  hasSaveText,
  hasSourceText,
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
    // Read against NEW's own text, naming no chain that text lacks: none to delete, none pinned.
    const matches = expectedMatchesOf(t);
    if (matches !== undefined && matches.chains === kept && matches.unexpected.length === 0) continue;
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
 * canonicalized). Rules in kube-proxy's shapes are printed from their derived save layout, the
 * rest by the canonicalizer. A diff asks once per rule, so the canonical form is not memoized: on a
 * node with 10,000 services that memo kept ~640,000 object graphs alive for the collector.
 */
export function canonicalKey(rule: Rule, family: IPFamily): string {
  const shaped = matchSaveLine("-A ", rule.args, 0, rule.args.length, family, "nft");
  if (shaped !== null) return shaped;
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
  // Only the kept chains' rules are read (a parsed dump builds no other: see `appendChainsOf`).
  let chain: string | undefined;
  let view: ChainView | undefined;
  let next = 0;
  const chains = appendChainsOf(table);
  for (let i = 0; i < chains.length; i++) {
    const name = chains[i] as string | null;
    if (name === null) continue;
    if (name !== chain) {
      chain = name;
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
    view?.rules.push(entryOf(table, i) as Rule);
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

/**
 * A side's chains of one table: as rules (those `keep` accepts), or as ranges of its save text
 * (`all`: every chain, `keep` is asked as they are visited, the index is not copied).
 */
type SideChains =
  | { readonly all: false; readonly chains: ReadonlyMap<string, ChainView> }
  | { readonly all: true; readonly text: string; readonly chains: ReadonlyMap<string, SavedChain> };

const NO_CHAINS: ReadonlyMap<string, SavedChain> = new Map();

function sideChains(
  state: RuleSet,
  saved: SavedText | undefined,
  table: string,
  keep: (chain: string) => boolean,
): SideChains {
  if (saved !== undefined)
    return { all: true, text: saved.text, chains: saved.tables.get(table) ?? NO_CHAINS };
  return {
    all: false,
    chains: chainsOf(
      state.tables.find((t) => t.name === table),
      keep,
    ),
  };
}

/**
 * Adds to `differ` the chains (that `keep` keeps) of one table not certainly equal between a
 * side parsed from text (see `withSourceText`) and a side of save text. A node's table holds
 * ~110,000 chains: the parsed side's are placed by the save text's index (one probe per
 * declaration, the runs of rules following the declaration order), with no map of their own.
 * A chain is equal when its rules are one run of consecutive lines, byte for byte its save
 * lines: the rules read from them are the rules those lines spell. Any other is compared rule
 * by rule.
 */
function differingRuns(
  table: Table,
  sourceOf: () => SourceText | undefined,
  sourceLines: TableSourceLines,
  savedText: string,
  saved: ReadonlyMap<string, SavedChain>,
  keep: (chain: string) => boolean,
  differ: Set<string>,
): void {
  const matches = expectedMatchesOf(table);
  if (matches !== undefined && matches.chains === saved) {
    differingMatches(matches, keep, differ);
    return;
  }
  const n = saved.size;
  // Per chain of the save text (by its index): whether the parsed side has it (declared or with
  // rules), its policy there (the last declaration's), its first rule's entry, how many rules,
  // and whether they are more than one run.
  const present = new Uint8Array(n);
  const policies: (string | null)[] = new Array<string | null>(n).fill(null);
  const first = new Int32Array(n).fill(-1);
  const count = new Int32Array(n);
  const broken = new Uint8Array(n);
  /** The parsed side's chains the save text lacks. */
  const only = new Set<string>();
  const names: string[] = [];
  const placed: number[] = [];
  for (const d of table.chains) {
    // (The save text's chains look a name up near the last one found first: a node's dump
    // declares them in the same order.)
    const at = saved.get(d.name)?.index ?? -1;
    names.push(d.name);
    placed.push(at);
    if (at < 0) only.add(d.name);
    else {
      present[at] = 1;
      policies[at] = d.policy;
    }
  }
  let next = 0;
  let chain: string | null = null;
  let at = -1;
  // The chain of each `-A` entry (a parsed dump's rules are not built for this).
  const entries = appendChainsOf(table);
  for (let i = 0; i < entries.length; i++) {
    const name = entries[i] as string | null;
    if (name === null) {
      chain = null;
      continue;
    }
    if (name !== chain) {
      chain = name;
      // The next declared chain, or one a few further on (past chains without rules).
      let j = next;
      const stop = Math.min(next + 8, names.length);
      while (j < stop && names[j] !== chain) j++;
      if (j < stop) {
        at = placed[j] as number;
        next = j + 1;
      } else {
        at = saved.get(chain)?.index ?? -1;
        if (at < 0) only.add(chain);
      }
      if (at >= 0) {
        present[at] = 1;
        if ((first[at] as number) >= 0) broken[at] = 1;
        else first[at] = i;
      }
    }
    if (at >= 0) count[at] = (count[at] as number) + 1;
  }
  const source = sourceOf() as SourceText;
  const starts = source.lineStarts;
  for (const [name, s] of saved) {
    if (!keep(name)) continue;
    const k = s.index;
    if (present[k] === 0 || policies[k] !== s.policy || count[k] !== s.count) {
      differ.add(name);
      continue;
    }
    if (s.count === 0) continue;
    const lines = sourceLines.entries;
    const from = lines[first[k] as number];
    const to = lines[(first[k] as number) + s.count - 1];
    // One run of consecutive lines (nothing between them), byte for byte the save lines.
    const same =
      broken[k] === 0 &&
      from !== undefined &&
      to !== undefined &&
      to - from === s.count - 1 &&
      (starts[to] as number) - 1 - (starts[from - 1] as number) === s.end - s.start &&
      source.text.slice(starts[from - 1], (starts[to] as number) - 1) === savedText.slice(s.start, s.end);
    if (!same) differ.add(name);
  }
  for (const name of only) if (keep(name)) differ.add(name);
}

/**
 * {@link differingRuns} for a side parsed against this very save text (`ParseOptions.expected`):
 * the parser found which of its chains' lines it read as their own, so a chain is equal when it
 * is declared with the same policy, one run of its lines was read as the save text's, and it has
 * no other rule. A chain the parser read as usual is compared rule by rule (it may still be equal).
 */
function differingMatches(
  matches: FoundMatches,
  keep: (chain: string) => boolean,
  differ: Set<string>,
): void {
  const saved = matches.chains;
  const { ids, counts, matched, policies } = matches;
  for (let k = 0; k < saved.size; k++) {
    const s = saved.chains[k] as SavedChain;
    const id = ids[k] as number;
    // (A chain with rules but no declaration is compared rule by rule.)
    const same =
      id >= 0 && policies[k] === s.policy && counts[id] === s.count && (s.count === 0 || matched[k] === 1);
    // Only a chain that may differ is asked whether it is compared at all.
    if (!same && keep(saved.names[k] as string)) differ.add(saved.names[k] as string);
  }
  for (const name of matches.others) if (keep(name)) differ.add(name);
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
 * Whether one chain is certainly equal on both sides, one of them save text and the other rules
 * or parsed text (false: compare it rule by rule).
 */
function sameChain(
  chain: string,
  a: SideChains,
  before: ChainView | SavedChain,
  b: SideChains,
  after: ChainView | SavedChain,
): boolean {
  if (before.policy !== after.policy) return false;
  if (b.all) return linesSpell(b.text, after as SavedChain, chain, (before as ChainView).rules);
  if (a.all) return linesSpell(a.text, before as SavedChain, chain, (after as ChainView).rules);
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
    const differ = new Set<string>();
    // A side parsed from text against a side of save text: by the bytes of their lines.
    const parsed = oldText === undefined ? oldState : newText === undefined ? newState : null;
    // (Its line starts are found only if a chain is compared by the bytes of its lines.)
    const source = parsed === null || !hasSourceText(parsed) ? undefined : () => sourceTextOf(parsed);
    const table = parsed?.tables.find((t) => t.name === name);
    const lines = table === undefined ? undefined : sourceLinesOf(table);
    const savedText = (oldText ?? newText) as SavedText;
    if (source !== undefined && table !== undefined && lines !== undefined) {
      const saved = savedText.tables.get(name) ?? NO_CHAINS;
      differingRuns(table, source, lines, savedText.text, saved, keep, differ);
    } else {
      const a = sideChains(oldState, oldText, name, keep);
      const b = sideChains(newState, newText, name, keep);
      const aChains: ReadonlyMap<string, ChainView | SavedChain> = a.chains;
      const bChains: ReadonlyMap<string, ChainView | SavedChain> = b.chains;
      for (const [chain, after] of bChains) {
        if (b.all && !keep(chain)) continue;
        const before = a.all && !keep(chain) ? undefined : aChains.get(chain);
        if (before === undefined || !sameChain(chain, a, before, b, after)) differ.add(chain);
      }
      for (const chain of aChains.keys()) {
        if (a.all && !keep(chain)) continue;
        if (!bChains.has(chain) || (b.all && !keep(chain))) differ.add(chain);
      }
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
