/**
 * The text on the picture, shared by the SVG, DOT and Mermaid writers: an edge's label lines
 * (the condition wrapped at option boundaries, the exact share, the traced share) and a node's.
 *
 * @module
 */
import { type Fraction, formatFraction } from "../trace/index.js";
import type { GraphEdge, GraphNode } from "./types.js";

/** The widest line a label gets before it is wrapped (characters). */
export const LABEL_WIDTH = 36;

// A condition breaks before an option (`-d`, `--dport`), keeping `!` with the option it negates.
const OPTION_START = /(?<!!)\s+(?=(?:! )?--?[a-zA-Z])/;
const MODULE_ONLY = /^-m \S+$/;
// `-p tcp --dport 80` reads as one thing: the port belongs with its protocol.
const PORT_OPTION = /^(?:! )?--[sd]ports? /;

/**
 * A condition in lines of at most {@link LABEL_WIDTH} characters where it can be broken (an
 * option and its values stay together).
 *
 * @example
 * wrapCondition("! -s 10.244.0.0/16 -d 10.96.0.10/32 -p tcp --dport 80")
 * // ["! -s 10.244.0.0/16 -d 10.96.0.10/32", "-p tcp --dport 80"]
 */
export function wrapCondition(condition: string, width: number = LABEL_WIDTH): string[] {
  if (condition === "") return [];
  const parts: string[] = [];
  for (const part of condition.split(OPTION_START)) {
    const last = parts[parts.length - 1];
    // `-m mark` stays with its first option.
    const joins =
      MODULE_ONLY.test(last ?? "") || (last?.startsWith("-p ") === true && PORT_OPTION.test(part));
    if (last !== undefined && joins) parts[parts.length - 1] = `${last} ${part}`;
    else if (part !== "") parts.push(part);
  }
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    if (line === "") line = part;
    else if (line.length + 1 + part.length <= width) line += ` ${part}`;
    else {
      lines.push(line);
      line = part;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * A probability for the picture: the decimal to 9 places, as the tracer prints it.
 *
 * @example
 * formatShare(fraction(1n, 2n)) // "0.5"
 */
export function formatShare(p: Fraction): string {
  const text = formatFraction(p);
  // 0.500000000 reads as 0.5; the exact value is in the tooltip.
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * The exact value of a probability: `numerator/denominator`.
 *
 * @example
 * exactShare(fraction(715827883n, 2147483648n)) // "715827883/2147483648"
 */
export function exactShare(p: Fraction): string {
  return p.denominator === 1n ? p.numerator.toString() : `${p.numerator}/${p.denominator}`;
}

/**
 * The lines of an edge's label: its condition, `affinity` for a session-affinity check, the
 * share (`p=0.333333333`) and, on a traced picture, the traced share.
 *
 * @example
 * edgeLabelLines(edge) // ["-d 10.96.0.10/32 -p tcp --dport 80"]
 */
export function edgeLabelLines(edge: GraphEdge): string[] {
  const lines = edge.kind === "later" ? [edge.condition] : wrapCondition(edge.condition);
  if (edge.affinity) lines.unshift("affinity: client seen before");
  if (edge.probability !== null) lines.push(`p=${formatShare(edge.probability)}`);
  if (edge.traced !== null) lines.push(`traced p=${formatShare(edge.traced)}`);
  return lines;
}

/**
 * The lines of a node: its title, then its other lines (each wrapped), then the traced share.
 *
 * @example
 * nodeLabelLines(node) // ["KUBE-SVC-…", "nat: every endpoint (cluster traffic policy)", "default/web:http"]
 */
export function nodeLabelLines(node: GraphNode): string[] {
  const lines = [node.title];
  for (const line of node.lines) lines.push(...wrapWords(line, LABEL_WIDTH + 8));
  if (node.traced !== null) lines.push(`traced p=${formatShare(node.traced)}`);
  return lines;
}

function wrapWords(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /^[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff\ufffe\uffff]$/;

/**
 * Text with control characters (and what XML cannot hold) shown as `\uXXXX`: a comment in a
 * dump may hold anything, and a picture's text is one line per label line. Surrogate pairs are
 * kept (only lone surrogates are escaped).
 *
 * @example
 * visibleText("a\u001bb") // "a\\u001bb"
 */
export function visibleText(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g, (ch) =>
    ch.length === 2 || !CONTROL.test(ch) ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
