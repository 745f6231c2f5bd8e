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
import { TextRuns } from "./text-runs.js";

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

/**
 * One chain of the table being printed: its last declaration (a built-in chain's policy and
 * counters), its rules' save lines as runs of text, and the first problem among its rules.
 */
class ChainText extends TextRuns {
  declaration: ChainDeclaration | null = null;
  problem: KubeIptablesError | null = null;
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
  const chains = new Map<string, ChainText>();
  const chainOf = (name: string): ChainText => {
    let chain = chains.get(name);
    if (chain === undefined) {
      chain = new ChainText();
      chains.set(name, chain);
    }
    return chain;
  };
  for (const d of table.chains) chainOf(d.name).declaration = d;

  const backend = options?.backend ?? "nft";
  const withCounters = options?.counters === true;
  const lines: string[] = [];
  let run: ChainText | null = null;
  let runName = "";
  let head = "";
  const endRun = (): void => {
    if (run !== null && lines.length > 0) {
      lines.push("");
      run.add(lines.join("\n"));
    }
    lines.length = 0;
  };
  const entries = table.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Table["entries"][number];
    if (e.kind !== "rule" || e.op !== "-A" || e.index !== undefined) throw notAState(e);
    if (run === null || e.chain !== runName) {
      endRun();
      runName = e.chain;
      run = chainOf(runName);
      head = `-A ${runName}`;
    }
    if (run.problem === null) run.problem = printRule(lines, e, head, family, backend, withCounters);
  }
  endRun();

  const names: string[] = [];
  const user: ChainText[] = [];
  for (const [name, chain] of chains) {
    if (builtins.includes(name)) continue;
    names.push(name);
    user.push(chain);
  }
  sortByChainName(names, user);
  let text = `*${table.name}\n`;
  for (const name of builtins) {
    const d = chains.get(name)?.declaration;
    const c = d?.counters;
    text += `:${name} ${d?.policy ?? "ACCEPT"} [${c === undefined ? "0:0" : `${c.packets}:${c.bytes}`}]\n`;
  }
  out.push(text);
  if (names.length > 0) out.push(`:${names.join(" - [0:0]\n:")} - [0:0]\n`);
  for (const name of builtins) {
    const chain = chains.get(name);
    if (chain !== undefined) pushRuns(out, chain);
  }
  for (let i = 0; i < user.length; i++) pushRuns(out, user[i] as ChainText);
  out.push("COMMIT\n");
}

/** Pushes a chain's runs, or throws its problem. */
function pushRuns(out: string[], chain: ChainText): void {
  if (chain.problem !== null) throw chain.problem;
  chain.pushTo(out);
}

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
