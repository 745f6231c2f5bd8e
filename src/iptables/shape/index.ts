/**
 * Rule shapes: each kind of rule kube-proxy writes, described once, and its printers.
 *
 * @module
 */
export { dropComment, ruleShape, slot } from "./define.js";
export { canonicalSaveLines } from "./general.js";
export { IPV4, IPV6, matchFamilies, matchSaveLine, matchShape, type ShapeMatch } from "./match.js";
export { fastSaveLine, restoreLine, type SaveForm, saveLines, saveText, shapeArgs } from "./print.js";
export type { PortRuleSink } from "./sink.js";
export { fillTemplate, type SaveTemplate, saveTemplate } from "./template.js";
export type { RuleShape, ShapeArgument, Slot, SlotKind } from "./types.js";
