/**
 * Kubernetes objects → the cluster model of one family.
 *
 * @module
 */
import type { ClusterModel, IPFamily, ProxyConfig, ServicePort } from "../model/types.js";
import { resolveConfig } from "./config.js";
import { type DuplicatePolicy, endpointsByPort, sliceServiceKey } from "./endpoints.js";
import { servicePortsOf, serviceSkipReason } from "./service-ports.js";
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
  const family: IPFamily = config.ipFamily;
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of endpointSlices) {
    const key = sliceServiceKey(slice);
    if (key === null) continue;
    const list = slicesByService.get(key);
    if (list === undefined) slicesByService.set(key, [slice]);
    else list.push(slice);
  }
  const servicePorts: ServicePort[] = [];
  const { duplicates, honorIPMode } = modelPolicies(config);
  for (const service of services) {
    // Ignored Services (headless ones often have many endpoints) cost no endpoint work.
    if (serviceSkipReason(service, family) !== null) continue;
    const key = `${service.metadata.namespace ?? ""}/${service.metadata.name ?? ""}`;
    const slices = slicesByService.get(key);
    const endpoints =
      slices === undefined ? undefined : endpointsByPort(slices, family, config.hostname, duplicates);
    for (const port of servicePortsOf(service, family, endpoints, honorIPMode)) servicePorts.push(port);
  }
  return { config, servicePorts };
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
