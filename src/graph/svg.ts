/**
 * The picture as a self-contained SVG: laid out by dagre (loaded on first use, so that the
 * library's entry does not pull it in), drawn with monospace text whose width is known without a
 * browser, a title, and a legend. Every node and edge is a `<g>` with `data-` attributes naming
 * what it stands for, and a `<title>` tooltip with the whole rule and the exact share.
 *
 * @module
 */
import { edgeLabelLines, exactShare, nodeLabelLines, visibleText } from "./labels.js";
import { isDashed, NODE_STYLES, nodeStyle, TRACED_COLOR } from "./style.js";
import type { GraphEdge, GraphNode, ServiceGraph } from "./types.js";

const FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace";
// Monospace glyphs are 0.6 em wide (DejaVu Sans Mono: 1233/2048), so widths need no browser.
const CHAR = 0.6;
const NODE_FONT = 12;
const NODE_LINE = 15;
const EDGE_FONT = 10.5;
const EDGE_LINE = 13;
const PAD_X = 10;
const PAD_Y = 7;
const MARGIN = 16;
const EDGE_COLOR = "#5c6770";

/**
 * Escapes text for XML character data and attribute values (control characters shown as
 * `\uXXXX`, which XML 1.0 cannot hold).
 *
 * @example
 * xmlText('a<b & "c"') // "a&lt;b &amp; &quot;c&quot;"
 */
export function xmlText(text: string): string {
  return visibleText(text).replace(/[<>&"']/g, (c) => XML_ESCAPES[c] ?? c);
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  "<": "&lt;",
  ">": "&gt;",
  "&": "&amp;",
  '"': "&quot;",
  "'": "&apos;",
};

function textWidth(lines: readonly string[], size: number): number {
  let widest = 0;
  for (const l of lines) widest = Math.max(widest, [...l].length);
  return widest * size * CHAR;
}

function num(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

interface Point {
  readonly x: number;
  readonly y: number;
}

/** A smooth path through dagre's points: straight ends, quadratic curves at the bends. */
function pathThrough(points: readonly Point[]): string {
  const first = points[0];
  if (first === undefined) return "";
  let d = `M${num(first.x)},${num(first.y)}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i] as Point;
    const next = points[i + 1] as Point;
    d += ` Q${num(p.x)},${num(p.y)} ${num((p.x + next.x) / 2)},${num((p.y + next.y) / 2)}`;
  }
  const last = points[points.length - 1] as Point;
  if (points.length > 1) d += ` L${num(last.x)},${num(last.y)}`;
  return d;
}

function textBlock(
  lines: readonly string[],
  x: number,
  top: number,
  size: number,
  step: number,
  bold: boolean,
): string {
  return lines
    .map(
      (l, i) =>
        `<text x="${num(x)}" y="${num(top + step * (i + 0.75))}" font-size="${size}"${i === 0 && bold ? ' font-weight="bold"' : ""} text-anchor="middle">${xmlText(l)}</text>`,
    )
    .join("");
}

interface Laid {
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyMap<string, { x: number; y: number; width: number; height: number }>;
  readonly edges: ReadonlyMap<
    string,
    { points: Point[]; x: number; y: number; width: number; height: number }
  >;
}

async function layout(graph: ServiceGraph): Promise<Laid> {
  const dagre = (await import("@dagrejs/dagre")).default;
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 14, edgesep: 8, ranksep: 36, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) {
    const lines = nodeLabelLines(n);
    g.setNode(n.id, {
      width: textWidth(lines, NODE_FONT) + 2 * PAD_X,
      height: lines.length * NODE_LINE + 2 * PAD_Y,
    });
  }
  for (const e of graph.edges) {
    const lines = edgeLabelLines(e);
    g.setEdge(
      e.from,
      e.to,
      {
        width: lines.length === 0 ? 0 : textWidth(lines, EDGE_FONT) + 6,
        height: lines.length * EDGE_LINE,
        labelpos: "c",
        // The masquerade hand-over goes backwards in the flow: keep it from stretching the ranks.
        ...(e.kind === "later" ? { weight: 0, minlen: 1 } : {}),
      },
      e.id,
    );
  }
  dagre.layout(g);
  const nodes = new Map<string, { x: number; y: number; width: number; height: number }>();
  for (const n of graph.nodes) {
    const laid = g.node(n.id);
    nodes.set(n.id, { x: laid.x ?? 0, y: laid.y ?? 0, width: laid.width, height: laid.height });
  }
  const edges = new Map<string, { points: Point[]; x: number; y: number; width: number; height: number }>();
  for (const e of graph.edges) {
    const laid = g.edge(e.from, e.to, e.id);
    edges.set(e.id, {
      points: laid.points ?? [],
      x: laid.x ?? 0,
      y: laid.y ?? 0,
      width: laid.width ?? 0,
      height: laid.height ?? 0,
    });
  }
  const size = g.graph();
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, edges };
}

function drawNode(n: GraphNode, box: { x: number; y: number; width: number; height: number }): string {
  const style = nodeStyle(n);
  const traced = n.traced !== null;
  const lines = nodeLabelLines(n);
  const left = box.x - box.width / 2;
  const top = box.y - box.height / 2;
  const radius = n.kind === "action" ? box.height / 2 : 5;
  const tip = [n.id, ...n.lines, ...(n.traced === null ? [] : [`traced: ${exactShare(n.traced)}`])].join(
    "\n",
  );
  return (
    `<g class="node" data-id="${xmlText(n.id)}" data-kind="${n.kind}"${n.action === null ? "" : ` data-action="${n.action}"`}${traced ? ' data-traced="true"' : ""}>` +
    `<title>${xmlText(tip)}</title>` +
    `<rect x="${num(left)}" y="${num(top)}" width="${num(box.width)}" height="${num(box.height)}" rx="${num(Math.min(radius, 14))}" fill="${style.fill}" stroke="${traced ? TRACED_COLOR : style.stroke}" stroke-width="${traced ? 3 : 1.2}"/>` +
    textBlock(lines, box.x, top + PAD_Y, NODE_FONT, NODE_LINE, true) +
    "</g>"
  );
}

function drawEdge(
  e: GraphEdge,
  laid: { points: Point[]; x: number; y: number; width: number; height: number },
): string {
  const traced = e.traced !== null;
  const color = traced ? TRACED_COLOR : EDGE_COLOR;
  const lines = edgeLabelLines(e);
  const tip = [
    e.ruleText ?? e.condition,
    ...(e.probability === null ? [] : [`share of the chain's packets: ${exactShare(e.probability)}`]),
    ...(e.traced === null ? [] : [`traced: ${exactShare(e.traced)}`]),
  ].join("\n");
  let label = "";
  if (lines.length > 0) {
    const left = laid.x - laid.width / 2;
    const top = laid.y - laid.height / 2;
    label =
      `<rect x="${num(left)}" y="${num(top)}" width="${num(laid.width)}" height="${num(laid.height)}" fill="#ffffff" fill-opacity="0.85"/>` +
      `<g fill="${traced ? TRACED_COLOR : "#343a40"}">${textBlock(lines, laid.x, top, EDGE_FONT, EDGE_LINE, false)}</g>`;
  }
  return (
    `<g class="edge" data-id="${xmlText(e.id)}" data-from="${xmlText(e.from)}" data-to="${xmlText(e.to)}" data-kind="${e.kind}"${e.probability === null ? "" : ` data-probability="${exactShare(e.probability)}"`}${traced ? ' data-traced="true"' : ""}>` +
    `<title>${xmlText(tip)}</title>` +
    `<path d="${pathThrough(laid.points)}" fill="none" stroke="${color}" stroke-width="${traced ? 3 : 1.3}"${isDashed(e) ? ' stroke-dasharray="6 4"' : ""} marker-end="url(#${traced ? "arrow-traced" : "arrow"})"/>` +
    label +
    "</g>"
  );
}

const LEGEND_EDGES: readonly (readonly [dashed: boolean, text: string])[] = [
  [false, "a rule: its matches (iptables-save words)"],
  [true, "affinity check, or a mark masqueraded later"],
];

function drawLegend(graph: ServiceGraph, top: number): { svg: string; width: number; height: number } {
  const rows: string[] = [];
  const texts: string[] = [];
  let y = top;
  const row = (swatch: string, text: string): void => {
    rows.push(`${swatch}<text x="${MARGIN + 34}" y="${num(y + 11)}" font-size="11">${xmlText(text)}</text>`);
    texts.push(text);
    y += 17;
  };
  rows.push(`<text x="${MARGIN}" y="${num(y + 11)}" font-size="11" font-weight="bold">Legend</text>`);
  y += 17;
  const kinds = new Set(graph.nodes.map((n) => nodeStyle(n).className));
  for (const s of NODE_STYLES) {
    if (!kinds.has(s.className)) continue;
    row(
      `<rect x="${MARGIN}" y="${num(y + 1)}" width="26" height="12" rx="3" fill="${s.fill}" stroke="${s.stroke}"/>`,
      s.legend,
    );
  }
  for (const [dashed, text] of LEGEND_EDGES)
    row(
      `<path d="M${MARGIN},${num(y + 7)} h26" stroke="${EDGE_COLOR}" stroke-width="1.3"${dashed ? ' stroke-dasharray="6 4"' : ""}/>`,
      text,
    );
  row(
    `<text x="${MARGIN}" y="${num(y + 11)}" font-size="11">p=</text>`,
    "exact share of the packets entering the chain (statistic matches)",
  );
  if (graph.outcomes.length > 0) {
    row(
      `<path d="M${MARGIN},${num(y + 7)} h26" stroke="${TRACED_COLOR}" stroke-width="3"/>`,
      "the traced packet's paths; its outcomes:",
    );
    for (const o of graph.outcomes) row("", `  ${o}`);
  }
  return { svg: rows.join(""), width: textWidth(texts, 11) + 34 + 2 * MARGIN, height: y - top + 8 };
}

/**
 * Draws a graph as a standalone SVG document (top to bottom, as packets go down the chains; laid out by dagre).
 *
 * @param graph the graph ({@link buildServiceGraph}, possibly with {@link overlayTrace}).
 * @returns the SVG text, ending in a newline.
 * @example
 * const svg = await renderSvg(buildServiceGraph(state, ["default/web:http"]));
 * svg.startsWith("<?xml") // true
 */
export async function renderSvg(graph: ServiceGraph): Promise<string> {
  const laid = await layout(graph);
  const titleLines = [`${graph.title}: the path through iptables`];
  const titleHeight = 2 * 18 + 8;
  const body: string[] = [];
  for (const e of graph.edges) {
    const edge = laid.edges.get(e.id);
    if (edge !== undefined) body.push(drawEdge(e, edge));
  }
  for (const n of graph.nodes) {
    const box = laid.nodes.get(n.id);
    if (box !== undefined) body.push(drawNode(n, box));
  }
  const empty =
    graph.nodes.length === 0
      ? `<text x="${MARGIN}" y="${titleHeight + 20}" font-size="12">${graph.outcomes.length > 0 ? "The packet met no service port's rules." : "No rule names this service port."}</text>`
      : "";
  const graphHeight = graph.nodes.length === 0 ? 40 : laid.height;
  const legend = drawLegend(graph, titleHeight + graphHeight);
  const width = Math.ceil(Math.max(laid.width, legend.width, textWidth(titleLines, 15) + 2 * MARGIN));
  const height = Math.ceil(titleHeight + graphHeight + legend.height);
  const marker = (id: string, color: string): string =>
    `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="${color}"/></marker>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT}" role="img" aria-label="${xmlText(titleLines[0] as string)}">`,
    `<title>${xmlText(titleLines[0] as string)}</title>`,
    `<defs>${marker("arrow", EDGE_COLOR)}${marker("arrow-traced", TRACED_COLOR)}</defs>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN}" y="24" font-size="15" font-weight="bold">${xmlText(titleLines[0] as string)}</text>`,
    `<text x="${MARGIN}" y="42" font-size="11" fill="#495057">${xmlText(subtitle(graph))}</text>`,
    `<g transform="translate(0,${titleHeight})">${body.join("\n")}${empty}</g>`,
    `<g fill="#212529">${legend.svg}</g>`,
    "</svg>",
    "",
  ].join("\n");
}

function subtitle(graph: ServiceGraph): string {
  const endpoints = graph.nodes.filter((n) => n.action === "dnat").length;
  const shown = graph.servicePorts.slice(0, 6).join(", ");
  const more = graph.servicePorts.length > 6 ? ` +${graph.servicePorts.length - 6}` : "";
  return `${shown}${more}; ${endpoints} DNAT ${endpoints === 1 ? "rule" : "rules"}`;
}
