/**
 * Kubernetes objects → the cluster model of one family.
 *
 * @module
 */
import type { ClusterModel, IPFamily, ProxyConfig, ServicePort } from "../model/types.js";
import { resolveConfig } from "./config.js";
import { type DuplicatePolicy, endpointsByPort } from "./endpoints.js";
import { handledClusterIP, pushServicePorts } from "./service-ports.js";
import { SliceIndex } from "./slice-index.js";
import type { ClusterInput, EndpointSlice, Service } from "./types.js";

/**
 * Builds the model one family's proxier works from, trusting the input to be valid (see
 * `modelFromKubernetes` for the checked variant).
 */
export function buildModel(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxyConfig,
): ClusterModel {
  return { config, servicePorts: collectServicePorts(services, new SliceIndex(endpointSlices), config) };
}

// Each loop of model building has a function (or class) of its own that ends with the loop:
// V8 optimizes a long loop while it runs (on-stack replacement), and code after the loop that
// had not run yet then sent that optimized code back to the interpreter on every later call.

/** The service ports of every Service kube-proxy handles, with their endpoints. */
function collectServicePorts(
  services: readonly Service[],
  slices: SliceIndex,
  config: ProxyConfig,
): ServicePort[] {
  const family: IPFamily = config.ipFamily;
  const { duplicates, honorIPMode } = modelPolicies(config);
  const servicePorts: ServicePort[] = [];
  for (let i = 0; i < services.length; i++) {
    const service = services[i] as Service;
    // Ignored Services (headless ones often have many endpoints) cost no endpoint work.
    const clusterIP = handledClusterIP(service, family);
    if (clusterIP === null) continue;
    const own = slices.slicesOf(service.metadata.namespace, service.metadata.name);
    const endpoints =
      own.length === 0 ? undefined : endpointsByPort(own, family, config.hostname, duplicates);
    pushServicePorts(servicePorts, service, clusterIP, family, endpoints, honorIPMode);
  }
  return servicePorts;
}

/** How a profile reads the API objects: which duplicate endpoint wins, whether `ipMode` counts. */
export interface ModelPolicies {
  /** Which copy of an `ip:port` listed in several slices wins. */
  readonly duplicates: DuplicatePolicy;
  /** Skip `ipMode: Proxy` ingress IPs (kube-proxy 1.22 predates the field). */
  readonly honorIPMode: boolean;
}

/**
 * The object-reading policies of the config's profile (shared by full and incremental builds).
 *
 * @example
 * modelPolicies(resolveConfig({ profile: "latest" })).duplicates // "prefer-non-terminating"
 */
export function modelPolicies(config: ProxyConfig): ModelPolicies {
  return {
    duplicates: config.profile === "latest" ? "prefer-non-terminating" : "prefer-local",
    honorIPMode: config.profile !== "v1.22",
  };
}

/** Options of {@link modelFromInput}. */
export interface ModelOptions {
  /** The family to build, overriding `config.ipFamily`. */
  readonly family?: IPFamily;
  /** Settings that override the cluster file's `config`. */
  readonly config?: Partial<ProxyConfig>;
}

/** Builds the model from a (valid) cluster file. */
export function modelFromInput(input: ClusterInput, options: ModelOptions = {}): ClusterModel {
  const overrides: Partial<ProxyConfig> = { ...options.config };
  if (options.family !== undefined) (overrides as { ipFamily?: IPFamily }).ipFamily = options.family;
  const config = resolveConfig(input.config, overrides);
  return buildModel(input.services ?? [], input.endpointSlices ?? [], config);
}
