/**
 * The KUBE-XLB chain of an eTP=Local port (v1.22): pods and the node itself reach the service
 * through the SVC chain; other traffic is balanced over the node's own ready endpoints, or
 * dropped through KUBE-MARK-DROP when it has none. Its rules keep their comments in
 * large-cluster mode.
 *
 * @module
 */
import type { PortRuleSink } from "../../shape/sink.js";
import { AFFINITY_CHECK, COMMENTED_JUMP, FROM_LOCAL } from "../../shapes.js";
import { detectorValue, fromPodShape } from "../local-detector.js";
import { sepChains, writeAffinityChecks, writeBalancing } from "./endpoints.js";
import type { LegacyPort } from "./port.js";

const REDIRECT_PODS = "Redirect pods trying to reach external loadbalancer VIP to clusterIP";

/**
 * Writes the XLB chain's rules.
 *
 * @example
 * writeXlbChain(sink, port)
 * // -A KUBE-XLB-… -m comment --comment "Redirect pods trying to reach external loadbalancer VIP to clusterIP" -s 10.244.0.0/16 -j KUBE-SVC-…
 * // -A KUBE-XLB-… -m comment --comment "masquerade LOCAL traffic for ns/web:http LB IP" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
 * // -A KUBE-XLB-… -m comment --comment "route LOCAL traffic for ns/web:http LB IP to service chain" -m addrtype --src-type LOCAL -j KUBE-SVC-…
 * // -A KUBE-XLB-… -m comment --comment "ns/web:http has no local endpoints" -j KUBE-MARK-DROP
 */
export function writeXlbChain(sink: PortRuleSink, port: LegacyPort): void {
  const { spn, xlb, svc } = port;
  const detector = port.detector;
  if (detector !== null)
    sink.rule(fromPodShape(detector), xlb, [REDIRECT_PODS, detectorValue(detector), svc]);
  sink.rule(FROM_LOCAL, xlb, [`masquerade LOCAL traffic for ${spn} LB IP`, "KUBE-MARK-MASQ"]);
  sink.rule(FROM_LOCAL, xlb, [`route LOCAL traffic for ${spn} LB IP to service chain`, svc]);
  const localReady = sepChains(port, port.legacy.localReady);
  if (localReady.length === 0) {
    sink.rule(COMMENTED_JUMP, xlb, [`${spn} has no local endpoints`, "KUBE-MARK-DROP"]);
    return;
  }
  const seconds = port.plan.affinitySeconds;
  if (seconds > 0) writeAffinityChecks(sink, xlb, localReady, spn, String(seconds), AFFINITY_CHECK);
  writeBalancing(sink, xlb, localReady, (i) => `Balancing rule ${i} for ${spn}`);
}
