/**
 * Node ports and the health-check node port (spec §5, §10): nat KUBE-NODEPORTS sends node-port
 * traffic to the EXT chain (first through the nfacct-counted localhost rule where the profile
 * and the node have it); filter refuses it when external traffic has nowhere to go, and opens
 * the health-check port.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { HEALTH_CHECK, LOCALHOST_NODE_PORT, NODE_PORT } from "../shapes.js";
import { portChains } from "./chains.js";
import { writeNodePortRefusal } from "./no-endpoints.js";

/**
 * The node port's jumps, or its refusal.
 *
 * @example
 * writeNodePort(plan, ctx, sink);
 * // -A KUBE-NODEPORTS -m comment --comment ns/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-…
 */
export function writeNodePort(plan: ServicePortPlan, ctx: GenerationContext, sink: PortRuleSink): void {
  const port = plan.port;
  if (port.nodePort === 0) return;
  const nodePort = String(port.nodePort);
  if (plan.hasEndpoints) {
    const values = [plan.servicePortName, port.protocol, nodePort, portChains(plan).ext];
    if (ctx.traits.nfacctCounters && ctx.localhostNodePorts)
      sink.jump(LOCALHOST_NODE_PORT, "KUBE-NODEPORTS", values);
    sink.jump(NODE_PORT, "KUBE-NODEPORTS", values);
  }
  if (plan.externalNoEndpoints !== null) writeNodePortRefusal(plan, sink, plan.externalNoEndpoints);
}

/**
 * The filter rule that opens the health-check node port (always TCP).
 *
 * @example
 * writeHealthCheck(plan, ctx, sink);
 * // -A KUBE-NODEPORTS -m comment --comment "ns/web:http health check node port" -m tcp -p tcp --dport 32101 -j ACCEPT
 */
export function writeHealthCheck(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  const healthCheckNodePort = plan.port.healthCheckNodePort;
  if (healthCheckNodePort === 0) return;
  sink.filter(HEALTH_CHECK, "KUBE-NODEPORTS", [
    `${plan.servicePortName} health check node port`,
    String(healthCheckNodePort),
  ]);
}
