/**
 * loadBalancerSourceRanges (spec §8): the port's KUBE-FW chain lets allowed sources on to the
 * EXT chain (and the load-balancer IPs themselves when the node's address is in a range), and
 * filter KUBE-PROXY-FIREWALL drops what is still headed for a load-balancer IP after it.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { COMMENT_ONLY, FROM_SOURCE, TO_DESTINATION } from "../shapes.js";
import { portChains, usesFirewallChain } from "./chains.js";

/**
 * The filter drops of traffic to the load-balancer IPs that the FW chain did not accept.
 *
 * @example
 * writeFirewallDrops(plan, ctx, sink);
 * // -A KUBE-PROXY-FIREWALL -m comment --comment "ns/web:http traffic not accepted by KUBE-FW-…" -m tcp -p tcp -d 203.0.113.9 --dport 80 -j DROP
 */
export function writeFirewallDrops(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  if (!usesFirewallChain(plan)) return;
  const port = plan.port;
  const comment = `${plan.servicePortName} traffic not accepted by ${portChains(plan).fw}`;
  const dport = String(port.port);
  const ips = port.loadBalancerVIPs;
  for (let i = 0; i < ips.length; i++)
    sink.filter(TO_DESTINATION, "KUBE-PROXY-FIREWALL", [
      comment,
      port.protocol,
      ips[i] as string,
      dport,
      "DROP",
    ]);
}

/**
 * The FW chain: one rule per allowed source, the load-balancer IPs when the node may reach
 * itself through them, and a last comment saying where the rest goes.
 *
 * @example
 * writeFirewallChain(plan, ctx, sink);
 * // -A KUBE-FW-… -m comment --comment "ns/web:http loadbalancer IP" -s 198.51.100.0/24 -j KUBE-EXT-…
 */
export function writeFirewallChain(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  const firewall = plan.firewall;
  if (firewall === null || !plan.hasEndpoints) return;
  const { fw, ext } = portChains(plan);
  const comment = `${plan.servicePortName} loadbalancer IP`;
  const ranges = firewall.sourceRanges;
  for (let i = 0; i < ranges.length; i++) sink.rule(FROM_SOURCE, fw, [comment, ranges[i] as string, ext]);
  if (firewall.allowsNode) {
    const ips = plan.port.loadBalancerVIPs;
    for (let i = 0; i < ips.length; i++) sink.rule(FROM_SOURCE, fw, [comment, ips[i] as string, ext]);
  }
  sink.rule(COMMENT_ONLY, fw, [
    `other traffic to ${plan.servicePortName} will be dropped by KUBE-PROXY-FIREWALL`,
  ]);
}
