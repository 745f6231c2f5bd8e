/**
 * Kubernetes objects → the cluster model of one family.
 *
 * @module
 */
import { PROFILES } from "../model/profiles.js";
import type { ClusterModel, IPFamily, ProxyConfig, ServicePort } from "../model/types.js";
import { resolveConfig } from "./config.js";
import type { DuplicatePolicy } from "./endpoints.js";
import { type EndpointSource, type PrebuiltEndpoints, SliceReader } from "./prebuilt-endpoints.js";
import { handledClusterIP, pushServicePorts } from "./service-ports.js";
import type { ClusterInput, EndpointSlice, Service } from "./types.js";

/**
 * Builds the model one family's proxier works from, trusting the input to be valid (see
 * `modelFromKubernetes` for the checked variant).
 *
 * @example
 * // Objects the API server has already validated, without checking them again:
 * const model = buildModel(services, endpointSlices, resolveConfig({ hostname: "node-a" }));
 * generateRestoreText(model);
 */
export function buildModel(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxyConfig,
): ClusterModel {
  return buildModelWith(services, endpointSlices, config, undefined);
}

/**
 * {@link buildModel}, taking the endpoints of the slices from `prebuilt` when it holds every slice
 * of `endpointSlices` that kube-proxy reads, built for the config's family and hostname.
 */
export function buildModelWith(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxyConfig,
  prebuilt: PrebuiltEndpoints | undefined,
): ClusterModel {
  const endpoints: EndpointSource =
    prebuilt?.usableFor(config) === true
      ? prebuilt
      : new SliceReader(endpointSlices, config.ipFamily, config.hostname);
  return { config, servicePorts: collectServicePorts(services, endpoints, config) };
}

// Each loop of model building has a function (or class) of its own that ends with the loop:
// V8 optimizes a long loop while it runs (on-stack replacement), and code after the loop that
// had not run yet then sent that optimized code back to the interpreter on every later call.

/** The service ports of every Service kube-proxy handles, with their endpoints. */
function collectServicePorts(
  services: readonly Service[],
  endpointSource: EndpointSource,
  config: ProxyConfig,
): ServicePort[] {
  const family: IPFamily = config.ipFamily;
  const { duplicates, honorIPMode, externalIPs } = modelPolicies(config);
  const servicePorts: ServicePort[] = [];
  for (let i = 0; i < services.length; i++) {
    const service = services[i] as Service;
    // Ignored Services (headless ones often have many endpoints) cost no endpoint work.
    const clusterIP = handledClusterIP(service, family);
    if (clusterIP === null) continue;
    const meta = service.metadata;
    const endpoints = endpointSource.endpointsOf(i, meta?.namespace, meta?.name, duplicates);
    pushServicePorts(servicePorts, service, clusterIP, family, endpoints, honorIPMode, externalIPs);
  }
  return servicePorts;
}

/**
 * How a profile reads the API objects: which duplicate endpoint wins, whether `ipMode` counts,
 * whether `externalIPs` count.
 */
export interface ModelPolicies {
  /** Which copy of an `ip:port` listed in several slices wins. */
  readonly duplicates: DuplicatePolicy;
  /** Skip `ipMode: Proxy` ingress IPs (kube-proxy 1.22 predates the field). */
  readonly honorIPMode: boolean;
  /** Program Services' `externalIPs` (1.36+: off when the `AllowServiceExternalIPs` gate is). */
  readonly externalIPs: boolean;
}

/**
 * The object-reading policies of the config's profile (shared by full and incremental builds).
 *
 * @example
 * modelPolicies(resolveConfig({ profile: "v1.36" })).duplicates // "prefer-non-terminating"
 * modelPolicies(resolveConfig({ profile: "v1.36", allowServiceExternalIPs: false })).externalIPs // false
 */
export function modelPolicies(config: ProxyConfig): ModelPolicies {
  const traits = PROFILES[config.profile];
  return {
    duplicates: traits.duplicateEndpoints,
    honorIPMode: traits.ipModeField,
    externalIPs: !traits.externalIPsGate || config.allowServiceExternalIPs !== false,
  };
}

/** Options of {@link modelFromInput}. */
export interface ModelOptions {
  /** The family to build, overriding `config.ipFamily`. */
  readonly family?: IPFamily;
  /** Settings that override the cluster file's `config`. */
  readonly config?: Partial<ProxyConfig>;
}

/** Builds the model from a (valid) cluster file, with endpoints `prebuilt` while validating it. */
export function modelFromInput(
  input: ClusterInput,
  options: ModelOptions = {},
  prebuilt?: PrebuiltEndpoints,
): ClusterModel {
  const config = resolveConfig(input.config, configOverrides(options));
  return buildModelWith(input.services ?? [], input.endpointSlices ?? [], config, prebuilt);
}

/** The settings of `options` that override the cluster file's `config`. */
export function configOverrides(options: ModelOptions): Partial<ProxyConfig> {
  const overrides: Partial<ProxyConfig> = { ...options.config };
  if (options.family !== undefined) (overrides as { ipFamily?: IPFamily }).ipFamily = options.family;
  return overrides;
}
