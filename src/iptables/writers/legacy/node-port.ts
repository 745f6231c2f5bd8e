/**
 * The node port and the health-check node port (v1.22): the bare service-port name as comment,
 * masquerading in the SVC chain (eTP=Cluster) or loopback masquerading and the XLB chain
 * (eTP=Local); with no endpoint at all, a filter REJECT.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { HEALTH_CHECK, NODE_PORT, NODE_PORT_FROM, NODE_PORT_REJECTED } from "../../shapes.js";
import type { LegacyPort } from "./port.js";

/**
 * Writes the node-port rules of one service port (none when it has no node port).
 *
 * @example
 * writeNodePort(sink, port)
 * // -A KUBE-SVC-… -m comment --comment ns/web:http -m tcp -p tcp --dport 30080 -j KUBE-MARK-MASQ
 * // -A KUBE-NODEPORTS -m comment --comment ns/web:http -m tcp -p tcp --dport 30080 -j KUBE-SVC-…
 */
export function writeNodePort(sink: PortRuleSink, port: LegacyPort, family: "IPv4" | "IPv6"): void {
  const nodePort = port.plan.port.nodePort;
  if (nodePort === 0) return;
  const np = String(nodePort);
  if (!port.legacy.hasEndpoints) {
    sink.filter(NODE_PORT_REJECTED, "KUBE-EXTERNAL-SERVICES", [
      `${port.spn} has no endpoints`,
      port.protocol,
      np,
    ]);
    return;
  }
  if (!port.local) {
    sink.rule(NODE_PORT, port.svc, [port.spn, port.protocol, np, "KUBE-MARK-MASQ"]);
    sink.rule(NODE_PORT, "KUBE-NODEPORTS", [port.spn, port.protocol, np, port.svc]);
    return;
  }
  // Connections from loopback need SNAT, or the reply would be a martian.
  const loopback = family === "IPv4" ? "127.0.0.0/8" : "::1/128";
  sink.rule(NODE_PORT_FROM, "KUBE-NODEPORTS", [port.spn, port.protocol, np, loopback, "KUBE-MARK-MASQ"]);
  sink.rule(NODE_PORT, "KUBE-NODEPORTS", [port.spn, port.protocol, np, port.xlb]);
}

/**
 * Opens the health-check node port in filter (none when the port has none).
 *
 * @example
 * writeHealthCheck(sink, port)
 * // -A KUBE-NODEPORTS -m comment --comment "ns/web:http health check node port" -m tcp -p tcp --dport 32101 -j ACCEPT
 */
export function writeHealthCheck(sink: PortRuleSink, port: LegacyPort): void {
  const healthCheck = port.plan.port.healthCheckNodePort;
  if (healthCheck === 0) return;
  sink.filter(HEALTH_CHECK, "KUBE-NODEPORTS", [`${port.spn} health check node port`, String(healthCheck)]);
}
