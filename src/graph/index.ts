/**
 * Service ports drawn: the path a packet takes through kube-proxy's chains (the built-in chain
 * it enters by, KUBE-SERVICES / KUBE-NODEPORTS, the service and endpoint chains with each
 * endpoint's exact share, the masquerade mark, rejects and drops) as a graph, and that graph as
 * SVG, Graphviz DOT or a Mermaid flowchart. The input is a kernel state, so a cluster's
 * generated rules and a node's `iptables-save` dump draw alike.
 *
 * @example
 * import { buildServiceGraph, drawGraph } from "./graph/index.js";
 * const svg = await drawGraph(buildServiceGraph(generateState(model), ["default/web"]), "svg");
 *
 * @module
 */
import { formatDot } from "./dot.js";
import { formatMermaid } from "./mermaid.js";
import { renderSvg } from "./svg.js";
import type { ServiceGraph } from "./types.js";

export { buildServiceGraph, listServicePorts } from "./build.js";
export { formatDot } from "./dot.js";
export { formatMermaid } from "./mermaid.js";
export { overlayTrace } from "./overlay.js";
export { renderSvg } from "./svg.js";
export type {
  ActionKind,
  EdgeKind,
  GraphEdge,
  GraphNode,
  NodeKind,
  RuleRef,
  ServiceGraph,
} from "./types.js";

/**
 * The forms a graph is printed in.
 *
 * @example
 * const format: GraphFormat = "dot";
 * await drawGraph(graph, format) // "digraph \"default/my-nginx-svc\" {\n…"
 */
export type GraphFormat = "svg" | "dot" | "mermaid";

/**
 * The forms {@link drawGraph} prints, for checking a user's choice.
 *
 * @example
 * GRAPH_FORMATS.includes("mermaid") // true
 * GRAPH_FORMATS.includes("png")     // false
 */
export const GRAPH_FORMATS: readonly GraphFormat[] = ["svg", "dot", "mermaid"];

/**
 * Prints a graph in one of its forms (the SVG's layout library is loaded on first use).
 *
 * @example
 * await drawGraph(graph, "mermaid") // "flowchart TD\n  subgraph t0[\"nat table\"]\n…"
 */
export async function drawGraph(graph: ServiceGraph, format: GraphFormat): Promise<string> {
  if (format === "dot") return formatDot(graph);
  if (format === "mermaid") return formatMermaid(graph);
  return renderSvg(graph);
}
