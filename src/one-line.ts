/**
 * Text for people, kept to one line: control characters shown as JSON escapes them. Problem
 * messages, diff summaries and traces quote input as iptables does, raw; a dump with CRLF line
 * endings, or an escape sequence in a comment or a chain name, must neither break a line nor
 * reach the terminal.
 *
 * @module
 */

/** C0 and C1 controls, DEL, and the two Unicode line separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` with every control character escaped: `\r`, `\n`, `\t`, `\b`, `\f` as JSON writes them,
 * the others as `\uXXXX`. Text without any comes back as it is.
 *
 * @example
 * oneLine("table 'filter\r'") // "table 'filter\\r'"
 * oneLine("\u001b[2J")        // "\\u001b[2J"
 */
export function oneLine(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

function escapeControl(ch: string): string {
  const json = JSON.stringify(ch);
  // Two characters inside the quotes: one of JSON's short escapes.
  return json.length === 4 ? json.slice(1, -1) : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
