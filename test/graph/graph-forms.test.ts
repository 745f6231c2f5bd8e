// The picture's three forms, read back: the SVG parses as XML and holds one group per node and
// edge with the graph's labels; the DOT is read by Graphviz itself (WebAssembly) with the same
// nodes, edges and labels; the Mermaid flowchart declares every node once, quotes every label,
// and lets no label character end its string. Rule text from a dump is hostile: comments may hold
// quotes, brackets and markup.

import { instance } from "@viz-js/viz";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import {
  buildServiceGraph,
  formatDot,
  formatMermaid,
  renderSvg,
  type ServiceGraph,
} from "../../src/graph/index.js";
import { edgeLabelLines, nodeLabelLines, visibleText, wrapCondition } from "../../src/graph/labels.js";
import { parseRules, type RuleSet } from "../../src/index.js";
import { kubeProxyVector } from "../support/corpora.js";

// A comment that names the service port, then every character a writer has to escape.
const HOSTILE = `a/b:c <&>\\"'|#[]{}\` \\\\ ;--x`;
const HOSTILE_DUMP = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-SEP-Y - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-X - [0:0]
-A PREROUTING -j KUBE-SERVICES
-A OUTPUT -j KUBE-SERVICES
-A KUBE-SEP-Y -p tcp -m comment --comment "a/b:c" -m tcp -j DNAT --to-destination 198.18.1.1:8080
-A KUBE-SERVICES -d 198.18.0.10/32 -p tcp -m comment --comment "a/b:c cluster IP" -m tcp --dport 80 -j KUBE-SVC-X
-A KUBE-SVC-X -m comment --comment "${HOSTILE}"
-A KUBE-SVC-X -j KUBE-SEP-Y
COMMIT
`;

function parse(text: string, family: "IPv4" | "IPv6" = "IPv4"): RuleSet {
  const { ruleSet, problems } = parseRules(text, { family });
  expect(problems).toEqual([]);
  return ruleSet;
}

function graphs(): [string, ServiceGraph][] {
  const out: [string, ServiceGraph][] = [["hostile comment", buildServiceGraph(parse(HOSTILE_DUMP))]];
  for (const name of [
    "feature-lb-source-ranges-etp-local",
    "feature-affinity-clientip-default",
    "feature-ipv6-lb-etp-local",
  ]) {
    const v = kubeProxyVector("kube-proxy", name);
    out.push([
      name,
      buildServiceGraph(parse(v.expected.save, v.config.ipFamily === "IPv6" ? "IPv6" : "IPv4")),
    ]);
  }
  return out;
}

function parseXml(text: string) {
  const errors: string[] = [];
  const doc = new DOMParser({
    onError: (level, message) => errors.push(`${level}: ${message}`),
  }).parseFromString(text, "image/svg+xml");
  expect(errors).toEqual([]);
  return doc;
}

function groups(
  root: { getElementsByTagName(name: string): ArrayLike<Element> },
  className: string,
): Element[] {
  return Array.from(root.getElementsByTagName("g")).filter((g) => g.getAttribute("class") === className);
}

function texts(g: Element): string[] {
  return Array.from(g.getElementsByTagName("text")).map((t) => t.textContent ?? "");
}

describe("SVG", () => {
  it.each(graphs())(
    "%s: well-formed, one group per node and edge, the labels as text",
    async (_name, graph) => {
      const svg = await renderSvg(graph);
      const doc = parseXml(svg);
      const root = doc.documentElement;
      expect(root?.tagName).toBe("svg");
      expect(root?.getAttribute("xmlns")).toBe("http://www.w3.org/2000/svg");
      const [, , width, height] = (root?.getAttribute("viewBox") ?? "").split(" ").map(Number);
      expect(width).toBeGreaterThan(0);
      expect(height).toBeGreaterThan(0);
      const nodes = groups(doc, "node");
      expect(nodes.map((n) => n.getAttribute("data-id")).sort()).toEqual(graph.nodes.map((n) => n.id).sort());
      for (const n of nodes) {
        const node = graph.nodes.find((x) => x.id === n.getAttribute("data-id"));
        expect(texts(n)).toEqual(nodeLabelLines(node as ServiceGraph["nodes"][number]).map(visibleText));
        // Inside the picture.
        const rect = n.getElementsByTagName("rect")[0];
        const x = Number(rect?.getAttribute("x"));
        const w = Number(rect?.getAttribute("width"));
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x + w).toBeLessThanOrEqual(width as number);
      }
      const edges = groups(doc, "edge");
      expect(edges).toHaveLength(graph.edges.length);
      for (const e of edges) {
        const edge = graph.edges.find((x) => x.id === e.getAttribute("data-id"));
        expect(edge).toBeDefined();
        expect(e.getAttribute("data-from")).toBe(edge?.from);
        expect(e.getAttribute("data-to")).toBe(edge?.to);
        expect(texts(e)).toEqual(edgeLabelLines(edge as ServiceGraph["edges"][number]));
        expect(e.getElementsByTagName("path")[0]?.getAttribute("d")).toMatch(
          /^M[\d.-]+,[\d.-]+( [QL][\d.,-]+( [\d.,-]+)?)+$/,
        );
      }
      expect(svg).toContain(">Legend<");
    },
  );

  it("the hostile comment reaches the picture as it was written", async () => {
    const graph = buildServiceGraph(parse(HOSTILE_DUMP));
    const doc = parseXml(await renderSvg(graph));
    const note = groups(doc, "node").find((n) => n.getAttribute("data-action") === "continue");
    expect(texts(note as Element).join(" ")).toBe(
      `no target: on to the next rule ${HOSTILE.replace(/\\(.)/g, "$1")}`,
    );
  });

  it("an empty selection draws a picture that says so", async () => {
    const doc = parseXml(await renderSvg(buildServiceGraph(parse(HOSTILE_DUMP), ["no/such"])));
    expect(groups(doc, "node")).toEqual([]);
    expect(
      Array.from(doc.getElementsByTagName("text")).some((t) => /No rule names/.test(t.textContent ?? "")),
    ).toBe(true);
  });
});

describe("DOT", () => {
  it.each(graphs())(
    "%s: Graphviz reads it with the graph's nodes, edges and labels",
    async (_name, graph) => {
      const viz = await instance();
      const dot = formatDot(graph);
      const json = viz.renderJSON(dot) as {
        objects: { name: string; label?: string; nodes?: number[] }[];
        edges: { tail: number; head: number; label?: string }[];
      };
      const nodes = json.objects.filter((o) => o.nodes === undefined);
      expect(nodes).toHaveLength(graph.nodes.length);
      expect(json.edges).toHaveLength(graph.edges.length);
      // Graphviz keeps the label as written (with its escapes): unescape them as it draws them.
      const drawn = (label: string | undefined) =>
        (label ?? "").replace(/\\(n|\\|")/g, (_m, c: string) => (c === "n" ? "\n" : c));
      const byName = new Map(json.objects.map((o, i) => [i, o]));
      graph.nodes.forEach((n, i) => {
        const object = nodes.find((o) => o.name === `n${i}`);
        expect(drawn(object?.label)).toBe(nodeLabelLines(n).map(visibleText).join("\n"));
      });
      graph.edges.forEach((e, i) => {
        const edge = json.edges[i];
        expect(byName.get(edge?.tail as number)?.name).toBe(
          `n${graph.nodes.findIndex((n) => n.id === e.from)}`,
        );
        expect(byName.get(edge?.head as number)?.name).toBe(
          `n${graph.nodes.findIndex((n) => n.id === e.to)}`,
        );
        expect(drawn(edge?.label)).toBe(edgeLabelLines(e).join("\n"));
      });
    },
  );
});

// In a quoted label: the quote, the edge-label bar, markup other than <br>, a bracket, a bare
// ampersand, or a # that does not start an entity code would end or change the label.
const FORBIDDEN = /["|`[\]{}&]|<(?!br>)|(?<!<br)>|#(?!(?:quot|lt|gt|\d+);)/;

describe("Mermaid", () => {
  it.each(graphs())("%s: every node declared once, every label quoted and escaped", (_name, graph) => {
    const lines = formatMermaid(graph).trimEnd().split("\n");
    expect(lines[0]).toBe("flowchart TD");
    const declared = new Map<string, string>();
    const edges: [string, string][] = [];
    let depth = 0;
    for (const line of lines.slice(1)) {
      const t = line.trim();
      const node = /^(n\d+)\["([^"]*)"\]$/.exec(t);
      const edge = /^(n\d+) (?:-->|-\.->)(?:\|"([^"]*)"\|)? (n\d+)$/.exec(t);
      if (/^subgraph t\d+\["[^"]*"\]$/.test(t)) depth++;
      else if (t === "end") depth--;
      else if (node !== null) {
        expect(declared.has(node[1] as string)).toBe(false);
        declared.set(node[1] as string, node[2] as string);
      } else if (edge !== null) edges.push([edge[1] as string, edge[3] as string]);
      else expect(t).toMatch(/^(classDef \w+ [\w:#,.-]+|class [n\d,]+ \w+|linkStyle [\d,]+ [\w:#,.-]+)$/);
      // A label holds no character that would end it or start markup.
      for (const label of [node?.[2], edge?.[2]])
        if (label !== undefined) expect(label).not.toMatch(FORBIDDEN);
    }
    expect(depth).toBe(0);
    expect(declared.size).toBe(graph.nodes.length);
    expect(edges).toHaveLength(graph.edges.length);
    for (const [from, to] of edges) {
      expect(declared.has(from)).toBe(true);
      expect(declared.has(to)).toBe(true);
    }
  });
});

describe("labels", () => {
  it("wraps a condition at option boundaries, keeping ! and -m with their option", () => {
    expect(wrapCondition("! -s 10.244.0.0/16 -d 10.96.0.10/32 -p tcp --dport 80")).toEqual([
      "! -s 10.244.0.0/16 -d 10.96.0.10/32",
      "-p tcp --dport 80",
    ]);
    expect(wrapCondition("-m mark ! --mark 0x4000/0x4000", 10)).toEqual(["-m mark ! --mark 0x4000/0x4000"]);
    expect(wrapCondition("-d 10.98.69.149/32 -p tcp --dport 3000")).toEqual([
      "-d 10.98.69.149/32",
      "-p tcp --dport 3000",
    ]);
    expect(wrapCondition("")).toEqual([]);
  });

  it("shows control characters and lone surrogates as escapes, keeps pairs", () => {
    expect(visibleText("a\u001b[2Jb\nc")).toBe("a\\u001b[2Jb\\u000ac");
    expect(visibleText("\ud83d\ude00 \ud800")).toBe("\ud83d\ude00 \\ud800");
  });
});
