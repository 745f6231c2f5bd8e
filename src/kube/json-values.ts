/**
 * Text that holds several JSON objects or arrays one after another, as two `kubectl get … -o json`
 * runs piped into one stream write them: split into the text of each value. JSON itself has no
 * such sequence, so this is tried only once `JSON.parse` has refused the whole text.
 *
 * @module
 */

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The text of each top-level object or array, when `text` is two or more of them separated by
 * whitespace only; otherwise `null`. Only nesting and strings are tracked: each piece still has to
 * be parsed, which reports anything else wrong inside it.
 *
 * @example
 * splitJsonValues('{"kind":"List"}\n{"kind":"List"}') // ['{"kind":"List"}', '{"kind":"List"}']
 * splitJsonValues('{"a": 1}')                         // null (one value)
 * splitJsonValues('{"a": 1} 2')                       // null (a scalar between)
 */
export function splitJsonValues(text: string): string[] | null {
  const values: string[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isBlank(text.charCodeAt(i))) i++;
    if (i === text.length) break;
    const c = text.charCodeAt(i);
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return null;
    const end = endOfValue(text, i);
    if (end < 0) return null;
    values.push(text.slice(i, end));
    i = end;
  }
  return values.length >= 2 ? values : null;
}

/** The index just past the object or array that starts at `start`, or -1 when it never closes. */
function endOfValue(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}
