/**
 * Load-balancer IPs (spec §5): KUBE-SERVICES sends their traffic to the port's FW chain when
 * source ranges apply, else to its EXT chain; the firewall's filter drops follow, then the
 * refusals when external traffic has nowhere to go.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { TO_DESTINATION } from "../shapes.js";
import { portChains, usesFirewallChain } from "./chains.js";
import { writeFirewallDrops } from "./firewall.js";
import { writeRefusal } from "./no-endpoints.js";

/**
 * The load-balancer IPs' jumps, the firewall's drops and the refusals, in kube-proxy's order.
 *
 * @example
 * writeLoadBalancerIPs(plan, ctx, sink);
 * // -A KUBE-SERVICES -m comment --comment "ns/web:http loadbalancer IP" -m tcp -p tcp -d 203.0.113.9 --dport 80 -j KUBE-FW-…
 */
export function writeLoadBalancerIPs(
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
): void {
  const port = plan.port;
  const ips = port.loadBalancerVIPs;
  if (ips.length === 0) return;
  if (plan.hasEndpoints) {
    const chains = portChains(plan);
    const target = usesFirewallChain(plan) ? chains.fw : chains.ext;
    const comment = `${plan.servicePortName} loadbalancer IP`;
    const dport = String(port.port);
    for (let i = 0; i < ips.length; i++)
      sink.jump(TO_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, ips[i] as string, dport, target]);
  }
  // kube-proxy writes each IP's filter drop beside its jump, and the refusals after the loop:
  // in filter, every drop comes before the first refusal.
  writeFirewallDrops(plan, ctx, sink);
  const verdict = plan.externalNoEndpoints;
  if (verdict !== null)
    for (let i = 0; i < ips.length; i++)
      writeRefusal(plan, sink, "KUBE-EXTERNAL-SERVICES", verdict, ips[i] as string);
}
