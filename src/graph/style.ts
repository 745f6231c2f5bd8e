/**
 * The picture's colours, one table for the three writers and the legend.
 *
 * @module
 */
import type { GraphEdge, GraphNode } from "./types.js";

/** How a node is painted. */
export interface NodeStyle {
  /** Fill colour. */
  readonly fill: string;
  /** Border colour. */
  readonly stroke: string;
  /** A short name for the legend and for CSS / Mermaid classes. */
  readonly className: string;
}

/** Node styles by class, in legend order. */
export const NODE_STYLES: readonly (NodeStyle & { readonly legend: string })[] = [
  { className: "entry", fill: "#e7f5ff", stroke: "#1c7ed6", legend: "built-in chain (where packets enter)" },
  { className: "chain", fill: "#f1f3f5", stroke: "#495057", legend: "kube-proxy chain shared by services" },
  { className: "service", fill: "#fff9db", stroke: "#f08c00", legend: "service chain (SVC, SVL, EXT, FW)" },
  { className: "endpoint", fill: "#ebfbee", stroke: "#2f9e44", legend: "endpoint chain (SEP)" },
  { className: "dnat", fill: "#d3f9d8", stroke: "#2b8a3e", legend: "DNAT to an endpoint" },
  { className: "mark", fill: "#f3f0ff", stroke: "#7048e8", legend: "mark / masquerade" },
  { className: "stop", fill: "#ffe3e3", stroke: "#c92a2a", legend: "reject / drop" },
  { className: "action", fill: "#ffffff", stroke: "#868e96", legend: "other action" },
];

/** The colour of a traced path. */
export const TRACED_COLOR = "#e8590c";

/**
 * The style class of a node.
 *
 * @example
 * nodeClass({ kind: "action", action: "dnat" } as GraphNode) // "dnat"
 */
export function nodeClass(node: Pick<GraphNode, "kind" | "action">): string {
  if (node.kind !== "action") return node.kind;
  switch (node.action) {
    case "dnat":
      return "dnat";
    case "mark":
    case "masquerade":
    case "snat":
      return "mark";
    case "drop":
    case "reject":
      return "stop";
    default:
      return "action";
  }
}

/**
 * A node's style.
 *
 * @example
 * nodeStyle({ kind: "endpoint", action: null } as GraphNode).stroke // "#2f9e44"
 */
export function nodeStyle(node: Pick<GraphNode, "kind" | "action">): NodeStyle {
  const name = nodeClass(node);
  return NODE_STYLES.find((s) => s.className === name) ?? (NODE_STYLES[NODE_STYLES.length - 1] as NodeStyle);
}

/**
 * Whether an edge is drawn dashed: a session-affinity check, or the hand-over of a mark to the
 * masquerading chain.
 *
 * @example
 * isDashed({ affinity: true, kind: "jump" } as GraphEdge) // true
 */
export function isDashed(edge: Pick<GraphEdge, "affinity" | "kind">): boolean {
  return edge.affinity || edge.kind === "later";
}
