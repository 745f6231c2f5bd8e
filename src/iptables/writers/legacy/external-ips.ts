/**
 * External IPs (v1.22): eTP=Cluster masquerades off-node traffic in the SVC chain and jumps there;
 * eTP=Local jumps to the XLB chain. With no endpoint at all, a filter REJECT per address.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { LEGACY } from "../../shapes.js";
import { writeMasqueradeNotLocal } from "./masquerade.js";
import type { LegacyPort } from "./port.js";

/**
 * Writes the external-IP rules of one service port, address by address.
 *
 * @example
 * writeExternalIPs(sink, port)
 * // -A KUBE-SVC-… … "ns/web:http external IP" … -d 203.0.113.7/32 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
 * // -A KUBE-SERVICES … "ns/web:http external IP" … -d 203.0.113.7/32 --dport 80 -j KUBE-SVC-…
 */
export function writeExternalIPs(sink: PortRuleSink, port: LegacyPort): void {
  const target = port.local ? port.xlb : port.svc;
  for (const ip of port.plan.port.externalIPs) {
    const address = ip + port.hostBits;
    if (!port.legacy.hasEndpoints) {
      const values = [`${port.spn} has no endpoints`, port.protocol, address, port.port];
      sink.filter(LEGACY.REJECT_DESTINATION, "KUBE-EXTERNAL-SERVICES", values);
      continue;
    }
    const comment = `${port.spn} external IP`;
    if (!port.local) writeMasqueradeNotLocal(sink, port, comment, address);
    sink.rule(LEGACY.TO_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, address, port.port, target]);
  }
}
