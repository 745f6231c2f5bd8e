/**
 * The rules sink: a service port's writers fill it with rule objects (the arguments straight
 * from each shape and its values), for `generateRules`, the state and the incremental engine.
 *
 * @module
 */
import type { Rule } from "../../ir/types.js";
import { shapedRule } from "../print/shaped-rule.js";
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import type { ServicePortRules } from "./block.js";

/**
 * Collects one service port's rules as objects; {@link RuleBlockSink.take} returns the block and
 * starts the next.
 *
 * @example
 * const sink = new RuleBlockSink();
 * writePort(port, ctx, sink);
 * sink.take().natShared[0]?.chain // "KUBE-SERVICES"
 */
export class RuleBlockSink implements PortRuleSink {
  #filter: Rule[] = [];
  #shared: Rule[] = [];
  #chains: string[] = [];
  #rules: Rule[] = [];

  /** A filter rule. */
  filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#filter.push(shapedRule(shape, chain, values));
  }

  /** A rule in a shared nat chain. */
  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#shared.push(shapedRule(shape, chain, values));
  }

  /** One of the port's own nat chains. */
  chain(name: string): void {
    this.#chains.push(name);
  }

  /** A rule in one of the port's own chains. */
  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#rules.push(shapedRule(shape, chain, values));
  }

  /** The block written since the last call. */
  take(): ServicePortRules {
    const block: ServicePortRules = {
      filter: this.#filter,
      natShared: this.#shared,
      natChains: this.#chains,
      natChainRules: this.#rules,
    };
    this.#filter = [];
    this.#shared = [];
    this.#chains = [];
    this.#rules = [];
    return block;
  }
}
