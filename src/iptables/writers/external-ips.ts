/**
 * External IPs (spec §5): KUBE-SERVICES sends their traffic to the port's EXT chain while it
 * has endpoints; filter KUBE-EXTERNAL-SERVICES refuses it when external traffic has nowhere to go.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { TO_DESTINATION } from "../shapes.js";
import { portChains } from "./chains.js";
import { writeRefusal } from "./no-endpoints.js";

/**
 * One jump (and/or refusal) per external IP, in the Service's order.
 *
 * @example
 * writeExternalIPs(plan, ctx, sink);
 * // -A KUBE-SERVICES -m comment --comment "ns/web:http external IP" -m tcp -p tcp -d 192.0.2.7 --dport 80 -j KUBE-EXT-…
 */
export function writeExternalIPs(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  const port = plan.port;
  const ips = port.externalIPs;
  if (ips.length === 0) return;
  const comment = `${plan.servicePortName} external IP`;
  const dport = String(port.port);
  const ext = portChains(plan).ext;
  const verdict = plan.externalNoEndpoints;
  for (let i = 0; i < ips.length; i++) {
    const ip = ips[i] as string;
    if (plan.hasEndpoints)
      sink.jump(TO_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, ip, dport, ext]);
    if (verdict !== null) writeRefusal(plan, sink, "KUBE-EXTERNAL-SERVICES", verdict, ip);
  }
}
