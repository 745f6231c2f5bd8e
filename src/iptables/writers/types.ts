/**
 * What every service-port writer looks like: a plan and the generation context in, rules out
 * through a sink. The current layout and the v1.22 layout are two writer sets of this type.
 *
 * @module
 */

import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";

/**
 * Writes one service port's rules to a sink, in kube-proxy's order per section.
 *
 * @example
 * const write: PortWriter = (plan, ctx, sink) => sink.chain(`KUBE-SVC-${plan.servicePortName}`);
 */
export type PortWriter = (plan: ServicePortPlan, ctx: GenerationContext, sink: PortRuleSink) => void;
