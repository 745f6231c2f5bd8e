/**
 * Where a service port's writers put their rules. A writer knows which section a rule belongs
 * to and its shape and values; the sink decides what to make of it (restore text, save text,
 * rule objects), so every output comes from the same writer calls.
 *
 * @module
 */
import type { RuleShape } from "./types.js";

/**
 * The receiver of one service port's rules, in kube-proxy's emission order per section.
 *
 * @example
 * const lines: string[] = [];
 * const sink: PortRuleSink = {
 *   filter: (shape, chain, values) => lines.push(restoreLine(shape, chain, values)),
 *   jump: (shape, chain, values) => lines.push(restoreLine(shape, chain, values)),
 *   chain: () => {},
 *   rule: (shape, chain, values) => lines.push(restoreLine(shape, chain, values)),
 * };
 */
export interface PortRuleSink {
  /** A filter-table rule (KUBE-SERVICES / KUBE-EXTERNAL-SERVICES / KUBE-NODEPORTS / KUBE-PROXY-FIREWALL). */
  filter(shape: RuleShape, chain: string, values: readonly string[]): void;
  /** A nat rule in a shared chain (KUBE-SERVICES, KUBE-NODEPORTS). */
  jump(shape: RuleShape, chain: string, values: readonly string[]): void;
  /** Declares one of the port's own nat chains (EXT, FW, SVC, SVL, SEP, XLB), in order. */
  chain(name: string): void;
  /** A nat rule in one of the port's own chains. */
  rule(shape: RuleShape, chain: string, values: readonly string[]): void;
}
