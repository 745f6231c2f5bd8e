/**
 * kube-proxy's nftables table as data: the commands of the one transaction kube-proxy passes to
 * `nft -f -` on a full sync, in order. The transaction printer writes them as knftables does;
 * the ruleset printer replays them and prints what `nft list table` shows afterwards.
 *
 * @module
 */
import type { Problem } from "../errors.js";

/**
 * The nftables family of the table: `ip` for the IPv4 proxier, `ip6` for the IPv6 one.
 *
 * @example
 * generateNftables(model).family // "ip" (an IPv4 node)
 */
export type NftFamily = "ip" | "ip6";

/**
 * One rule, described once with its two printed forms: as kube-proxy writes it in a transaction,
 * and as `nft list` prints it back (the kernel's canonical form).
 *
 * @example
 * const c = generateNftables(model).commands.find((c) => c.object === "rule" && c.chain === "mark-for-masquerade");
 * c?.object === "rule" && c.rule
 * // { written: "mark set mark or 0x00004000", listed: "meta mark set meta mark | 0x00004000" }
 */
export interface NftRule {
  /** The rule text kube-proxy writes (without the trailing comment). */
  readonly written: string;
  /** The rule text `nft list` prints (without the trailing comment). */
  readonly listed: string;
}

/**
 * A base chain's hook.
 *
 * @example
 * const c = generateNftables(model).commands.find((c) => c.object === "chain" && c.hook !== undefined);
 * c?.object === "chain" && c.hook // { type: "filter", hook: "prerouting", priority: -110 }
 */
export interface NftHook {
  /** `filter` or `nat`. */
  readonly type: "filter" | "nat";
  /** The netfilter hook. */
  readonly hook: "prerouting" | "input" | "forward" | "output" | "postrouting";
  /** The numeric priority. */
  readonly priority: number;
}

/**
 * One command of the transaction.
 *
 * @example
 * generateNftables(model).commands[0] // { object: "table", verb: "add", comment: "rules for kube-proxy" }
 */
export type NftCommand =
  | {
      /** `add table`. */
      readonly object: "table";
      /** The verb. */
      readonly verb: "add";
      /** The table's comment. */
      readonly comment: string;
    }
  | {
      /** A chain command. */
      readonly object: "chain";
      /** The verb. */
      readonly verb: "add" | "flush" | "delete";
      /** The chain. */
      readonly name: string;
      /** The hook of a base chain (`add` only). */
      readonly hook?: NftHook;
      /** The chain's comment (`add` only). */
      readonly comment?: string;
    }
  | {
      /** `add rule`. */
      readonly object: "rule";
      /** The verb. */
      readonly verb: "add";
      /** The chain the rule is appended to. */
      readonly chain: string;
      /** The rule. */
      readonly rule: NftRule;
      /** The rule's comment. */
      readonly comment?: string;
    }
  | {
      /** A set or map command. */
      readonly object: "set" | "map";
      /** The verb. */
      readonly verb: "add" | "flush" | "delete";
      /** The set or map. */
      readonly name: string;
      /** Its type (`add` only): `ipv4_addr`, `ipv4_addr . inet_proto . inet_service : verdict` … */
      readonly type?: string;
      /** Its flags (`add` only). */
      readonly flags?: readonly string[];
      /** Its element timeout in seconds (`add` only). */
      readonly timeoutSeconds?: number;
      /** Its comment (`add` only). */
      readonly comment?: string;
    }
  | {
      /** `add element`. */
      readonly object: "element";
      /** The verb. */
      readonly verb: "add";
      /** Whether the container is a set or a map. */
      readonly container: "set" | "map";
      /** The set or map. */
      readonly name: string;
      /** The key, one value per concatenated field. */
      readonly key: readonly string[];
      /** A map element's value (a verdict). */
      readonly value?: string;
      /** The element's comment. */
      readonly comment?: string;
    };

/**
 * kube-proxy's nftables table after one full sync, plus what would keep nft from loading it.
 *
 * @example
 * const table = generateNftables(model);
 * [table.family, table.name, table.problems.length] // ["ip", "kube-proxy", 0]
 */
export interface NftTable {
  /** The family. */
  readonly family: NftFamily;
  /** The table's name (`kube-proxy`). */
  readonly name: string;
  /** The transaction's commands, in order. */
  readonly commands: readonly NftCommand[];
  /**
   * Why the real nft would refuse this transaction (the whole of it): the output is still what
   * kube-proxy writes. Warnings, each with the path of the input that causes it.
   */
  readonly problems: readonly Problem[];
}
