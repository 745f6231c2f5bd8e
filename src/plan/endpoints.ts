/**
 * Which endpoints a service port's chains use (§6 of the spec): cluster endpoints (ready, maybe
 * narrowed by topology hints, else serving-terminating), local endpoints (for Local policies),
 * and every endpoint that needs a SEP chain.
 *
 * @module
 */

import { DEFAULT_PROFILE, PROFILES, type ProfileTraits } from "../model/profiles.js";
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

/**
 * Hint-based selection applies for one kind of hint: the node has a name for it, every ready
 * endpoint carries such hints, and one of them names this node (or its zone).
 */
function canUseHints(
  endpoints: readonly Endpoint[],
  target: string,
  kind: "zoneHints" | "nodeHints",
  emptyTarget = false,
): boolean {
  if (target === "" && !emptyTarget) return false;
  let hintsForTarget = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    const hints = ep[kind];
    if (hints.length === 0) return false;
    if (hints.includes(target)) hintsForTarget = true;
  }
  return hintsForTarget;
}

/**
 * Which hints narrow the cluster endpoints under a profile's topology rule (§6.4, §15): `null`
 * for none, else the hint list and the value it must contain.
 */
function topologyFilter(
  endpoints: readonly Endpoint[],
  topology: ProfileTraits["topology"],
  zone: string,
  nodeName: string,
): { kind: "zoneHints" | "nodeHints"; target: string } | null {
  if (topology === "none") return null;
  // master: PreferSameNode (node hints) wins over PreferSameZone.
  if (topology === "node-then-zone" && canUseHints(endpoints, nodeName, "nodeHints")) {
    return { kind: "nodeHints", target: nodeName };
  }
  // 1.32's canUseTopology needs a zone label on the node; topologyModeFromHints (1.34+,
  // pkg/proxy/topology.go) only looks the node's zone up in the hints, so a node without the
  // label matches an endpoint hinted for the zone "" (a valid label value).
  const anyZone = topology === "node-then-zone";
  return canUseHints(endpoints, zone, "zoneHints", anyZone) ? { kind: "zoneHints", target: zone } : null;
}

const NONE: readonly Endpoint[] = [];

/**
 * Sorts a service port's endpoints into the lists its chains use.
 *
 * @param nodeLabels the node's labels (only the zone label matters).
 * @param traits the profile (topology rule, serving-terminating fallback); default v1.30.
 * @param nodeName kube-proxy's node name, for node hints (`latest` profile).
 * @example
 * categorizeEndpoints(port, {}).cluster.length // the ready endpoints
 */
export function categorizeEndpoints(
  port: ServicePort,
  nodeLabels: Readonly<Record<string, string>>,
  traits: ProfileTraits = PROFILES[DEFAULT_PROFILE],
  nodeName = "",
): EndpointCategories {
  const endpoints = port.endpoints;
  if (endpoints.length === 0) return { cluster: NONE, local: NONE, reachable: NONE, hasEndpoints: false };
  const useCluster = usesClusterEndpoints(port);
  const useLocal = usesLocalEndpoints(port);
  let hasEndpoints = false;
  let useTopology = false;
  let cluster: readonly Endpoint[] = NONE;
  if (useCluster) {
    const hint = topologyFilter(endpoints, traits.topology, nodeLabels[ZONE_LABEL] ?? "", nodeName);
    useTopology = hint !== null;
    cluster =
      hint === null
        ? readyOf(endpoints)
        : endpoints.filter((ep) => ep.ready && ep[hint.kind].includes(hint.target));
    if (cluster.length === 0 && traits.terminatingFallback) {
      cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    }
    hasEndpoints = cluster.length > 0;
  }
  if (!useLocal) return { cluster, local: NONE, reachable: cluster, hasEndpoints };

  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (traits.terminatingFallback && ep.serving && ep.terminating) {
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

/** The ready endpoints: the list itself when all are (the usual case: no copy per port). */
function readyOf(endpoints: readonly Endpoint[]): readonly Endpoint[] {
  for (let i = 0; i < endpoints.length; i++)
    if (!(endpoints[i] as Endpoint).ready) return endpoints.filter((ep) => ep.ready);
  return endpoints;
}

/** Both lists merged by `ip:port`, sorted by it (the vectors' canonical order). */
function union(a: readonly Endpoint[], b: readonly Endpoint[]): Endpoint[] {
  const byKey = new Map<string, Endpoint>();
  for (const ep of a) byKey.set(ep.endpoint, ep);
  for (const ep of b) byKey.set(ep.endpoint, ep);
  return [...byKey.values()].sort((x, y) => (x.endpoint < y.endpoint ? -1 : x.endpoint > y.endpoint ? 1 : 0));
}
