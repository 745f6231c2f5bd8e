/**
 * The restore printer of a rule shape, compiled once per shape: the shape's literal arguments are
 * joined into the text between its slots, and the line is one template of those texts and the
 * values, so that printing a rule costs what a hand-written template string costs. Prints exactly
 * what `restoreLine` prints (test/iptables-writers.test.ts holds the two equal on every shape).
 *
 * @module
 */
import { quoteArgument } from "../print/restore.js";
import type { RuleShape, SlotKind } from "../shape/types.js";

/** Prints one value of a slot. */
type ValuePrinter = (value: string) => string;

/** Prints one rule of a shape: `-A CHAIN ARGS\n`. */
type LinePrinter = (chain: string, values: readonly string[]) => string;

/** One argument as `quoteArgument` prints it, scanned once. */
function argument(value: string): string {
  if (value.length === 0) return '""';
  let blank = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // A quote or backslash to escape, or a character no quoting carries (quoteArgument throws).
    if (c === 34 || c === 92 || c === 10 || c === 13 || c === 0) return quoteArgument(value);
    if (c === 32 || (c >= 9 && c <= 12)) blank = true;
  }
  return blank ? `"${value}"` : value;
}

/** Values the writers make from names and numbers: no blank, quote or backslash, never scanned. */
const asGiven: ValuePrinter = (value) => value;

// A port's endpoint rules repeat one comment (its name) and one protocol, rule after rule, as
// the same string: each is scanned when it changes, not once per rule.
let lastComment = "";
let lastCommentText = '""';
const comment: ValuePrinter = (value) => {
  if (value !== lastComment) {
    lastCommentText = argument(value);
    lastComment = value;
  }
  return lastCommentText;
};
let lastProtocol = "";
let lastProtocolText = '""';
const protocol: ValuePrinter = (value) => {
  if (value !== lastProtocol) {
    lastProtocolText = argument(value);
    lastProtocol = value;
  }
  return lastProtocolText;
};

/** How each kind of value prints: as given (chain names and numbers) or quoted as needed. */
const PRINTERS: Readonly<Record<SlotKind, ValuePrinter>> = {
  chain: asGiven,
  port: asGiven,
  probability: asGiven,
  seconds: asGiven,
  comment,
  protocol,
  address: argument,
  cidr: argument,
  destination: argument,
  interface: argument,
  word: argument,
};

function compile(shape: RuleShape): LinePrinter {
  // The text before, between and after the slot places (after `-A CHAIN`), and each place's
  // value index and printer.
  const t: string[] = [];
  const s: number[] = [];
  const f: ValuePrinter[] = [];
  let text = "";
  for (const arg of shape.args) {
    if (typeof arg === "string") {
      text += ` ${arg}`;
      continue;
    }
    t.push(`${text} `);
    s.push(arg.slot);
    f.push(PRINTERS[arg.kind]);
    text = "";
  }
  t.push(`${text}\n`);
  // One template per number of places (kube-proxy's shapes have at most six): no loop per rule.
  const [t0, t1, t2, t3, t4, t5, t6] = t as [string, string, string, string, string, string, string];
  const [s0, s1, s2, s3, s4, s5] = s as [number, number, number, number, number, number];
  const [f0, f1, f2, f3, f4, f5] = f as [
    ValuePrinter,
    ValuePrinter,
    ValuePrinter,
    ValuePrinter,
    ValuePrinter,
    ValuePrinter,
  ];
  const v = (values: readonly string[], slot: number): string => values[slot] as string;
  switch (s.length) {
    case 0:
      return (c) => `-A ${c}${t0}`;
    case 1:
      return (c, x) => `-A ${c}${t0}${f0(v(x, s0))}${t1}`;
    case 2:
      return (c, x) => `-A ${c}${t0}${f0(v(x, s0))}${t1}${f1(v(x, s1))}${t2}`;
    case 3:
      return (c, x) => `-A ${c}${t0}${f0(v(x, s0))}${t1}${f1(v(x, s1))}${t2}${f2(v(x, s2))}${t3}`;
    case 4:
      return (c, x) =>
        `-A ${c}${t0}${f0(v(x, s0))}${t1}${f1(v(x, s1))}${t2}${f2(v(x, s2))}${t3}${f3(v(x, s3))}${t4}`;
    case 5:
      return (c, x) =>
        `-A ${c}${t0}${f0(v(x, s0))}${t1}${f1(v(x, s1))}${t2}${f2(v(x, s2))}${t3}${f3(v(x, s3))}${t4}${f4(v(x, s4))}${t5}`;
    case 6:
      return (c, x) =>
        `-A ${c}${t0}${f0(v(x, s0))}${t1}${f1(v(x, s1))}${t2}${f2(v(x, s2))}${t3}${f3(v(x, s3))}${t4}${f4(v(x, s4))}${t5}${f5(v(x, s5))}${t6}`;
    default:
      return (c, x) => {
        let line = `-A ${c}${t0}`;
        for (let i = 0; i < s.length; i++)
          line += (f[i] as ValuePrinter)(v(x, s[i] as number)) + (t[i + 1] as string);
        return line;
      };
  }
}

const printers = new WeakMap<RuleShape, LinePrinter>();

/**
 * The rule's restore line, `-A CHAIN ARGS\n`: what `restoreLine` prints, with a newline.
 *
 * @throws KubeIptablesError (`UNSAFE_TEXT`) when a quoted value holds `\n`, `\r` or NUL.
 * @example
 * printRestoreLine(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]) // "-A KUBE-EXT-X -j KUBE-SVC-X\n"
 */
export function printRestoreLine(shape: RuleShape, chain: string, values: readonly string[]): string {
  let print = printers.get(shape);
  if (print === undefined) {
    print = compile(shape);
    printers.set(shape, print);
  }
  return print(chain, values);
}
