/**
 * The rule representation shared by every stage: the generator builds it, the emitters print
 * it, the parser reads it back, and the diff and the tracer walk it.
 *
 * A rule keeps its arguments as the argv that iptables would receive, in the order the author
 * wrote them (kube-proxy's order for generated rules, the file's order for parsed ones). The
 * canonical structure that `iptables-save` prints is derived from that argv by one
 * canonicalizer (`canonicalizeRule` in `../iptables/canonical/canonicalize.ts`), so that save text, diff and trace all
 * see the same normalized rule.
 *
 * @module
 */

// One rule set holds the rules of one family (`iptables` or `ip6tables`). One IPFamily type for
// the whole library: the model's.
import type { IPFamily } from "../model/types.js";

export type { IPFamily };

/**
 * Packet and byte counters, as `[packets:bytes]` in restore and save text.
 *
 * @example
 * parseRulesOrThrow("*nat\n:PREROUTING ACCEPT [12:720]\nCOMMIT\n").tables[0]?.chains[0]?.counters
 * // { packets: 12n, bytes: 720n }
 */
export interface Counters {
  /** Packet count. */
  readonly packets: bigint;
  /** Byte count. */
  readonly bytes: bigint;
}

/**
 * A chain declaration line: `:NAME POLICY [packets:bytes]`.
 *
 * @example
 * generateRules(model).tables[1]?.chains[0] // { name: "KUBE-SERVICES", policy: null }
 */
export interface ChainDeclaration {
  /** The chain's name. */
  readonly name: string;
  /** `ACCEPT` or `DROP` for a built-in chain; `null` for a user chain (printed as `-`). */
  readonly policy: string | null;
  /** The counters printed on the line, when given. */
  readonly counters?: Counters;
}

/**
 * A rule command: `-A`, `-I`, `-D` or `-R` with a rule specification.
 *
 * @example
 * const rule: Rule = { kind: "rule", op: "-A", chain: "KUBE-SERVICES", args: ["-d", "10.96.0.10/32", "-j", "KUBE-SVC-X"] };
 */
export interface Rule {
  /** Discriminant. */
  readonly kind: "rule";
  /** The command: append, insert, delete (by specification) or replace. */
  readonly op: "-A" | "-I" | "-D" | "-R";
  /** The chain the rule belongs to. */
  readonly chain: string;
  /** The rule specification as argv, unquoted, `!` as its own element. */
  readonly args: readonly string[];
  /** The 1-based position for `-I` and `-R` (and `-D` by number, with empty `args`), when given. */
  readonly index?: number;
  /** `[packets:bytes]` given before the command, when given. */
  readonly counters?: Counters;
}

/**
 * A chain command that carries no rule: flush, delete, zero or create a chain.
 *
 * @example
 * const flush: ChainCommand = { kind: "chain", op: "-F", chain: "KUBE-SVC-X" }; // restore text "-F KUBE-SVC-X"
 */
export interface ChainCommand {
  /** Discriminant. */
  readonly kind: "chain";
  /** `-F` flush, `-X` delete, `-Z` zero counters, `-N` create. */
  readonly op: "-F" | "-X" | "-Z" | "-N";
  /** The chain; `""` for every chain of the table (`-F`, `-X`, `-Z` without a name). */
  readonly chain: string;
}

/**
 * `-P CHAIN POLICY`: sets a built-in chain's policy inside a restore file.
 *
 * @example
 * const policy: PolicyCommand = { kind: "policy", op: "-P", chain: "FORWARD", policy: "DROP" };
 */
export interface PolicyCommand {
  /** Discriminant. */
  readonly kind: "policy";
  /** The command. */
  readonly op: "-P";
  /** The built-in chain. */
  readonly chain: string;
  /** `ACCEPT` or `DROP`. */
  readonly policy: string;
}

/**
 * One command line of a table block, in the order it is written.
 *
 * @example
 * const kinds = generateRules(model).tables.flatMap((t) => t.entries.map((e: Entry) => e.kind)); // ["rule", …, "chain", …]
 */
export type Entry = Rule | ChainCommand | PolicyCommand;

/**
 * One `*table` … `COMMIT` block.
 *
 * @example
 * const nat = generateRules(model).tables.find((t) => t.name === "nat");
 * nat?.chains.length  // the chains the payload declares
 * nat?.entries.length // its rules (and -X of stale chains)
 */
export interface Table {
  /** The table name (`filter`, `nat`, `mangle`, `raw`, `security`). */
  readonly name: string;
  /** Chain declaration lines, in the order they are written. */
  readonly chains: readonly ChainDeclaration[];
  /** Commands, in the order they are written. */
  readonly entries: readonly Entry[];
}

/**
 * A set of rules for one IP family: either a payload (what is handed to `iptables-restore`,
 * possibly with `-X` and `-D` commands) or a state (what the kernel holds: only `-A` rules,
 * every chain declared).
 *
 * @example
 * const ruleSet: RuleSet = generateRules(model);
 * ruleSet.family                    // "IPv4"
 * ruleSet.tables.map((t) => t.name) // ["filter", "nat"]
 */
export interface RuleSet {
  /** The family: `IPv4` for iptables, `IPv6` for ip6tables. */
  readonly family: IPFamily;
  /** The table blocks, in the order they are written. */
  readonly tables: readonly Table[];
}

/**
 * The built-in chains of each table, in netfilter hook order (the order iptables-save prints them).
 * Looked up by table names read from text: no prototype, so `*constructor` names no table.
 */
export const BUILTIN_CHAINS: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, readonly string[]>, {
    raw: ["PREROUTING", "OUTPUT"],
    mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
    filter: ["INPUT", "FORWARD", "OUTPUT"],
    nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
    security: ["INPUT", "FORWARD", "OUTPUT"],
  }),
);

/**
 * The target of a rule's last `-j`/`-g` (`--jump`/`--goto`), as its argv spells it: a chain, a
 * verdict or a target extension; null for a rule without one.
 *
 * @example
 * ruleTarget(["-m", "comment", "--comment", "x", "-j", "KUBE-SERVICES"]) // "KUBE-SERVICES"
 */
export function ruleTarget(args: readonly string[]): string | null {
  for (let i = args.length - 2; i >= 0; i--) {
    const a = args[i];
    if (a === "-j" || a === "-g" || a === "--jump" || a === "--goto") return args[i + 1] ?? null;
  }
  return null;
}

/** Whether `chain` is a built-in chain of `table`. */
export function isBuiltinChain(table: string, chain: string): boolean {
  const list = BUILTIN_CHAINS[table];
  return list?.includes(chain) === true;
}

/** Builds an `-A` rule. */
export function appendRule(chain: string, args: readonly string[]): Rule {
  return { kind: "rule", op: "-A", chain, args };
}
