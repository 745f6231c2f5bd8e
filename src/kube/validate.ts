/**
 * Validation of everything the generator reads: a cluster file `{config?, services?,
 * endpointSlices?}` checked with the rules the Kubernetes API server applies, kube-proxy's silent
 * skips reported as warnings, and every value that reaches rule text checked for safety.
 *
 * @module
 */
import type { Problem } from "../errors.js";
import { traitsOfName } from "../model/profiles.js";
import type { Profile } from "../model/types.js";
import { isSliceRead, SERVICE_NAME_LABEL } from "./endpoints.js";
import type { PrebuiltEndpoints } from "./prebuilt-endpoints.js";
import type { EndpointSlice } from "./types.js";
import { checkKnownKeys, validateConfig } from "./validate-config.js";
import { asArray } from "./validate-fields.js";
import {
  choices,
  describe,
  firstNames,
  isObject,
  type JsonObject,
  NamespacedIndex,
  Report,
  show,
} from "./validate-report.js";
import { type ServiceInfo, validateService } from "./validate-service.js";
import { type Orphan, validateEndpointSlice } from "./validate-slice.js";

const INPUT_KEYS: readonly string[] = ["config", "services", "endpointSlices"];
/** Keys a conformance vector carries besides its input; they are documentation and ignored. */
const VECTOR_KEYS: readonly string[] = ["name", "description", "kubeProxy", "expected", "v122Notes"];

/**
 * Validates a cluster file and returns every problem found, errors and warnings, in input
 * order, each with its JSON path from the input's root. Pure; never throws.
 *
 * Errors are what the API server would reject (or what cannot be written safely into rule
 * text); warnings (code `SKIPPED`) are what kube-proxy ignores silently. The input is usable
 * when no problem has severity `error`.
 *
 * @param input - the parsed cluster file (JSON or YAML), of any shape
 * @param options - `profile`: the kube-proxy release to read the objects for, over the config's
 *   (it decides only which skips are reported: v1.22 predates `ipMode`)
 * @returns the problems, empty when the input is clean
 * @example
 * validateClusterInput({ services: [{ metadata: { name: "web", namespace: "default" },
 *   spec: { clusterIP: "10.96.0.10", ports: [{ port: 70000 }] } }] })
 * // [{ code: "INVALID_VALUE", path: "services[0].spec.ports[0].port",
 * //    message: "70000 is not a port number (1-65535)", severity: "error" }]
 */
export function validateClusterInput(input: unknown, options: ValidateOptions = {}): Problem[] {
  return validateAndPrebuild(input, undefined, options.profile);
}

/**
 * Options of {@link validateClusterInput}.
 *
 * @example
 * validateClusterInput(input, { profile: "v1.22" }); // an ipMode: Proxy ingress is fine under v1.22
 */
export interface ValidateOptions {
  /** The kube-proxy release the objects are read for; default the config's, else v1.30. */
  readonly profile?: Profile;
}

/**
 * {@link validateClusterInput}, also building the endpoints of every EndpointSlice without
 * errors into `prebuilt` (for `prepareCluster`).
 *
 * @param profile - the kube-proxy release the objects are read for, when the caller overrides
 *   the config's (it decides only which skips are reported)
 */
export function validateAndPrebuild(
  input: unknown,
  prebuilt: PrebuiltEndpoints | undefined,
  profile: string | undefined = profileOf(input),
): Problem[] {
  const r = new Report(traitsOfName(profile));
  if (!isObject(input)) {
    r.error(
      "TYPE",
      undefined,
      `a cluster file is an object with ${choices(INPUT_KEYS, "and")}; got ${describe(input)}`,
    );
    return r.problems;
  }
  checkTopKeys(r, input);
  validateConfig(r, input);
  const services = validateServices(r, input.services);
  validateSlices(r, input.endpointSlices, services, prebuilt);
  return r.problems;
}

/** The profile a cluster file's config names, if it names one (validated with the config). */
function profileOf(input: unknown): string | undefined {
  const config = isObject(input) ? input.config : undefined;
  return isObject(config) && typeof config.profile === "string" ? config.profile : undefined;
}

// Each list has a function of its own, ending right after the loop: V8 optimizes a long loop
// while it runs (on-stack replacement), and code after it that had not run yet then made that
// optimized code fall back to the interpreter on every later call.

/** The Services a slice may name: those with a valid namespace and name, and the rest. */
interface ServiceIndex {
  /** Whether the input holds no Service at all (only slices: `kubectl get endpointslices`). */
  readonly none: boolean;
  readonly valid: NamespacedIndex<ServiceInfo>;
  /** Where each Service whose metadata or spec is unusable is, by the names it is written with. */
  readonly leftOut: NamespacedIndex<number>;
}

/** The namespace and name an object is written with, whether valid or not. */
function writtenName(value: unknown): { namespace: string; name: string } | undefined {
  const meta = isObject(value) ? value.metadata : undefined;
  if (!isObject(meta) || typeof meta.namespace !== "string" || typeof meta.name !== "string")
    return undefined;
  return { namespace: meta.namespace, name: meta.name };
}

/** Validates `services`; returns the Services with a valid namespace and name, and the rest. */
function validateServices(r: Report, value: unknown): ServiceIndex {
  const list = asArray(r, "services", value);
  const none = list === undefined || list.length === 0;
  const index = { none, valid: new NamespacedIndex<ServiceInfo>(), leftOut: new NamespacedIndex<number>() };
  if (list === undefined) return index;
  r.enter("services");
  validateServiceList(r, list, index);
  r.leave();
  return index;
}

function validateServiceList(r: Report, list: readonly unknown[], index: ServiceIndex): void {
  for (let i = 0; i < list.length; i++) {
    const info = validateService(r, list, i);
    if (info === undefined) {
      // Its slices then say where it is, rather than that there is no such Service.
      const written = writtenName(list[i]);
      if (written !== undefined) index.leftOut.add(written.namespace, written.name, i);
      continue;
    }
    const first = index.valid.add(info.namespace, info.name, info);
    // API server: one object per namespace and name.
    if (first !== undefined) {
      r.error("DUPLICATE", i, `Service ${info.namespace}/${info.name} is already services[${first.index}]`);
    }
  }
}

/** Validates `endpointSlices` against the Services. */
function validateSlices(
  r: Report,
  value: unknown,
  services: ServiceIndex,
  prebuilt: PrebuiltEndpoints | undefined,
): void {
  const list = asArray(r, "endpointSlices", value);
  if (list === undefined) return;
  // Slices without their Services (the svc of 'kubectl get svc,endpointslices' forgotten): one
  // warning says so, rather than one per slice.
  const orphans: Orphan[] | undefined = services.none ? [] : undefined;
  r.enter("endpointSlices");
  validateSliceList(r, list, services, prebuilt, orphans);
  r.leave();
  if (orphans === undefined || orphans.length === 0) return;
  const named = [...new Set(orphans.map((o) => o.service))];
  if (named.length === 1) {
    // Each where it would have been, last first so that the earlier places hold.
    for (let i = orphans.length - 1; i >= 0; i--) {
      const o = orphans[i] as Orphan;
      r.problems.splice(o.at, 0, o.warning);
    }
    return;
  }
  r.warn(
    "SKIPPED",
    undefined,
    `no Service in the input: the endpoints given for ${named.length} Services (${firstNames(named)}) make no rules; 'kubectl get svc,endpointslices -A -o yaml' prints the Services too`,
  );
}

function validateSliceList(
  r: Report,
  list: readonly unknown[],
  services: ServiceIndex,
  prebuilt: PrebuiltEndpoints | undefined,
  orphans: Orphan[] | undefined,
): void {
  const seen = new NamespacedIndex<number>();
  for (let i = 0; i < list.length; i++) {
    const errors = r.errorCount;
    const nonCanonical = r.nonCanonicalIPs;
    const found = validateEndpointSlice(r, list, i, services.valid, seen, services.leftOut, orphans);
    // Only a slice without errors is sure to have the shape the model builder reads.
    if (prebuilt === undefined || r.errorCount !== errors) continue;
    const slice = list[i] as EndpointSlice;
    const owner = found ?? ownerOf(slice, services.valid);
    if (owner !== undefined) prebuilt.add(slice, r.nonCanonicalIPs === nonCanonical, owner.index);
  }
}

/**
 * The Service kube-proxy reads a slice without errors for (`sliceServiceKey`), when the validator
 * did not look it up; `undefined` for a slice carrying a label kube-proxy's informers filter out
 * (the model builder skips it as well) or naming no valid Service.
 */
function ownerOf(slice: EndpointSlice, services: NamespacedIndex<ServiceInfo>): ServiceInfo | undefined {
  if (!isSliceRead(slice)) return undefined;
  return services.get(slice.metadata?.namespace ?? "", slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? "");
}

/** The cluster file's own shape (ours, not the API server's): known keys only. */
function checkTopKeys(r: Report, input: JsonObject): void {
  if (typeof input.kind === "string" && Array.isArray(input.items)) {
    r.error(
      "INVALID_VALUE",
      undefined,
      `this is a Kubernetes ${show(input.kind)}, not a cluster file; read it with splitKubernetesList`,
    );
    return;
  }
  const lost = kindlessObject(input);
  if (lost !== null) {
    r.error("INVALID_VALUE", undefined, lost);
    return;
  }
  checkKnownKeys(r, input, INPUT_KEYS, "a cluster file", VECTOR_KEYS);
}

/** A field only one of the kinds read here has, and that kind (a Service by its `spec` last). */
const LOOKS_LIKE: readonly (readonly [string, string])[] = [
  ["addressType", "an EndpointSlice (apiVersion discovery.k8s.io/v1)"],
  ["subsets", "an Endpoints object (apiVersion v1)"],
  ["spec", "a Service (apiVersion v1)"],
];

/**
 * Why `input`, holding no Services or EndpointSlices, is a Kubernetes object that lost its
 * `kind`, or null. `kubectl get -o yaml` prints a List's `kind: List` after its items, so a paste
 * cut short loses it; a watch event's or a client's object may come without `kind` at all.
 */
function kindlessObject(input: JsonObject): string | null {
  // (A config may be there: the CLI puts its flags' into whatever it read.)
  if (input.kind !== undefined || input.services !== undefined || input.endpointSlices !== undefined)
    return null;
  if (Array.isArray(input.items))
    return "a Kubernetes List without its `kind: List` line (kubectl prints `kind` and `metadata` after the items: was the output cut short?)";
  if (typeof input.metadata !== "object" || input.metadata === null) return null;
  const kind = LOOKS_LIKE.find(([field]) => field in input)?.[1];
  const which = kind === undefined ? "" : `: this looks like ${kind}`;
  return `a Kubernetes object without its \`kind\` and \`apiVersion\` (kubectl get -o yaml prints them)${which}`;
}
