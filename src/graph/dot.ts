/**
 * The picture as Graphviz DOT: one cluster per table, nodes and edges with the same labels and
 * colours as the SVG.
 *
 * @module
 */
import { edgeLabelLines, exactShare, nodeLabelLines, visibleText } from "./labels.js";
import { isDashed, nodeStyle, TRACED_COLOR } from "./style.js";
import type { ServiceGraph } from "./types.js";

/**
 * A DOT double-quoted string: `"` and `\` escaped (Graphviz reads `\n`, `\l`, `\N` in labels, so
 * a literal backslash is doubled), lines joined with `\n`.
 *
 * @example
 * dotString(["a\"b", "c\\d"]) // "\"a\\\"b\\nc\\\\d\""
 */
export function dotString(lines: readonly string[]): string {
  return `"${lines.map((l) => visibleText(l).replace(/[\\"]/g, (c) => `\\${c}`)).join("\\n")}"`;
}

/**
 * Prints a graph as Graphviz DOT (`dot -Tsvg` draws it).
 *
 * @example
 * formatDot(buildServiceGraph(state, ["default/web:http"])).startsWith("digraph") // true
 */
export function formatDot(graph: ServiceGraph): string {
  const ids = new Map(graph.nodes.map((n, i) => [n.id, `n${i}`]));
  const out: string[] = [
    `digraph ${dotString([graph.title])} {`,
    `  label=${dotString([graph.title, ...graph.outcomes])};`,
    "  labelloc=t;",
    "  rankdir=TB;",
    '  fontname="monospace";',
    '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=11];',
    '  edge [fontname="monospace", fontsize=10];',
  ];
  const tables = [...new Set(graph.nodes.map((n) => n.table))];
  for (const [t, table] of tables.entries()) {
    out.push(`  subgraph cluster_${t} {`, `    label=${dotString([`${table} table`])};`, "    style=dashed;");
    for (const n of graph.nodes) {
      if (n.table !== table) continue;
      const style = nodeStyle(n);
      const color = n.traced === null ? style.stroke : TRACED_COLOR;
      const width = n.traced === null ? 1 : 3;
      out.push(
        `    ${ids.get(n.id)} [label=${dotString(nodeLabelLines(n))}, fillcolor="${style.fill}", color="${color}", penwidth=${width}];`,
      );
    }
    out.push("  }");
  }
  for (const e of graph.edges) {
    const lines = edgeLabelLines(e);
    const attrs = lines.length === 0 ? [] : [`label=${dotString(lines)}`];
    if (e.ruleText !== null) attrs.push(`tooltip=${dotString([e.ruleText])}`);
    else if (e.probability !== null) attrs.push(`tooltip=${dotString([exactShare(e.probability)])}`);
    if (isDashed(e)) attrs.push("style=dashed");
    if (e.traced !== null) attrs.push(`color="${TRACED_COLOR}"`, "penwidth=3");
    out.push(`  ${ids.get(e.from)} -> ${ids.get(e.to)} [${attrs.join(", ")}];`);
  }
  out.push("}");
  return `${out.join("\n")}\n`;
}
