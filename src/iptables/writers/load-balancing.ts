/**
 * The policy chains (spec §6): KUBE-SVC spreads traffic over the cluster endpoints, KUBE-SVL
 * over the local ones, each endpoint with an equal share (1/n, then 1/(n-1), …, the last rule
 * unconditional). Comments name each endpoint, except in large-cluster mode.
 *
 * @module
 */
import type { Endpoint } from "../../model/types.js";
import { probability } from "../../naming/probability.js";
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { BALANCE, COMMENTED_JUMP, JUMP, UNCOMMENTED } from "../shapes.js";
import { writeAffinityChecks } from "./affinity.js";
import { endpointChains, portChains } from "./chains.js";

/**
 * The KUBE-SVC and KUBE-SVL chains' rules, for those of them the plan uses.
 *
 * @example
 * writeLoadBalancing(plan, ctx, sink);
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http -> 10.0.0.1:80" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-…
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http -> 10.0.0.2:80" -j KUBE-SEP-…
 */
export function writeLoadBalancing(plan: ServicePortPlan, ctx: GenerationContext, sink: PortRuleSink): void {
  if (!plan.hasEndpoints) return;
  const chains = portChains(plan);
  if (plan.usesClusterPolicyChain) writePolicyChain(plan, ctx, sink, chains.svc, plan.clusterEndpoints);
  if (plan.usesLocalPolicyChain) writePolicyChain(plan, ctx, sink, chains.svl, plan.localEndpoints);
}

/** One policy chain: the affinity checks, then one rule per endpoint. */
function writePolicyChain(
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
  chain: string,
  endpoints: readonly Endpoint[],
): void {
  writeAffinityChecks(plan, ctx, sink, chain, endpoints);
  const seps = endpointChains(plan, endpoints);
  const spn = plan.servicePortName;
  const n = endpoints.length;
  if (ctx.largeClusterMode) {
    for (let i = 0; i < n - 1; i++)
      sink.rule(UNCOMMENTED.BALANCE, chain, ["", probability(n - i), seps[i] as string]);
    if (n > 0) sink.rule(JUMP, chain, [seps[n - 1] as string]);
    return;
  }
  for (let i = 0; i < n - 1; i++)
    sink.rule(BALANCE, chain, [
      `${spn} -> ${(endpoints[i] as Endpoint).endpoint}`,
      probability(n - i),
      seps[i] as string,
    ]);
  if (n > 0)
    sink.rule(COMMENTED_JUMP, chain, [
      `${spn} -> ${(endpoints[n - 1] as Endpoint).endpoint}`,
      seps[n - 1] as string,
    ]);
}
