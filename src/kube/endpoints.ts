/**
 * EndpointSlices → the endpoints of each service port (kube-proxy's endpoint slice cache, §1.2 of
 * the spec): first address only, conditions with their defaults, de-duplication across slices
 * (slices read in name order; a later copy replaces an earlier one only if it is local), and the
 * final sort by the `ip:port` string.
 *
 * @module
 */
import { canonicalIP, familyOf, joinHostPort } from "../model/ip.js";
import { scanIPv4 } from "../model/ip-scan.js";
import type { Endpoint, IPFamily } from "../model/types.js";
import { PortEndpoints } from "./port-endpoints.js";
import type { EndpointSlice, EndpointSliceEndpoint } from "./types.js";
import { unwatchedLabel } from "./unwatched-labels.js";

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** `namespace/name` of the Service a slice belongs to, or `null` when kube-proxy ignores it. */
export function sliceServiceKey(slice: EndpointSlice): string | null {
  return isSliceRead(slice)
    ? `${slice.metadata?.namespace}/${slice.metadata?.labels?.[SERVICE_NAME_LABEL]}`
    : null;
}

/**
 * Whether kube-proxy reads a slice: it has a namespace and a Service name label, and none of the
 * labels its informers filter out (`service-proxy-name`, `headless`; see {@link sliceServiceKey}).
 */
export function isSliceRead(slice: EndpointSlice): boolean {
  const labels = slice.metadata?.labels;
  if (unwatchedLabel(labels) !== null) return false;
  const namespace = slice.metadata?.namespace ?? "";
  const service = labels?.[SERVICE_NAME_LABEL] ?? "";
  return namespace !== "" && service !== "";
}

const EMPTY: readonly string[] = [];
const NO_ENDPOINTS: readonly EndpointSliceEndpoint[] = [];

function canonicalOfFamily(text: string, family: IPFamily): string | null {
  // Strict IPv4 is its own canonical form: the common case, without canonicalIP's family test.
  if (family === "IPv4" && scanIPv4(text, 0, text.length) >= 0) return text;
  const ip = canonicalIP(text);
  return ip !== null && familyOf(ip) === family ? ip : null;
}

/** Orders slices as kube-proxy reads them: by name. */
export function bySliceName(a: EndpointSlice, b: EndpointSlice): number {
  return compareText(a.metadata?.name ?? "", b.metadata?.name ?? "");
}

const COLON = 58;
const CLOSE_BRACKET = 93;

/**
 * Orders endpoints as their `ip:port` strings compare, byte-wise. For the same port number
 * (nearly always, within one port's list) it compares the addresses instead: the `ip:port`
 * strings then differ first where the addresses do, or, when one address is a prefix of the
 * other, where the shorter one's `:` (IPv4) or `]` (IPv6, `[ip]:port`) meets the longer one's
 * next character. This leaves the freshly built `ip:port` strings unflattened.
 */
function compareEndpoints(a: Endpoint, b: Endpoint): number {
  if (a.port !== b.port) return compareText(a.endpoint, b.endpoint);
  const x = a.ip;
  const y = b.ip;
  if (x === y) return 0;
  if (x.length < y.length && y.startsWith(x)) return afterHost(x) < y.charCodeAt(x.length) ? -1 : 1;
  if (y.length < x.length && x.startsWith(y)) return x.charCodeAt(y.length) < afterHost(y) ? -1 : 1;
  return x < y ? -1 : 1;
}

/** The character that follows an address in its `ip:port` string. */
function afterHost(ip: string): number {
  return ip.includes(":") ? CLOSE_BRACKET : COLON;
}

/** Whether two endpoints have the same `ip:port` (see {@link compareEndpoints}). */
function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return a.ip === b.ip && (a.port === b.port || a.endpoint === b.endpoint);
}

/** Up to this length, {@link sortByEndpoint} sorts by insertion rather than calling `sort`. */
const INSERTION_SORT_MAX = 32;

/**
 * Sorts stably by the `ip:port` string. Most lists are short (a Service's endpoints in one
 * slice) and often already in order; an insertion sort then costs one comparison per endpoint
 * and none of `Array.prototype.sort`'s set-up, which dominated the 10k-Service build.
 */
function sortByEndpoint(list: Endpoint[]): void {
  if (list.length > INSERTION_SORT_MAX) {
    list.sort(compareEndpoints);
    return;
  }
  for (let i = 1; i < list.length; i++) {
    const ep = list[i] as Endpoint;
    let j = i - 1;
    // Only past greater ones: equal endpoints keep their order (stable, as dedupeSorted needs).
    while (j >= 0 && compareEndpoints(list[j] as Endpoint, ep) > 0) {
      list[j + 1] = list[j] as Endpoint;
      j--;
    }
    list[j + 1] = ep;
  }
}

/**
 * Which copy of an `ip:port` found in several slices of one Service wins (slices read in name
 * order): up to 1.32 a later copy replaces the first only if it is local; master prefers a
 * non-terminating copy.
 */
export type DuplicatePolicy = "prefer-local" | "prefer-non-terminating";

/**
 * The endpoints of every port of one Service, by port name and protocol (`of(name, protocol)`),
 * each list sorted by its `ip:port` string.
 *
 * @param slices the Service's slices, in any order.
 * @param hostname kube-proxy's node name; `""` makes no endpoint local.
 */
export function endpointsByPort(
  slices: readonly EndpointSlice[],
  family: IPFamily,
  hostname: string,
  duplicates: DuplicatePolicy = "prefer-local",
): PortEndpoints {
  // Endpoints are collected in slice order and de-duplicated after the sort (copies are then
  // adjacent, in slice order, the sort being stable): cheaper than a Map per port keyed by
  // freshly built `ip:port` strings.
  const byPort = new PortEndpoints();
  // Nearly every Service has one slice: no copy, no sort.
  const ordered = slices.length < 2 ? slices : [...slices].sort(bySliceName);
  for (let i = 0; i < ordered.length; i++)
    addSliceEndpoints(byPort, ordered[i] as EndpointSlice, family, hostname, false);
  finishEndpoints(byPort, duplicates);
  return byPort;
}

/**
 * Appends the endpoints of one slice (when it is of `family`) to the lists of its ports, in
 * endpoint order (see {@link endpointsByPort}).
 *
 * @param canonical - the validator found no error in the slice and every address written in
 *   canonical form (strict IPv4 always is): they are then used as they are, not scanned again.
 */
export function addSliceEndpoints(
  byPort: PortEndpoints,
  slice: EndpointSlice,
  family: IPFamily,
  hostname: string,
  canonical: boolean,
): void {
  if (slice.addressType !== family) return;
  const endpoints = slice.endpoints ?? NO_ENDPOINTS;
  for (const port of slice.ports ?? []) {
    const number = port.port;
    if (number === undefined || number === null || number === 0) continue;
    // kube-proxy skips a port with a nil name, but the API server defaults the name to "" (as it
    // does the protocol to TCP), so a port written without one is the unnamed port.
    const list = byPort.listOf(port.name ?? "", port.protocol ?? "TCP");
    // Once per port, not per endpoint.
    const suffix = `:${number}`;
    for (const ep of endpoints) {
      const first = ep.addresses?.[0];
      if (first === undefined) continue;
      const ip = canonical ? first : canonicalOfFamily(first, family);
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
        // Always set (undefined when unnamed), so that every endpoint has one shape.
        nodeName: ep.nodeName,
        zoneHints: hints?.forZones?.map((z) => z.name) ?? EMPTY,
        nodeHints: hints?.forNodes?.map((n) => n.name) ?? EMPTY,
      });
    }
  }
}

/** Sorts each port's list by `ip:port` and drops duplicates as `duplicates` says. */
export function finishEndpoints(byPort: PortEndpoints, duplicates: DuplicatePolicy): void {
  for (let i = 0; i < byPort.size; i++) {
    const list = byPort.listAt(i);
    sortByEndpoint(list);
    dedupeSorted(list, duplicates);
  }
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
    if (last !== undefined && sameEndpoint(last, ep)) {
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
