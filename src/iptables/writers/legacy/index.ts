/**
 * The v1.22 writers: the `xlb` chain layout of kube-proxy ≤ 1.23 (profile `v1.22`), written from
 * the same plan as the current layout. One KUBE-SVC chain holds cluster-IP, external-IP and
 * node-port masquerading; an eTP=Local port gets a KUBE-XLB chain; refused external traffic goes
 * to the nat KUBE-MARK-DROP chain. kube-proxy of that era wrote each feature's KUBE-SERVICES jump
 * and chain rules together, so every nat rule goes to `sink.rule` in the order written (nothing
 * to `sink.jump`).
 *
 * Rule forms come from the README of `test/fixtures/kube-proxy-v1.22/` and its vectors.
 *
 * @module
 */
import type { PortWriter } from "../types.js";
import { writeClusterIP } from "./cluster-ip.js";
import { writeServiceEndpoints } from "./endpoints.js";
import { writeExternalIPs } from "./external-ips.js";
import { writeLoadBalancerIPs } from "./load-balancer.js";
import { writeHealthCheck, writeNodePort } from "./node-port.js";
import { legacyPort } from "./port.js";
import { writeXlbChain } from "./xlb.js";

/**
 * Writes one service port's rules in the v1.22 layout.
 *
 * @throws Error when the plan has no legacy part (made for a current-layout profile).
 * @example
 * writeLegacyServicePort(planServicePort(port, node, model.config), createContext(v122Model), sink);
 * // sink.chain("KUBE-SVC-…"), sink.rule(LEGACY.TO_DESTINATION, "KUBE-SERVICES", […]), …
 */
export const writeLegacyServicePort: PortWriter = (plan, ctx, sink) => {
  const port = legacyPort(plan, ctx);
  if (port.legacy.hasEndpoints) sink.chain(port.svc);
  if (port.local) sink.chain(port.xlb);
  writeClusterIP(sink, port);
  writeExternalIPs(sink, port);
  writeLoadBalancerIPs(sink, port);
  // ≤ 1.23 first reserves the node port on every node-port address; when nodePortAddresses
  // matches no address that fails and the rest of the port is skipped (vector
  // feature-nodeport-addresses-no-match): no node-port, health-check or endpoint rules.
  if (plan.port.nodePort !== 0 && ctx.nodePortAddresses !== null && ctx.nodePortAddresses.length === 0)
    return;
  writeNodePort(sink, port, ctx.family);
  writeHealthCheck(sink, port);
  if (!port.legacy.hasEndpoints) return;
  writeServiceEndpoints(sink, port, ctx.largeClusterMode);
  if (port.local) writeXlbChain(sink, port);
};
