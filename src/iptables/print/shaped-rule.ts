/**
 * Rules that remember the shape they were written from. A rule object the writers make (through
 * the rules sink) is a plain `Rule` to every reader, and its printers can fill the shape's save
 * layout straight away instead of recognizing its arguments again (`matchSaveLine`), which a
 * generated state's ~320,000 rules would otherwise all go through.
 *
 * @module
 */
import type { Backend } from "../../ir/canonical-types.js";
import type { IPFamily, Rule } from "../../ir/types.js";
import { shapeArgs } from "../shape/print.js";
import { fillTemplate, saveTemplate } from "../shape/template.js";
import type { RuleShape } from "../shape/types.js";

/**
 * An appended rule built from a shape and its values: the same own properties as any other
 * `Rule` (`kind`, `op`, `chain`, `args`, in that order), with the shape kept out of sight (a
 * private field: not enumerated, not serialized, not copied by a spread).
 */
class ShapedRule implements Rule {
  readonly kind = "rule";
  readonly op = "-A";
  readonly chain: string;
  readonly args: readonly string[];
  readonly #shape: RuleShape;

  constructor(shape: RuleShape, chain: string, values: readonly string[]) {
    this.chain = chain;
    this.args = shapeArgs(shape, values);
    this.#shape = shape;
  }

  /** The shape of a rule built here, or `null`. */
  static shapeOf(rule: Rule): RuleShape | null {
    return rule instanceof ShapedRule ? rule.#shape : null;
  }
}

/**
 * The `-A` rule a writer's call describes, as a rule object (its arguments in kube-proxy's
 * order, as `shapeArgs` lists them).
 *
 * @example
 * shapedRule(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]) // { kind: "rule", op: "-A", chain: "KUBE-EXT-X", args: ["-j", "KUBE-SVC-X"] }
 */
export function shapedRule(shape: RuleShape, chain: string, values: readonly string[]): Rule {
  return new ShapedRule(shape, chain, values);
}

/** Per shape, the first position in its arguments of each slot (-1: not printed). */
const slotPositions = new WeakMap<RuleShape, Int32Array>();

let lastShape: RuleShape | null = null;
let lastPositions: Int32Array = new Int32Array(0);

function positionsOf(shape: RuleShape): Int32Array {
  // Neighbouring rules often share a shape (a policy chain's balancing rules).
  if (shape === lastShape) return lastPositions;
  let positions = slotPositions.get(shape);
  if (positions === undefined) {
    positions = new Int32Array(shape.slots).fill(-1);
    for (let k = shape.args.length - 1; k >= 0; k--) {
      const arg = shape.args[k] as RuleShape["args"][number];
      if (typeof arg !== "string") positions[arg.slot] = k;
    }
    slotPositions.set(shape, positions);
  }
  lastShape = shape;
  lastPositions = positions;
  return positions;
}

/** The values of the rule being printed (one at a time: the printers are synchronous). */
const scratch: string[] = [];

/**
 * The save line of a rule built by {@link shapedRule}, from its shape's derived layout, after
 * `head` (`-A CHAIN`, or with a counters prefix); `null` when the rule was not built from a
 * shape or a value does not keep the layout (then only the general path knows). The values are
 * read back from the rule's arguments (a slot it does not print is `""`, as the shape matcher
 * reads it), so nothing but the shape is kept per rule.
 *
 * @example
 * shapedSaveLine(shapedRule(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]), "-A KUBE-EXT-X", "IPv4", "nft")
 * // "-A KUBE-EXT-X -j KUBE-SVC-X"
 */
export function shapedSaveLine(rule: Rule, head: string, family: IPFamily, backend: Backend): string | null {
  const shape = ShapedRule.shapeOf(rule);
  if (shape === null) return null;
  const positions = positionsOf(shape);
  const args = rule.args;
  scratch.length = positions.length;
  for (let s = 0; s < positions.length; s++) {
    const at = positions[s] as number;
    scratch[s] = at < 0 ? "" : (args[at] as string);
  }
  const template = saveTemplate(shape, scratch, family, backend);
  return template === null ? null : fillTemplate(template, head, scratch, family);
}
