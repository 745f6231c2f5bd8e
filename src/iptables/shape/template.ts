/**
 * A shape's save layout, derived from its one description by the one canonicalizer: the shape is
 * filled with sample values, canonicalized and printed as `iptables-save` prints it, and the line
 * is cut into literal text and slot references (each found by its sample's printed text). The
 * layout is checked at once against a second set of samples in other spellings; if it does not
 * reproduce the canonicalizer, the derivation throws (a programming error, never silently
 * wrong). Layouts are derived on first use and kept, one per shape, protocol, family and
 * backend (the protocol selects the port match, so it is part of the layout).
 *
 * @module
 */

import type { Backend } from "../../ir/canonical-types.js";
import type { IPFamily } from "../../ir/types.js";
import { formatCanonicalRule, tryCanonicalizeRule } from "../canonical/canonicalize.js";
import { tokenizeLine } from "../parse/tokenize.js";
import { K_PROTOCOL, KIND_CODES, sampleValue, saveSlotValue } from "./slot-values.js";
import type { RuleShape } from "./types.js";

/**
 * The save line of a shape for one protocol, family and backend: `-A CHAIN`, then `lead`, then
 * each slot's printed value followed by its tail.
 *
 * @example
 * // TO_DESTINATION, tcp, IPv4:
 * // lead " -d ", slots [2, 0, 3, 4], tails [" -p tcp -m comment --comment ", " -m tcp --dport ", " -j ", ""]
 */
export interface SaveTemplate {
  /** The shape it prints. */
  readonly shape: RuleShape;
  /** The family its printers use. */
  readonly family: IPFamily;
  /** Literal text after `-A CHAIN`, up to the first slot. */
  readonly lead: string;
  /** The value index of each slot reference, in save order. */
  readonly slots: readonly number[];
  /** The printer code of each slot reference (see `KIND_CODES`). */
  readonly kinds: readonly number[];
  /** Literal text after each slot reference. */
  readonly tails: readonly string[];
  /**
   * The save line's arguments after `-A CHAIN` as the restore tokenizer reads them: a literal
   * argument, or the value index of a slot (for the shape matcher).
   */
  readonly tokens: readonly (string | number)[];
}

/** The one protocol slot of a shape (-1: none), and its layouts once derived. */
interface ShapeLayouts {
  readonly protocolSlot: number;
  /** By `(family × 2 + backend) × 4 + protocol` (protocol: none, tcp, udp, sctp); null: no layout. */
  readonly templates: (SaveTemplate | null | undefined)[];
}

const layouts = new WeakMap<RuleShape, ShapeLayouts>();
let lastShape: RuleShape | null = null;
let lastLayouts: ShapeLayouts | null = null;

function layoutsOf(shape: RuleShape): ShapeLayouts {
  if (shape === lastShape && lastLayouts !== null) return lastLayouts;
  let found = layouts.get(shape);
  if (found === undefined) {
    let protocolSlot = -1;
    for (let s = 0; s < shape.kinds.length; s++) {
      if (shape.kinds[s] !== "protocol") continue;
      if (protocolSlot >= 0) throw new Error(`shape ${shape.name}: more than one protocol slot`);
      protocolSlot = s;
    }
    found = { protocolSlot, templates: new Array(16).fill(undefined) };
    layouts.set(shape, found);
  }
  lastShape = shape;
  lastLayouts = found;
  return found;
}

/** The layout index of a protocol value: 1–3 for tcp, udp, sctp; -1 for any other (general path). */
function protocolIndex(protocol: string): number {
  if (protocol === "tcp") return 1;
  if (protocol === "udp") return 2;
  if (protocol === "sctp") return 3;
  return -1;
}

/**
 * The shape's save layout for these values' protocol, in a family and on a backend; `null` when
 * there is none: the protocol is not tcp, udp or sctp, or the canonicalizer refuses the shape's
 * literal text in this family (`-d 127.0.0.0/8` in IPv6). Derived on first use.
 *
 * @throws Error when the derived layout does not reproduce the canonicalizer (a description or
 *   printer bug, found on first use).
 * @example
 * saveTemplate(TO_DESTINATION, ["c", "tcp", "10.96.0.10", "80", "KUBE-SVC-X"], "IPv4", "nft")?.slots // [2, 0, 3, 4]
 */
export function saveTemplate(
  shape: RuleShape,
  values: readonly string[],
  family: IPFamily,
  backend: Backend,
): SaveTemplate | null {
  const l = layoutsOf(shape);
  let p = 0;
  if (l.protocolSlot >= 0) {
    p = protocolIndex(values[l.protocolSlot] as string);
    if (p < 0) return null;
  }
  const at = ((family === "IPv4" ? 0 : 2) + (backend === "nft" ? 0 : 1)) * 4 + p;
  let t = l.templates[at];
  if (t === undefined) {
    t = deriveTemplate(shape, l.protocolSlot, PROTOCOLS[p] as string, family, backend);
    l.templates[at] = t;
  }
  return t;
}

const PROTOCOLS = ["", "tcp", "udp", "sctp"];

/**
 * The rule's save line from a layout: `head` (`-A CHAIN`, or with a counters prefix), then the
 * literal text and each slot's printed value. `null` when a value does not keep the layout (see
 * `saveSlotValue`): print the rule through the canonicalizer instead.
 *
 * @example
 * fillTemplate(template, "-A KUBE-SERVICES", values, "IPv4")
 * // "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"ns/web:http cluster IP\" -m tcp --dport 80 -j KUBE-SVC-X"
 */
export function fillTemplate(
  t: SaveTemplate,
  head: string,
  values: readonly string[],
  family: IPFamily,
): string | null {
  const slots = t.slots;
  const kinds = t.kinds;
  const tails = t.tails;
  let line = head + t.lead;
  for (let i = 0; i < slots.length; i++) {
    const v = values[slots[i] as number];
    if (typeof v !== "string") return null;
    const printed = saveSlotValue(kinds[i] as number, v, family);
    if (printed === null) return null;
    line += printed;
    line += tails[i] as string;
  }
  return line;
}

/**
 * Whether every value of a layout keeps it (what {@link fillTemplate} checks, without printing):
 * then the canonicalizer accepts the rule and prints the layout.
 *
 * @example
 * templateTakes(template, ["c", "tcp", "0.0.0.0/0", "80", "KUBE-SVC-X"], "IPv4") // false
 */
export function templateTakes(t: SaveTemplate, values: readonly string[], family: IPFamily): boolean {
  const slots = t.slots;
  const kinds = t.kinds;
  for (let i = 0; i < slots.length; i++) {
    const v = values[slots[i] as number];
    if (typeof v !== "string" || saveSlotValue(kinds[i] as number, v, family) === null) return false;
  }
  return true;
}

const SAMPLE_CHAIN = "KUBE-SAMPLE-CHAIN";

/** The shape's arguments filled with sample values (and the protocol). */
function sampleValues(
  shape: RuleShape,
  protocolSlot: number,
  protocol: string,
  family: IPFamily,
  set: 0 | 1,
): string[] {
  const values: string[] = [];
  for (let s = 0; s < shape.kinds.length; s++)
    values.push(
      s === protocolSlot
        ? protocol
        : sampleValue(shape.kinds[s] as RuleShape["kinds"][number], s, family, set),
    );
  return values;
}

function fillArgs(shape: RuleShape, values: readonly string[]): string[] {
  return shape.args.map((arg) => (typeof arg === "string" ? arg : (values[arg.slot] as string)));
}

function derivationError(shape: RuleShape, family: IPFamily, backend: Backend, why: string): Error {
  return new Error(`rule shape "${shape.name}" (${family}, ${backend}): ${why}`);
}

function deriveTemplate(
  shape: RuleShape,
  protocolSlot: number,
  protocol: string,
  family: IPFamily,
  backend: Backend,
): SaveTemplate | null {
  const options = { backend } as const;
  const a = sampleValues(shape, protocolSlot, protocol, family, 0);
  const argsA = fillArgs(shape, a);
  const ca = tryCanonicalizeRule(argsA, family, options);
  if (!ca.ok) {
    // Refused for its literal text (127.0.0.0/8 in IPv6): no layout, every rule takes the
    // general path (which reports the problem). Refused for a sample value: a bug here.
    if (ca.argIndex >= 0 && typeof shape.args[ca.argIndex] === "object")
      throw derivationError(shape, family, backend, `sample value refused: ${ca.message}`);
    return null;
  }
  const lineA = formatCanonicalRule(SAMPLE_CHAIN, ca.rule);

  // Each slot that appears in the arguments, by its sample's printed text (all bare words).
  const used = new Set<number>();
  for (const arg of shape.args) if (typeof arg === "object" && arg.slot !== protocolSlot) used.add(arg.slot);
  const byPrinted = new Map<string, number>();
  for (const s of used) {
    const printed = saveSlotValue(
      KIND_CODES[shape.kinds[s] as RuleShape["kinds"][number]],
      a[s] as string,
      family,
    );
    if (printed === null || byPrinted.has(printed))
      throw derivationError(shape, family, backend, `sample value ${a[s]} of slot ${s} is not a plain value`);
    byPrinted.set(printed, s);
  }

  const starts: number[] = [];
  const words = tokenizeLine(lineA, 0, lineA.length, false, starts);
  if (words[0] !== "-A" || words[1] !== SAMPLE_CHAIN)
    throw derivationError(shape, family, backend, `unexpected save line ${lineA}`);
  const slots: number[] = [];
  const kinds: number[] = [];
  const tails: string[] = [];
  const tokens: (string | number)[] = [];
  let lead = "";
  let literalFrom = (starts[1] as number) + SAMPLE_CHAIN.length;
  const found = new Set<number>();
  for (let k = 2; k < words.length; k++) {
    const word = words[k] as string;
    const at = starts[k] as number;
    const s = byPrinted.get(word);
    // A slot's sample prints bare: a quoted word with the same text is literal.
    if (s === undefined || lineA.slice(at, at + word.length) !== word) {
      tokens.push(word);
      continue;
    }
    const literal = lineA.slice(literalFrom, at);
    if (slots.length === 0) lead = literal;
    else tails[tails.length - 1] = literal;
    slots.push(s);
    kinds.push(KIND_CODES[shape.kinds[s] as RuleShape["kinds"][number]]);
    tails.push("");
    tokens.push(s);
    found.add(s);
    literalFrom = at + word.length;
  }
  if (slots.length === 0) lead = lineA.slice(literalFrom);
  else tails[tails.length - 1] = lineA.slice(literalFrom);
  for (const s of used)
    if (!found.has(s))
      throw derivationError(shape, family, backend, `slot ${s} does not appear in the save line ${lineA}`);
  const template: SaveTemplate = { shape, family, lead, slots, kinds, tails, tokens };
  if (kinds.includes(K_PROTOCOL))
    throw derivationError(shape, family, backend, "a protocol slot printed as a value");

  // The check: another set of samples, in other spellings, prints as the canonicalizer prints it,
  // and its save line's arguments read back as the same values.
  const b = sampleValues(shape, protocolSlot, protocol, family, 1);
  const cb = tryCanonicalizeRule(fillArgs(shape, b), family, options);
  if (!cb.ok) throw derivationError(shape, family, backend, `second sample refused: ${cb.message}`);
  const lineB = formatCanonicalRule(SAMPLE_CHAIN, cb.rule);
  const filled = fillTemplate(template, `-A ${SAMPLE_CHAIN}`, b, family);
  if (filled !== lineB)
    throw derivationError(
      shape,
      family,
      backend,
      `derived layout prints ${filled}, the canonicalizer ${lineB}`,
    );
  const wordsB = tokenizeLine(lineB, 0, lineB.length, false).slice(2);
  if (wordsB.length !== tokens.length)
    throw derivationError(
      shape,
      family,
      backend,
      `save line ${lineB} does not read back as ${tokens.join(" ")}`,
    );
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as string | number;
    const w = wordsB[k] as string;
    const same =
      typeof t === "string"
        ? t === w
        : saveSlotValue(KIND_CODES[shape.kinds[t] as RuleShape["kinds"][number]], w, family) ===
          saveSlotValue(KIND_CODES[shape.kinds[t] as RuleShape["kinds"][number]], b[t] as string, family);
    if (!same)
      throw derivationError(shape, family, backend, `save line ${lineB} does not read back at argument ${k}`);
  }
  return template;
}
