/**
 * Reading Kubernetes objects as kubectl prints them: a `List` (`kubectl get all -o yaml`, or
 * `kubectl get svc,endpointslices -A -o json`), a typed `ServiceList` / `EndpointSliceList` /
 * `EndpointsList` from the API, or a stream of objects (a directory of manifests). Services and
 * EndpointSlices are kept with where each came from, so that problems found later can name the
 * item's own path (`items[3].spec.ports[0].port`); v1 Endpoints become the EndpointSlices the
 * control plane mirrors from them (see `endpoints-mirror.ts`); objects of every other kind
 * (Pods, Deployments, ConfigMaps …) are left out with one note naming them. An object without a
 * namespace is read in the default namespace, as `kubectl apply -f` reads it.
 *
 * @module
 */
import { type Problem, warning } from "../errors.js";
import {
  givenSlicesNotes,
  type MirrorPaths,
  mirrorEndpoints,
  mirrorPath,
  preferGivenSlices,
  sliceServiceName,
} from "./endpoints-mirror.js";
import { OBJECT_PATH_HEAD, OBJECT_REF } from "./patterns.js";
import type { EndpointSlice, Service } from "./types.js";
import { type ValidateOptions, validateClusterInput } from "./validate.js";
import { choices, describe, isObject, type JsonObject, Report, show } from "./validate-report.js";

/**
 * The kinds this library reads, with the only apiVersion it reads each in: kube-proxy watches
 * v1 Services and discovery.k8s.io/v1 EndpointSlices only (v1beta1 slices were last served by
 * Kubernetes 1.24), and v1 Endpoints are read as the slices the control plane mirrors from them.
 */
const KINDS: Readonly<Record<string, string>> = {
  Service: "v1",
  EndpointSlice: "discovery.k8s.io/v1",
  Endpoints: "v1",
};

/** The kinds read here with their versions, as a note names them. */
const VERSIONS_READ = choices(
  Object.entries(KINDS).map(([kind, version]) => `${version} ${kind}`),
  "and",
);

/**
 * The namespace kubectl gives an object that names none.
 *
 * @example
 * DEFAULT_NAMESPACE // "default"
 */
export const DEFAULT_NAMESPACE = "default";

/**
 * A kind of object this library reads.
 *
 * @example
 * const kind: ItemKind = "EndpointSlice"; // the kind of the items of an EndpointSliceList
 */
export type ItemKind = "Service" | "EndpointSlice";

/**
 * Options of the functions that read Kubernetes objects.
 *
 * @example
 * // Objects without a namespace, as `kubectl apply -n shop -f FILE` reads them:
 * splitKubernetesList(JSON.parse(manifests), { namespace: "shop" });
 */
export interface ReadOptions {
  /**
   * The namespace of an object whose `metadata.namespace` is absent, null or empty (default
   * `default`, as `kubectl apply -f` without `-n`). An object that names its namespace keeps it.
   */
  readonly namespace?: string;
}

/**
 * An object left out because kube-proxy does not read its kind (or its apiVersion).
 *
 * @example
 * const { skipped } = splitKubernetesList({ kind: "List", items: [{ apiVersion: "apps/v1", kind: "Deployment" }] });
 * skipped // [{ path: "items[0]", kind: "Deployment" }]
 */
export interface SkippedObject {
  /** Where it was: `items[4]`, `documents[2]`, `services[1]`. */
  readonly path: string;
  /** Its kind. */
  readonly kind: string;
  /** Its apiVersion, when it is one of the kinds read here in another apiVersion. */
  readonly apiVersion?: string;
  /** The file it was in, when the input came from several. */
  readonly source?: string;
}

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
  /**
   * The EndpointSlice items, in List order (of the right kind, not yet validated), then those
   * mirrored from v1 Endpoints.
   */
  readonly endpointSlices: readonly EndpointSlice[];
  /** `servicePaths[i]` is where `services[i]` was: `items[4]`. */
  readonly servicePaths: readonly string[];
  /** `endpointSlicePaths[i]` is where `endpointSlices[i]` was (for a mirrored slice: its Endpoints). */
  readonly endpointSlicePaths: readonly string[];
  /** For a slice mirrored from Endpoints, where its parts are in them; `undefined` for a slice as given. */
  readonly endpointSliceMirrors: readonly (MirrorPaths | undefined)[];
  /** Objects of other kinds, left out (one note among the problems names them all). */
  readonly skipped: readonly SkippedObject[];
  /**
   * Errors with the List itself and with items that are not objects or have no kind (items with
   * errors are left out), and notes (warnings): objects of other kinds skipped, Endpoints whose
   * Service's slices are given too.
   */
  readonly problems: readonly Problem[];
}

/**
 * Checks the kind of every item of a List: `Service` (apiVersion `v1`), `EndpointSlice`
 * (apiVersion `discovery.k8s.io/v1`) and `Endpoints` (`v1`) are read; items of any other kind
 * or apiVersion are named in one `OTHER_KIND` note (a warning); an item that is not an object,
 * or has no kind, is an error. A missing apiVersion is accepted; a missing kind is too when
 * `defaultKind` is given (the items of a typed `ServiceList` carry none).
 *
 * @param items - the List's `items`
 * @param defaultKind - the kind of items without one
 * @returns the problems: errors, one per bad item, then the note
 * @example
 * validateObjectKinds([{ kind: "Service" }, { kind: "Pod" }])
 * // [{ code: "OTHER_KIND", path: "", severity: "warning",
 * //    message: "skipped 1 object of another kind: Pod (1)" }]
 */
export function validateObjectKinds(items: readonly unknown[], defaultKind?: string): Problem[] {
  const r = new Report();
  const out = emptyCollector({});
  r.enter("items");
  for (let i = 0; i < items.length; i++) {
    r.enter(i);
    kindOf(r, items[i], defaultKind, out);
    r.leave();
  }
  r.leave();
  const note = skippedNote(out.skipped);
  return note === undefined ? r.problems : [...r.problems, note];
}

/** An Endpoints object found, with its path, mirrored once the whole input is read. */
interface FoundEndpoints {
  readonly object: JsonObject;
  readonly path: string;
}

/** Where the objects found so far go, with the path each had in the input. */
interface Collector {
  readonly services: Service[];
  readonly endpointSlices: EndpointSlice[];
  readonly servicePaths: string[];
  readonly endpointSlicePaths: string[];
  readonly endpoints: FoundEndpoints[];
  readonly skipped: SkippedObject[];
  readonly namespace: string;
}

function emptyCollector(options: ReadOptions): Collector {
  return {
    services: [],
    endpointSlices: [],
    servicePaths: [],
    endpointSlicePaths: [],
    endpoints: [],
    skipped: [],
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
  };
}

/**
 * The kind of the object at the report's current path when it is one this library reads;
 * otherwise the object is recorded as skipped (another kind or apiVersion) or reported (not an
 * object, no kind). `defaultKind` is the kind of an object that names none.
 */
function kindOf(
  r: Report,
  item: unknown,
  defaultKind: string | undefined,
  out: Collector,
): ItemKind | "Endpoints" | undefined {
  if (!isObject(item)) {
    r.error("TYPE", undefined, `expected a Kubernetes object, got ${describe(item)}`);
    return undefined;
  }
  const kind = item.kind === undefined || item.kind === null || item.kind === "" ? defaultKind : item.kind;
  if (kind === undefined) {
    r.error("REQUIRED", "kind", "is required to tell a Service from an EndpointSlice");
    return undefined;
  }
  if (typeof kind !== "string") {
    r.error("TYPE", "kind", `expected a string, got ${describe(kind)}`);
    return undefined;
  }
  const version = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  const apiVersion = item.apiVersion;
  if (version === undefined) {
    out.skipped.push({ path: r.path(), kind });
    return undefined;
  }
  if (apiVersion !== undefined && apiVersion !== null && apiVersion !== version) {
    out.skipped.push({ path: r.path(), kind, apiVersion: String(apiVersion) });
    return undefined;
  }
  return kind as ItemKind | "Endpoints";
}

/**
 * The one note naming the objects left out for their kind, most frequent first:
 * `skipped 12 objects of other kinds: Pod (7), Deployment (3), ReplicaSet (2)`. A kind read
 * here in another apiVersion is named with it (`discovery.k8s.io/v1beta1 EndpointSlice (1)`),
 * and the note then ends with the versions that are read.
 *
 * @returns the note (code `OTHER_KIND`, a warning), or `undefined` when nothing was skipped
 * @example
 * skippedNote([{ path: "items[0]", kind: "Pod" }])?.message
 * // "skipped 1 object of another kind: Pod (1)"
 */
export function skippedNote(skipped: readonly SkippedObject[]): Problem | undefined {
  if (skipped.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const s of skipped) {
    const name = s.apiVersion === undefined ? s.kind : `${s.apiVersion} ${s.kind}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const named = [...counts]
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, n]) => `${name} (${n})`);
  // A kind read here in an old version (a v1beta1 slice of Kubernetes 1.20) is no other kind:
  // say so, and which versions are read.
  const versions = skipped.filter((s) => s.apiVersion !== undefined).length;
  const n = skipped.length;
  const one = n === 1;
  const of =
    versions === 0
      ? one
        ? "another kind"
        : "other kinds"
      : versions === n
        ? one
          ? "a version not read"
          : "versions not read"
        : "other kinds or versions";
  const what = `${one ? "1 object" : `${n} objects`} of ${of}`;
  const read = versions > 0 ? `; the versions read are ${VERSIONS_READ}` : "";
  return warning("OTHER_KIND", "", `skipped ${what}: ${named.join(", ")}${read}`);
}

/**
 * Whether `kind` makes a value a Kubernetes object (of any kind: those not read here are
 * skipped) rather than a cluster file, which has none.
 *
 * @example
 * isKubernetesKind("ServiceList") // true
 * isKubernetesKind("Pod")         // true (read, and skipped with a note)
 * isKubernetesKind(undefined)     // false
 */
export function isKubernetesKind(kind: unknown): boolean {
  return typeof kind === "string" && kind !== "";
}

/** Whether `value` is a List: `List`, or a typed list such as `ServiceList` or `PodList` (by its kind). */
export function isListObject(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.kind === "string" && isListKind(value.kind);
}

function isListKind(kind: string): boolean {
  return kind.endsWith("List") && kind.length >= 4;
}

/** The kind of a list's items that carry none: `Service` for a `ServiceList`, none for a `List`. */
function itemKindOf(listKind: string): string | undefined {
  return listKind === "List" ? undefined : listKind.slice(0, -"List".length);
}

/**
 * The object as `kubectl apply -f` reads it: without a namespace (absent, null or empty), in
 * `namespace`. Copied, never changed in place.
 */
function withNamespace(item: JsonObject, namespace: string): JsonObject {
  const meta = item.metadata;
  if (!isObject(meta)) return item;
  const ns = meta.namespace;
  if (ns !== undefined && ns !== null && ns !== "") return item;
  return { ...item, metadata: { ...meta, namespace } };
}

/**
 * Sorts the object at the report's current path into `out`: a Service, an EndpointSlice or
 * Endpoints is kept with that path, a nested List is read item by item, anything else is skipped
 * or reported.
 */
function collectObject(r: Report, item: unknown, defaultKind: string | undefined, out: Collector): void {
  if (isListObject(item)) {
    collectItems(r, item, out);
    return;
  }
  const kind = kindOf(r, item, defaultKind, out);
  if (kind === undefined) return;
  const object = withNamespace(item as JsonObject, out.namespace);
  if (kind === "Service") {
    out.services.push(object as unknown as Service);
    out.servicePaths.push(r.path());
  } else if (kind === "EndpointSlice") {
    out.endpointSlices.push(object as unknown as EndpointSlice);
    out.endpointSlicePaths.push(r.path());
  } else {
    out.endpoints.push({ object, path: r.path() });
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
  collectEach(r, "items", items, itemKindOf(list.kind as string), out);
}

/** Collects each of `objects`, found at `key[i]` below the report's current path. */
function collectEach(
  r: Report,
  key: string,
  objects: readonly unknown[],
  defaultKind: string | undefined,
  out: Collector,
  at?: readonly number[],
): void {
  r.enter(key);
  for (let i = 0; i < objects.length; i++) {
    r.enter(at?.[i] ?? i);
    collectObject(r, objects[i], defaultKind, out);
    r.leave();
  }
  r.leave();
}

/** A path below an object's path: `items[3]` + `.subsets[0]`; a lone object's start without a dot. */
function below(path: string, rest: string): string {
  return path === "" ? rest.replace(/^\./, "") : path + rest;
}

/**
 * The split of everything collected: Endpoints mirrored into slices (left out where slices of the
 * same Service are given), and the notes.
 */
function finish(r: Report, out: Collector): SplitList {
  const note = skippedNote(out.skipped);
  if (out.endpoints.length === 0) {
    // Nothing mirrored (the usual case): the slices as given, nothing to prefer.
    return {
      services: out.services,
      endpointSlices: out.endpointSlices,
      servicePaths: out.servicePaths,
      endpointSlicePaths: out.endpointSlicePaths,
      endpointSliceMirrors: [],
      skipped: out.skipped,
      problems: note === undefined ? r.problems : [...r.problems, note],
    };
  }
  const problems: Problem[] = [...r.problems];
  const slices: unknown[] = [...out.endpointSlices];
  const paths = [...out.endpointSlicePaths];
  const mirrors: (MirrorPaths | undefined)[] = slices.map(() => undefined);
  for (const found of out.endpoints) {
    const mirrored = mirrorEndpoints(found.object);
    for (const p of mirrored.problems) problems.push({ ...p, path: below(found.path, p.path) });
    for (const { slice, paths: parts } of mirrored.slices) {
      slices.push(slice);
      paths.push(found.path);
      mirrors.push(parts);
    }
  }
  const prefer = preferGivenSlices(
    slices,
    mirrors.map((m) => m !== undefined),
  );
  problems.push(
    ...givenSlicesNotes(
      prefer.dropped.map((i) => ({ path: paths[i] ?? "", service: sliceServiceName(slices[i]) })),
    ),
  );
  const kept = (_: unknown, i: number) => prefer.keep[i] === true;
  if (note !== undefined) problems.push(note);
  return {
    services: out.services,
    endpointSlices: slices.filter(kept) as EndpointSlice[],
    servicePaths: out.servicePaths,
    endpointSlicePaths: paths.filter(kept),
    endpointSliceMirrors: mirrors.filter(kept),
    skipped: out.skipped,
    problems,
  };
}

/**
 * Splits a Kubernetes `List` (or a typed list: `ServiceList`, `EndpointSliceList`,
 * `EndpointsList`, or any other, whose items are then skipped) into Services and EndpointSlices,
 * keeping each object's original path. Never throws; items of other kinds are left out with
 * one note (see {@link validateObjectKinds}), Endpoints become slices (see `mirrorEndpoints`),
 * and a List inside the List is read too.
 *
 * @param list - the parsed `kubectl ... -o json` (or `-o yaml`) output
 * @param options - the namespace of objects that name none (default `default`)
 * @returns the two arrays, the paths they came from, and the problems
 * @example
 * const split = splitKubernetesList({ apiVersion: "v1", kind: "List", items: [
 *   { kind: "EndpointSlice", metadata: {} }, { kind: "Service", metadata: {} }] });
 * split.servicePaths       // ["items[1]"]
 * split.endpointSlicePaths // ["items[0]"]
 */
export function splitKubernetesList(list: unknown, options: ReadOptions = {}): SplitList {
  const r = new Report();
  const out = emptyCollector(options);
  if (!isObject(list)) {
    r.error("TYPE", undefined, `expected a Kubernetes List, got ${describe(list)}`);
    return finish(r, out);
  }
  const kind = list.kind ?? "List";
  if (typeof kind !== "string" || !isListKind(kind)) {
    r.error(
      "UNKNOWN_KIND",
      "kind",
      `${show(kind)} is not a list kind (List, ServiceList, EndpointSliceList …)`,
    );
    return finish(r, out);
  }
  collectItems(r, { ...list, kind }, out);
  return finish(r, out);
}

/**
 * Splits the documents of a YAML stream (or one document) into Services and EndpointSlices.
 * Each document is an object or a List of them; a single document's paths start at its root
 * (`spec.ports[0]`), several documents' at `documents[i]`.
 *
 * @param options - the namespace of objects that name none (default `default`)
 * @param at - each document's index in its stream, where empty ones (a Helm template's
 *   `# Source:` comment alone) were left out: the paths count them, as a reader does
 * @example
 * splitKubernetesDocuments([{ kind: "Service", metadata: {} }, { kind: "List", items: [] }]).servicePaths
 * // ["documents[0]"]
 */
export function splitKubernetesDocuments(
  documents: readonly unknown[],
  options: ReadOptions = {},
  at?: readonly number[],
): SplitList {
  const r = new Report();
  const out = emptyCollector(options);
  if (documents.length === 1) {
    collectObject(r, documents[0], undefined, out);
    return finish(r, out);
  }
  collectEach(r, "documents", documents, undefined, out, at);
  return finish(r, out);
}

/**
 * A cluster file's `services` and `endpointSlices` read as a List's items are: an object of
 * another kind or apiVersion is left out (and named in `skipped`), an object without a namespace
 * gets the default one. Other values stay for the validator to report.
 *
 * @returns the kept objects with their paths (`services[3]`), and the skipped ones; `paths` only
 *   when something was skipped (else each object is at its own index: 20,000 strings saved)
 * @example
 * readClusterObjects([{ kind: "Pod" }, { metadata: { name: "web" }, spec: {} }], "services", "Service")
 * // { objects: [{ metadata: { name: "web", namespace: "default" }, spec: {} }],
 * //   paths: ["services[1]"], skipped: [{ path: "services[0]", kind: "Pod" }] }
 */
export function readClusterObjects(
  list: readonly unknown[],
  key: string,
  kind: ItemKind,
  options: ReadOptions = {},
): { objects: unknown[]; paths: string[] | undefined; skipped: SkippedObject[] } {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const objects: unknown[] = [];
  const skipped: SkippedObject[] = [];
  // The indexes of the kept objects, once one was skipped (before that, object i is item i).
  let kept: number[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const skip = isObject(item) ? skippedItem(item, kind, key, i) : undefined;
    if (skip !== undefined) {
      kept ??= Array.from(objects, (_, k) => k);
      skipped.push(skip);
      continue;
    }
    objects.push(isObject(item) ? withNamespace(item, namespace) : item);
    kept?.push(i);
  }
  return { objects, paths: kept?.map((i) => `${key}[${i}]`), skipped };
}

/** Why an item of a cluster file's list is left out: another kind or apiVersion; else `undefined`. */
function skippedItem(item: JsonObject, kind: ItemKind, key: string, i: number): SkippedObject | undefined {
  const { kind: written, apiVersion } = item;
  if (typeof written === "string" && written !== "" && written !== kind)
    return { path: `${key}[${i}]`, kind: written };
  if (typeof apiVersion === "string" && apiVersion !== "" && apiVersion !== KINDS[kind])
    return { path: `${key}[${i}]`, kind, apiVersion };
  return undefined;
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
  /**
   * For each EndpointSlice mirrored from v1 Endpoints, where its parts are in them (problems on
   * `endpoints[2].addresses[0]` name `subsets[0].addresses[2].ip`); `undefined` for the others.
   */
  readonly endpointSliceMirrors?: readonly (MirrorPaths | undefined)[];
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
    const mirror = head === "endpointSlices" ? origins.endpointSliceMirrors?.[Number(index)] : undefined;
    const inner = mirror === undefined ? rest : mirrorPath(rest, mirror);
    // A lone object is the input's (or its file's) root: its paths start without a dot.
    return origin === "" ? inner.replace(/^\./, "") : origin + inner;
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
    endpointSliceMirrors: split.endpointSliceMirrors,
  });
}

/**
 * Validates a Kubernetes List of Services, EndpointSlices and Endpoints: its kinds, then every
 * object as {@link validateClusterInput} does, with paths naming the List's items.
 *
 * @example
 * validateKubernetesList({ kind: "List", items: [{ kind: "Pod" }] })
 * // [{ code: "OTHER_KIND", path: "", severity: "warning", message: "skipped 1 object of another kind: Pod (1)" }]
 */
export function validateKubernetesList(
  list: unknown,
  options: ValidateOptions & ReadOptions = {},
): Problem[] {
  const split = splitKubernetesList(list, options);
  const found = validateClusterInput(
    { services: split.services, endpointSlices: split.endpointSlices },
    options,
  );
  return [...split.problems, ...remapListPaths(found, split)];
}
