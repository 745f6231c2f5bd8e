/**
 * kube-iptables: the iptables rules kube-proxy (iptables mode) installs on a node, computed from
 * Services and EndpointSlices, printed as `iptables-restore` input and as `iptables-save` text;
 * and the other way: node dumps parsed, diffed and traced.
 *
 * The pipeline: Kubernetes objects → {@link modelFromKubernetes} → {@link generateRules} (the
 * payload kube-proxy writes) or {@link generateState} (what the kernel then holds) →
 * {@link formatRestore} / {@link formatSave} / {@link formatJson}. The direct paths
 * {@link generateRestoreText} and {@link generateSaveText} print the same text without the rule
 * objects. {@link parseRules} reads rules text back, {@link diffRules} compares two states,
 * {@link createSync} keeps a node in step incrementally, {@link traceRules} follows a packet.
 *
 * This entry holds what a controller, a test suite or a tool needs. Reading YAML is in
 * `kube-iptables/yaml` (so that importing the library does not load a YAML parser), and
 * lower-level pieces are in `kube-iptables/util`.
 *
 * @example
 * import { generateRestoreText, modelFromKubernetes } from "kube-iptables";
 * const model = modelFromKubernetes({ config: { hostname: "node-a" }, services, endpointSlices });
 * generateRestoreText(model); // "*filter\n:KUBE-EXTERNAL-SERVICES - [0:0]\n…COMMIT\n"
 *
 * @module kube-iptables
 */

// Diff: two kernel states → what changed, and the delta.
export { deltaOf, formatDelta } from "./diff/delta.js";
export {
  type ChainDiff,
  type DiffOptions,
  diffRules,
  isKubeProxyChain,
  kubeProxyChainsOf,
  type RuleSetDiff,
  type TableDiff,
} from "./diff/diff-rules.js";
export type { RuleList } from "./diff/edit-script.js";
export { summarizeDiff } from "./diff/summary.js";
// Errors.
export { type ErrorCode, formatProblem, KubeIptablesError, type Problem } from "./errors.js";
// Graph: a service port's path through the chains, as a picture.
export {
  type ActionKind,
  buildServiceGraph,
  drawGraph,
  type EdgeKind,
  formatDot,
  formatMermaid,
  GRAPH_FORMATS,
  type GraphEdge,
  type GraphFormat,
  type GraphNode,
  listServicePorts,
  type NodeKind,
  overlayTrace,
  type RuleRef,
  renderSvg,
  type ServiceGraph,
} from "./graph/index.js";
// Generate: model → rules and text.
export { createGenerator, type Generator } from "./iptables/output/generator.js";
export { generateRestoreText } from "./iptables/output/restore-text.js";
export { type GenerateOptions, generateRules, generateState } from "./iptables/output/rules.js";
export { generateSaveText, type SaveTextOptions } from "./iptables/output/save-text.js";
// Parse: text → rules.
export { detectTextForm, type TextForm } from "./iptables/parse/detect.js";
export {
  type ParseOptions,
  type ParseResult,
  parseRules,
  parseRulesOrThrow,
} from "./iptables/parse/parse.js";
// Format: rules → text.
export { formatJson } from "./iptables/print/json.js";
export { formatRestore } from "./iptables/print/restore.js";
export { type FormatSaveOptions, formatSave } from "./iptables/print/save.js";
export type { Backend } from "./ir/canonical-types.js";
export type {
  ChainCommand,
  ChainDeclaration,
  Counters,
  Entry,
  PolicyCommand,
  Rule,
  RuleSet,
  Table,
} from "./ir/types.js";
// Validate: cluster input → problems, and the checked model.
export type { PrepareOptions, PrepareResult } from "./kube/from-kubernetes.js";
export { modelFromKubernetes, prepareCluster } from "./kube/from-kubernetes.js";
// Read: text and API lists → cluster input.
export type { ItemKind, ObjectOrigins, ReadOptions, SkippedObject, SplitList } from "./kube/list.js";
export { splitKubernetesDocuments, splitKubernetesList, validateKubernetesList } from "./kube/list.js";
export { type ReadResult, readClusterJson, readClusterValue } from "./kube/read-value.js";
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
  ObjectMeta,
  ProxyConfigInput,
  Service,
  ServicePortSpec,
  ServiceSpec,
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
// Naming: kube-proxy's chain names.
export {
  chainHash,
  endpointChain,
  type ServicePortChains,
  servicePortChains,
  servicePortName,
} from "./naming/chain-names.js";
// nftables mode: the same model as kube-proxy's nftables table.
export {
  formatNftDump,
  formatNftRuleset,
  formatNftTransaction,
  generateNftables,
  type NftablesOptions,
  type NftCommand,
  type NftFamily,
  type NftHook,
  type NftRule,
  type NftTable,
} from "./nftables/index.js";
// Sync: a node kept in step, one minimal delta per update.
export { createSync, type Sync, type SyncOptions, type SyncResult, type SyncStats } from "./sync/engine.js";
// Trace: one packet through a kernel state.
export { formatTraceText, traceToJson } from "./trace/format-trace.js";
export type { Fraction } from "./trace/fraction.js";
export { traceRules } from "./trace/trace.js";
export type {
  AffinityRecord,
  ChainRef,
  ConditionKind,
  Origin,
  Packet,
  Route,
  SocketAddress,
  SourceNat,
  TraceCondition,
  TraceOptions,
  TraceOutcome,
  TraceProtocol,
  TraceResult,
  TraceRoute,
  TraceStep,
  Verdict,
} from "./trace/types.js";
