/**
 * The endpoint chains, KUBE-SEP (spec §6): traffic from the endpoint to itself is marked for
 * masquerade (hairpin), then DNAT to the endpoint, recording the client with session affinity.
 * Comments are left out in large-cluster mode.
 *
 * @module
 */
import type { Endpoint } from "../../model/types.js";
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { ENDPOINT_DNAT, ENDPOINT_DNAT_AFFINITY, ENDPOINT_HAIRPIN, UNCOMMENTED } from "../shapes.js";
import { endpointChains } from "./chains.js";

/**
 * Two rules per endpoint with a chain of its own, in the chains' (sorted) order.
 *
 * @example
 * writeEndpointChains(plan, ctx, sink);
 * // -A KUBE-SEP-… -m comment --comment ns/web:http -s 10.0.0.1 -j KUBE-MARK-MASQ
 * // -A KUBE-SEP-… -m comment --comment ns/web:http -m tcp -p tcp -j DNAT --to-destination 10.0.0.1:80
 */
export function writeEndpointChains(plan: ServicePortPlan, ctx: GenerationContext, sink: PortRuleSink): void {
  const endpoints = plan.reachableEndpoints;
  if (!plan.hasEndpoints || endpoints.length === 0) return;
  const seps = endpointChains(plan, endpoints);
  const uncommented = ctx.largeClusterMode;
  const comment = uncommented ? "" : plan.servicePortName;
  const hairpin = uncommented ? UNCOMMENTED.ENDPOINT_HAIRPIN : ENDPOINT_HAIRPIN;
  const protocol = plan.port.protocol;
  if (plan.affinitySeconds > 0) {
    const dnat = uncommented ? UNCOMMENTED.ENDPOINT_DNAT_AFFINITY : ENDPOINT_DNAT_AFFINITY;
    for (let i = 0; i < endpoints.length; i++) {
      const ep = endpoints[i] as Endpoint;
      const sep = seps[i] as string;
      sink.rule(hairpin, sep, [comment, ep.ip]);
      sink.rule(dnat, sep, [comment, protocol, ep.endpoint, sep]);
    }
    return;
  }
  const dnat = uncommented ? UNCOMMENTED.ENDPOINT_DNAT : ENDPOINT_DNAT;
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    const sep = seps[i] as string;
    sink.rule(hairpin, sep, [comment, ep.ip]);
    sink.rule(dnat, sep, [comment, protocol, ep.endpoint]);
  }
}
