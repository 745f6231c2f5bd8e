/**
 * The checked path from Kubernetes objects to the model: validate everything, leave out (or,
 * strictly, refuse) invalid Services and EndpointSlices, build the model.
 *
 * @module
 */
import { KubeIptablesError, type Problem } from "../errors.js";
import type { ClusterModel, IPFamily, ProxyConfig } from "../model/types.js";
import { resolveConfig } from "./config.js";
import { type ObjectOrigins, relocateProblems } from "./list.js";
import { OBJECT_PATH_HEAD } from "./patterns.js";
import { PrebuiltEndpoints } from "./prebuilt-endpoints.js";
import { configOverrides, type ModelOptions, modelFromInput } from "./to-model.js";
import type { ClusterInput, ProxyConfigInput } from "./types.js";
import { validateAndPrebuild, validateClusterInput } from "./validate.js";

/**
 * Options of {@link prepareCluster}.
 *
 * @example
 * prepareCluster(input, { family: "IPv6", config: { profile: "v1.22" }, strict: true });
 */
export interface PrepareOptions {
  /** The family to build (default: `config.ipFamily`, else IPv4). */
  readonly family?: IPFamily;
  /** Settings that override the input's `config`. */
  readonly config?: Partial<ProxyConfig>;
  /** Refuse the whole input when any object is invalid, instead of leaving that object out. */
  readonly strict?: boolean;
  /** Where each object came from, when the input was a Kubernetes List (see `readClusterText`). */
  readonly origins?: ObjectOrigins;
}

/**
 * What {@link prepareCluster} returns: the model, or `null` when the input is unusable, and every problem.
 *
 * @example
 * const { model, problems } = prepareCluster(input);
 * if (model === null) throw new KubeIptablesError(problems.filter((p) => p.severity === "error"));
 */
export interface PrepareResult {
  /** The model of the valid objects, or `null`. */
  readonly model: ClusterModel | null;
  /** Errors and warnings, with paths as the user wrote the input. */
  readonly problems: readonly Problem[];
}

/**
 * Validates a cluster input and builds the model of one family. Invalid Services and
 * EndpointSlices are left out (their problems are returned) unless `strict` is set; a bad config
 * or a malformed input makes the result `null`.
 *
 * @example
 * const { model, problems } = prepareCluster(input, { family: "IPv4" });
 */
export function prepareCluster(input: ClusterInput, options: PrepareOptions = {}): PrepareResult {
  const modelOptions: ModelOptions = {
    ...(options.family === undefined ? {} : { family: options.family }),
    ...(options.config === undefined ? {} : { config: options.config }),
  };
  const prebuilt = prebuiltFor(input, modelOptions);
  // Overrides are settings like the input's config, checked the same way (a /0 detect-local
  // CIDR, a mark bit out of range); their problems say `options.config`.
  const overridden = options.config === undefined ? [] : overrideProblems(options.config);
  const found = [...overridden, ...validateAndPrebuild(input, prebuilt, options.config?.profile)];
  const errors = found.filter((p) => p.severity === "error");
  const problems = options.origins === undefined ? found : relocateProblems(found, options.origins);
  const badServices = new Set<number>();
  const badSlices = new Set<number>();
  let fatal = false;
  for (const p of errors) {
    const m = OBJECT_PATH_HEAD.exec(p.path);
    if (m === null) fatal = true;
    else if (m[1] === "services") badServices.add(Number(m[2]));
    else badSlices.add(Number(m[2]));
  }
  if (fatal || (options.strict === true && errors.length > 0)) return { model: null, problems };
  const services = without(input.services ?? [], badServices);
  prebuilt.dropServices(badServices);
  const endpointSlices = without(input.endpointSlices ?? [], badSlices);
  const model = modelFromInput({ ...input, services, endpointSlices }, modelOptions, prebuilt);
  return { model, problems };
}

/**
 * Somewhere to build endpoints while validating, for the family and node name the model will
 * have. The config is not validated yet, so only those two settings are read from it (reading
 * cannot fail); the model builder uses the endpoints only if its resolved config agrees.
 */
function prebuiltFor(input: ClusterInput, options: ModelOptions): PrebuiltEndpoints {
  const config: unknown = (input as { config?: unknown } | null)?.config;
  const node = isRecord(config) ? { ipFamily: config.ipFamily, hostname: config.hostname } : {};
  const resolved = resolveConfig(node as ProxyConfigInput, configOverrides(options));
  return new PrebuiltEndpoints(resolved.ipFamily, resolved.hostname);
}

/** The problems of config overrides, validated as a config, at `options.config…`. */
function overrideProblems(config: Partial<ProxyConfig>): Problem[] {
  return validateClusterInput({ config }).map((p) => ({ ...p, path: `options.${p.path}` }));
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null;
}

/** The items whose index is not in `bad` (the list itself when none is). */
function without<T>(items: readonly T[], bad: ReadonlySet<number>): readonly T[] {
  if (bad.size === 0) return items;
  return items.filter((_, i) => !bad.has(i));
}

/**
 * Validates a cluster input and builds the model of one family, throwing one
 * {@link KubeIptablesError} listing every error when anything is invalid.
 *
 * @throws KubeIptablesError with every problem and its JSON path.
 * @example
 * const model = modelFromKubernetes({ config: { hostname: "k8s1" }, services, endpointSlices });
 * formatRestore(generateRules(model));
 */
export function modelFromKubernetes(
  input: ClusterInput,
  options: Omit<PrepareOptions, "strict"> = {},
): ClusterModel {
  const result = prepareCluster(input, { ...options, strict: true });
  const errors = result.problems.filter((p) => p.severity === "error");
  if (result.model === null || errors.length > 0) throw new KubeIptablesError(errors);
  return result.model;
}
