/**
 * What kube-proxy writes in filter for traffic with nowhere to go (the plan's no-endpoint
 * verdicts): `REJECT` when nothing serves the port, `DROP` when only the local policy finds
 * nothing on this node.
 *
 * @module
 */
import type { NoEndpointsVerdict, ServicePortPlan } from "../../plan/types.js";
import type { PortRuleSink } from "../shape/sink.js";
import { NODE_PORT_REFUSED, NODE_PORT_REJECTED, REJECT_DESTINATION, TO_DESTINATION } from "../shapes.js";

/**
 * The comment of a refusal: `ns/svc:port has no endpoints` or `… has no local endpoints`.
 *
 * @example
 * refusalComment("ns/web:http", "drop") // "ns/web:http has no local endpoints"
 */
export function refusalComment(servicePortName: string, verdict: NoEndpointsVerdict): string {
  return verdict === "reject"
    ? `${servicePortName} has no endpoints`
    : `${servicePortName} has no local endpoints`;
}

/**
 * Refuses traffic to one address of the port (cluster IP, external IP, load-balancer IP) in a
 * filter chain.
 *
 * @example
 * writeRefusal(plan, sink, "KUBE-SERVICES", "reject", plan.port.clusterIP);
 * // -A KUBE-SERVICES -m comment --comment "ns/web:http has no endpoints" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j REJECT
 */
export function writeRefusal(
  plan: ServicePortPlan,
  sink: PortRuleSink,
  chain: string,
  verdict: NoEndpointsVerdict,
  address: string,
): void {
  const port = plan.port;
  const comment = refusalComment(plan.servicePortName, verdict);
  if (verdict === "reject")
    sink.filter(REJECT_DESTINATION, chain, [comment, port.protocol, address, String(port.port)]);
  else sink.filter(TO_DESTINATION, chain, [comment, port.protocol, address, String(port.port), "DROP"]);
}

/**
 * Refuses the port's node port on the node's local addresses (KUBE-EXTERNAL-SERVICES).
 *
 * @example
 * writeNodePortRefusal(plan, sink, "drop");
 * // -A KUBE-EXTERNAL-SERVICES -m comment --comment "… has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP
 */
export function writeNodePortRefusal(
  plan: ServicePortPlan,
  sink: PortRuleSink,
  verdict: NoEndpointsVerdict,
): void {
  const port = plan.port;
  const comment = refusalComment(plan.servicePortName, verdict);
  const nodePort = String(port.nodePort);
  if (verdict === "reject")
    sink.filter(NODE_PORT_REJECTED, "KUBE-EXTERNAL-SERVICES", [comment, port.protocol, nodePort]);
  else sink.filter(NODE_PORT_REFUSED, "KUBE-EXTERNAL-SERVICES", [comment, port.protocol, nodePort, "DROP"]);
}
