/**
 * The printers of a rule shape: its arguments (the rule object), its restore line, and its save
 * lines. The save form comes from the shape's derived save layout (see template.ts) when every
 * value keeps it, and from the general canonicalizer otherwise; the two print the same (a
 * property test holds them equal).
 *
 * @module
 */

import type { Backend } from "../../ir/canonical-types.js";
import type { IPFamily } from "../../ir/types.js";
import { quoteArgument } from "../print/restore.js";
import { canonicalSaveLines } from "./general.js";
import { fillTemplate, saveTemplate } from "./template.js";
import type { RuleShape } from "./types.js";

/**
 * The rule's arguments after `-A CHAIN` (what `Rule.args` holds), in kube-proxy's order.
 *
 * @example
 * shapeArgs(ruleShape("jump", ["-j", slot(0, "chain")]), ["KUBE-SVC-X"]) // ["-j", "KUBE-SVC-X"]
 */
export function shapeArgs(shape: RuleShape, values: readonly string[]): string[] {
  const args = shape.args;
  const out = new Array<string>(args.length);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as RuleShape["args"][number];
    out[i] = typeof arg === "string" ? arg : (values[arg.slot] as string);
  }
  return out;
}

/**
 * The rule as one line of `iptables-restore` input, without the newline.
 *
 * @throws KubeIptablesError (`UNSAFE_TEXT`) when a value holds `\n`, `\r` or NUL.
 * @example
 * restoreLine(jump, "KUBE-SERVICES", ["KUBE-SVC-X"]) // "-A KUBE-SERVICES -j KUBE-SVC-X"
 */
export function restoreLine(shape: RuleShape, chain: string, values: readonly string[]): string {
  let line = `-A ${chain}`;
  for (const arg of shape.args)
    line += ` ${typeof arg === "string" ? arg : quoteArgument(values[arg.slot] as string)}`;
  return line;
}

/** Where and how the save form is printed. */
export interface SaveForm {
  /** The rule set's family. */
  readonly family: IPFamily;
  /** The iptables backend to imitate where nft and legacy differ. */
  readonly backend: Backend;
}

/**
 * The rule as `iptables-save` prints it once loaded: one line, or more where a value expands
 * (an address list), each without a newline.
 *
 * @throws KubeIptablesError when iptables would refuse the rule.
 * @example
 * saveLines(toClusterIP, "KUBE-SERVICES", values, { family: "IPv4", backend: "nft" })
 * // ["-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment … -j KUBE-SVC-…"]
 */
export function saveLines(
  shape: RuleShape,
  chain: string,
  values: readonly string[],
  form: SaveForm,
): string[] {
  const line = fastSaveLine(shape, chain, values, form);
  if (line !== null) return [line];
  return canonicalSaveLines(chain, shapeArgs(shape, values), form.family, form.backend);
}

/**
 * The save line from the shape's derived layout, or `null` when a value does not keep it (or
 * the shape has no layout in this family): then only the general path knows.
 *
 * @example
 * fastSaveLine(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"], { family: "IPv4", backend: "nft" }) // "-A KUBE-EXT-X -j KUBE-SVC-X"
 * fastSaveLine(FROM_SOURCE, "KUBE-FW-X", ["c", "0.0.0.0/0", "KUBE-EXT-X"], { family: "IPv4", backend: "nft" }) // null
 */
export function fastSaveLine(
  shape: RuleShape,
  chain: string,
  values: readonly string[],
  form: SaveForm,
): string | null {
  const template = saveTemplate(shape, values, form.family, form.backend);
  return template === null ? null : fillTemplate(template, `-A ${chain}`, values, form.family);
}

/**
 * {@link saveLines} as one string, each line ending in `\n` (what a table printer appends).
 *
 * @throws KubeIptablesError when iptables would refuse the rule.
 * @example
 * saveText(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"], { family: "IPv4", backend: "nft" }) // "-A KUBE-EXT-X -j KUBE-SVC-X\n"
 */
export function saveText(shape: RuleShape, chain: string, values: readonly string[], form: SaveForm): string {
  const line = fastSaveLine(shape, chain, values, form);
  if (line !== null) return `${line}\n`;
  const lines = canonicalSaveLines(chain, shapeArgs(shape, values), form.family, form.backend);
  return lines.length === 1 ? `${lines[0]}\n` : `${lines.join("\n")}\n`;
}
