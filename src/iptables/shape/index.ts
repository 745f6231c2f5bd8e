/**
 * Rule shapes: each kind of rule kube-proxy writes, described once, and its printers.
 *
 * @module
 */
export { dropComment, ruleShape, slot } from "./define.js";
export { restoreLine, type SaveForm, saveLines, saveText, shapeArgs } from "./print.js";
export type { PortRuleSink } from "./sink.js";
export type { RuleShape, ShapeArgument, Slot, SlotKind } from "./types.js";
