/**
 * The shape matcher: a rule's argv, in kube-proxy's order (a restore payload, a generated state)
 * or in iptables-save's order (a node's dump), → the rule shape and values it was filled from.
 * Its patterns come from the same descriptions: each shape's arguments (restore order) and its
 * derived save layout's arguments (save order), per protocol, family and backend. A rule matches
 * only when its values keep the layout (see `saveSlotValue`); then the canonicalizer certainly
 * accepts it and prints exactly the layout's line, so the parser can skip the canonicalizer and
 * the printers can fill the layout. Anything else is `null`: the general path decides.
 *
 * @module
 */

import type { Backend } from "../../ir/canonical-types.js";
import type { IPFamily } from "../../ir/types.js";
import { KUBE_PROXY_SHAPES } from "../shapes.js";
import { FAMILY_KINDS, KIND_CODES } from "./slot-values.js";
import { fillTemplate, type SaveTemplate, saveTemplate, templateTakes } from "./template.js";
import type { RuleShape, SlotKind } from "./types.js";

/**
 * The IPv4 bit of {@link matchFamilies}' answer.
 *
 * @example
 * (matchFamilies(args, 0, args.length, IPV4 | IPV6, "nft") & IPV4) !== 0 // valid in IPv4
 */
export const IPV4 = 1;
/**
 * The IPv6 bit of {@link matchFamilies}' answer.
 *
 * @example
 * matchFamilies(["-s", "fd00::1", "-j", "KUBE-MARK-MASQ"], 0, 4, IPV4 | IPV6, "nft") === IPV6 // true
 */
export const IPV6 = 2;

/**
 * A rule recognized as one of kube-proxy's shapes.
 *
 * @example
 * matchShape(["-j", "KUBE-SVC-X"], { family: "IPv4", backend: "nft" }) // { shape: JUMP, values: ["KUBE-SVC-X"] }
 */
export interface ShapeMatch {
  /** The shape. */
  readonly shape: RuleShape;
  /** Its values (a slot the rule does not print, such as a dropped comment, is `""`). */
  readonly values: readonly string[];
}

/** One argv pattern: a shape's arguments in one order, for one protocol. */
interface Pattern {
  readonly shape: RuleShape;
  /** The families this argv is valid in (both only when no value depends on the family). */
  families: number;
  /** The layout that prints it, by family (0: IPv4, 1: IPv6). */
  readonly templates: (SaveTemplate | null)[];
  /** Positions and texts of the literal arguments. */
  readonly literalAt: readonly number[];
  readonly literals: readonly string[];
  /** Positions of the slot arguments, their value index, and whether the index came before. */
  readonly slotAt: readonly number[];
  readonly slotOf: readonly number[];
  readonly repeated: readonly boolean[];
  /** The protocol slot (-1: none) and the protocol this pattern holds there. */
  readonly protocolSlot: number;
  readonly protocol: string;
}

/** The patterns of one backend, by argument count; the last pattern that matched per count first. */
interface PatternIndex {
  readonly byLength: (Pattern[] | undefined)[];
  readonly lastHit: Int32Array;
}

const indexes: Partial<Record<Backend, PatternIndex>> = {};

const FAMILIES: readonly IPFamily[] = ["IPv4", "IPv6"];
const PROTOCOLS = ["tcp", "udp", "sctp"];

function patternOf(
  shape: RuleShape,
  tokens: readonly (string | number)[],
  protocolSlot: number,
  protocol: string,
): Pattern {
  const literalAt: number[] = [];
  const literals: string[] = [];
  const slotAt: number[] = [];
  const slotOf: number[] = [];
  const repeated: boolean[] = [];
  const seen = new Set<number>();
  tokens.forEach((t, k) => {
    if (typeof t === "string") {
      literalAt.push(k);
      literals.push(t);
    } else {
      slotAt.push(k);
      slotOf.push(t);
      repeated.push(seen.has(t));
      seen.add(t);
    }
  });
  return {
    shape,
    families: 0,
    templates: [null, null],
    literalAt,
    literals,
    slotAt,
    slotOf,
    repeated,
    protocolSlot,
    protocol,
  };
}

/** A pattern's identity: its literals and its slots' printer codes and indices. */
function patternKey(shape: RuleShape, tokens: readonly (string | number)[]): string {
  let key = "";
  for (const t of tokens)
    key +=
      typeof t === "string" ? `${t}\u0001` : `\u0000${KIND_CODES[shape.kinds[t] as SlotKind]}:${t}\u0001`;
  return key;
}

function buildIndex(backend: Backend): PatternIndex {
  const byKey = new Map<string, Pattern>();
  const ordered: Pattern[] = [];
  for (const shape of KUBE_PROXY_SHAPES) {
    const protocolSlot = shape.kinds.indexOf("protocol");
    const familyBound = shape.kinds.some((k) => FAMILY_KINDS.has(KIND_CODES[k]));
    for (const protocol of protocolSlot < 0 ? [""] : PROTOCOLS) {
      const values = shape.kinds.map((k) => (k === "protocol" ? protocol : ""));
      const restore = shape.args.map((a) =>
        typeof a === "string" ? a : a.slot === protocolSlot ? protocol : a.slot,
      );
      FAMILIES.forEach((family, f) => {
        const template = saveTemplate(shape, values, family, backend);
        if (template === null) return;
        for (const tokens of [restore, template.tokens]) {
          // A pattern whose values depend on the family is one per family; the others serve both.
          const key = (familyBound ? `${family}\u0002` : "") + patternKey(shape, tokens);
          let p = byKey.get(key);
          if (p === undefined) {
            p = patternOf(shape, tokens, protocolSlot, protocol);
            byKey.set(key, p);
            ordered.push(p);
          }
          if (p.templates[f] === null && p.shape === shape) {
            p.templates[f] = template;
            p.families |= f === 0 ? IPV4 : IPV6;
          }
        }
      });
    }
  }
  const byLength: Pattern[][] = [];
  for (const p of ordered) {
    const n = p.literalAt.length + p.slotAt.length;
    let list = byLength[n];
    if (list === undefined) {
      list = [];
      byLength[n] = list;
    }
    list.push(p);
  }
  // Where two shapes read the same argv (a hairpin is a jump from a source whose target is
  // KUBE-MARK-MASQ), the more specific one, with more literal arguments, is the answer.
  for (const list of byLength) list?.sort((x, y) => y.literalAt.length - x.literalAt.length);
  return { byLength, lastHit: new Int32Array(byLength.length) };
}

function indexOf(backend: Backend): PatternIndex {
  let index = indexes[backend];
  if (index === undefined) {
    index = buildIndex(backend);
    indexes[backend] = index;
  }
  return index;
}

/**
 * Whether `args[from, …)` has the pattern's literals, with equal values where a slot repeats;
 * the values go to `values`.
 */
function readPattern(p: Pattern, args: readonly string[], from: number, values: string[]): boolean {
  const literalAt = p.literalAt;
  const literals = p.literals;
  for (let k = 0; k < literalAt.length; k++)
    if (args[from + (literalAt[k] as number)] !== literals[k]) return false;
  const slotAt = p.slotAt;
  const slotOf = p.slotOf;
  const repeated = p.repeated;
  for (let k = 0; k < slotAt.length; k++) {
    const v = args[from + (slotAt[k] as number)] as string;
    const s = slotOf[k] as number;
    if (!repeated[k]) values[s] = v;
    else if (values[s] !== v) return false;
  }
  if (p.protocolSlot >= 0) values[p.protocolSlot] = p.protocol;
  return true;
}

/** The values of the last match (one match at a time: the callers are synchronous). */
const scratch: string[] = [];

/**
 * The families (bits {@link IPV4}, {@link IPV6}) of `allowed` in which `args[from, to)` is one of
 * kube-proxy's shapes with values that keep its layout: in those families the canonicalizer
 * accepts the rule (the parser needs no more). 0 when none.
 *
 * @param allowed - The families to consider (both when the family is not known yet).
 * @example
 * matchFamilies(["-s", "10.0.0.1", "-j", "KUBE-MARK-MASQ"], 0, 4, IPV4 | IPV6, "nft") // IPV4
 * matchFamilies(["-m", "comment", "--comment", "x", "-j", "KUBE-SVC-X"], 0, 6, IPV4 | IPV6, "nft") // IPV4 | IPV6
 */
export function matchFamilies(
  args: readonly string[],
  from: number,
  to: number,
  allowed: number,
  backend: Backend,
): number {
  const index = indexOf(backend);
  const n = to - from;
  const list = index.byLength[n];
  if (list === undefined) return 0;
  const first = index.lastHit[n] as number;
  for (let j = -1; j < list.length; j++) {
    if (j === first) continue;
    const at = j < 0 ? first : j;
    const p = list[at] as Pattern;
    const families = p.families & allowed;
    if (families === 0 || !readPattern(p, args, from, scratch)) continue;
    let ok = 0;
    if ((families & IPV4) !== 0 && templateTakes(p.templates[0] as SaveTemplate, scratch, "IPv4")) ok |= IPV4;
    // A pattern for both families has no value that depends on the family: one check serves both.
    if ((families & IPV6) !== 0) {
      if (families === (IPV4 | IPV6)) ok = ok === 0 ? 0 : IPV4 | IPV6;
      else if (templateTakes(p.templates[1] as SaveTemplate, scratch, "IPv6")) ok |= IPV6;
    }
    if (ok !== 0) {
      index.lastHit[n] = at;
      return ok;
    }
  }
  return 0;
}

/**
 * The save line of `args[from, to)` when it is one of kube-proxy's shapes with values that keep
 * its layout, printed from the layout after `head`; else `null` (print it with the
 * canonicalizer, which also reports any problem).
 *
 * @param head - What precedes the rule's arguments: `-A CHAIN` (or with a counters prefix).
 * @example
 * matchSaveLine("-A KUBE-SEP-X", ["-m", "comment", "--comment", "ns/web:http", "-s", "10.0.0.1", "-j", "KUBE-MARK-MASQ"], 0, 8, "IPv4", "nft")
 * // '-A KUBE-SEP-X -s 10.0.0.1/32 -m comment --comment "ns/web:http" -j KUBE-MARK-MASQ'
 */
export function matchSaveLine(
  head: string,
  args: readonly string[],
  from: number,
  to: number,
  family: IPFamily,
  backend: Backend,
): string | null {
  const index = indexOf(backend);
  const n = to - from;
  const list = index.byLength[n];
  if (list === undefined) return null;
  const f = family === "IPv4" ? 0 : 1;
  const bit = family === "IPv4" ? IPV4 : IPV6;
  const first = index.lastHit[n] as number;
  for (let j = -1; j < list.length; j++) {
    if (j === first) continue;
    const at = j < 0 ? first : j;
    const p = list[at] as Pattern;
    if ((p.families & bit) === 0 || !readPattern(p, args, from, scratch)) continue;
    const line = fillTemplate(p.templates[f] as SaveTemplate, head, scratch, family);
    if (line !== null) {
      index.lastHit[n] = at;
      return line;
    }
  }
  return null;
}

/**
 * Recognizes a rule's argv (kube-proxy's order or iptables-save's) as one of kube-proxy's
 * shapes, with values that keep its save layout in this family and on this backend.
 *
 * @param args - The rule's arguments after `-A CHAIN`.
 * @param form - The family and backend.
 * @returns The shape and values (`saveText(shape, chain, values, form)` is the rule's save
 *   line), or `null`.
 * @example
 * matchShape(["-m", "comment", "--comment", "ns/web:http", "-j", "KUBE-SVC-X"], { family: "IPv4", backend: "nft" })
 * // { shape: COMMENTED_JUMP, values: ["ns/web:http", "KUBE-SVC-X"] }
 */
export function matchShape(
  args: readonly string[],
  form: { readonly family: IPFamily; readonly backend: Backend },
): ShapeMatch | null {
  const index = indexOf(form.backend);
  const list = index.byLength[args.length];
  if (list === undefined) return null;
  const f = form.family === "IPv4" ? 0 : 1;
  const bit = form.family === "IPv4" ? IPV4 : IPV6;
  for (const p of list) {
    const values = new Array<string>(p.shape.slots).fill("");
    if ((p.families & bit) === 0 || !readPattern(p, args, 0, values)) continue;
    if (templateTakes(p.templates[f] as SaveTemplate, values, form.family)) return { shape: p.shape, values };
  }
  return null;
}
