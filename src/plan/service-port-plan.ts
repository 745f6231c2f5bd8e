/**
 * One service port's plan (§5–§6 of the iptables spec; the nftables proxier makes the same
 * decisions): endpoint lists from `categorizeEndpoints`, which policy chains exist, where
 * internal and external traffic go, and what happens when there is nowhere to go.
 *
 * @module
 */

import { cidrContains, parseCidr } from "../model/ip.js";
import type { ClusterModel, Endpoint, ServicePort } from "../model/types.js";
import { servicePortName } from "../naming/chain-names.js";
import { categorizeEndpoints, externallyAccessible } from "./endpoints.js";
import type { NodePlan, NoEndpointsVerdict, ServicePortPlan } from "./types.js";

/**
 * Plans one service port.
 *
 * @example
 * planServicePort(port, planNode(model), model.config).usesClusterPolicyChain // true with ready endpoints
 */
export function planServicePort(
  port: ServicePort,
  node: NodePlan,
  config: Pick<ClusterModel["config"], "nodeLabels" | "hostname">,
): ServicePortPlan {
  const spn = servicePortName(port.namespace, port.name, port.portName);
  const { cluster, local, reachable, hasEndpoints } = categorizeEndpoints(
    port,
    config.nodeLabels,
    node.traits,
    config.hostname,
  );
  const external = externallyAccessible(port);
  const hasInternalEndpoints = hasEndpoints && !(port.internalPolicyLocal && local.length === 0);
  const hasExternalEndpoints = hasEndpoints && !(port.externalPolicyLocal && local.length === 0);
  const firewall =
    port.loadBalancerVIPs.length > 0 && port.loadBalancerSourceRanges.length > 0
      ? {
          sourceRanges: port.loadBalancerSourceRanges,
          allowsNode:
            node.primaryNodeIP !== null &&
            port.loadBalancerSourceRanges.some((r) => rangeContains(r, node.primaryNodeIP as string)),
        }
      : null;
  return {
    port,
    servicePortName: spn,
    clusterEndpoints: cluster,
    localEndpoints: local,
    reachableEndpoints: reachable,
    hasEndpoints,
    hasInternalEndpoints,
    hasExternalEndpoints,
    externallyAccessible: external,
    usesClusterPolicyChain: cluster.length > 0 && (!port.internalPolicyLocal || external),
    usesLocalPolicyChain:
      local.length > 0 && (port.internalPolicyLocal || (port.externalPolicyLocal && external)),
    usesExternalChain: hasEndpoints && external,
    internalPolicy: port.internalPolicyLocal ? "local" : "cluster",
    externalPolicy: port.externalPolicyLocal ? "local" : "cluster",
    internalNoEndpoints: noEndpointsVerdict(hasInternalEndpoints, hasEndpoints),
    externalNoEndpoints: noEndpointsVerdict(hasExternalEndpoints, hasEndpoints),
    firewall,
    clusterIPMasquerade: node.masqueradeAll ? "all" : node.localDetector !== null ? "non-local" : "none",
    affinitySeconds: port.stickyMaxAgeSeconds,
    legacy: node.traits.externalChains === "xlb" ? legacyPlan(port) : null,
  };
}

/**
 * What happens to traffic with nowhere to go (kube-proxy): "reject" when nothing serves the port
 * anywhere, "drop" when only the local policy finds nothing on this node. A function of the
 * module, not a closure per plan: the bundle names every closure it makes (esbuild's keepNames),
 * a property definition per service port.
 */
function noEndpointsVerdict(has: boolean, hasEndpoints: boolean): NoEndpointsVerdict | null {
  return has ? null : hasEndpoints ? "drop" : "reject";
}

/**
 * The ≤ 1.23 endpoint lists: every endpoint, ready or not (each gets a SEP chain; only ready ones
 * are balanced to), except that internalTrafficPolicy=Local keeps only local ones when the port
 * is not eTP=Local. No topology narrowing and no serving-terminating fallback (both gates were
 * off in that era).
 */
function legacyPlan(port: ServicePort): ServicePortPlan["legacy"] {
  const endpoints =
    port.externalPolicyLocal || !port.internalPolicyLocal
      ? port.endpoints
      : port.endpoints.filter((ep) => ep.isLocal);
  const ready: Endpoint[] = [];
  const localReady: Endpoint[] = [];
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    ready.push(ep);
    if (ep.isLocal) localReady.push(ep);
  }
  return {
    hasEndpoints: endpoints.length > 0,
    endpoints,
    ready,
    localReady,
  };
}

/** Whether a source range (a canonical CIDR) contains an address. */
function rangeContains(range: string, ip: string): boolean {
  const cidr = parseCidr(range);
  return cidr !== null && cidrContains(cidr, ip);
}
