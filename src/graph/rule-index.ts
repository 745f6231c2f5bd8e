/**
 * What the picture needs to find in a rule set without reading every rule: each chain's rules
 * in order with their comment and jump target, read from the argv (no canonicalization), and
 * which rules jump to a chain. Rule positions count `-A` rules per chain, as the tracer does.
 *
 * @module
 */
import type { RuleSet } from "../ir/types.js";

/** One `-A` rule, located. */
export interface IndexedRule {
  /** The table. */
  readonly table: string;
  /** The chain. */
  readonly chain: string;
  /** 1-based position among the chain's `-A` rules. */
  readonly index: number;
  /** The `--comment` value, or null. */
  readonly comment: string | null;
  /** The `-j`/`-g` target, or null. */
  readonly target: string | null;
}

/** A rule set's rules by table and chain, and the rules that jump to each chain. */
export interface RuleIndex {
  /** Chains in each table, in order of first appearance, with their rules. */
  readonly chains: ReadonlyMap<string, ReadonlyMap<string, readonly IndexedRule[]>>;
  /** The rules that jump (or go) to a chain: key `table chain`. */
  readonly jumpsTo: ReadonlyMap<string, readonly IndexedRule[]>;
}

/**
 * The key of a chain in {@link RuleIndex.jumpsTo} (and a chain node's id).
 *
 * @example
 * chainKey("nat", "KUBE-SERVICES") // "nat KUBE-SERVICES"
 */
export function chainKey(table: string, chain: string): string {
  return `${table} ${chain}`;
}

function valueAfter(args: readonly string[], names: readonly string[]): string | null {
  let found: string | null = null;
  // The last occurrence wins for a target; a comment appears once in a kube-proxy rule.
  for (let i = 0; i < args.length - 1; i++)
    if (names.includes(args[i] as string)) found = args[i + 1] ?? null;
  return found;
}

/**
 * Indexes a rule set's `-A` rules by table and chain, and by the chain they jump to.
 *
 * @example
 * indexRules(state).jumpsTo.get("nat KUBE-SERVICES")?.map((r) => r.chain) // ["PREROUTING", "OUTPUT"]
 */
export function indexRules(state: RuleSet): RuleIndex {
  const chains = new Map<string, Map<string, IndexedRule[]>>();
  const jumpsTo = new Map<string, IndexedRule[]>();
  for (const table of state.tables) {
    let byChain = chains.get(table.name);
    if (byChain === undefined) {
      byChain = new Map();
      chains.set(table.name, byChain);
    }
    for (const decl of table.chains) if (!byChain.has(decl.name)) byChain.set(decl.name, []);
    for (const entry of table.entries) {
      if (entry.kind !== "rule" || entry.op !== "-A") continue;
      let rules = byChain.get(entry.chain);
      if (rules === undefined) {
        rules = [];
        byChain.set(entry.chain, rules);
      }
      const rule: IndexedRule = {
        table: table.name,
        chain: entry.chain,
        index: rules.length + 1,
        comment: valueAfter(entry.args, ["--comment"]),
        target: valueAfter(entry.args, ["-j", "--jump", "-g", "--goto"]),
      };
      rules.push(rule);
      if (rule.target !== null) {
        const key = chainKey(table.name, rule.target);
        const list = jumpsTo.get(key);
        if (list === undefined) jumpsTo.set(key, [rule]);
        else list.push(rule);
      }
    }
  }
  return { chains, jumpsTo };
}

const SERVICE_PORT_WORD = /^[^\s/]+\/\S+$/;

/**
 * The service port a kube-proxy comment names: its first word when that looks like
 * `namespace/name[:port]` (kube-proxy starts its per-service comments with the service port
 * name, e.g. `default/web:http cluster IP`), else null.
 *
 * @example
 * servicePortOfComment("default/web:http cluster IP") // "default/web:http"
 * servicePortOfComment("kubernetes service portals")  // null
 */
export function servicePortOfComment(comment: string | null): string | null {
  if (comment === null) return null;
  const word = comment.split(" ", 1)[0] ?? "";
  return SERVICE_PORT_WORD.test(word) ? word : null;
}
