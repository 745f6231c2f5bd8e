/**
 * The `iptables-save` emitter: prints a state RuleSet exactly as `iptables-save` prints each
 * table (spec §1), without the `#` header and footer lines.
 *
 * @module
 */

import { KubeIptablesError } from "../../errors.js";
import type { Backend } from "../../ir/canonical-types.js";
import { sortByChainName } from "../../ir/chain-sort.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type IPFamily,
  type Rule,
  type RuleSet,
  type Table,
} from "../../ir/types.js";
import { canonicalizeRuleOnce, formatCanonicalRule } from "../canonical/canonicalize.js";
import { canonicalSaveLines, expandedSaveLines } from "../shape/general.js";
import { matchSaveLine } from "../shape/match.js";

/**
 * Options of {@link formatSave}.
 *
 * @example
 * formatSave(generateState(model), { backend: "legacy" }); // as iptables-legacy-save prints it
 */
export interface FormatSaveOptions {
  /** Only these tables (`iptables-save -t`); a listed table the state lacks prints its empty built-ins. */
  readonly tables?: readonly string[];
  /** `iptables-save -c`: prefix every rule with `[packets:bytes] `. */
  readonly counters?: boolean;
  /** Backend to imitate where nft and legacy print differently (spec §12); default `"nft"`. */
  readonly backend?: Backend;
}

const ZERO_COUNTERS = { packets: 0n, bytes: 0n } as const;

/**
 * One rule's lines as `iptables-save` prints them, through the canonicalizer: one line, or one
 * per address of a comma list in `-s`/`-d`.
 *
 * @param chain - The rule's chain.
 * @param args - Its specification, as in `Rule.args`.
 * @param family - The rule set's family.
 * @param canonicalOptions - The backend to imitate.
 * @returns The lines, without newlines.
 * @throws KubeIptablesError when iptables would refuse the rule.
 * @example
 * saveLinesOfRule("X", ["-s", "10.0.0.1,10.0.0.2", "-j", "DROP"], "IPv4", { backend: "nft" })
 * // ["-A X -s 10.0.0.1/32 -j DROP", "-A X -s 10.0.0.2/32 -j DROP"]
 */
export function saveLinesOfRule(
  chain: string,
  args: readonly string[],
  family: IPFamily,
  canonicalOptions: { readonly backend: Backend },
): string[] {
  return canonicalSaveLines(chain, args, family, canonicalOptions.backend);
}

/**
 * Prints one rule onto `lines`: rules in kube-proxy's shapes (nearly all of a generated state,
 * and of a node's dump) from their derived save layout, the rest through the canonicalizer.
 * Returns the problem of a rule iptables would refuse.
 */
function printRule(
  lines: string[],
  rule: Rule,
  head: string,
  family: IPFamily,
  backend: Backend,
  withCounters: boolean,
): KubeIptablesError | null {
  const counters = withCounters ? (rule.counters ?? ZERO_COUNTERS) : undefined;
  const args = rule.args;
  const line = matchSaveLine(
    counters === undefined ? head : `[${counters.packets}:${counters.bytes}] ${head}`,
    args,
    0,
    args.length,
    family,
    backend,
  );
  if (line !== null) {
    lines.push(line);
    return null;
  }
  // Not memoized: a state is printed once, and the memo would keep every canonical rule alive.
  const c = canonicalizeRuleOnce(rule, family, { backend });
  if (c.ok) {
    lines.push(formatCanonicalRule(rule.chain, c.rule, counters));
    return null;
  }
  try {
    for (const one of expandedSaveLines(rule.chain, args, c, family, backend, counters)) lines.push(one);
  } catch (error) {
    if (error instanceof KubeIptablesError) return error;
    throw error;
  }
  return null;
}

function notAState(entry: Table["entries"][number]): KubeIptablesError {
  return new KubeIptablesError([
    {
      code: "PARSE",
      path: "",
      message: `formatSave prints a state (only -A rules); apply "${entry.op} ${entry.chain}" with applyRestore first`,
      severity: "error",
    },
  ]);
}

/**
 * Pushes one table's text onto `out`. The rules are printed in the order they are held (each
 * run of one chain's rules into one string), and the runs then placed in iptables-save's chain
 * order: printing a 10k-service state rule by rule in sorted chain order visits its ~320,000
 * rule objects all over the heap, which cost more than the printing. A problem is thrown for the
 * first bad rule in the printed order, as printing in that order would.
 */
function pushTable(
  out: string[],
  table: Table,
  family: IPFamily,
  options: FormatSaveOptions | undefined,
): void {
  const builtins = BUILTIN_CHAINS[table.name] ?? [];
  const runs = printRuns(table, family, options);
  const chains = chainsOfRuns(table, runs.names, builtins);

  let text = `*${table.name}\n`;
  for (const name of builtins) {
    const d = chains.builtinDeclarations.get(name);
    const c = d?.counters;
    text += `:${name} ${d?.policy ?? "ACCEPT"} [${c === undefined ? "0:0" : `${c.packets}:${c.bytes}`}]\n`;
  }
  out.push(text);
  const { names, userSlots, slots } = chains;
  if (names.length > 0) out.push(`:${names.join(" - [0:0]\n:")} - [0:0]\n`);
  for (const list of chains.builtinSlots) pushRuns(out, list, runs, slots);
  for (let i = 0; i < userSlots.length; i++) pushRuns(out, userSlots[i] as number | number[], runs, slots);
  out.push("COMMIT\n");
}

/** A table's rules printed as runs: consecutive rules of one chain, in the order held. */
interface Runs {
  /** Each run's chain. */
  readonly names: string[];
  /** Each run's lines, each ending in a newline. */
  readonly texts: string[];
  /** The first problem of each run that has one (by run index). */
  readonly problems: Map<number, KubeIptablesError>;
}

function printRuns(table: Table, family: IPFamily, options: FormatSaveOptions | undefined): Runs {
  const backend = options?.backend ?? "nft";
  const withCounters = options?.counters === true;
  const names: string[] = [];
  const texts: string[] = [];
  const problems = new Map<number, KubeIptablesError>();
  const lines: string[] = [];
  let runName: string | null = null;
  let head = "";
  let problem: KubeIptablesError | null = null;
  const endRun = (): void => {
    if (runName === null) return;
    if (problem !== null) problems.set(names.length, problem);
    lines.push("");
    names.push(runName);
    texts.push(lines.join("\n"));
    lines.length = 0;
  };
  const entries = table.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Table["entries"][number];
    if (e.kind !== "rule" || e.op !== "-A" || e.index !== undefined) throw notAState(e);
    if (e.chain !== runName) {
      endRun();
      runName = e.chain;
      head = `-A ${runName}`;
      problem = null;
    }
    // After a run's first problem its other rules need not be printed: the chain is not.
    if (problem === null) problem = printRule(lines, e, head, family, backend, withCounters);
  }
  endRun();
  return { names, texts, problems };
}

/**
 * Where a table's runs go: a slot per declaration, and one per chain with rules but no
 * declaration, each holding the runs placed there in the order held (a chain declared twice
 * may hold runs in both of its slots; they are merged once sorted). Nearly every slot holds
 * one run, kept in `first` without a list of its own.
 */
class Slots {
  /** Each slot's chain. */
  readonly names: string[];
  /** Each slot's first run, -1 for none. */
  private first: Int32Array;
  /** The runs after the first, for the slots that hold more. */
  private readonly more = new Map<number, number[]>();

  constructor(names: string[]) {
    this.names = names;
    this.first = new Int32Array(names.length).fill(-1);
  }

  /** Adds a slot for a chain that was never declared. */
  addSlot(name: string): number {
    const slot = this.names.length;
    this.names.push(name);
    if (slot >= this.first.length) {
      const grown = new Int32Array(Math.max(16, slot * 2)).fill(-1);
      grown.set(this.first);
      this.first = grown;
    }
    return slot;
  }

  place(slot: number, run: number): void {
    if (this.first[slot] === -1) this.first[slot] = run;
    else {
      const more = this.more.get(slot);
      if (more === undefined) this.more.set(slot, [run]);
      else more.push(run);
    }
  }

  /**
   * Fills `into` with the runs of one slot, or of several (a chain declared more than once), in
   * the order held. A list reused from chain to chain: most chains hold a single run.
   */
  runsInto(slots: number | readonly number[], into: number[]): void {
    into.length = 0;
    if (typeof slots === "number") this.pushRunsOf(slots, into);
    else {
      for (const slot of slots) this.pushRunsOf(slot, into);
      if (slots.length > 1) into.sort((a, b) => a - b);
    }
  }

  private pushRunsOf(slot: number, into: number[]): void {
    const first = this.first[slot] as number;
    if (first === -1) return;
    into.push(first);
    const more = this.more.get(slot);
    if (more !== undefined) for (const r of more) into.push(r);
  }
}

/** The chains a table prints, in iptables-save's order, with the slots of their runs. */
interface TableChains {
  readonly slots: Slots;
  /** The last declaration of each built-in chain declared. */
  readonly builtinDeclarations: Map<string, ChainDeclaration>;
  /** The slots of each built-in chain, in the built-ins' order. */
  readonly builtinSlots: number[][];
  /** The user chains, declared or holding rules, sorted as iptables-save sorts them. */
  readonly names: string[];
  /** The slot (or, for a chain declared more than once, the slots) of each of `names`. */
  readonly userSlots: (number | number[])[];
}

/** How far past the cursor a run's chain is looked for among the declarations. */
const LOOKAHEAD = 4;

/**
 * Places each run in its chain's slot. A state's runs mostly follow its declarations (a chain's
 * rules after its declaration, one chain after the other), so a cursor over the declarations
 * places them without looking a name up (declarations without rules are skipped by a short
 * look ahead). The others (built-ins, shared chains such as KUBE-SERVICES that take a run per
 * service port, chains never declared) are looked up in a map of their names alone: a map of
 * every name costs ~0.5 µs an operation at 110,000 chains, more than printing their rules.
 */
function chainsOfRuns(table: Table, runNames: readonly string[], builtins: readonly string[]): TableChains {
  const decls = table.chains;
  const slotOfRun = new Int32Array(runNames.length);
  // Names not placed by the cursor → their first declaration (-1 until found).
  const lookedUp = new Map<string, number>();
  let cursor = 0;
  for (let r = 0; r < runNames.length; r++) {
    const name = runNames[r] as string;
    let at = -1;
    const end = Math.min(cursor + LOOKAHEAD, decls.length);
    for (let j = cursor; j < end; j++) {
      if ((decls[j] as ChainDeclaration).name === name) {
        at = j;
        break;
      }
    }
    slotOfRun[r] = at;
    if (at >= 0) cursor = at + 1;
    else lookedUp.set(name, -1);
  }
  for (const name of builtins) lookedUp.set(name, -1);
  // The first declaration of a looked-up name is its slot; a built-in's last one, its policy.
  const builtinDeclarations = new Map<string, ChainDeclaration>();
  for (let i = 0; i < decls.length; i++) {
    const d = decls[i] as ChainDeclaration;
    const slot = lookedUp.get(d.name);
    if (slot === undefined) continue;
    if (slot < 0) lookedUp.set(d.name, i);
    if (builtins.includes(d.name)) builtinDeclarations.set(d.name, d);
  }
  const slots = new Slots(decls.map((d) => d.name));
  for (const [name, slot] of lookedUp) if (slot < 0) lookedUp.set(name, slots.addSlot(name));
  for (let r = 0; r < runNames.length; r++) {
    const slot = slotOfRun[r] as number;
    slots.place(slot >= 0 ? slot : (lookedUp.get(runNames[r] as string) as number), r);
  }

  const builtinSlots: number[][] = builtins.map(() => []);
  const names: string[] = [];
  const userSlots: (number | number[])[] = [];
  const slotNames = slots.names;
  for (let i = 0; i < slotNames.length; i++) {
    const name = slotNames[i] as string;
    const builtin = builtins.indexOf(name);
    if (builtin >= 0) (builtinSlots[builtin] as number[]).push(i);
    else {
      names.push(name);
      userSlots.push(i);
    }
  }
  sortByChainName(names, userSlots);
  mergeRepeatedNames(names, userSlots);
  return { slots, builtinDeclarations, builtinSlots, names, userSlots };
}

/**
 * Folds a chain declared more than once (side by side once sorted) into one entry holding all
 * its slots: the cursor may place runs at a later declaration of a name.
 */
function mergeRepeatedNames(names: string[], userSlots: (number | number[])[]): void {
  let kept = 0;
  for (let i = 0; i < names.length; i++) {
    if (kept > 0 && names[kept - 1] === names[i]) {
      userSlots[kept - 1] = [userSlots[kept - 1] as number | number[], userSlots[i] as number].flat();
      continue;
    }
    names[kept] = names[i] as string;
    userSlots[kept] = userSlots[i] as number;
    kept++;
  }
  names.length = kept;
  userSlots.length = kept;
}

/** Pushes a chain's runs, or throws the first problem among them. */
function pushRuns(out: string[], chainSlots: number | readonly number[], runs: Runs, slots: Slots): void {
  slots.runsInto(chainSlots, scratchRuns);
  if (runs.problems.size > 0)
    for (const r of scratchRuns) {
      const problem = runs.problems.get(r);
      if (problem !== undefined) throw problem;
    }
  for (let i = 0; i < scratchRuns.length; i++) out.push(runs.texts[scratchRuns[i] as number] as string);
}

/** The runs of the chain being pushed (one print at a time: the callers are synchronous). */
const scratchRuns: number[] = [];

/**
 * Prints a state as `iptables-save` prints it: per table `*table`, built-in chains in hook
 * order with policy and counters, user chains sorted by byte-wise strcmp, the rules grouped by
 * chain in that order (each in canonical form), then `COMMIT`.
 *
 * @param state - What the kernel holds (see `applyRestore`): declarations and `-A` rules only.
 * @param options - Which tables, whether to print rule counters, which backend.
 * @returns The text, one line per chain or rule, ending in a newline (empty when no table).
 * @throws KubeIptablesError when a rule cannot be canonicalized or an entry is not `-A`.
 * @example
 * formatSave({ family: "IPv4", tables: [{ name: "raw", chains: [], entries: [] }] })
 * // "*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n"
 */
export function formatSave(state: RuleSet, options?: FormatSaveOptions): string {
  const out: string[] = [];
  const wanted = options?.tables;
  for (const table of state.tables) {
    if (wanted !== undefined && !wanted.includes(table.name)) continue;
    pushTable(out, table, state.family, options);
  }
  if (wanted !== undefined) {
    for (const name of wanted) {
      if (state.tables.some((t) => t.name === name)) continue;
      pushTable(out, { name, chains: [], entries: [] }, state.family, options);
    }
  }
  return out.join("");
}
