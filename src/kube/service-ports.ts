/**
 * A v1 Service → the service ports one family's proxier handles (kube-proxy's service change
 * tracker, §1.1 of the spec).
 *
 * @module
 */
import { canonicalIP, familyOf, parseCidr } from "../model/ip.js";
import type { IPFamily, Protocol, ServicePort } from "../model/types.js";
import { trimGoSpace } from "./go-strings.js";
import type { PortLookup } from "./port-endpoints.js";
import type { Service, ServiceSpec } from "./types.js";
import { unwatchedLabel } from "./unwatched-labels.js";

const DEFAULT_AFFINITY_TIMEOUT = 10800;

/** Why kube-proxy ignores a Service whatever the family, or `null`. */
function ignoredReason(service: Service): string | null {
  const label = unwatchedLabel(service.metadata?.labels);
  if (label !== null) return `it carries the label ${label}`;
  const spec: ServiceSpec = service.spec ?? {};
  if (spec.type === "ExternalName") return "it is an ExternalName Service";
  if (spec.clusterIP === undefined || spec.clusterIP === "" || spec.clusterIP === "None") {
    return "it is headless (no cluster IP)";
  }
  return null;
}

/** Why kube-proxy ignores a whole Service, or `null` when it handles it. */
export function serviceSkipReason(service: Service, family: IPFamily): string | null {
  const reason = ignoredReason(service);
  if (reason !== null) return reason;
  if (clusterIPOf(service, family) === null) return `it has no ${family} cluster IP`;
  return null;
}

/**
 * The cluster IP of one family (canonical) when kube-proxy handles the Service, else `null`:
 * {@link serviceSkipReason} and {@link clusterIPOf} in one step.
 */
export function handledClusterIP(service: Service, family: IPFamily): string | null {
  return ignoredReason(service) === null ? clusterIPOf(service, family) : null;
}

/** The cluster IP of one family, canonical, or `null`. */
export function clusterIPOf(service: Service, family: IPFamily): string | null {
  const spec: ServiceSpec = service.spec ?? {};
  const families = spec.ipFamilies ?? [];
  if (families.length === 0) {
    const ip = spec.clusterIP === undefined ? null : canonicalIP(spec.clusterIP);
    return ip !== null && familyOf(ip) === family ? ip : null;
  }
  // An empty clusterIPs beside a clusterIP is filled in from it by the API server (as the
  // validator reads it too).
  const listed = spec.clusterIPs ?? [];
  const ips = listed.length > 0 ? listed : [spec.clusterIP ?? ""];
  for (let i = 0; i < families.length; i++) {
    if (families[i] !== family) continue;
    const text = ips[i];
    const ip = text === undefined ? null : canonicalIP(text);
    return ip !== null && familyOf(ip) === family ? ip : null;
  }
  return null;
}

/** The model's protocol: a constant for the three valid ones, so nothing is allocated per port. */
function lowerProtocol(protocol: string): Protocol {
  switch (protocol) {
    case "TCP":
      return "tcp";
    case "UDP":
      return "udp";
    case "SCTP":
      return "sctp";
    default:
      return protocol.toLowerCase() as Protocol;
  }
}

/** Shared by every port without addresses or endpoints of that kind (the model is read-only). */
const NONE: readonly never[] = [];

// Lists may be JSON null, which Go decodes as empty (the validator accepts it): `?.length`
// answers for both.
function addressesOfFamily(texts: readonly string[] | undefined, family: IPFamily): readonly string[] {
  if (!texts?.length) return NONE;
  const out: string[] = [];
  for (const text of texts) {
    const ip = canonicalIP(text);
    if (ip !== null && familyOf(ip) === family) out.push(ip);
  }
  return out;
}

/**
 * The service ports of a Service for one family; `[]` when kube-proxy ignores the Service.
 *
 * @param endpoints the Service's endpoints by port name and protocol (from `endpointsByPort`); without it,
 *   or for a port it lacks, the port has no endpoints. Passed in rather than spread in later
 *   so that model building makes one object per port, not two.
 * @param honorIPMode skip `ipMode: Proxy` ingress IPs (1.29+); releases before the field existed
 *   wrote rules for them.
 * @param allowExternalIPs program `spec.externalIPs` (kube-proxy 1.36+ drops them when the
 *   `AllowServiceExternalIPs` gate is off).
 * @example
 * servicePortsOf(kubeDns, "IPv4").map((p) => p.portName) // ["dns", "dns-tcp", "metrics"]
 */
export function servicePortsOf(
  service: Service,
  family: IPFamily,
  endpoints?: PortLookup,
  honorIPMode = true,
  allowExternalIPs = true,
): ServicePort[] {
  const clusterIP = handledClusterIP(service, family);
  const out: ServicePort[] = [];
  if (clusterIP !== null)
    pushServicePorts(out, service, clusterIP, family, endpoints, honorIPMode, allowExternalIPs);
  return out;
}

/**
 * Appends the service ports of a Service that kube-proxy handles to `out` (see
 * {@link servicePortsOf}; `clusterIP` is its {@link handledClusterIP}).
 */
export function pushServicePorts(
  out: ServicePort[],
  service: Service,
  clusterIP: string,
  family: IPFamily,
  endpoints: PortLookup | undefined,
  honorIPMode: boolean,
  allowExternalIPs = true,
): void {
  const spec: ServiceSpec = service.spec ?? {};
  // SetDefaults_Service: an absent or empty type is ClusterIP, an absent or empty protocol TCP.
  const type = spec.type || "ClusterIP";
  // AllowServiceExternalIPs off (1.36+, KEP-5707): the field is ignored; whether the Service is
  // externally accessible (for externalTrafficPolicy) is still read from the object below.
  const externalIPs = allowExternalIPs ? addressesOfFamily(spec.externalIPs, family) : NONE;
  const ingresses = service.status?.loadBalancer?.ingress;
  let loadBalancerVIPs: readonly string[] = NONE;
  if (ingresses?.length) {
    const vips: string[] = [];
    for (const ingress of ingresses) {
      if (ingress.ip === undefined || ingress.ip === "" || (honorIPMode && ingress.ipMode === "Proxy"))
        continue;
      const ip = canonicalIP(ingress.ip);
      if (ip !== null && familyOf(ip) === family) vips.push(ip);
    }
    loadBalancerVIPs = vips;
  }
  let loadBalancerSourceRanges: readonly string[] = NONE;
  const ranges = spec.loadBalancerSourceRanges;
  if (ranges?.length) {
    const cidrs: string[] = [];
    for (const range of ranges) {
      const cidr = parseCidr(trimGoSpace(range));
      if (cidr !== null && cidr.family === family) cidrs.push(cidr.text);
    }
    loadBalancerSourceRanges = cidrs;
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
  const namespace = service.metadata?.namespace ?? "";
  const name = service.metadata?.name ?? "";
  const internalPolicyLocal = spec.internalTrafficPolicy === "Local";
  const trafficDistribution = spec.trafficDistribution ?? "";
  for (const port of spec.ports ?? NONE) {
    const portName = port.name ?? "";
    const protocol = port.protocol || "TCP";
    out.push({
      namespace,
      name,
      portName,
      protocol: lowerProtocol(protocol),
      clusterIP,
      port: port.port,
      nodePort: port.nodePort ?? 0,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      stickyMaxAgeSeconds,
      externalPolicyLocal,
      internalPolicyLocal,
      healthCheckNodePort,
      trafficDistribution,
      endpoints: endpoints?.of(portName, protocol) ?? NONE,
    });
  }
}
