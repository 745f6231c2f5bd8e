/**
 * The cluster IP (spec §5): KUBE-SERVICES sends its traffic to the internal policy chain, or
 * filter refuses it; the policy chain's first rule marks traffic from outside the pods for
 * masquerade.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { TO_DESTINATION } from "../shapes.js";
import { internalPolicyChain } from "./chains.js";
import { detectorValue, notFromPodMasqueradeShape } from "./local-detector.js";
import { writeRefusal } from "./no-endpoints.js";

/**
 * The cluster-IP jump from nat KUBE-SERVICES, or its refusal in filter KUBE-SERVICES.
 *
 * @example
 * writeClusterIP(plan, ctx, sink);
 * // -A KUBE-SERVICES -m comment --comment "ns/web:http cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-SVC-…
 */
export function writeClusterIP(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  const port = plan.port;
  if (plan.internalNoEndpoints !== null) {
    writeRefusal(plan, sink, "KUBE-SERVICES", plan.internalNoEndpoints, port.clusterIP);
    return;
  }
  sink.jump(TO_DESTINATION, "KUBE-SERVICES", [
    `${plan.servicePortName} cluster IP`,
    port.protocol,
    port.clusterIP,
    String(port.port),
    internalPolicyChain(plan),
  ]);
}

/**
 * The internal policy chain's masquerade rule for cluster-IP traffic (all of it with
 * masqueradeAll, else what the local detector says is not from a pod; none without a detector).
 *
 * @example
 * writeClusterIPMasquerade(plan, ctx, sink);
 * // -A KUBE-SVC-… -m comment --comment "ns/web:http cluster IP" -m tcp -p tcp -d 10.96.0.10 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
 */
export function writeClusterIPMasquerade(
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
): void {
  if (!plan.hasInternalEndpoints || plan.clusterIPMasquerade === "none") return;
  const port = plan.port;
  const chain = internalPolicyChain(plan);
  const comment = `${plan.servicePortName} cluster IP`;
  const dport = String(port.port);
  if (plan.clusterIPMasquerade === "all") {
    sink.rule(TO_DESTINATION, chain, [comment, port.protocol, port.clusterIP, dport, "KUBE-MARK-MASQ"]);
    return;
  }
  const detector = ctx.node.localDetector;
  if (detector === null) return;
  sink.rule(notFromPodMasqueradeShape(detector), chain, [
    comment,
    port.protocol,
    port.clusterIP,
    dport,
    detectorValue(detector),
  ]);
}
