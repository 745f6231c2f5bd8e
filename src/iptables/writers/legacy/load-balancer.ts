/**
 * Load-balancer IPs (v1.22): each ingress IP jumps to the FW chain, and each one writes the FW
 * chain's rules again (kube-proxy ≤ 1.23 declared and filled it once per IP; iptables-restore
 * keeps every copy). Refused traffic goes to the nat KUBE-MARK-DROP chain.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { COMMENTED_JUMP, FROM_SOURCE, LEGACY } from "../../shapes.js";
import type { LegacyPort } from "./port.js";

/**
 * Writes the load-balancer rules of one service port, IP by IP.
 *
 * @example
 * writeLoadBalancerIPs(sink, port)
 * // -A KUBE-SERVICES … "ns/web:http loadbalancer IP" … -d 192.0.2.10/32 --dport 80 -j KUBE-FW-…
 * // -A KUBE-FW-… -m comment --comment "ns/web:http loadbalancer IP" -j KUBE-MARK-MASQ
 * // -A KUBE-FW-… -m comment --comment "ns/web:http loadbalancer IP" -j KUBE-SVC-…
 * // -A KUBE-FW-… -m comment --comment "ns/web:http loadbalancer IP" -j KUBE-MARK-DROP
 */
export function writeLoadBalancerIPs(sink: PortRuleSink, port: LegacyPort): void {
  const comment = `${port.spn} loadbalancer IP`;
  const target = port.local ? port.xlb : port.svc;
  const firewall = port.plan.firewall;
  for (const ip of port.plan.port.loadBalancerVIPs) {
    const address = ip + port.hostBits;
    if (!port.legacy.hasEndpoints) {
      const values = [`${port.spn} has no endpoints`, port.protocol, address, port.port];
      sink.filter(LEGACY.REJECT_DESTINATION, "KUBE-EXTERNAL-SERVICES", values);
      continue;
    }
    sink.chain(port.fw);
    sink.rule(LEGACY.TO_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, address, port.port, port.fw]);
    if (!port.local) sink.rule(COMMENTED_JUMP, port.fw, [comment, "KUBE-MARK-MASQ"]);
    if (firewall === null) {
      sink.rule(COMMENTED_JUMP, port.fw, [comment, target]);
    } else {
      for (const range of firewall.sourceRanges) sink.rule(FROM_SOURCE, port.fw, [comment, range, target]);
      // Traffic the load balancer hairpins back to the node comes from the LB IP itself.
      if (firewall.allowsNode) sink.rule(FROM_SOURCE, port.fw, [comment, address, target]);
    }
    sink.rule(COMMENTED_JUMP, port.fw, [comment, "KUBE-MARK-DROP"]);
  }
}
