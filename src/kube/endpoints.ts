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
import type { EndpointSlice } from "./types.js";

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
): Map<string, Endpoint[]> {
  const ordered = [...slices].sort((a, b) => compareText(a.metadata.name ?? "", b.metadata.name ?? ""));
  const byPort = new Map<string, Map<string, Endpoint>>();
  for (const slice of ordered) {
    if (slice.addressType !== family) continue;
    for (const port of slice.ports ?? []) {
      if (port.name === undefined || port.name === null) continue;
      if (port.port === undefined || port.port === null || port.port === 0) continue;
      const key = portKey(port.name, port.protocol ?? "TCP");
      let seen = byPort.get(key);
      if (seen === undefined) {
        seen = new Map();
        byPort.set(key, seen);
      }
      for (const ep of slice.endpoints ?? []) {
        const first = ep.addresses?.[0];
        if (first === undefined) continue;
        const ip = canonicalIP(first);
        if (ip === null || familyOf(ip) !== family) continue;
        const endpoint = joinHostPort(ip, port.port);
        const isLocal = hostname !== "" && ep.nodeName === hostname;
        if (seen.has(endpoint) && !isLocal) continue;
        const c = ep.conditions;
        seen.set(endpoint, {
          ip,
          port: port.port,
          endpoint,
          ready: c?.ready ?? true,
          serving: c?.serving ?? true,
          terminating: c?.terminating ?? false,
          isLocal,
          zoneHints: ep.hints?.forZones?.map((z) => z.name) ?? EMPTY,
          nodeHints: ep.hints?.forNodes?.map((n) => n.name) ?? EMPTY,
        });
      }
    }
  }
  const out = new Map<string, Endpoint[]>();
  for (const [key, seen] of byPort) {
    out.set(
      key,
      [...seen.values()].sort((a, b) => compareText(a.endpoint, b.endpoint)),
    );
  }
  return out;
}

/** Byte-wise comparison of ASCII text (never `localeCompare`). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
