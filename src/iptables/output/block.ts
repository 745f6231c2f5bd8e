/**
 * One service port's share of the payload, in the two shapes callers keep: restore text (what
 * the full-sync emitters join) and rules (what the IR, the incremental engine and the state
 * take). Both are written by the same writers through two sinks (`restore-sink.ts`,
 * `rules-sink.ts`), so the two cannot disagree.
 *
 * @module
 */
import type { Rule } from "../../ir/types.js";

/**
 * A service port's lines of `iptables-restore` text, per payload section; every line ends with
 * `\n`, and rule lines are `-A CHAIN ARGS` with the arguments quoted as `quoteArgument` does.
 */
export interface ServicePortText {
  /** Filter rule lines, in emission order. */
  readonly filter: string;
  /** nat `KUBE-SERVICES` and `KUBE-NODEPORTS` rule lines, in emission order. */
  readonly natShared: string;
  /** The per-service nat chains, in declaration order. */
  readonly natChains: readonly string[];
  /** Their declaration lines (`:NAME - [0:0]`), in the same order. */
  readonly natDeclarations: string;
  /** The rule lines of those chains, in emission order. */
  readonly natChainRules: string;
}

/** Everything one service port contributes to the payload, as rules. */
export interface ServicePortRules {
  /** Filter rules, in emission order. */
  readonly filter: readonly Rule[];
  /** nat `KUBE-SERVICES` and `KUBE-NODEPORTS` rules, in emission order. */
  readonly natShared: readonly Rule[];
  /** The per-service nat chains, in declaration order. */
  readonly natChains: readonly string[];
  /** The rules of those chains, in emission order. */
  readonly natChainRules: readonly Rule[];
}
