/**
 * Which endpoints a service port's chains use (§6 of the spec): cluster endpoints (ready, maybe
 * narrowed by topology hints, else serving-terminating), local endpoints (for Local policies),
 * and every endpoint that needs a SEP chain.
 *
 * @module
 */
import type { Endpoint, ServicePort } from "../model/types.js";

/** The zone label kube-proxy reads from its Node. */
export const ZONE_LABEL = "topology.kubernetes.io/zone";

/** The result of sorting a service port's endpoints into the lists its chains use. */
export interface EndpointCategories {
  /** Endpoints of the cluster-policy chain (KUBE-SVC). */
  readonly cluster: readonly Endpoint[];
  /** Endpoints of the local-policy chain (KUBE-SVL). */
  readonly local: readonly Endpoint[];
  /** Endpoints that get a KUBE-SEP chain, sorted by `ip:port`. */
  readonly reachable: readonly Endpoint[];
  /** Some usable endpoint exists anywhere. */
  readonly hasEndpoints: boolean;
}

/** Whether the port is reachable from outside: node port, LB VIPs or external IPs. */
export function externallyAccessible(port: ServicePort): boolean {
  return port.nodePort !== 0 || port.loadBalancerVIPs.length > 0 || port.externalIPs.length > 0;
}

/** The cluster-policy chain is needed for some traffic. */
export function usesClusterEndpoints(port: ServicePort): boolean {
  return !port.internalPolicyLocal || externallyAccessible(port);
}

/** The local-policy chain is needed for some traffic. */
export function usesLocalEndpoints(port: ServicePort): boolean {
  return port.internalPolicyLocal || (port.externalPolicyLocal && externallyAccessible(port));
}

/** Topology selection applies: the node has a zone, every ready endpoint has zone hints, one names the zone. */
function canUseTopology(endpoints: readonly Endpoint[], zone: string): boolean {
  if (zone === "") return false;
  let hintsForZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    if (ep.zoneHints.length === 0) return false;
    if (ep.zoneHints.includes(zone)) hintsForZone = true;
  }
  return hintsForZone;
}

const NONE: readonly Endpoint[] = [];

/**
 * Sorts a service port's endpoints into the lists its chains use.
 *
 * @param nodeLabels the node's labels (only the zone label matters).
 */
export function categorizeEndpoints(
  port: ServicePort,
  nodeLabels: Readonly<Record<string, string>>,
): EndpointCategories {
  const endpoints = port.endpoints;
  if (endpoints.length === 0) return { cluster: NONE, local: NONE, reachable: NONE, hasEndpoints: false };
  const useCluster = usesClusterEndpoints(port);
  const useLocal = usesLocalEndpoints(port);
  let hasEndpoints = false;
  let useTopology = false;
  let cluster: readonly Endpoint[] = NONE;
  if (useCluster) {
    const zone = nodeLabels[ZONE_LABEL] ?? "";
    useTopology = canUseTopology(endpoints, zone);
    cluster = endpoints.filter((ep) => ep.ready && (!useTopology || ep.zoneHints.includes(zone)));
    if (cluster.length === 0) cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    hasEndpoints = cluster.length > 0;
  }
  if (!useLocal) return { cluster, local: NONE, reachable: cluster, hasEndpoints };

  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      hasEndpoints = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let local: readonly Endpoint[] = NONE;
  let useServingTerminating = false;
  if (hasLocalReady) local = endpoints.filter((ep) => ep.isLocal && ep.ready);
  else if (hasLocalServingTerminating) {
    local = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
    useServingTerminating = true;
  }
  let reachable: readonly Endpoint[];
  if (!useCluster) reachable = local;
  else if (!useTopology && !useServingTerminating) reachable = cluster;
  else reachable = union(cluster, local);
  return { cluster, local, reachable, hasEndpoints };
}

/** Both lists merged by `ip:port`, sorted by it (the vectors' canonical order). */
function union(a: readonly Endpoint[], b: readonly Endpoint[]): Endpoint[] {
  const byKey = new Map<string, Endpoint>();
  for (const ep of a) byKey.set(ep.endpoint, ep);
  for (const ep of b) byKey.set(ep.endpoint, ep);
  return [...byKey.values()].sort((x, y) => (x.endpoint < y.endpoint ? -1 : x.endpoint > y.endpoint ? 1 : 0));
}
