/**
 * One service port's rules in the current layout (kube-proxy 1.24+, every profile but the
 * `xlb` ones): the writers of each concern, composed in kube-proxy's order. Within each section
 * (filter, nat shared chains, the port's own chains) the rules come in the order kube-proxy
 * writes them; the sink keeps the sections apart.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { declarePortChains, nameServicePort } from "./chains.js";
import { writeClusterIP, writeClusterIPMasquerade } from "./cluster-ip.js";
import { writeEndpointChains } from "./endpoint-chains.js";
import { writeExternalChain } from "./external-chain.js";
import { writeExternalIPs } from "./external-ips.js";
import { writeFirewallChain } from "./firewall.js";
import { writeLoadBalancerIPs } from "./load-balancer-ips.js";
import { writeLoadBalancing } from "./load-balancing.js";
import { writeHealthCheck, writeNodePort } from "./node-ports.js";
import type { PortWriter } from "./types.js";

/**
 * Writes one service port's rules: its jumps from the shared chains and its filter rules, then
 * (with endpoints) its own chains: EXT, FW, SVC/SVL and one KUBE-SEP per endpoint.
 *
 * @example
 * writeServicePort(planServicePort(port, ctx.node, ctx.config), ctx, sink);
 */
export const writeServicePort: PortWriter = (
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
): void => {
  nameServicePort(plan);
  // The shared chains and filter.
  writeClusterIP(plan, ctx, sink);
  writeExternalIPs(plan, ctx, sink);
  writeLoadBalancerIPs(plan, ctx, sink);
  writeNodePort(plan, ctx, sink);
  writeHealthCheck(plan, ctx, sink);
  if (!plan.hasEndpoints) return;
  // The port's own chains.
  declarePortChains(plan, ctx, sink);
  writeClusterIPMasquerade(plan, ctx, sink);
  writeExternalChain(plan, ctx, sink);
  writeFirewallChain(plan, ctx, sink);
  writeLoadBalancing(plan, ctx, sink);
  writeEndpointChains(plan, ctx, sink);
};
