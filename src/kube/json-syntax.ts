/**
 * Where JSON text breaks, for the message: `JSON.parse` gives at most an offset (none for an
 * unexpected token), and for a stream of documents an offset at the start of the second one.
 * This scanner walks the text as a stream of objects and arrays (as `splitJsonValues` reads it)
 * and stops at the first character that cannot be there. It runs only once `JSON.parse` has
 * refused the text; it keeps its nesting on a list, not the call stack.
 *
 * @module
 */
import { show } from "./validate-report.js";

/** The first syntax error of JSON text: its offset and what is wrong there. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly reason: string;
}

class Broken {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

const OBJECT = 0;
const ARRAY = 1;
const ESCAPES = '"\\/bfnrtu';
const HEX_DIGIT = /^[0-9a-fA-F]$/;

function isBlank(c: string | undefined): boolean {
  return c === " " || c === "\n" || c === "\r" || c === "\t";
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** The character at `i` as a message shows it (a whole code point, escaped when unsafe). */
function charAt(text: string, i: number): string {
  return show(String.fromCodePoint(text.codePointAt(i) ?? 0));
}

/**
 * The first syntax error of text that should be JSON objects or arrays one after another, or
 * `null` when there is none.
 *
 * @example
 * jsonSyntaxError('{"a": tru}')          // { offset: 9, reason: 'unexpected "}" in a literal' }
 * jsonSyntaxError('{"a": 1}\n{"b": [}') // { offset: 16, reason: 'unexpected "}"' }
 * jsonSyntaxError('{"a": 1} {"b": 2}')  // null
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    let i = skipBlanks(text, 0);
    // "after a JSON value" only once there was one (a stray character may also come first).
    let after = "";
    while (i < text.length) {
      const c = text[i];
      if (c !== "{" && c !== "[") throw new Broken(i, `unexpected ${charAt(text, i)}${after}`);
      i = skipBlanks(text, scanValue(text, i));
      after = " after a JSON value";
    }
    return null;
  } catch (e) {
    if (e instanceof Broken) return { offset: e.offset, reason: e.reason };
    throw e;
  }
}

function skipBlanks(text: string, from: number): number {
  let i = from;
  while (isBlank(text[i])) i++;
  return i;
}

/** The offset just past the value (of any kind) at `start`; throws {@link Broken}. */
function scanValue(text: string, start: number): number {
  const open: number[] = [];
  let i = start;
  for (;;) {
    // A value is expected at i.
    i = skipBlanks(text, i);
    const c = text[i];
    if (c === "{") {
      i = skipBlanks(text, i + 1);
      if (text[i] === "}") i++;
      else {
        open.push(OBJECT);
        i = scanKey(text, i);
        continue;
      }
    } else if (c === "[") {
      i = skipBlanks(text, i + 1);
      if (text[i] === "]") i++;
      else {
        open.push(ARRAY);
        continue;
      }
    } else if (c === '"') i = scanString(text, i);
    else if (c === "-" || isDigit(c)) i = scanNumber(text, i);
    else if (c === "t" || c === "f" || c === "n") i = scanLiteral(text, i);
    else throw endOr(text, i, open, `unexpected ${charAt(text, i)}`);
    // After a value: close what it ends, or go on to the next member or element.
    for (;;) {
      const inside = open.at(-1);
      if (inside === undefined) return i;
      i = skipBlanks(text, i);
      const close = inside === OBJECT ? "}" : "]";
      if (text[i] === close) {
        open.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") {
        const what = inside === OBJECT ? "a property value" : "an array element";
        throw endOr(text, i, open, `expected "," or "${close}" after ${what}, found ${charAt(text, i)}`);
      }
      i++;
      if (inside === OBJECT) i = scanKey(text, skipBlanks(text, i));
      break;
    }
  }
}

/** The end-of-input error when `i` is past the text, else `reason` at `i`. */
function endOr(text: string, i: number, open: readonly number[], reason: string): Broken {
  if (i < text.length) return new Broken(i, reason);
  if (open.length === 0) return new Broken(i, "the input ends where a value should be");
  return new Broken(i, `the input ends inside ${open.at(-1) === OBJECT ? "an object" : "an array"}`);
}

/** Past a property name and its colon (the name at `i`). */
function scanKey(text: string, i: number): number {
  if (text[i] !== '"') {
    if (i >= text.length) throw new Broken(i, "the input ends inside an object");
    throw new Broken(i, `expected a property name in double quotes, found ${charAt(text, i)}`);
  }
  const j = skipBlanks(text, scanString(text, i));
  if (text[j] !== ":") {
    if (j >= text.length) throw new Broken(j, "the input ends inside an object");
    throw new Broken(j, `expected ":" after a property name, found ${charAt(text, j)}`);
  }
  return j + 1;
}

function scanString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text[i];
    if (c === undefined) throw new Broken(i, "the input ends inside a string");
    if (c === '"') return i + 1;
    if (c < " ") throw new Broken(i, `a control character (${charAt(text, i)}) in a string`);
    if (c === "\\") {
      const e = text[i + 1];
      if (e === undefined) throw new Broken(i + 1, "the input ends inside a string");
      if (!ESCAPES.includes(e))
        throw new Broken(i + 1, `unexpected ${charAt(text, i + 1)} after a backslash in a string`);
      i += 2;
      if (e === "u") i = scanHexDigits(text, i);
    } else i++;
  }
}

/** Past the four hex digits of a `\\u` escape. */
function scanHexDigits(text: string, start: number): number {
  for (let i = start; i < start + 4; i++) {
    if (HEX_DIGIT.test(text[i] ?? "")) continue;
    if (i >= text.length) throw new Broken(i, "the input ends inside a string");
    throw new Broken(i, `unexpected ${charAt(text, i)} in a \\u escape (four hex digits)`);
  }
  return start + 4;
}

function scanNumber(text: string, start: number): number {
  let i = start;
  if (text[i] === "-") i++;
  if (text[i] === "0") i++;
  else i = digits(text, i);
  if (text[i] === ".") i = digits(text, i + 1);
  if (text[i] === "e" || text[i] === "E") {
    i++;
    if (text[i] === "+" || text[i] === "-") i++;
    i = digits(text, i);
  }
  return i;
}

/** Past one or more digits at `i`. */
function digits(text: string, start: number): number {
  let i = start;
  while (isDigit(text[i])) i++;
  if (i === start) {
    if (i >= text.length) throw new Broken(i, "the input ends inside a number");
    throw new Broken(i, `unexpected ${charAt(text, i)} in a number`);
  }
  return i;
}

function scanLiteral(text: string, start: number): number {
  const word = text[start] === "t" ? "true" : text[start] === "f" ? "false" : "null";
  for (let k = 1; k < word.length; k++) {
    const i = start + k;
    if (text[i] === word[k]) continue;
    if (i >= text.length) throw new Broken(i, "the input ends inside a literal");
    throw new Broken(i, `unexpected ${charAt(text, i)} in a literal`);
  }
  return start + word.length;
}
