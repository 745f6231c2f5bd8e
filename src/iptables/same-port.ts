/**
 * Structural equality of service ports: whether a remembered block may stand for a port of a
 * model rebuilt from scratch. Written field by field (no serialization: comparing two ports is
 * a few dozen string comparisons, serializing one costs tens of microseconds), with the field
 * lists checked against the model types at compile time so that a new field cannot be missed.
 *
 * @module
 */
import type { Endpoint, ServicePort } from "../model/types.js";

/** Fields compared with `===`. */
const PORT_VALUES = [
  "namespace",
  "name",
  "portName",
  "protocol",
  "clusterIP",
  "port",
  "nodePort",
  "stickyMaxAgeSeconds",
  "externalPolicyLocal",
  "internalPolicyLocal",
  "healthCheckNodePort",
  "trafficDistribution",
] as const;
/** Fields holding lists of strings. */
const PORT_LISTS = ["externalIPs", "loadBalancerVIPs", "loadBalancerSourceRanges"] as const;
const ENDPOINT_VALUES = [
  "ip",
  "port",
  "endpoint",
  "ready",
  "serving",
  "terminating",
  "isLocal",
  "nodeName",
] as const;
const ENDPOINT_LISTS = ["zoneHints", "nodeHints"] as const;

// Compile-time: every field of the model types is in exactly one list above (a new field makes
// one of these `true` assignments a type error until it is listed).
type Unlisted<T, Listed> = Exclude<keyof T, Listed>;
const portFieldsListed: [
  Unlisted<ServicePort, (typeof PORT_VALUES)[number] | (typeof PORT_LISTS)[number] | "endpoints">,
] extends [never]
  ? true
  : false = true;
const endpointFieldsListed: [
  Unlisted<Endpoint, (typeof ENDPOINT_VALUES)[number] | (typeof ENDPOINT_LISTS)[number]>,
] extends [never]
  ? true
  : false = true;
void portFieldsListed;
void endpointFieldsListed;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The comparisons below are written out (a loop over the key lists reads every field through
// one megamorphic access, several times slower on 100,000 endpoints); the lists above keep them
// complete, and the tests perturb every field of a real port.
function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return (
    a === b ||
    (a.ip === b.ip &&
      a.port === b.port &&
      a.endpoint === b.endpoint &&
      a.ready === b.ready &&
      a.serving === b.serving &&
      a.terminating === b.terminating &&
      a.isLocal === b.isLocal &&
      a.nodeName === b.nodeName &&
      sameList(a.zoneHints, b.zoneHints) &&
      sameList(a.nodeHints, b.nodeHints))
  );
}

/**
 * Whether two service ports hold the same data (and so get the same rules in one generation
 * context).
 *
 * @example
 * samePort(port, { ...port })                        // true
 * samePort(port, { ...port, endpoints: [] })         // false (when port has endpoints)
 */
export function samePort(a: ServicePort, b: ServicePort): boolean {
  if (a === b) return true;
  const sameValues =
    a.namespace === b.namespace &&
    a.name === b.name &&
    a.portName === b.portName &&
    a.protocol === b.protocol &&
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.trafficDistribution === b.trafficDistribution &&
    sameList(a.externalIPs, b.externalIPs) &&
    sameList(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
    sameList(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges);
  if (!sameValues) return false;
  const ea = a.endpoints;
  const eb = b.endpoints;
  if (ea === eb) return true;
  if (ea.length !== eb.length) return false;
  for (let i = 0; i < ea.length; i++) if (!sameEndpoint(ea[i] as Endpoint, eb[i] as Endpoint)) return false;
  return true;
}
