/**
 * ClientIP session affinity (spec §9): before a policy chain balances, a client seen within the
 * timeout goes back to the endpoint chain that recorded it; the endpoint chain's DNAT records
 * the client (see `endpoint-chains.ts`).
 *
 * @module
 */
import type { Endpoint } from "../../model/types.js";
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { AFFINITY_CHECK, UNCOMMENTED } from "../shapes.js";
import { endpointChains } from "./chains.js";

/**
 * One affinity check per endpoint of a policy chain (none without affinity).
 *
 * @param chain - The policy chain (KUBE-SVC or KUBE-SVL).
 * @param endpoints - The endpoints it balances over (one of the plan's lists).
 * @example
 * writeAffinityChecks(plan, ctx, sink, "KUBE-SVC-…", plan.clusterEndpoints);
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http -> 10.0.0.1:80" -m recent --name KUBE-SEP-… --rcheck --seconds 10800 --reap -j KUBE-SEP-…
 */
export function writeAffinityChecks(
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
  chain: string,
  endpoints: readonly Endpoint[],
): void {
  if (plan.affinitySeconds <= 0) return;
  const seconds = String(plan.affinitySeconds);
  const seps = endpointChains(plan, endpoints);
  const spn = plan.servicePortName;
  const uncommented = ctx.largeClusterMode;
  const shape = uncommented ? UNCOMMENTED.AFFINITY_CHECK : AFFINITY_CHECK;
  for (let i = 0; i < endpoints.length; i++) {
    const comment = uncommented ? "" : `${spn} -> ${(endpoints[i] as Endpoint).endpoint}`;
    sink.rule(shape, chain, [comment, seps[i] as string, seconds]);
  }
}
