/**
 * A traced packet drawn on the picture: the edges its paths took and the nodes they reached,
 * each with the share of the packet that went there, and one line per outcome.
 *
 * @module
 */
import { add, type Fraction, type TraceResult } from "../trace/index.js";
import type { GraphEdge, GraphNode, ServiceGraph } from "./types.js";

function ruleKey(table: string, chain: string, index: number): string {
  return `${table} ${chain} #${index}`;
}

/**
 * The graph with the trace's paths marked: an edge whose rule a path matched carries the sum of
 * those paths' probabilities in `traced`, and so do the nodes at both ends; a `later` edge
 * (a mark, then the masquerading chain) is marked for the paths that went through both, or
 * whose source was rewritten (MASQUERADE or SNAT) after the mark.
 *
 * @example
 * const g = overlayTrace(buildServiceGraph(state, ["default/web:http"]), traceRules(state, packet));
 * g.edges.filter((e) => e.traced !== null).length // the rules the paths took
 */
export function overlayTrace(graph: ServiceGraph, result: TraceResult): ServiceGraph {
  const edgeByRule = new Map<string, GraphEdge>();
  for (const e of graph.edges)
    if (e.rule !== null) edgeByRule.set(ruleKey(e.rule.table, e.rule.chain, e.rule.index), e);
  const laterByFrom = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) {
    if (e.kind !== "later") continue;
    const list = laterByFrom.get(e.from);
    if (list === undefined) laterByFrom.set(e.from, [e]);
    else list.push(e);
  }
  const edgeShare = new Map<string, Fraction>();
  const nodeShare = new Map<string, Fraction>();
  const credit = (map: Map<string, Fraction>, key: string, p: Fraction): void => {
    const had = map.get(key);
    map.set(key, had === undefined ? p : add(had, p));
  };
  for (const outcome of result.outcomes) {
    const p = outcome.probability;
    const edgesSeen = new Set<string>();
    const nodesSeen = new Set<string>();
    for (const step of outcome.steps) {
      if (!step.matched) continue;
      const edge = edgeByRule.get(ruleKey(step.table, step.chain, step.index));
      if (edge === undefined) continue;
      edgesSeen.add(edge.id);
      nodesSeen.add(edge.from);
      nodesSeen.add(edge.to);
    }
    for (const [from, laters] of laterByFrom)
      if (nodesSeen.has(from))
        for (const e of laters)
          if (nodesSeen.has(e.to) || outcome.masquerade || outcome.snat !== null) edgesSeen.add(e.id);
    for (const id of edgesSeen) credit(edgeShare, id, p);
    for (const id of nodesSeen) credit(nodeShare, id, p);
  }
  const nodes: GraphNode[] = graph.nodes.map((n) => ({ ...n, traced: nodeShare.get(n.id) ?? null }));
  const edges: GraphEdge[] = graph.edges.map((e) => ({ ...e, traced: edgeShare.get(e.id) ?? null }));
  return { ...graph, nodes, edges, outcomes: result.outcomes.map((o) => o.summary) };
}
