/**
 * What every v1.22 writer of one service port shares: the plan, its legacy part, the names of
 * the port's chains and the values most rules repeat.
 *
 * @module
 */

import { chainHash, servicePortChains } from "../../../naming/chain-names.js";
import type { LegacyPlan, LocalDetector, ServicePortPlan } from "../../../plan/types.js";
import type { GenerationContext } from "../../context.js";

/**
 * One service port as the v1.22 writers see it.
 *
 * @example
 * const port: LegacyPort = legacyPort(plan, ctx);
 * port.xlb // "KUBE-XLB-…", the same hash as port.svc
 */
export interface LegacyPort {
  /** The port's plan. */
  readonly plan: ServicePortPlan;
  /** Its ≤ 1.23 part (endpoint lists). */
  readonly legacy: LegacyPlan;
  /** The node's local-traffic detector (the node plan's), or `null`. */
  readonly detector: LocalDetector | null;
  /** `ns/name:port`, the comments' name. */
  readonly spn: string;
  /** `tcp`, `udp` or `sctp`. */
  readonly protocol: string;
  /** The service port number as text. */
  readonly port: string;
  /** `KUBE-SVC-…`. */
  readonly svc: string;
  /** `KUBE-XLB-…` (eTP=Local ports only). */
  readonly xlb: string;
  /** `KUBE-FW-…` (load-balancer IPs). */
  readonly fw: string;
  /** eTP=Local: external traffic goes to the XLB chain. */
  readonly local: boolean;
  /** The prefix v1.22 writes after a host address: `/32` or `/128`. */
  readonly hostBits: string;
}

/**
 * The shared view of one service port.
 *
 * @throws Error when the plan has no legacy part (it was made for a current-layout profile).
 * @example
 * legacyPort(plan, ctx).hostBits // "/32" on an IPv4 node
 */
export function legacyPort(plan: ServicePortPlan, ctx: GenerationContext): LegacyPort {
  const legacy = plan.legacy;
  if (legacy === null) throw new Error(`${plan.servicePortName}: the v1.22 writers need an xlb plan`);
  const protocol = plan.port.protocol;
  const chains = servicePortChains(plan.servicePortName, protocol);
  return {
    plan,
    legacy,
    detector: ctx.node.localDetector,
    spn: plan.servicePortName,
    protocol,
    port: String(plan.port.port),
    svc: chains.svc,
    xlb: `KUBE-XLB-${chainHash(plan.servicePortName + protocol)}`,
    fw: chains.fw,
    local: plan.externalPolicy === "local",
    hostBits: ctx.family === "IPv4" ? "/32" : "/128",
  };
}
