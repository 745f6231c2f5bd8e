/**
 * The canonical order kube-proxy's own unit tests compare payloads in (§16 of the spec,
 * `sortIPTablesRules` in `proxier_test.go`). Real kube-proxy walks Go maps, so the upstream tests
 * sort before comparing; this reproduces that order so that the spec's worked examples (§17) can
 * be compared byte for byte with `formatRestore(canonicalSort(rules))`.
 *
 * @module
 */
import type { ChainCommand, ChainDeclaration, Entry, Rule, RuleSet, Table } from "../../ir/types.js";

const LAST_RULE_MARKER = "must be the last rule";

/** Chain order of the upstream tests: KUBE-NODEPORTS, KUBE-SERVICES, other KUBE-*, then the rest. */
function compareChains(a: string, b: string): number {
  const ra = chainRank(a);
  const rb = chainRank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function chainRank(name: string): number {
  if (name === "KUBE-NODEPORTS") return 0;
  if (name === "KUBE-SERVICES") return 1;
  return name.startsWith("KUBE-") ? 2 : 3;
}

/** The comment's value up to the first space or `:` (`ns2/svc2:p80 cluster IP` → `ns2/svc2`). */
function serviceNameOf(rule: Rule): string {
  const args = rule.args;
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] === "--comment") {
      const text = args[i + 1] as string;
      let end = text.length;
      for (let j = 0; j < text.length; j++) {
        if (text[j] === " " || text[j] === ":") {
          end = j;
          break;
        }
      }
      return text.slice(0, end);
    }
  }
  return "";
}

function hasLastMarker(rule: Rule): boolean {
  for (const arg of rule.args) if (arg.includes(LAST_RULE_MARKER)) return true;
  return false;
}

/** Stable sort by service name; in nat KUBE-SERVICES the "must be the last rule" rule goes last. */
function sortChainRules(table: string, chain: string, rules: Rule[]): Rule[] {
  const byService =
    chain === "KUBE-NODEPORTS" || (chain === "KUBE-SERVICES" && (table === "filter" || table === "nat"));
  if (!byService) return rules;
  const keyed = rules.map((rule, index) => ({
    rule,
    index,
    key: serviceNameOf(rule),
    last: table === "nat" && hasLastMarker(rule),
  }));
  keyed.sort((x, y) => {
    if (x.last !== y.last) return x.last ? 1 : -1;
    if (x.key !== y.key) return x.key < y.key ? -1 : 1;
    return x.index - y.index;
  });
  return keyed.map((k) => k.rule);
}

function sortTable(table: Table): Table {
  const declared = new Map<string, ChainDeclaration>();
  for (const decl of table.chains) if (!declared.has(decl.name)) declared.set(decl.name, decl);
  const rulesByChain = new Map<string, Rule[]>();
  const deleted: string[] = [];
  for (const entry of table.entries) {
    if (entry.kind === "chain") {
      if (entry.op === "-X") deleted.push(entry.chain);
      continue;
    }
    // Generated payloads hold no policy commands; the upstream sort knows only rules and -X.
    if (entry.kind !== "rule") continue;
    let list = rulesByChain.get(entry.chain);
    if (list === undefined) {
      list = [];
      rulesByChain.set(entry.chain, list);
    }
    list.push(entry);
  }
  const names = new Set<string>([...declared.keys(), ...rulesByChain.keys()]);
  const order = [...names].sort(compareChains);
  const chains: ChainDeclaration[] = [];
  for (const name of order) {
    const decl = declared.get(name);
    if (decl !== undefined) chains.push(decl);
  }
  const entries: Entry[] = [];
  for (const name of order) {
    const rules = rulesByChain.get(name);
    if (rules !== undefined) for (const rule of sortChainRules(table.name, name, rules)) entries.push(rule);
  }
  for (const chain of deleted.sort(compareChains))
    entries.push({ kind: "chain", op: "-X", chain } satisfies ChainCommand);
  return { name: table.name, chains, entries };
}

/**
 * Reorders a payload the way kube-proxy's unit tests do before comparing (§16): tables by name;
 * chains KUBE-NODEPORTS, KUBE-SERVICES, other `KUBE-*`, others (each group by name); rules
 * grouped by chain, in their order, except that KUBE-NODEPORTS and filter/nat KUBE-SERVICES are
 * stably sorted by the service name in their comment (the "must be the last rule" rule stays
 * last in nat); `-X` lines after all rules.
 *
 * @example
 * formatRestore(canonicalSort(generateRules(model))).startsWith("*filter\n:KUBE-NODEPORTS - [0:0]\n") // true
 */
export function canonicalSort(ruleSet: RuleSet): RuleSet {
  const tables = [...ruleSet.tables]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(sortTable);
  return { family: ruleSet.family, tables };
}
