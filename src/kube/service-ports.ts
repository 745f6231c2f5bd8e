/**
 * A v1 Service → the service ports one family's proxier handles (kube-proxy's service change
 * tracker, §1.1 of the spec).
 *
 * @module
 */
import { canonicalIP, familyOf, parseCidr } from "../model/ip.js";
import type { Endpoint, IPFamily, Protocol, ServicePort } from "../model/types.js";
import { portKey } from "./endpoints.js";
import type { Service } from "./types.js";

const DEFAULT_AFFINITY_TIMEOUT = 10800;

/** Labels that make kube-proxy's informers ignore an object. */
export const IGNORED_OBJECT_LABELS: readonly string[] = [
  "service.kubernetes.io/service-proxy-name",
  "service.kubernetes.io/headless",
];

/** Why kube-proxy ignores a whole Service, or `null` when it handles it. */
export function serviceSkipReason(service: Service, family: IPFamily): string | null {
  const labels = service.metadata.labels;
  if (labels !== undefined) {
    for (const label of IGNORED_OBJECT_LABELS) {
      if (label in labels) return `it carries the label ${label}`;
    }
  }
  const spec = service.spec;
  if (spec.type === "ExternalName") return "it is an ExternalName Service";
  if (spec.clusterIP === undefined || spec.clusterIP === "" || spec.clusterIP === "None") {
    return "it is headless (no cluster IP)";
  }
  if (clusterIPOf(service, family) === null) return `it has no ${family} cluster IP`;
  return null;
}

/** The cluster IP of one family, canonical, or `null`. */
export function clusterIPOf(service: Service, family: IPFamily): string | null {
  const spec = service.spec;
  const families = spec.ipFamilies ?? [];
  if (families.length === 0) {
    const ip = spec.clusterIP === undefined ? null : canonicalIP(spec.clusterIP);
    return ip !== null && familyOf(ip) === family ? ip : null;
  }
  const ips = spec.clusterIPs ?? (spec.clusterIP === undefined ? [] : [spec.clusterIP]);
  for (let i = 0; i < families.length; i++) {
    if (families[i] !== family) continue;
    const text = ips[i];
    const ip = text === undefined ? null : canonicalIP(text);
    return ip !== null && familyOf(ip) === family ? ip : null;
  }
  return null;
}

function addressesOfFamily(texts: readonly string[] | undefined, family: IPFamily): string[] {
  const out: string[] = [];
  for (const text of texts ?? []) {
    const ip = canonicalIP(text);
    if (ip !== null && familyOf(ip) === family) out.push(ip);
  }
  return out;
}

/**
 * The service ports of a Service for one family; `[]` when kube-proxy ignores the Service.
 *
 * @param endpoints the Service's endpoints by `portKey` (from `endpointsByPort`); without it,
 *   or for a port it lacks, the port has no endpoints. Passed in rather than spread in later
 *   so that model building makes one object per port, not two.
 * @param honorIPMode skip `ipMode: Proxy` ingress IPs (1.29+); releases before the field existed
 *   wrote rules for them.
 * @example
 * servicePortsOf(kubeDns, "IPv4").map((p) => p.portName) // ["dns", "dns-tcp", "metrics"]
 */
export function servicePortsOf(
  service: Service,
  family: IPFamily,
  endpoints?: ReadonlyMap<string, readonly Endpoint[]>,
  honorIPMode = true,
): ServicePort[] {
  if (serviceSkipReason(service, family) !== null) return [];
  const spec = service.spec;
  const clusterIP = clusterIPOf(service, family) as string;
  const type = spec.type ?? "ClusterIP";
  const externalIPs = addressesOfFamily(spec.externalIPs, family);
  const loadBalancerVIPs: string[] = [];
  for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
    if (ingress.ip === undefined || ingress.ip === "" || (honorIPMode && ingress.ipMode === "Proxy"))
      continue;
    const ip = canonicalIP(ingress.ip);
    if (ip !== null && familyOf(ip) === family) loadBalancerVIPs.push(ip);
  }
  const loadBalancerSourceRanges: string[] = [];
  for (const range of spec.loadBalancerSourceRanges ?? []) {
    const cidr = parseCidr(range.trim());
    if (cidr !== null && cidr.family === family) loadBalancerSourceRanges.push(cidr.text);
  }
  const externallyAccessibleService =
    type === "LoadBalancer" || type === "NodePort" || (spec.externalIPs?.length ?? 0) > 0;
  const externalPolicyLocal = externallyAccessibleService && spec.externalTrafficPolicy === "Local";
  const stickyMaxAgeSeconds =
    spec.sessionAffinity === "ClientIP"
      ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT)
      : 0;
  const healthCheckNodePort =
    type === "LoadBalancer" && externalPolicyLocal ? (spec.healthCheckNodePort ?? 0) : 0;
  const noEndpoints: readonly Endpoint[] = [];
  return (spec.ports ?? []).map((port): ServicePort => {
    const portName = port.name ?? "";
    const protocol = port.protocol ?? "TCP";
    return {
      namespace: service.metadata.namespace ?? "",
      name: service.metadata.name ?? "",
      portName,
      protocol: protocol.toLowerCase() as Protocol,
      clusterIP,
      port: port.port,
      nodePort: port.nodePort ?? 0,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      stickyMaxAgeSeconds,
      externalPolicyLocal,
      internalPolicyLocal: spec.internalTrafficPolicy === "Local",
      healthCheckNodePort,
      trafficDistribution: spec.trafficDistribution ?? "",
      endpoints: endpoints?.get(portKey(portName, protocol)) ?? noEndpoints,
    };
  });
}
