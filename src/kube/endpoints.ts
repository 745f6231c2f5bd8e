/**
 * EndpointSlices → the endpoints of each service port (kube-proxy's endpoint slice cache, §1.2 of
 * the spec): first address only, conditions with their defaults, de-duplication across slices
 * (slices read in name order; a later copy replaces an earlier one only if it is local), and the
 * final sort by the `ip:port` string.
 *
 * @module
 */
import { canonicalIP, familyOf, joinHostPort } from "../model/ip.js";
import type { Endpoint, IPFamily } from "../model/types.js";
import type { EndpointSlice, EndpointSliceEndpoint } from "./types.js";

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** `namespace/name` of the Service a slice belongs to, or `null` when kube-proxy ignores it. */
export function sliceServiceKey(slice: EndpointSlice): string | null {
  const namespace = slice.metadata.namespace ?? "";
  const service = slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? "";
  const labels = slice.metadata.labels;
  if (labels !== undefined && "service.kubernetes.io/service-proxy-name" in labels) return null;
  if (namespace === "" || service === "") return null;
  return `${namespace}/${service}`;
}

/** Key of a service port among its Service's ports: port name and upper-case protocol. */
export function portKey(portName: string, protocol: string): string {
  return `${portName}\u0000${protocol.toUpperCase()}`;
}

const EMPTY: readonly string[] = [];
const NO_ENDPOINTS: readonly EndpointSliceEndpoint[] = [];

/**
 * Whether `text` is IPv4 exactly as Go prints it (four decimal parts of 0-255, no leading zeros),
 * so that it is its own canonical form. Checked by hand because nearly every endpoint address is
 * such text, and the general `canonicalIP` (a regex, ipaddr.js and a cache lookup) was a fifth
 * of model building on the 10k bench model.
 */
function isCanonicalIPv4(text: string): boolean {
  const n = text.length;
  if (n < 7 || n > 15) return false;
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= n; i++) {
    const c = i === n ? 46 : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || value > 255) return false;
      parts++;
      value = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && value === 0) return false; // leading zero
      value = value * 10 + (c - 48);
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return parts === 4;
}

function canonicalOfFamily(text: string, family: IPFamily): string | null {
  if (family === "IPv4" && isCanonicalIPv4(text)) return text;
  const ip = canonicalIP(text);
  return ip !== null && familyOf(ip) === family ? ip : null;
}

function byName(a: EndpointSlice, b: EndpointSlice): number {
  return compareText(a.metadata.name ?? "", b.metadata.name ?? "");
}

function byEndpoint(a: Endpoint, b: Endpoint): number {
  return compareText(a.endpoint, b.endpoint);
}

/**
 * Which copy of an `ip:port` found in several slices of one Service wins (slices read in name
 * order): up to 1.32 a later copy replaces the first only if it is local; master prefers a
 * non-terminating copy.
 */
export type DuplicatePolicy = "prefer-local" | "prefer-non-terminating";

/**
 * The endpoints of every port of one Service, keyed by {@link portKey}, each list sorted by its
 * `ip:port` string.
 *
 * @param slices the Service's slices, in any order.
 * @param hostname kube-proxy's node name; `""` makes no endpoint local.
 */
export function endpointsByPort(
  slices: readonly EndpointSlice[],
  family: IPFamily,
  hostname: string,
  duplicates: DuplicatePolicy = "prefer-local",
): Map<string, Endpoint[]> {
  // Nearly every Service has one slice: no copy, no sort.
  const ordered = slices.length < 2 ? slices : [...slices].sort(byName);
  // Endpoints are collected in slice order and de-duplicated after the sort (copies are then
  // adjacent, in slice order, the sort being stable): cheaper than a Map per port keyed by
  // freshly built `ip:port` strings.
  const byPort = new Map<string, Endpoint[]>();
  for (const slice of ordered) {
    if (slice.addressType !== family) continue;
    const endpoints = slice.endpoints ?? NO_ENDPOINTS;
    for (const port of slice.ports ?? []) {
      if (port.name === undefined || port.name === null) continue;
      const number = port.port;
      if (number === undefined || number === null || number === 0) continue;
      const key = portKey(port.name, port.protocol ?? "TCP");
      let list = byPort.get(key);
      if (list === undefined) {
        list = [];
        byPort.set(key, list);
      }
      // Once per port, not per endpoint.
      const suffix = `:${number}`;
      for (const ep of endpoints) {
        const first = ep.addresses?.[0];
        if (first === undefined) continue;
        const ip = canonicalOfFamily(first, family);
        if (ip === null) continue;
        const c = ep.conditions;
        const hints = ep.hints;
        list.push({
          ip,
          port: number,
          endpoint: family === "IPv4" ? ip + suffix : joinHostPort(ip, number),
          ready: c?.ready ?? true,
          serving: c?.serving ?? true,
          terminating: c?.terminating ?? false,
          isLocal: hostname !== "" && ep.nodeName === hostname,
          zoneHints: hints?.forZones?.map((z) => z.name) ?? EMPTY,
          nodeHints: hints?.forNodes?.map((n) => n.name) ?? EMPTY,
        });
      }
    }
  }
  for (const list of byPort.values()) dedupeSorted(list.sort(byEndpoint), duplicates);
  return byPort;
}

/**
 * Drops repeated `ip:port`s from a list sorted stably by it: the first copy (in slice order)
 * stays, and a later copy replaces it as {@link DuplicatePolicy} says (kube-proxy's endpoint
 * slice cache).
 */
function dedupeSorted(list: Endpoint[], duplicates: DuplicatePolicy): void {
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const ep = list[i] as Endpoint;
    const last = kept === 0 ? undefined : list[kept - 1];
    if (last !== undefined && last.endpoint === ep.endpoint) {
      const replace = duplicates === "prefer-local" ? ep.isLocal : last.terminating && !ep.terminating;
      if (replace) list[kept - 1] = ep;
      continue;
    }
    list[kept++] = ep;
  }
  list.length = kept;
}

/** Byte-wise comparison of ASCII text (never `localeCompare`). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
