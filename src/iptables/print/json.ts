/**
 * RuleSet → JSON, for tools that want the rules as data.
 *
 * @module
 */
import type { RuleSet } from "../../ir/types.js";

/**
 * Prints a rule set as indented JSON (counters as decimal strings, since JSON has no 64-bit
 * integers).
 *
 * @example
 * JSON.parse(formatJson(ruleSet)).tables[0].name // "filter"
 */
export function formatJson(ruleSet: RuleSet): string {
  return `${JSON.stringify(ruleSet, (_key, value) => (typeof value === "bigint" ? value.toString() : value), 2)}\n`;
}
