/**
 * A service port's path through the chains as plain data: nodes (chains and the actions that
 * end a rule), edges (the rules between them) with their conditions and exact shares, and the
 * parts a traced packet took. The SVG, DOT and Mermaid writers read only this.
 *
 * @module
 */
import type { Fraction } from "../trace/index.js";

/**
 * What a node stands for: a built-in chain (`entry`), a chain kube-proxy shares between services
 * (`chain`), a per-service chain (`service`: SVC, SVL, EXT, FW), an endpoint chain (`endpoint`:
 * SEP), or what a rule does when it does not jump (`action`).
 *
 * @example
 * const graph = buildServiceGraph(generateState(model), ["default/my-nginx-svc"]); // examples/cluster.yaml
 * graph.nodes.map((n) => n.kind) // ["chain", "entry", "entry", "service", "chain", "action", "endpoint", …]
 */
export type NodeKind = "entry" | "chain" | "service" | "endpoint" | "action";

/**
 * What an action node does to the packet.
 *
 * @example
 * graph.nodes.filter((n) => n.kind === "action").map((n) => n.action) // ["mark", "dnat", "return", "mark", "masquerade"]
 */
export type ActionKind =
  | "dnat"
  | "masquerade"
  | "snat"
  | "mark"
  | "accept"
  | "drop"
  | "reject"
  | "return"
  | "continue"
  | "other";

/**
 * One node of the picture.
 *
 * @example
 * graph.nodes.find((n) => n.action === "dnat")
 * // { id: "nat KUBE-SEP-DSBJGVCOU4RGUKVK #2", kind: "action", action: "dnat", table: "nat",
 * //   chain: "KUBE-SEP-DSBJGVCOU4RGUKVK", title: "DNAT → 10.244.3.38:80", lines: [], traced: null }
 */
export interface GraphNode {
  /** Unique in its graph: `table chain` for a chain, `table chain #index` for an action. */
  readonly id: string;
  /** What the node stands for. */
  readonly kind: NodeKind;
  /** For an action node, what it does; else null. */
  readonly action: ActionKind | null;
  /** The table. */
  readonly table: string;
  /** The chain (for an action, the chain of its rule). */
  readonly chain: string;
  /** The first line: the chain name, or the action (`DNAT → 10.244.1.2:8080`). */
  readonly title: string;
  /** Further lines: the table and role, the endpoint, the service port. */
  readonly lines: readonly string[];
  /** The share of the traced packet that reached this node, or null when no traced path did. */
  readonly traced: Fraction | null;
}

/**
 * The rule an edge stands for: its table, chain and 1-based position among the chain's rules.
 *
 * @example
 * graph.edges[0]?.rule // { table: "nat", chain: "PREROUTING", index: 1 }
 */
export interface RuleRef {
  /** The table. */
  readonly table: string;
  /** The chain. */
  readonly chain: string;
  /** The rule's 1-based position (as `iptables -L --line-numbers` and the tracer count). */
  readonly index: number;
}

/**
 * How an edge is taken: a rule's `-j` into a chain (`jump`), its `-g` (`goto`), a rule's own
 * target (`action`), or the hand-over of a marked packet to the chain that masquerades it on its
 * way out (`later`, not a rule).
 *
 * @example
 * graph.edges.at(-1)?.kind // "later" (KUBE-MARK-MASQ's mark, masqueraded on the way out)
 */
export type EdgeKind = "jump" | "goto" | "action" | "later";

/**
 * One edge of the picture.
 *
 * @example
 * const edge = graph.edges.find((e) => e.to === "nat KUBE-SEP-DSBJGVCOU4RGUKVK");
 * edge?.from        // "nat KUBE-SVC-NE3M6G7FP5C7DVRO"
 * edge?.probability // { numerator: 1n, denominator: 1n } (the only endpoint)
 */
export interface GraphEdge {
  /** Unique in its graph. */
  readonly id: string;
  /** The node the edge leaves. */
  readonly from: string;
  /** The node it enters. */
  readonly to: string;
  /** How it is taken. */
  readonly kind: EdgeKind;
  /** The rule's matches as iptables-save prints them, without comment, statistic and target. */
  readonly condition: string;
  /**
   * The exact share of the packets entering the chain that take this rule when only the
   * statistic matches decide (the kernel's fixed-point values, as the tracer computes them);
   * null for rules before the chain's first statistic split that do not lead to an endpoint.
   */
  readonly probability: Fraction | null;
  /** The rule sends a returning client back to its endpoint (`-m recent --rcheck`). */
  readonly affinity: boolean;
  /** The rule, or null for a `later` edge. */
  readonly rule: RuleRef | null;
  /** The whole rule as iptables-save prints it, or null. */
  readonly ruleText: string | null;
  /** The share of the traced packet that took this edge, or null when no traced path did. */
  readonly traced: Fraction | null;
}

/**
 * The picture of one or more service ports.
 *
 * @example
 * const graph = buildServiceGraph(generateState(model), ["default/my-nginx-svc"]);
 * graph.servicePorts // ["default/my-nginx-svc"]
 * graph.outcomes     // [] (no packet traced; see overlayTrace)
 */
export interface ServiceGraph {
  /** A title for the picture. */
  readonly title: string;
  /** The service ports drawn (`ns/name:port`, as kube-proxy's comments name them). */
  readonly servicePorts: readonly string[];
  /** The nodes, in the order they were reached. */
  readonly nodes: readonly GraphNode[];
  /** The edges, in rule order. */
  readonly edges: readonly GraphEdge[];
  /** For a traced picture: one line per outcome (`default/web:http → 10.244.1.2:8080  p=0.5  …`); else empty. */
  readonly outcomes: readonly string[];
}
