/**
 * Reading a Kubernetes `List` as `kubectl get svc,endpointslices -A -o json` prints it (or a
 * typed `ServiceList` / `EndpointSliceList` from the API): sorting its items into Services and
 * EndpointSlices while remembering where each came from, so that problems found later can name
 * the item's own path (`items[3].spec.ports[0].port`).
 *
 * @module
 */
import type { Problem } from "../errors.js";
import { OBJECT_PATH_HEAD, OBJECT_REF } from "./patterns.js";
import type { EndpointSlice, Service } from "./types.js";
import { type ValidateOptions, validateClusterInput } from "./validate.js";
import { describe, isObject, type JsonObject, Report, show } from "./validate-report.js";

/** The kinds this library reads, with the only apiVersion it reads each in. */
const KINDS: Readonly<Record<string, string>> = { Service: "v1", EndpointSlice: "discovery.k8s.io/v1" };
/** List kinds, with the kind of their items when the items carry none. */
const LIST_KINDS: Readonly<Record<string, ItemKind | undefined>> = {
  List: undefined,
  ServiceList: "Service",
  EndpointSliceList: "EndpointSlice",
};

/**
 * A kind of object this library reads.
 *
 * @example
 * const kind: ItemKind = "EndpointSlice"; // the kind of the items of an EndpointSliceList
 */
export type ItemKind = "Service" | "EndpointSlice";

/**
 * A List split into the two kinds of objects, each with the path it had in the List.
 *
 * @example
 * const { services, endpointSlices, problems } = splitKubernetesList(JSON.parse(kubectlOutput));
 * // problems name what is not a v1 Service or discovery.k8s.io/v1 EndpointSlice, e.g. items[4]
 */
export interface SplitList {
  /**
   * The Service items, in List order: of the right kind, not yet validated (`prepareCluster`
   * and `modelFromKubernetes` validate them).
   */
  readonly services: readonly Service[];
  /** The EndpointSlice items, in List order (of the right kind, not yet validated). */
  readonly endpointSlices: readonly EndpointSlice[];
  /** `servicePaths[i]` is where `services[i]` was: `items[4]`. */
  readonly servicePaths: readonly string[];
  /** `endpointSlicePaths[i]` is where `endpointSlices[i]` was. */
  readonly endpointSlicePaths: readonly string[];
  /** Problems with the List itself and with item kinds (items with problems are left out). */
  readonly problems: readonly Problem[];
}

/**
 * Checks the kind of every item of a List: `Service` (apiVersion `v1`) and `EndpointSlice`
 * (apiVersion `discovery.k8s.io/v1`) are read; any other kind is an `UNKNOWN_KIND` error at the
 * item's path. A missing apiVersion is accepted; a missing kind is too when `defaultKind` is
 * given (the items of a typed `ServiceList` carry none).
 *
 * @param items - the List's `items`
 * @param defaultKind - the kind of items without one
 * @returns the problems, one per bad item
 * @example
 * validateObjectKinds([{ kind: "Service" }, { kind: "Pod" }])
 * // [{ code: "UNKNOWN_KIND", path: "items[1]", severity: "error",
 * //    message: 'kind "Pod" is not read here (only Service and EndpointSlice)' }]
 */
export function validateObjectKinds(items: readonly unknown[], defaultKind?: ItemKind): Problem[] {
  const r = new Report();
  r.enter("items");
  for (let i = 0; i < items.length; i++) {
    r.enter(i);
    kindOf(r, items[i], defaultKind);
    r.leave();
  }
  r.leave();
  return r.problems;
}

/** Where the objects found so far go, with the path each had in the input. */
interface Collector {
  readonly services: Service[];
  readonly endpointSlices: EndpointSlice[];
  readonly servicePaths: string[];
  readonly endpointSlicePaths: string[];
}

/**
 * The kind of the object at the report's current path when it is one this library reads;
 * reports it otherwise. `defaultKind` is the kind of an object that names none.
 */
function kindOf(r: Report, item: unknown, defaultKind: ItemKind | undefined): ItemKind | undefined {
  if (!isObject(item)) {
    r.error("TYPE", undefined, `expected a Kubernetes object, got ${describe(item)}`);
    return undefined;
  }
  const kind = item.kind ?? defaultKind;
  if (kind === undefined || kind === null) {
    r.error("REQUIRED", "kind", "is required to tell a Service from an EndpointSlice");
    return undefined;
  }
  const version = typeof kind === "string" && Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  if (version === undefined) {
    r.error(
      "UNKNOWN_KIND",
      undefined,
      `kind ${show(kind)} is not read here (only Service and EndpointSlice)`,
    );
    return undefined;
  }
  const apiVersion = item.apiVersion;
  if (apiVersion !== undefined && apiVersion !== version) {
    r.error(
      "UNKNOWN_KIND",
      undefined,
      `${String(kind)} of apiVersion ${show(apiVersion)} is not read here (only ${version})`,
    );
    return undefined;
  }
  return kind as ItemKind;
}

/**
 * Whether `kind` names an object this library reads: a Service, an EndpointSlice, or a List of
 * them (a text reader tells Kubernetes objects from a cluster file by it).
 *
 * @example
 * isKubernetesKind("ServiceList") // true
 * isKubernetesKind("Pod")         // false
 */
export function isKubernetesKind(kind: unknown): boolean {
  return typeof kind === "string" && (Object.hasOwn(KINDS, kind) || Object.hasOwn(LIST_KINDS, kind));
}

/** Whether `value` is a List, a ServiceList or an EndpointSliceList (by its kind). */
export function isListObject(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.kind === "string" && Object.hasOwn(LIST_KINDS, value.kind);
}

/**
 * Sorts the object at the report's current path into `out`: a Service or an EndpointSlice is
 * kept with that path, a nested List is read item by item, anything else is reported.
 */
function collectObject(r: Report, item: unknown, defaultKind: ItemKind | undefined, out: Collector): void {
  if (isListObject(item)) {
    collectItems(r, item, out);
    return;
  }
  const kind = kindOf(r, item, defaultKind);
  if (kind === "Service") {
    out.services.push(item as unknown as Service);
    out.servicePaths.push(r.path());
  } else if (kind === "EndpointSlice") {
    out.endpointSlices.push(item as unknown as EndpointSlice);
    out.endpointSlicePaths.push(r.path());
  }
}

/** Reads the `items` of a List object (whose kind is a list kind) at the report's current path. */
function collectItems(r: Report, list: JsonObject, out: Collector): void {
  const items = list.items;
  if (!Array.isArray(items)) {
    if (items === undefined || items === null) r.error("REQUIRED", "items", "is required");
    else r.error("TYPE", "items", `expected an array, got ${describe(items)}`);
    return;
  }
  collectEach(r, "items", items, LIST_KINDS[list.kind as string], out);
}

/** Collects each of `objects`, found at `key[i]` below the report's current path. */
function collectEach(
  r: Report,
  key: string,
  objects: readonly unknown[],
  defaultKind: ItemKind | undefined,
  out: Collector,
): void {
  r.enter(key);
  for (let i = 0; i < objects.length; i++) {
    r.enter(i);
    collectObject(r, objects[i], defaultKind, out);
    r.leave();
  }
  r.leave();
}

function emptySplit(r: Report): SplitList & Collector {
  return { services: [], endpointSlices: [], servicePaths: [], endpointSlicePaths: [], problems: r.problems };
}

/**
 * Splits a Kubernetes `List` (or a `ServiceList` / `EndpointSliceList`) into Services and
 * EndpointSlices, keeping each object's original path. Never throws; items of other kinds are
 * reported (see {@link validateObjectKinds}) and left out. A List inside the List is read too.
 *
 * @param list - the parsed `kubectl ... -o json` (or `-o yaml`) output
 * @returns the two arrays, the paths they came from, and the problems
 * @example
 * const split = splitKubernetesList({ apiVersion: "v1", kind: "List", items: [
 *   { kind: "EndpointSlice", metadata: {} }, { kind: "Service", metadata: {} }] });
 * split.servicePaths       // ["items[1]"]
 * split.endpointSlicePaths // ["items[0]"]
 */
export function splitKubernetesList(list: unknown): SplitList {
  const r = new Report();
  const out = emptySplit(r);
  if (!isObject(list)) {
    r.error("TYPE", undefined, `expected a Kubernetes List, got ${describe(list)}`);
    return out;
  }
  const kind = list.kind ?? "List";
  if (typeof kind !== "string" || !Object.hasOwn(LIST_KINDS, kind)) {
    r.error(
      "UNKNOWN_KIND",
      "kind",
      `${show(kind)} is not a list kind (List, ServiceList or EndpointSliceList)`,
    );
    return out;
  }
  collectItems(r, { ...list, kind }, out);
  return out;
}

/**
 * Splits the documents of a YAML stream (or one document) into Services and EndpointSlices.
 * Each document is a Service, an EndpointSlice or a List of them; a single document's paths
 * start at its root (`spec.ports[0]`), several documents' at `documents[i]`.
 *
 * @example
 * splitKubernetesDocuments([{ kind: "Service", metadata: {} }, { kind: "List", items: [] }]).servicePaths
 * // ["documents[0]"]
 */
export function splitKubernetesDocuments(documents: readonly unknown[]): SplitList {
  const r = new Report();
  const out = emptySplit(r);
  if (documents.length === 1) {
    collectObject(r, documents[0], undefined, out);
    return out;
  }
  collectEach(r, "documents", documents, undefined, out);
  return out;
}

/**
 * Where each Service and EndpointSlice of a cluster input came from: `items[3]`, `documents[1]`, or `""` for a lone object.
 *
 * @example
 * const read = readClusterJson(kubectlOutput); // `kubectl get svc,endpointslices -A -o json`
 * read?.origins.services[0] // "items[0]": problems of services[0] are reported there
 */
export interface ObjectOrigins {
  /** The origin of each Service, by its index in `services`. */
  readonly services: readonly string[];
  /** The origin of each EndpointSlice, by its index in `endpointSlices`. */
  readonly endpointSlices: readonly string[];
  /**
   * The file (or other source) each object came from, when the input was put together from
   * several (see `mergeClusterReads`): problems then carry it as their `source`.
   */
  readonly sources?: {
    /** The source of each Service. */
    readonly services: readonly string[];
    /** The source of each EndpointSlice. */
    readonly endpointSlices: readonly string[];
  };
}

/**
 * Rewrites problems found in `{services, endpointSlices}` so that they name where each object
 * came from: the path (`services[0].spec` → `items[3].spec`) and references to other objects
 * inside messages (`is already services[1]` → `is already items[5]`, or `b.yaml: items[5]` when
 * there are sources, a problem's own source going to its `source`). An object without an origin
 * keeps its own path.
 *
 * @example
 * relocateProblems([problem("INVALID_VALUE", "services[0].spec.ports[0].port", "…")],
 *   { services: ["items[3]"], endpointSlices: [] })
 * // path "items[3].spec.ports[0].port"
 */
export function relocateProblems(problems: readonly Problem[], origins: ObjectOrigins): Problem[] {
  const pick = <T>(head: string, lists: { services: readonly T[]; endpointSlices: readonly T[] }) =>
    head === "services" ? lists.services : lists.endpointSlices;
  /** Where object `head[index]` came from, followed by `rest`; undefined without an origin. */
  const pathOf = (head: string, index: string, rest: string): string | undefined => {
    const origin = pick(head, origins)[Number(index)];
    if (origin === undefined) return undefined;
    // A lone object is the input's (or its file's) root: its paths start without a dot.
    return origin === "" ? rest.replace(/^\./, "") : origin + rest;
  };
  const sourceOf = (head: string, index: string): string | undefined =>
    origins.sources === undefined ? undefined : pick(head, origins.sources)[Number(index)];
  return problems.map((p) => {
    const m = OBJECT_PATH_HEAD.exec(p.path);
    const [head, index] = m === null ? ["", ""] : [m[1] ?? "", m[2] ?? ""];
    const path = (m === null ? undefined : pathOf(head, index, p.path.slice(m[0].length))) ?? p.path;
    const source = m === null ? undefined : sourceOf(head, index);
    const message = p.message.replace(OBJECT_REF, (whole: string, refHead: string, refIndex: string) => {
      const ref = pathOf(refHead, refIndex, "");
      if (ref === undefined) return whole;
      const refSource = sourceOf(refHead, refIndex);
      if (refSource === undefined) return ref === "" ? whole : ref;
      return ref === "" ? refSource : `${refSource}: ${ref}`;
    });
    if (path === p.path && message === p.message && source === undefined) return p;
    return { ...p, path, message, ...(source === undefined ? {} : { source }) };
  });
}

/**
 * Rewrites the paths of problems found in `{services, endpointSlices}` built from a split List
 * so that they name the List items (see {@link relocateProblems}).
 *
 * @example
 * remapListPaths([problem("INVALID_VALUE", "services[0].spec.ports[0].port", "…")], split)
 * // path "items[3].spec.ports[0].port"
 */
export function remapListPaths(problems: readonly Problem[], split: SplitList): Problem[] {
  return relocateProblems(problems, {
    services: split.servicePaths,
    endpointSlices: split.endpointSlicePaths,
  });
}

/**
 * Validates a Kubernetes List of Services and EndpointSlices: its kinds, then every object as
 * {@link validateClusterInput} does, with paths naming the List's items.
 *
 * @example
 * validateKubernetesList({ kind: "List", items: [{ kind: "Pod" }] })
 * // [{ code: "UNKNOWN_KIND", path: "items[0]", … }]
 */
export function validateKubernetesList(list: unknown, options: ValidateOptions = {}): Problem[] {
  const split = splitKubernetesList(list);
  const found = validateClusterInput(
    { services: split.services, endpointSlices: split.endpointSlices },
    options,
  );
  return [...split.problems, ...remapListPaths(found, split)];
}
