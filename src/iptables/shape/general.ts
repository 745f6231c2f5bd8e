/**
 * The general path: a rule's argv → its `iptables-save` lines through the one canonicalizer, for
 * every rule (any extension, any spelling, address lists, refusals). The derived save layouts
 * of the rule shapes are held equal to it, and every value they do not take comes here.
 *
 * @module
 */

import { KubeIptablesError } from "../../errors.js";
import type { Backend } from "../../ir/canonical-types.js";
import type { Counters, IPFamily } from "../../ir/types.js";
import {
  type CanonicalizeResult,
  expandAddressLists,
  formatCanonicalRule,
  tryCanonicalizeRule,
} from "../canonical/canonicalize.js";

/**
 * The problem of a rule iptables would refuse, as the save printers throw it.
 *
 * @example
 * ruleError("X", "unknown option \"--bogus\"").problems[0]?.message // '-A X: unknown option "--bogus"'
 */
export function ruleError(chain: string, message: string): KubeIptablesError {
  return new KubeIptablesError([
    { code: "PARSE", path: "", message: `-A ${chain}: ${message}`, severity: "error" },
  ]);
}

/**
 * The save lines of a rule the canonicalizer did not take as it is: one per address when
 * `-s`/`-d` hold comma lists (the kernel holds one rule per address); otherwise the problem,
 * thrown.
 *
 * @throws KubeIptablesError when iptables would refuse the rule.
 * @example
 * const args = ["-s", "10.0.0.1,10.0.0.2", "-j", "DROP"];
 * const failed = tryCanonicalizeRule(args, "IPv4");
 * if (!failed.ok) expandedSaveLines("X", args, failed, "IPv4", "nft", undefined)
 * // ["-A X -s 10.0.0.1/32 -j DROP", "-A X -s 10.0.0.2/32 -j DROP"]
 */
export function expandedSaveLines(
  chain: string,
  args: readonly string[],
  failure: CanonicalizeResult & { readonly ok: false },
  family: IPFamily,
  backend: Backend,
  counters: Counters | undefined,
): string[] {
  const expanded = failure.addressList ? expandAddressLists(args, family) : null;
  if (expanded === null) throw ruleError(chain, failure.message);
  const lines: string[] = [];
  const options = { backend } as const;
  for (const one of expanded) {
    const c = tryCanonicalizeRule(one, family, options);
    if (!c.ok) throw ruleError(chain, c.message);
    lines.push(formatCanonicalRule(chain, c.rule, counters));
  }
  return lines;
}

/**
 * One rule's lines as `iptables-save` prints them, through the canonicalizer: one line, or one
 * per address of a comma list in `-s`/`-d`.
 *
 * @param chain - The rule's chain.
 * @param args - Its specification, as in `Rule.args`.
 * @param family - The rule set's family.
 * @param backend - The backend to imitate.
 * @returns The lines, without newlines.
 * @throws KubeIptablesError when iptables would refuse the rule.
 * @example
 * canonicalSaveLines("X", ["-s", "10.0.0.1,10.0.0.2", "-j", "DROP"], "IPv4", "nft")
 * // ["-A X -s 10.0.0.1/32 -j DROP", "-A X -s 10.0.0.2/32 -j DROP"]
 */
export function canonicalSaveLines(
  chain: string,
  args: readonly string[],
  family: IPFamily,
  backend: Backend,
): string[] {
  const c = tryCanonicalizeRule(args, family, { backend });
  if (c.ok) return [formatCanonicalRule(chain, c.rule)];
  return expandedSaveLines(chain, args, c, family, backend, undefined);
}
