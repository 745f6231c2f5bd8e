/**
 * The cluster IP (v1.22): masquerade in the SVC chain, then the KUBE-SERVICES jump; with no
 * endpoint at all, a filter REJECT.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { LEGACY } from "../../shapes.js";
import { writeMasqueradeAll, writeMasqueradeNotLocal } from "./masquerade.js";
import type { LegacyPort } from "./port.js";

/**
 * Writes the cluster-IP rules of one service port.
 *
 * @example
 * writeClusterIP(sink, port)
 * // -A KUBE-SVC-… … "ns/web:http cluster IP" … -d 10.96.0.10/32 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
 * // -A KUBE-SERVICES … "ns/web:http cluster IP" … -d 10.96.0.10/32 --dport 80 -j KUBE-SVC-…
 */
export function writeClusterIP(sink: PortRuleSink, port: LegacyPort): void {
  const address = port.plan.port.clusterIP + port.hostBits;
  if (!port.legacy.hasEndpoints) {
    const comment = `${port.spn} has no endpoints`;
    sink.filter(LEGACY.REJECT_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, address, port.port]);
    return;
  }
  const comment = `${port.spn} cluster IP`;
  switch (port.plan.clusterIPMasquerade) {
    case "all":
      writeMasqueradeAll(sink, port, comment, address);
      break;
    case "non-local":
      writeMasqueradeNotLocal(sink, port, comment, address);
      break;
    case "none":
      break;
  }
  sink.rule(LEGACY.TO_DESTINATION, "KUBE-SERVICES", [comment, port.protocol, address, port.port, port.svc]);
}
