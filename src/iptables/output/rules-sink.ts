/**
 * The rules sink: a service port's writers fill it with rule objects (the arguments straight
 * from each shape and its values), for `generateRules`, the state and the incremental engine.
 *
 * @module
 */
import type { Rule } from "../../ir/types.js";
import { shapeArgs } from "../shape/print.js";
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import type { ServicePortRules } from "./block.js";

/**
 * The `-A` rule a writer's call describes, as a rule object (its arguments in kube-proxy's
 * order, as `shapeArgs` lists them). Every generated rule object is made here, as an object
 * literal: V8 sees that the objects of this one site survive and allocates them straight in the
 * old generation (allocation-site pretenuring), which spares the scavenger copying a 10k-service
 * state's ~320,000 rules (a class instance, tried, is not pretenured: ~200 ms more collection).
 *
 * @example
 * ruleOf(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]) // { kind: "rule", op: "-A", chain: "KUBE-EXT-X", args: ["-j", "KUBE-SVC-X"] }
 */
export function ruleOf(shape: RuleShape, chain: string, values: readonly string[]): Rule {
  return { kind: "rule", op: "-A", chain, args: shapeArgs(shape, values) };
}

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
    this.#filter.push(ruleOf(shape, chain, values));
  }

  /** A rule in a shared nat chain. */
  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#shared.push(ruleOf(shape, chain, values));
  }

  /** One of the port's own nat chains. */
  chain(name: string): void {
    this.#chains.push(name);
  }

  /** A rule in one of the port's own chains. */
  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#rules.push(ruleOf(shape, chain, values));
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
