/**
 * The picture as a Mermaid flowchart, for GitHub Markdown (a ```mermaid block).
 *
 * @module
 */
import { edgeLabelLines, nodeLabelLines, visibleText } from "./labels.js";
import { isDashed, NODE_STYLES, nodeClass, TRACED_COLOR } from "./style.js";
import type { ServiceGraph } from "./types.js";

// Inside a quoted Mermaid label, these would end the string, open HTML or an entity, or close
// an edge label: each is written as Mermaid's entity code (`#quot;`, `#35;`).
const MERMAID_ESCAPES: Readonly<Record<string, string>> = {
  '"': "#quot;",
  "#": "#35;",
  "&": "#38;",
  "<": "#lt;",
  ">": "#gt;",
  "|": "#124;",
  "`": "#96;",
  "[": "#91;",
  "]": "#93;",
  "{": "#123;",
  "}": "#125;",
};

/**
 * A quoted Mermaid label: special characters as entity codes, lines joined with `<br>`.
 *
 * @example
 * mermaidString(["a \"b\"", "c"]) // "\"a #quot;b#quot;<br>c\""
 */
export function mermaidString(lines: readonly string[]): string {
  const escaped = lines.map((l) => visibleText(l).replace(/["#&<>|`[\]{}]/g, (c) => MERMAID_ESCAPES[c] ?? c));
  return `"${escaped.join("<br>")}"`;
}

/**
 * Prints a graph as a Mermaid flowchart (top to bottom, one subgraph per table).
 *
 * @example
 * formatMermaid(buildServiceGraph(state, ["default/web:http"])).split("\n")[0] // "flowchart TD"
 */
export function formatMermaid(graph: ServiceGraph): string {
  const ids = new Map(graph.nodes.map((n, i) => [n.id, `n${i}`]));
  const out: string[] = ["flowchart TD"];
  const tables = [...new Set(graph.nodes.map((n) => n.table))];
  for (const [t, table] of tables.entries()) {
    out.push(`  subgraph t${t}[${mermaidString([`${table} table`])}]`);
    for (const n of graph.nodes)
      if (n.table === table) out.push(`    ${ids.get(n.id)}[${mermaidString(nodeLabelLines(n))}]`);
    out.push("  end");
  }
  const traced: number[] = [];
  graph.edges.forEach((e, i) => {
    const arrow = isDashed(e) ? "-.->" : "-->";
    const lines = edgeLabelLines(e);
    const label = lines.length === 0 ? "" : `|${mermaidString(lines)}|`;
    out.push(`  ${ids.get(e.from)} ${arrow}${label} ${ids.get(e.to)}`);
    if (e.traced !== null) traced.push(i);
  });
  for (const style of NODE_STYLES) {
    const members = graph.nodes.filter((n) => nodeClass(n) === style.className).map((n) => ids.get(n.id));
    if (members.length === 0) continue;
    out.push(`  classDef ${style.className} fill:${style.fill},stroke:${style.stroke},color:#212529`);
    out.push(`  class ${members.join(",")} ${style.className}`);
  }
  const tracedNodes = graph.nodes.filter((n) => n.traced !== null).map((n) => ids.get(n.id));
  if (tracedNodes.length > 0) {
    out.push(`  classDef traced stroke:${TRACED_COLOR},stroke-width:3px`);
    out.push(`  class ${tracedNodes.join(",")} traced`);
  }
  if (traced.length > 0) out.push(`  linkStyle ${traced.join(",")} stroke:${TRACED_COLOR},stroke-width:3px`);
  return `${out.join("\n")}\n`;
}
