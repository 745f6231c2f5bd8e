/**
 * kube-iptables: the iptables rules kube-proxy (iptables mode) installs on a node, computed from
 * Services and EndpointSlices, printed as `iptables-restore` input and as `iptables-save` text.
 *
 * The pipeline: Kubernetes objects → {@link modelFromKubernetes} → {@link generateRules} (the
 * payload kube-proxy writes) or {@link generateState} (what the kernel then holds) →
 * {@link formatRestore} / {@link formatSave} / {@link formatJson}. The direct paths
 * {@link generateRestoreText} and {@link generateSaveText} print the same text without the rule
 * objects.
 *
 * @example
 * import { modelFromKubernetes, generateRules, formatRestore } from "kube-iptables";
 * const model = modelFromKubernetes({ config: { hostname: "node-a" }, services, endpointSlices });
 * process.stdout.write(formatRestore(generateRules(model)));
 *
 * @module
 */
export type { ChainDiff, RuleSetDiff, TableDiff } from "./diff/index.js";
export {
  deltaOf,
  diffRules,
  formatDelta,
  isKubeProxyChain,
  kubeProxyChainsOf,
  summarizeDiff,
} from "./diff/index.js";
export type { ErrorCode, Problem } from "./errors.js";
export { formatProblem, KubeIptablesError } from "./errors.js";
export { detectTextForm } from "./format/detect.js";
export { formatJson } from "./format/json.js";
export { parseRules, parseRulesOrThrow } from "./format/parse.js";
export { formatRestore, quoteArgument } from "./format/restore.js";
export { formatSave } from "./format/save.js";
export { createGenerator, type Generator } from "./generate/generator.js";
export { generateRestoreText } from "./generate/restore-text.js";
export type { GenerateOptions } from "./generate/rules.js";
export { generateRules, generateState } from "./generate/rules.js";
export { generateSaveText, type SaveTextOptions } from "./generate/save-text.js";
export type { CanonicalRule } from "./ir/canonical.js";
export { canonicalizeRule, formatCanonicalRule } from "./ir/canonical.js";
export { applyRestore } from "./ir/state.js";
export type { ChainCommand, ChainDeclaration, Counters, Entry, Rule, RuleSet, Table } from "./ir/types.js";
export { DEFAULT_CONFIG, resolveConfig } from "./kube/config.js";
export type { MirroredSlice, MirrorPaths, MirrorResult } from "./kube/endpoints-mirror.js";
export { mirrorEndpoints, mirroredAddress } from "./kube/endpoints-mirror.js";
export type { PrepareOptions, PrepareResult } from "./kube/from-kubernetes.js";
export { modelFromKubernetes, prepareCluster } from "./kube/from-kubernetes.js";
export type { ItemKind, ObjectOrigins, ReadOptions, SkippedObject, SplitList } from "./kube/list.js";
export {
  DEFAULT_NAMESPACE,
  relocateProblems,
  remapListPaths,
  skippedNote,
  splitKubernetesDocuments,
  splitKubernetesList,
  validateKubernetesList,
  validateObjectKinds,
} from "./kube/list.js";
export type { NamedRead } from "./kube/merge-input.js";
export { mergeClusterReads } from "./kube/merge-input.js";
export type { ReadResult } from "./kube/read-input.js";
export { readClusterText } from "./kube/read-input.js";
export { readClusterValue } from "./kube/read-value.js";
export { buildModel } from "./kube/to-model.js";
export type {
  ClusterInput,
  EndpointAddress,
  EndpointPort,
  EndpointSlice,
  EndpointSliceEndpoint,
  EndpointSlicePort,
  EndpointSubset,
  Endpoints,
  LoadBalancerIngress,
  ProxyConfigInput,
  Service,
  ServicePortSpec,
} from "./kube/types.js";
export { type ValidateOptions, validateClusterInput } from "./kube/validate.js";
export { isProfile, PROFILE_NAMES, PROFILES, type ProfileTraits, profileTraits } from "./model/profiles.js";
export type {
  ClusterModel,
  DetectLocal,
  Endpoint,
  IPFamily,
  Profile,
  Protocol,
  ProxyConfig,
  ServicePort,
} from "./model/types.js";
export { chainHash, endpointChain, servicePortChains, servicePortName } from "./naming/chain-names.js";
export { nftEndpointBase, nftNameBase, nftServicePortNames } from "./naming/nft-names.js";
export { probability } from "./naming/probability.js";
export type { NftablesOptions, NftCommand, NftFamily, NftHook, NftRule, NftTable } from "./nftables/index.js";
export { formatNftDump, formatNftRuleset, formatNftTransaction, generateNftables } from "./nftables/index.js";
export type { ClusterPlan, LocalDetector, NodePlan, ServicePortPlan } from "./plan/index.js";
export { planCluster } from "./plan/index.js";
export type { Sync, SyncOptions, SyncResult, SyncStats } from "./sync/index.js";
export { createSync } from "./sync/index.js";
export type {
  ConditionKind,
  Packet,
  TraceCondition,
  TraceOptions,
  TraceOutcome,
  TraceResult,
  TraceRoute,
} from "./trace/index.js";
export { formatTraceText, traceRules, traceToJson } from "./trace/index.js";
