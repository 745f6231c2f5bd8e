/**
 * The external-traffic chain, KUBE-EXT (spec §7): with externalTrafficPolicy=Cluster all of it
 * is masqueraded; with Local, pods and the node itself are sent the cluster way (the node's own
 * traffic masqueraded) and the rest goes to the local endpoints.
 *
 * @module
 */
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { COMMENTED_JUMP, FROM_LOCAL, JUMP } from "../shapes.js";
import { externalPolicyChain, portChains } from "./chains.js";
import { detectorValue, fromPodShape } from "./local-detector.js";

/**
 * The EXT chain's rules.
 *
 * @example
 * writeExternalChain(plan, ctx, sink);
 * // -A KUBE-EXT-… -m comment --comment "masquerade traffic for ns/web:http external destinations" -j KUBE-MARK-MASQ
 * // -A KUBE-EXT-… -j KUBE-SVC-…
 */
export function writeExternalChain(plan: ServicePortPlan, ctx: GenerationContext, sink: PortRuleSink): void {
  if (!plan.usesExternalChain) return;
  const spn = plan.servicePortName;
  const chains = portChains(plan);
  const ext = chains.ext;
  if (plan.externalPolicy === "cluster") {
    sink.rule(COMMENTED_JUMP, ext, [`masquerade traffic for ${spn} external destinations`, "KUBE-MARK-MASQ"]);
  } else {
    const detector = ctx.node.localDetector;
    if (detector !== null)
      sink.rule(fromPodShape(detector), ext, [
        `pod traffic for ${spn} external destinations`,
        detectorValue(detector),
        chains.svc,
      ]);
    sink.rule(FROM_LOCAL, ext, [
      `masquerade LOCAL traffic for ${spn} external destinations`,
      "KUBE-MARK-MASQ",
    ]);
    sink.rule(FROM_LOCAL, ext, [`route LOCAL traffic for ${spn} external destinations`, chains.svc]);
  }
  if (plan.hasExternalEndpoints) sink.rule(JUMP, ext, [externalPolicyChain(plan)]);
}
