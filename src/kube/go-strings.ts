/**
 * Go's string helpers where JavaScript's differ, for values the API server and kube-proxy trim.
 *
 * @module
 */

/**
 * Whether Go's `unicode.IsSpace` holds: JavaScript's `trim` also strips U+FEFF and keeps U+0085
 * (NEL), which Go does the other way round.
 */
function isGoSpace(c: number): boolean {
  if (c <= 0xff) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0;
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Go's `strings.TrimSpace`: the text without leading and trailing Unicode white space.
 *
 * @example
 * trimGoSpace(" 10.0.0.0/8\u0085") // "10.0.0.0/8"
 * trimGoSpace("\uFEFF10.0.0.0/8")  // "\uFEFF10.0.0.0/8"
 */
export function trimGoSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isGoSpace(text.charCodeAt(start))) start++;
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Go's `strings.ToLower`: it lower-cases rune by rune (`unicode.ToLower`), which turns 'İ'
 * (U+0130) into a plain 'i', where JavaScript's full case mapping adds a combining dot.
 *
 * @example
 * lowerGo("Node-\u0130") // "node-i"
 */
export function lowerGo(text: string): string {
  return (text.includes("\u0130") ? text.replaceAll("\u0130", "i") : text).toLowerCase();
}
