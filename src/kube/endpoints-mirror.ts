/**
 * v1 `Endpoints` → the EndpointSlices the control plane makes of them, as the
 * EndpointSliceMirroring controller does (kubernetes `pkg/controller/endpointslicemirroring`):
 *
 * - ready `addresses` become endpoints with `conditions.ready: true`, `notReadyAddresses` with
 *   `ready: false` (no other condition is set); `nodeName`, `hostname` and `targetRef` are kept;
 * - an address is re-read as Go's lenient parser reads it and written canonically; an IPv4-mapped
 *   IPv6 address is IPv4; the family decides the slice's `addressType`;
 * - subsets with the same ports (in any order) and family share one slice; a port's protocol
 *   defaults to TCP and its name to `""` (the API server's defaults for Endpoints);
 * - at most 1000 addresses of a subset are mirrored (ready ones first), and a slice holds at
 *   most 1000 endpoints;
 * - the slice carries the Endpoints' labels and annotations (without
 *   `kubectl.kubernetes.io/last-applied-configuration` and
 *   `endpoints.kubernetes.io/last-change-trigger-time`), and the labels
 *   `kubernetes.io/service-name` (the Endpoints' name) and
 *   `endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io`.
 *
 * Unlike the controller, Endpoints are mirrored whatever their Service's selector and their
 * `endpointslice.kubernetes.io/skip-mirror` label say: for a Service with a selector the
 * EndpointSlice controller makes the same endpoints from the Pods, and a user who gives Endpoints
 * and no slices means those endpoints. When slices of the same Service are given too, those win
 * (see {@link preferGivenSlices}). Endpoints that hold a leader-election record (an annotation
 * `control-plane.alpha.kubernetes.io/leader`) are locks, not endpoints: the controller skips them,
 * and so does this.
 *
 * Values are not checked here: they are carried into the slices as written, and the slice
 * validator reports them at the Endpoints' own paths (see {@link MirrorPaths}).
 *
 * @module
 */
import { type Problem, warning } from "../errors.js";
import { canonicalIP } from "../model/ip.js";
import { isMapped, scanIPv6 } from "../model/ip-scan.js";
import type { EndpointSlice } from "./types.js";
import { firstNames, isObject, type JsonObject } from "./validate-report.js";

/** The controller's name, as its slices' `endpointslice.kubernetes.io/managed-by` label says. */
export const MIRRORING_CONTROLLER = "endpointslicemirroring-controller.k8s.io";
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
/** The controller's default `--mirroring-max-endpoints-per-subset`. */
const MAX_PER_SUBSET = 1000;
/** Annotations the controller does not copy. */
const UNCOPIED_ANNOTATIONS: ReadonlySet<string> = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  "endpoints.kubernetes.io/last-change-trigger-time",
]);
const LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";

/**
 * Where the parts of a mirrored slice are in its Endpoints, as path suffixes (`.subsets[0].ports`),
 * so that a problem found on the slice names what the user wrote.
 *
 * @example
 * mirrorEndpoints(endpointsObject).slices[0]?.paths.ports // ".subsets[0].ports"
 */
export interface MirrorPaths {
  /** `endpoints[k]` of the slice is this address: `.subsets[0].notReadyAddresses[3]`. */
  readonly endpoints: readonly string[];
  /** The slice's `endpoints` as a whole (`.subsets`, or a subset's `.addresses` that is not a list). */
  readonly endpointList: string;
  /** The slice's `ports`: `.subsets[0].ports`. */
  readonly ports: string;
}

/**
 * A slice made from Endpoints, with where its parts came from.
 *
 * @example
 * const { slices } = mirrorEndpoints(endpointsObject);
 * slices[0]?.slice.addressType   // "IPv4"
 * slices[0]?.paths.endpoints[0]  // ".subsets[0].addresses[0]"
 */
export interface MirroredSlice {
  /** The EndpointSlice, as the mirroring controller would write it. */
  readonly slice: EndpointSlice;
  /** Where its endpoints and ports are in the Endpoints object. */
  readonly paths: MirrorPaths;
}

/**
 * What {@link mirrorEndpoints} made of one Endpoints object.
 *
 * @example
 * const result: MirrorResult = mirrorEndpoints(endpointsObject);
 * result.slices.length // one per subset and family
 * result.problems      // warnings, e.g. addresses past the mirroring controller's limit
 */
export interface MirrorResult {
  /** The slices, in the order their subsets and families first appear. */
  readonly slices: readonly MirroredSlice[];
  /** Warnings (addresses past the controller's limit), at paths below the Endpoints' (`.subsets[0]`). */
  readonly problems: readonly Problem[];
}

/** A slice being filled: its key, ports and endpoints with their paths. */
interface Group {
  readonly addressType: "IPv4" | "IPv6";
  readonly ports: unknown;
  readonly portsPath: string;
  readonly endpoints: unknown[];
  readonly paths: string[];
  /** Index in `endpoints` of each endpoint's identity (address, hostname, targetRef). */
  readonly byIdentity: Map<string, number>;
}

const groups6 = new Uint16Array(8);

/**
 * An Endpoints address as the controller writes it into a slice: parsed leniently (leading
 * zeros), printed canonically, IPv4-mapped IPv6 as IPv4; `null` when Go's parser refuses it
 * (zone indexes included).
 *
 * @example
 * mirroredAddress("10.0.0.010")        // "10.0.0.10"
 * mirroredAddress("::ffff:192.0.2.1")  // "192.0.2.1"
 * mirroredAddress("fe80::1%eth0")      // null
 */
export function mirroredAddress(text: string): string | null {
  if (text.includes("%")) return null;
  const canonical = canonicalIP(text);
  if (canonical === null || !canonical.includes(":")) return canonical;
  if (!scanIPv6(canonical, groups6) || !isMapped(groups6)) return canonical;
  const [hi, lo] = [groups6[6] as number, groups6[7] as number];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The slice's `ports`: each port with the API server's defaults; anything else as written. */
function mirroredPorts(ports: unknown): unknown {
  if (!Array.isArray(ports)) return ports;
  return ports.map((port: unknown) => {
    if (!isObject(port)) return port;
    const { name, port: number, protocol, appProtocol } = port;
    return {
      name: name === undefined || name === null ? "" : name,
      port: number,
      // SetDefaults_Endpoints: an absent or empty protocol is TCP (a plain string in v1).
      protocol: protocol === undefined || protocol === null || protocol === "" ? "TCP" : protocol,
      ...(appProtocol === undefined || appProtocol === null ? {} : { appProtocol }),
    };
  });
}

/** A key for a set of ports that does not depend on their order (the controller hashes them sorted). */
function portsKey(ports: unknown): string {
  if (!Array.isArray(ports)) return JSON.stringify(ports) ?? "";
  return JSON.stringify(ports.map((p) => JSON.stringify(p)).sort());
}

/** The slice endpoint of one address; `undefined` for the family when the address is not an IP. */
function mirroredEndpoint(
  address: JsonObject,
  ready: boolean,
): { endpoint: JsonObject; family: "IPv4" | "IPv6" | undefined; identity: string } {
  const ip = address.ip;
  const parsed = typeof ip === "string" ? mirroredAddress(ip) : null;
  const { hostname, nodeName, targetRef } = address;
  const endpoint: Record<string, unknown> = { addresses: [parsed ?? ip], conditions: { ready } };
  if (nodeName !== undefined && nodeName !== null) endpoint.nodeName = nodeName;
  if (hostname !== undefined && hostname !== null && hostname !== "") endpoint.hostname = hostname;
  if (targetRef !== undefined && targetRef !== null) endpoint.targetRef = targetRef;
  // The controller's endpoint set tells endpoints apart by address, hostname and target.
  const ref = isObject(targetRef) ? [targetRef.namespace, targetRef.name] : [];
  const identity = JSON.stringify([parsed ?? ip, hostname ?? "", ...ref]);
  return { endpoint, family: parsed === null ? undefined : parsed.includes(":") ? "IPv6" : "IPv4", identity };
}

/** The slice's metadata: the Endpoints' with the controller's two labels. */
function mirroredMetadata(meta: unknown, name: string): unknown {
  if (!isObject(meta)) return meta;
  const labels = meta.labels === undefined || meta.labels === null ? {} : meta.labels;
  const annotations = meta.annotations;
  return {
    name,
    namespace: meta.namespace,
    labels: isObject(labels)
      ? { ...labels, [SERVICE_NAME_LABEL]: meta.name, [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER }
      : labels,
    ...(annotations === undefined || annotations === null
      ? {}
      : {
          annotations: isObject(annotations)
            ? Object.fromEntries(Object.entries(annotations).filter(([k]) => !UNCOPIED_ANNOTATIONS.has(k)))
            : annotations,
        }),
  };
}

/**
 * The name of the `index`th slice of Endpoints `name`: the controller's prefix (`name-`), then a
 * number where the API server would put random characters, within the 253 characters of a name.
 */
function sliceName(name: unknown, index: number): unknown {
  if (typeof name !== "string") return name;
  const suffix = `mirror-${index}`;
  return `${name}-`.slice(0, 253 - suffix.length) + suffix;
}

/** Whether an Endpoints object is a leader-election lock, which the controller does not mirror. */
function isLeaderLock(endpoints: JsonObject): boolean {
  const meta = endpoints.metadata;
  return isObject(meta) && isObject(meta.annotations) && meta.annotations[LEADER_ANNOTATION] !== undefined;
}

/**
 * Makes the EndpointSlices of one v1 Endpoints object (see the module's description). Never
 * throws; a part that is not of the right JSON type is carried into a slice of its own, where
 * the slice validator reports it at the Endpoints' path.
 *
 * @param endpoints - the Endpoints object, its namespace already defaulted
 * @example
 * mirrorEndpoints({ metadata: { name: "db", namespace: "default" }, subsets: [{
 *   addresses: [{ ip: "10.0.0.5" }], notReadyAddresses: [{ ip: "10.0.0.6" }],
 *   ports: [{ port: 5432 }] }] }).slices[0]?.slice.endpoints
 * // [{ addresses: ["10.0.0.5"], conditions: { ready: true } },
 * //  { addresses: ["10.0.0.6"], conditions: { ready: false } }]
 */
export function mirrorEndpoints(endpoints: JsonObject): MirrorResult {
  if (isLeaderLock(endpoints)) return { slices: [], problems: [] };
  const meta = endpoints.metadata;
  const name = isObject(meta) ? meta.name : undefined;
  const groups = new Map<string, Group>();
  /** Slices that carry a part of the wrong JSON type, for the validator to report. */
  const broken: { endpoints: unknown; paths: MirrorPaths }[] = [];
  const problems: Problem[] = [];
  const subsets = endpoints.subsets;
  if (Array.isArray(subsets)) {
    subsets.forEach((subset: unknown, s) => {
      const at = `.subsets[${s}]`;
      if (!isObject(subset)) {
        broken.push({ endpoints: [subset], paths: { endpoints: [at], endpointList: ".subsets", ports: "" } });
        return;
      }
      const ports = mirroredPorts(subset.ports);
      const key = portsKey(ports);
      let added = 0;
      let skipped = 0;
      for (const [list, ready] of [
        ["addresses", true],
        ["notReadyAddresses", false],
      ] as const) {
        const addresses = subset[list];
        if (addresses === undefined || addresses === null) continue;
        if (!Array.isArray(addresses)) {
          broken.push({
            endpoints: addresses,
            paths: { endpoints: [], endpointList: `${at}.${list}`, ports: "" },
          });
          continue;
        }
        addresses.forEach((address: unknown, j) => {
          const path = `${at}.${list}[${j}]`;
          if (!isObject(address)) {
            addTo(groups, "IPv4", key, ports, `${at}.ports`, address, path, undefined);
            return;
          }
          const found = mirroredEndpoint(address, ready);
          // The controller leaves out addresses that are not IPs without counting them; the
          // API server would have refused the object, so the slice validator names them.
          if (found.family !== undefined && added >= MAX_PER_SUBSET) {
            skipped++;
            return;
          }
          if (found.family !== undefined) added++;
          addTo(
            groups,
            found.family ?? "IPv4",
            key,
            ports,
            `${at}.ports`,
            found.endpoint,
            path,
            found.identity,
          );
        });
      }
      if (skipped > 0)
        problems.push(
          warning(
            "SKIPPED",
            at,
            `has ${added + skipped} addresses; the EndpointSliceMirroring controller mirrors at most ${MAX_PER_SUBSET} of a subset: ${skipped} left out`,
          ),
        );
    });
  } else if (subsets !== undefined && subsets !== null) {
    broken.push({ endpoints: subsets, paths: { endpoints: [], endpointList: ".subsets", ports: "" } });
  }
  const slices: MirroredSlice[] = [];
  const make = (addressType: string, ports: unknown, list: unknown, paths: MirrorPaths): void => {
    const slice = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: mirroredMetadata(meta, sliceName(name, slices.length) as string),
      addressType,
      endpoints: list,
      ports,
    };
    slices.push({ slice: slice as unknown as EndpointSlice, paths });
  };
  for (const group of groups.values()) {
    // A slice holds at most 1000 endpoints: subsets with the same ports past that are cut.
    if (group.endpoints.length > MAX_PER_SUBSET) {
      problems.push(
        warning(
          "SKIPPED",
          "",
          `${group.endpoints.length} ${group.addressType} addresses share one set of ports; the EndpointSliceMirroring controller mirrors at most ${MAX_PER_SUBSET} of them: ${group.endpoints.length - MAX_PER_SUBSET} left out`,
        ),
      );
    }
    make(group.addressType, group.ports, group.endpoints.slice(0, MAX_PER_SUBSET), {
      endpoints: group.paths,
      endpointList: ".subsets",
      ports: group.portsPath,
    });
  }
  for (const part of broken) make("IPv4", [], part.endpoints, part.paths);
  return { slices, problems };
}

/** Adds one endpoint to the slice of its family and ports; a later duplicate replaces the first. */
function addTo(
  groups: Map<string, Group>,
  addressType: "IPv4" | "IPv6",
  key: string,
  ports: unknown,
  portsPath: string,
  endpoint: unknown,
  path: string,
  identity: string | undefined,
): void {
  const groupKey = `${addressType} ${key}`;
  let group = groups.get(groupKey);
  if (group === undefined) {
    group = { addressType, ports, portsPath, endpoints: [], paths: [], byIdentity: new Map() };
    groups.set(groupKey, group);
  }
  const seen = identity === undefined ? undefined : group.byIdentity.get(identity);
  if (seen !== undefined) {
    group.endpoints[seen] = endpoint;
    group.paths[seen] = path;
    return;
  }
  if (identity !== undefined) group.byIdentity.set(identity, group.endpoints.length);
  group.endpoints.push(endpoint);
  group.paths.push(path);
}

const ENDPOINT_ADDRESS = /^\.endpoints\[(\d+)\]\.addresses(?:\[\d+\])?/;
const ENDPOINT = /^\.endpoints\[(\d+)\]/;

/**
 * The path in the Endpoints of a path found in a slice made from it (both as suffixes after the
 * object's own path).
 *
 * @example
 * mirrorPath(".endpoints[1].addresses[0]", { endpoints: [".subsets[0].addresses[0]",
 *   ".subsets[0].notReadyAddresses[0]"], endpointList: ".subsets", ports: ".subsets[0].ports" })
 * // ".subsets[0].notReadyAddresses[0].ip"
 */
export function mirrorPath(rest: string, paths: MirrorPaths): string {
  let m = ENDPOINT_ADDRESS.exec(rest);
  if (m !== null) {
    const to = paths.endpoints[Number(m[1])];
    if (to !== undefined) return `${to}.ip${rest.slice(m[0].length)}`;
  }
  m = ENDPOINT.exec(rest);
  if (m !== null) {
    const to = paths.endpoints[Number(m[1])];
    if (to !== undefined) return to + rest.slice(m[0].length);
  }
  if (rest === ".endpoints" || rest.startsWith(".endpoints.") || rest.startsWith(".endpoints["))
    return paths.endpointList + rest.slice(".endpoints".length);
  if (rest === ".ports" || rest.startsWith(".ports.") || rest.startsWith(".ports["))
    return paths.ports + rest.slice(".ports".length);
  const label = `.metadata.labels[${JSON.stringify(SERVICE_NAME_LABEL)}]`;
  if (rest.startsWith(label)) return `.metadata.name${rest.slice(label.length)}`;
  return rest;
}

/** The namespace and Service a slice names (as written), or undefined. */
function serviceOf(slice: unknown): string | undefined {
  const meta = isObject(slice) ? slice.metadata : undefined;
  if (!isObject(meta) || !isObject(meta.labels)) return undefined;
  const service = meta.labels[SERVICE_NAME_LABEL];
  return typeof meta.namespace === "string" && typeof service === "string"
    ? `${meta.namespace}/${service}`
    : undefined;
}

/** Which slices {@link preferGivenSlices} keeps, and a note per Endpoints whose slices it left out. */
export interface PreferResult {
  /** `keep[i]` says whether slice `i` stays. */
  readonly keep: readonly boolean[];
  /** Indexes of the mirrored slices left out, one per Endpoints object (its first slice). */
  readonly dropped: readonly number[];
}

/**
 * When EndpointSlices of a Service are given as well as its Endpoints, the given slices are what
 * kube-proxy reads: the slices mirrored from the Endpoints are left out.
 *
 * @param slices - every slice, given and mirrored
 * @param mirrored - `mirrored[i]` is true for a slice made from Endpoints
 * @example
 * preferGivenSlices([given, fromEndpoints], [false, true]) // { keep: [true, false], dropped: [1] }
 */
export function preferGivenSlices(slices: readonly unknown[], mirrored: readonly boolean[]): PreferResult {
  const given = new Set<string>();
  slices.forEach((slice, i) => {
    const service = mirrored[i] === true ? undefined : serviceOf(slice);
    if (service !== undefined) given.add(service);
  });
  const keep = slices.map(() => true);
  const dropped: number[] = [];
  const noted = new Set<string>();
  if (given.size === 0) return { keep, dropped };
  slices.forEach((slice, i) => {
    if (mirrored[i] !== true) return;
    const service = serviceOf(slice);
    if (service === undefined || !given.has(service)) return;
    keep[i] = false;
    if (!noted.has(service)) dropped.push(i);
    noted.add(service);
  });
  return { keep, dropped };
}

/**
 * The note for Endpoints whose mirrored slices were left out for the given ones.
 *
 * @example
 * givenSlicesNote("items[4]", "default/web").message
 * // "Endpoints default/web: EndpointSlices of this Service are given too, and are read instead"
 */
export function givenSlicesNote(path: string, service: string): Problem {
  return warning(
    "SKIPPED",
    path,
    `Endpoints ${service}: EndpointSlices of this Service are given too, and are read instead`,
  );
}

/**
 * The notes for Endpoints left out for given slices: {@link givenSlicesNote} for one Service;
 * for several, one note naming how many (a cluster's `kubectl get svc,ep,endpointslices` has
 * both for every Service, and would get a line each).
 *
 * @param dropped - each Endpoints left out: its path and its Service (`namespace/name`)
 * @example
 * givenSlicesNotes([{ path: "items[1]", service: "a/x" }, { path: "items[4]", service: "a/y" }])[0]?.message
 * // "EndpointSlices are given as well as Endpoints for 2 Services (a/x, a/y): the slices are read, as kube-proxy reads them"
 */
export function givenSlicesNotes(dropped: readonly { path: string; service: string }[]): Problem[] {
  if (dropped.length <= 1) return dropped.map((d) => givenSlicesNote(d.path, d.service));
  const names = dropped.map((d) => d.service);
  return [
    warning(
      "SKIPPED",
      "",
      `EndpointSlices are given as well as Endpoints for ${names.length} Services (${firstNames(names)}): the slices are read, as kube-proxy reads them`,
    ),
  ];
}

/** The `namespace/name` of the Service a slice belongs to, as written (for notes). */
export function sliceServiceName(slice: unknown): string {
  return serviceOf(slice) ?? "";
}
