/**
 * Describing rule shapes.
 *
 * @module
 */
import type { RuleShape, ShapeArgument, Slot, SlotKind } from "./types.js";

/**
 * A slot of a shape.
 *
 * @example
 * ruleShape("to cluster IP", ["-d", slot(0, "address"), "-j", slot(1, "chain")]);
 */
export function slot(index: number, kind: SlotKind): Slot {
  return { slot: index, kind };
}

/**
 * Describes a rule shape from its arguments after `-A CHAIN`, in kube-proxy's order.
 *
 * @throws Error when a slot index is used with two kinds or an index is skipped (a programming
 *   error in the description, found when the module loads).
 * @example
 * const sepJump = ruleShape("SVC → SEP", ["-j", slot(0, "chain")]);
 * sepJump.slots // 1
 */
export function ruleShape(name: string, args: readonly ShapeArgument[]): RuleShape {
  const kinds: SlotKind[] = [];
  for (const arg of args) {
    if (typeof arg === "string") continue;
    const known = kinds[arg.slot];
    if (known !== undefined && known !== arg.kind)
      throw new Error(`shape ${name}: slot ${arg.slot} is both ${known} and ${arg.kind}`);
    kinds[arg.slot] = arg.kind;
  }
  for (let i = 0; i < kinds.length; i++)
    if (kinds[i] === undefined) throw new Error(`shape ${name}: slot ${i} is never used`);
  return { name, args, slots: kinds.length, kinds, jump: jumpOf(args), freeSlots: freeSlotsOf(args) };
}

/** The target of a shape's arguments: the literal or the slot after the last `-j`. */
function jumpOf(args: readonly ShapeArgument[]): string | number | null {
  for (let a = args.length - 2; a >= 0; a--) {
    if (args[a] !== "-j") continue;
    const next = args[a + 1] as ShapeArgument;
    return typeof next === "string" ? next : next.slot;
  }
  return null;
}

const FREE_TEXT: ReadonlySet<SlotKind> = new Set<SlotKind>(["comment", "word", "interface"]);

/** The slots of free text that the arguments print. */
function freeSlotsOf(args: readonly ShapeArgument[]): number[] {
  const slots: number[] = [];
  for (const arg of args)
    if (typeof arg !== "string" && FREE_TEXT.has(arg.kind) && !slots.includes(arg.slot)) slots.push(arg.slot);
  return slots;
}

/**
 * The same shape without its leading `-m comment --comment …` (kube-proxy drops the comments of
 * endpoint rules in large-cluster mode). The slots keep their indices, so a writer fills both
 * with the same values; the comment's value is simply not printed.
 *
 * @throws Error when the shape does not start with a comment match.
 * @example
 * dropComment(ruleShape("c", ["-m", "comment", "--comment", slot(0, "comment"), "-j", slot(1, "chain")])).args
 * // ["-j", { slot: 1, kind: "chain" }]
 */
export function dropComment(shape: RuleShape): RuleShape {
  const [m, comment, option, text] = shape.args;
  if (m !== "-m" || comment !== "comment" || option !== "--comment" || typeof text !== "object")
    throw new Error(`shape ${shape.name} does not start with a comment`);
  const args = shape.args.slice(4);
  return {
    name: `${shape.name}, no comment`,
    args,
    slots: shape.slots,
    kinds: shape.kinds,
    jump: shape.jump,
    freeSlots: freeSlotsOf(args),
  };
}
