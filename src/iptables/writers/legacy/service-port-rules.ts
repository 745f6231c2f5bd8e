/**
 * The v1.22 writers' output as a service port's rules (`ServicePortRules`), the form the
 * generator assembles today: filter rules, nat rules in written order, chain declarations.
 *
 * @module
 */
import type { ServicePortRules } from "../../../generate/block.js";
import type { GenerationContext } from "../../../generate/context.js";
import { appendRule, type Rule } from "../../../ir/types.js";
import type { ServicePort } from "../../../model/types.js";
import { planNodeOfConfig } from "../../../plan/node-plan.js";
import { planServicePort } from "../../../plan/service-port-plan.js";
import type { NodePlan } from "../../../plan/types.js";
import { shapeArgs } from "../../shape/print.js";
import type { PortRuleSink } from "../../shape/sink.js";
import { writeLegacyServicePort } from "./index.js";

// One node plan per generation context: the context already holds the resolved traits.
const nodePlans = new WeakMap<GenerationContext, NodePlan>();

function nodePlanOf(ctx: GenerationContext): NodePlan {
  let node = nodePlans.get(ctx);
  if (node === undefined) {
    node = planNodeOfConfig(ctx.config, ctx.traits);
    nodePlans.set(ctx, node);
  }
  return node;
}

/**
 * Plans one service port and writes it in the v1.22 layout, as rules.
 *
 * @example
 * legacyServicePortRules(port, createContext(v122Model)).natChains[0] // "KUBE-SVC-…"
 */
export function legacyServicePortRules(port: ServicePort, ctx: GenerationContext): ServicePortRules {
  const filter: Rule[] = [];
  const natShared: Rule[] = [];
  const natChains: string[] = [];
  const natChainRules: Rule[] = [];
  const sink: PortRuleSink = {
    filter: (shape, chain, values) => filter.push(appendRule(chain, shapeArgs(shape, values))),
    jump: (shape, chain, values) => natShared.push(appendRule(chain, shapeArgs(shape, values))),
    chain: (name) => natChains.push(name),
    rule: (shape, chain, values) => natChainRules.push(appendRule(chain, shapeArgs(shape, values))),
  };
  writeLegacyServicePort(planServicePort(port, nodePlanOf(ctx), ctx.config), ctx, sink);
  return { filter, natShared, natChains, natChainRules };
}
