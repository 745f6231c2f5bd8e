// Structural checks on rule sets, shared by the property tests and the injection fuzzer. Each
// returns a list of violations (empty when the rule set is fine), so a failing property prints
// every broken rule at once instead of the first assertion that tripped.
import type { Rule, RuleSet } from "../../src/index.js";
import { canonicalizeRuleCached, formatCanonicalRule } from "../../src/iptables/canonical/canonicalize.js";
import { BUILTIN_CHAINS } from "../../src/ir/types.js";

/**
 * Targets kube-proxy's rules may use besides user chains. Deliberately narrower than what
 * iptables accepts: a LOG or CT target in our output would be a bug, not an extension.
 */
const BUILTIN_TARGETS: ReadonlySet<string> = new Set(["ACCEPT", "DROP", "RETURN", "MARK", "REJECT"]);
/** Targets the kernel accepts only in the nat table. */
const NAT_TARGETS: ReadonlySet<string> = new Set(["DNAT", "SNAT", "MASQUERADE"]);
/** Chains that only make sense when something jumps to them. */
export const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP)-/;

/** The `-A`/`-I` rules of a rule set, with their table. */
function* rulesOf(ruleSet: RuleSet): Generator<{ table: string; rule: Rule }> {
  for (const table of ruleSet.tables) {
    for (const entry of table.entries) if (entry.kind === "rule") yield { table: table.name, rule: entry };
  }
}

/** The canonical form of a rule (memoized per rule object); throws when iptables would refuse it. */
function canonicalOf(rule: Rule, ruleSet: RuleSet) {
  const c = canonicalizeRuleCached(rule, ruleSet.family);
  if (!c.ok) throw new Error(`-A ${rule.chain} ${rule.args.join(" ")}: ${c.message}`);
  return c.rule;
}

/** The chain or target a rule jumps or goes to, or null (as the kernel reads the argv). */
export function targetOf(rule: Rule, ruleSet: RuleSet): string | null {
  return canonicalOf(rule, ruleSet).target?.name ?? null;
}

/**
 * Every `-j`/`-g` target that is neither a target kube-proxy uses (NAT ones only in nat) nor a
 * chain declared in the same table (built-in chains count as declared).
 */
export function danglingTargets(ruleSet: RuleSet): string[] {
  const out: string[] = [];
  for (const table of ruleSet.tables) {
    const declared = new Set([...(BUILTIN_CHAINS[table.name] ?? []), ...table.chains.map((c) => c.name)]);
    const builtins = new Set(BUILTIN_CHAINS[table.name] ?? []);
    for (const entry of table.entries) {
      if (entry.kind !== "rule") continue;
      const target = targetOf(entry, ruleSet);
      if (target === null || BUILTIN_TARGETS.has(target)) continue;
      if (NAT_TARGETS.has(target) && table.name === "nat") continue;
      // A jump to a built-in chain is refused by iptables, so it does not count as declared.
      if (declared.has(target) && !builtins.has(target)) continue;
      out.push(`${table.name}: ${entry.op} ${entry.chain} … -j ${target}`);
    }
  }
  return out;
}

/**
 * Per-service chains (KUBE-SVC/SVL/EXT/FW/SEP) that no path from a built-in chain (or one of
 * `extraRoots`) reaches.
 */
export function unreachableServiceChains(ruleSet: RuleSet, extraRoots: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const table of ruleSet.tables) {
    const edges = new Map<string, string[]>();
    for (const { rule } of rulesOf({ family: ruleSet.family, tables: [table] })) {
      const target = targetOf(rule, ruleSet);
      if (target === null) continue;
      const list = edges.get(rule.chain) ?? [];
      list.push(target);
      edges.set(rule.chain, list);
    }
    const seen = new Set<string>([...(BUILTIN_CHAINS[table.name] ?? []), ...extraRoots]);
    const queue = [...seen];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const target of edges.get(next) ?? []) {
        if (seen.has(target)) continue;
        seen.add(target);
        queue.push(target);
      }
    }
    for (const chain of table.chains) {
      if (SERVICE_CHAIN.test(chain.name) && !seen.has(chain.name)) out.push(`${table.name}: ${chain.name}`);
    }
  }
  return out;
}

/**
 * A rule set as comparable data: per table, the declared chains (sorted, with policy) and per
 * chain the rules in canonical (iptables-save) text, in order. Table order and the order of
 * rules across chains are not compared, since iptables-save regroups rules by chain.
 */
export function canonicalView(
  ruleSet: RuleSet,
): Record<string, { chains: string[]; rules: Record<string, string[]> }> {
  const view: Record<string, { chains: string[]; rules: Record<string, string[]> }> = {};
  for (const table of ruleSet.tables) {
    const rules: Record<string, string[]> = {};
    for (const entry of table.entries) {
      const key = `${entry.op} ${entry.chain}`;
      const text =
        entry.kind === "rule" ? formatCanonicalRule(entry.chain, canonicalOf(entry, ruleSet)) : key;
      const list = rules[entry.chain] ?? [];
      list.push(entry.kind === "rule" ? `${entry.op}${text.slice(2)}` : text);
      rules[entry.chain] = list;
    }
    // Sorted keys, so that JSON.stringify of two equal views is equal too.
    const sorted: Record<string, string[]> = {};
    for (const chain of Object.keys(rules).sort()) sorted[chain] = rules[chain] as string[];
    view[table.name] = {
      chains: table.chains.map((c) => `${c.name} ${c.policy ?? "-"}`).sort(),
      rules: sorted,
    };
  }
  const ordered: typeof view = {};
  for (const name of Object.keys(view).sort()) ordered[name] = view[name] as (typeof view)[string];
  return ordered;
}

/** Number of `-A` rules in each `table/chain`, for "no extra or missing line" checks. */
export function ruleCounts(ruleSet: RuleSet): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { table, rule } of rulesOf(ruleSet)) {
    const key = `${table}/${rule.chain}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every `--comment` value of a rule's argv. */
export function commentsOf(rule: Rule): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rule.args.length; i++)
    if (rule.args[i] === "--comment") out.push(rule.args[i + 1] as string);
  return out;
}

/**
 * The statistic stored value k (probability k / 2^31) of every rule in `chain` that picks an
 * endpoint (jumps to a KUBE-SEP chain without a `recent` match), in order; an unconditional
 * last rule counts as 2^31.
 */
export function endpointPicks(ruleSet: RuleSet, table: string, chain: string): { sep: string; k: number }[] {
  const out: { sep: string; k: number }[] = [];
  for (const t of ruleSet.tables) {
    if (t.name !== table) continue;
    for (const entry of t.entries) {
      if (entry.kind !== "rule" || entry.chain !== chain) continue;
      const c = canonicalOf(entry, ruleSet);
      const sep = c.target?.name ?? "";
      if (!sep.startsWith("KUBE-SEP-") || c.matches.some((m) => m.kind === "recent")) continue;
      const stat = c.matches.find((m) => m.kind === "statistic");
      out.push({ sep, k: stat === undefined ? 2 ** 31 : stat.probability });
    }
  }
  return out;
}
