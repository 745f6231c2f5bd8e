/**
 * Two rule sets → what changed per table and chain, a readable summary, and the minimal
 * `iptables-restore --noflush` delta.
 *
 * @module
 */

export { deltaOf, formatDelta } from "./delta.js";
export {
  type ChainDiff,
  canonicalKey,
  type DiffOptions,
  diffRules,
  isKubeProxyChain,
  kubeProxyChainsOf,
  type RuleSetDiff,
  sparingReferenced,
  type TableDiff,
} from "./diff-rules.js";
export { commonSubsequence, type EditCounts, editChain, type RuleList } from "./edit-script.js";
export { type GeneratedState, generatedState } from "./generated-side.js";
export { pinnedChains } from "./pinned-chains.js";
export { summarizeDiff } from "./summary.js";
