/**
 * The `iptables-save` emitter: prints a state RuleSet exactly as `iptables-save` prints each
 * table (spec §1), without the `#` header and footer lines.
 *
 * @module
 */

import { KubeIptablesError } from "../errors.js";
import { canonicalSaveLines, expandedSaveLines } from "../iptables/shape/general.js";
import { matchSaveLine } from "../iptables/shape/match.js";
import { canonicalizeRuleOnce, formatCanonicalRule } from "../ir/canonical.js";
import type { Backend } from "../ir/canonical-types.js";
import { sortChainNames } from "../ir/chain-sort.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type IPFamily,
  type Rule,
  type RuleSet,
  type Table,
} from "../ir/types.js";

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
 * Lines per chunk: lines are joined into one string every this many, so that the per-line
 * strings die young rather than all surviving until one final join (a 10k-service state has
 * ~330,000 lines).
 */
const CHUNK_LINES = 2048;

/** The text being printed: finished chunks plus the lines of the current one. */
class SaveWriter {
  private readonly chunks: string[] = [];
  private lines: string[] = [];

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length === CHUNK_LINES) this.flush();
  }

  private flush(): void {
    if (this.lines.length === 0) return;
    this.lines.push("");
    this.chunks.push(this.lines.join("\n"));
    this.lines = [];
  }

  /** The whole text, each line ending in a newline. */
  finish(): string {
    this.flush();
    return this.chunks.join("");
  }
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
 * Prints one rule: rules in kube-proxy's shapes (nearly all of a generated state, and of a
 * node's dump) from their derived save layout, the rest through the canonicalizer.
 */
function pushRule(
  lines: SaveWriter,
  rule: Rule,
  state: RuleSet,
  backend: Backend,
  withCounters: boolean,
): void {
  const counters = withCounters ? (rule.counters ?? ZERO_COUNTERS) : undefined;
  const head =
    counters === undefined ? `-A ${rule.chain}` : `[${counters.packets}:${counters.bytes}] -A ${rule.chain}`;
  const args = rule.args;
  const line = matchSaveLine(head, args, 0, args.length, state.family, backend);
  if (line !== null) {
    lines.push(line);
    return;
  }
  // Not memoized: a state is printed once, and the memo would keep every canonical rule alive.
  const c = canonicalizeRuleOnce(rule, state.family, { backend });
  if (c.ok) {
    lines.push(formatCanonicalRule(rule.chain, c.rule, counters));
    return;
  }
  for (const one of expandedSaveLines(rule.chain, args, c, state.family, backend, counters)) lines.push(one);
}

function pushTable(
  lines: SaveWriter,
  table: Table,
  state: RuleSet,
  options: FormatSaveOptions | undefined,
): void {
  const builtins = BUILTIN_CHAINS[table.name] ?? [];
  // Declarations of built-in chains (for policy and counters); user chains need only their names.
  const declared = new Map<string, ChainDeclaration>();
  const user = new Set<string>();
  for (const d of table.chains) {
    if (builtins.includes(d.name)) declared.set(d.name, d);
    else user.add(d.name);
  }
  const byChain = new Map<string, Rule[]>();
  for (const e of table.entries) {
    if (e.kind !== "rule" || e.op !== "-A" || e.index !== undefined) {
      throw new KubeIptablesError([
        {
          code: "PARSE",
          path: "",
          message: `formatSave prints a state (only -A rules); apply "${e.op} ${e.chain}" with applyRestore first`,
          severity: "error",
        },
      ]);
    }
    let list = byChain.get(e.chain);
    if (list === undefined) {
      list = [];
      byChain.set(e.chain, list);
    }
    list.push(e);
  }
  for (const chain of byChain.keys()) if (!builtins.includes(chain)) user.add(chain);
  const order = builtins.concat(sortChainNames([...user]));

  lines.push(`*${table.name}`);
  for (const name of builtins) {
    const d = declared.get(name);
    const c = d?.counters;
    lines.push(`:${name} ${d?.policy ?? "ACCEPT"} [${c === undefined ? "0:0" : `${c.packets}:${c.bytes}`}]`);
  }
  for (const name of order) if (!builtins.includes(name)) lines.push(`:${name} - [0:0]`);
  const backend = options?.backend ?? "nft";
  const withCounters = options?.counters === true;
  for (const name of order) {
    const rules = byChain.get(name);
    if (rules === undefined) continue;
    for (let i = 0; i < rules.length; i++) pushRule(lines, rules[i] as Rule, state, backend, withCounters);
  }
  lines.push("COMMIT");
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
  const lines = new SaveWriter();
  const wanted = options?.tables;
  for (const table of state.tables) {
    if (wanted !== undefined && !wanted.includes(table.name)) continue;
    pushTable(lines, table, state, options);
  }
  if (wanted !== undefined) {
    for (const name of wanted) {
      if (state.tables.some((t) => t.name === name)) continue;
      pushTable(lines, { name, chains: [], entries: [] }, state, options);
    }
  }
  return lines.finish();
}
