/**
 * The restore printer of a rule shape, compiled once per shape: the shape's literal arguments
 * joined into the text between its slots, so that printing a rule pushes a handful of pieces
 * (chain, literal runs, values) instead of walking the arguments. Prints exactly what
 * `restoreLine` prints (the property test in test/iptables-writers.test.ts holds them equal).
 *
 * @module
 */
import { quoteArgument } from "../../format/restore.js";
import type { RuleShape, SlotKind } from "../shape/types.js";

/** A shape compiled for printing restore lines. */
interface RestorePrinter {
  /** The text before the first slot (after `-A CHAIN`), between slots, and after the last (with `\n`). */
  readonly texts: readonly string[];
  /** The value index of each slot place, in order. */
  readonly slots: readonly number[];
  /** Whether each place's value is quoted as needed (else printed as given). */
  readonly quoted: readonly boolean[];
}

/**
 * Kinds whose values the writers make themselves from names and numbers (chain names, decimal
 * ports and seconds, probabilities): they never hold a blank, a quote or a backslash, so they are
 * printed without a scan. Every other value is quoted as `quoteArgument` quotes it.
 */
const PRINTED_AS_GIVEN: ReadonlySet<SlotKind> = new Set<SlotKind>([
  "chain",
  "port",
  "probability",
  "seconds",
]);

const printers = new WeakMap<RuleShape, RestorePrinter>();

function compile(shape: RuleShape): RestorePrinter {
  const texts: string[] = [];
  const slots: number[] = [];
  const quoted: boolean[] = [];
  let text = "";
  for (const arg of shape.args) {
    if (typeof arg === "string") {
      text += ` ${arg}`;
      continue;
    }
    texts.push(`${text} `);
    slots.push(arg.slot);
    quoted.push(!PRINTED_AS_GIVEN.has(arg.kind));
    text = "";
  }
  texts.push(`${text}\n`);
  return { texts, slots, quoted };
}

function printerOf(shape: RuleShape): RestorePrinter {
  let printer = printers.get(shape);
  if (printer === undefined) {
    printer = compile(shape);
    printers.set(shape, printer);
  }
  return printer;
}

/**
 * Pushes one argument as `quoteArgument` prints it, as pieces: a comment with blanks is pushed
 * as its quotes and itself, without building the quoted string.
 */
function pushArgument(out: string[], value: string): void {
  if (value.length === 0) {
    out.push('""');
    return;
  }
  let blank = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // A quote or backslash to escape, or a character no quoting carries (quoteArgument throws).
    if (c === 34 || c === 92 || c === 10 || c === 13 || c === 0) {
      out.push(quoteArgument(value));
      return;
    }
    if (c === 32 || (c >= 9 && c <= 12)) blank = true;
  }
  if (blank) out.push('"', value, '"');
  else out.push(value);
}

/**
 * Pushes the rule's restore line (`-A CHAIN ARGS\n`) to `out` as pieces, to be joined later.
 *
 * @throws KubeIptablesError (`UNSAFE_TEXT`) when a quoted value holds `\n`, `\r` or NUL.
 * @example
 * const out: string[] = [];
 * pushRestoreLine(out, JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]);
 * out.join("") // "-A KUBE-EXT-X -j KUBE-SVC-X\n"
 */
export function pushRestoreLine(
  out: string[],
  shape: RuleShape,
  chain: string,
  values: readonly string[],
): void {
  const { texts, slots, quoted } = printerOf(shape);
  out.push("-A ", chain, texts[0] as string);
  for (let i = 0; i < slots.length; i++) {
    const value = values[slots[i] as number] as string;
    if (quoted[i]) pushArgument(out, value);
    else out.push(value);
    out.push(texts[i + 1] as string);
  }
}
