/**
 * `kube-iptables/util`: the lower-level pieces the main entry is built from, for tools that
 * take the pipeline apart — the unchecked model builder and the config defaults, several inputs
 * merged into one, problem paths moved back into a Kubernetes List, restore payloads applied to
 * a state, rules in their canonical `iptables-save` form, kube-proxy's sort and its statistic
 * probabilities, and the quoting of one argument.
 *
 * @example
 * import { buildModel, resolveConfig } from "kube-iptables/util";
 * // Objects the API server has already validated, without checking them again:
 * const model = buildModel(services, endpointSlices, resolveConfig({ hostname: "node-a" }));
 *
 * @module kube-iptables/util
 */

// Generate and format: rule-level helpers.
export {
  type ApplyRestoreOptions,
  applyRestore,
  type CanonicalizeOptions,
  canonicalizeRule,
  canonicalSort,
  formatCanonicalRule,
  quoteArgument,
} from "./iptables/index.js";
export type * from "./ir/canonical-types.js";
// Validate: the unchecked path and the pieces of the checked one.
export { DEFAULT_CONFIG, resolveConfig } from "./kube/config.js";
export type { MirroredSlice, MirrorPaths, MirrorResult } from "./kube/endpoints-mirror.js";
export { mirrorEndpoints, mirroredAddress } from "./kube/endpoints-mirror.js";
export {
  DEFAULT_NAMESPACE,
  relocateProblems,
  remapListPaths,
  skippedNote,
  validateObjectKinds,
} from "./kube/list.js";
export { mergeClusterReads, type NamedRead } from "./kube/merge-input.js";
export { buildModel } from "./kube/to-model.js";
export type { JsonObject } from "./kube/validate-report.js";
// Naming: nftables mode's names.
export {
  NFT_NAME_BASE_MAX,
  type NftServicePortNames,
  nftEndpointBase,
  nftNameBase,
  nftServicePortNames,
} from "./naming/nft-names.js";
export { probability } from "./naming/probability.js";
// Plan: model + profile → one mode-neutral plan per service port.
export {
  type ClusterPlan,
  type LegacyPlan,
  type LocalDetector,
  type NodePlan,
  type NoEndpointsVerdict,
  planCluster,
  type ServicePortPlan,
} from "./plan/index.js";
