/**
 * Masquerading traffic to one of the port's addresses, in its KUBE-SVC chain: all of it, or only
 * what the node's local-traffic detector says is not from a pod.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { LEGACY } from "../../shapes.js";
import { detectorValue } from "../local-detector.js";
import type { LegacyPort } from "./port.js";

/**
 * Marks traffic to `address` (already with its prefix) for masquerade unless the detector says it
 * comes from a pod; with no detector, all of it.
 *
 * @example
 * writeMasqueradeNotLocal(sink, port, "ns/web:http external IP", "203.0.113.7/32")
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http external IP" -m tcp -p tcp -d 203.0.113.7/32 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
 */
export function writeMasqueradeNotLocal(
  sink: PortRuleSink,
  port: LegacyPort,
  comment: string,
  address: string,
): void {
  const detector = port.detector;
  if (detector === null) {
    writeMasqueradeAll(sink, port, comment, address);
    return;
  }
  const shape =
    detector.kind === "cidr" ? LEGACY.MASQUERADE_NOT_FROM_CIDR : LEGACY.MASQUERADE_NOT_FROM_INTERFACE;
  sink.rule(shape, port.svc, [comment, port.protocol, address, port.port, detectorValue(detector)]);
}

/**
 * Marks all traffic to `address` (already with its prefix) for masquerade.
 *
 * @example
 * writeMasqueradeAll(sink, port, "ns/web:http cluster IP", "10.96.0.10/32")
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http cluster IP" -m tcp -p tcp -d 10.96.0.10/32 --dport 80 -j KUBE-MARK-MASQ
 */
export function writeMasqueradeAll(
  sink: PortRuleSink,
  port: LegacyPort,
  comment: string,
  address: string,
): void {
  sink.rule(LEGACY.TO_DESTINATION, port.svc, [comment, port.protocol, address, port.port, "KUBE-MARK-MASQ"]);
}
