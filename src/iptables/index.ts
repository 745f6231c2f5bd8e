/**
 * The iptables stage's public API for the other stages (diff, sync, trace, graph, the CLI and
 * the package entries): read a node's text (restore or save form, or bare rule lines), the one
 * canonicalizer, the restore / save / JSON printers, and the kernel's state after a restore.
 * Other stages import from here, never from the files below it (test/architecture.test.ts).
 *
 * @example
 * import { formatSave, parseRulesOrThrow } from "./index.js";
 * formatSave(parseRulesOrThrow("*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n"));
 *
 * @module
 */

// What the incremental engine and the diff build on: the writers' outputs, the context, the fixed chains.
export { builtinJumps, jumpTargetChains, NODEPORTS_COMMENT, nodePortsTailRules } from "./base-chains.js";
// The canonicalizer: one rule's argv → the structure the kernel stores and iptables-save prints.
export { canonicalAddress, formatHost, parseHostBytes } from "./canonical/address.js";
export {
  type CanonicalizeOptions,
  type CanonicalizeResult,
  canonicalizeRule,
  canonicalizeRuleCached,
  canonicalizeRuleOnce,
  formatCanonicalRule,
  tryCanonicalizeRule,
} from "./canonical/canonicalize.js";
export { createContext, type GenerationContext, LARGE_CLUSTER_ENDPOINTS } from "./context.js";
export type { ServicePortRules, ServicePortText } from "./output/block.js";
export { RestoreTextSink } from "./output/restore-sink.js";
export { joinPayload } from "./output/restore-text.js";
export { assemblePayload, generateState, payloadHead, stateAfterFullSync } from "./output/rules.js";
export {
  generateIndexedSaveText,
  generateSaveText,
  type IndexedSaveText,
  type SaveTextChain,
  SaveTextChains,
} from "./output/save-text.js";
export { servicePortRules, servicePortText } from "./output/write-port.js";
export {
  appendChainsOf,
  type ExpectedMatches,
  entryOf,
  expectedMatchesOf,
  type FoundMatches,
  isDeferredTable,
  parsedChainOf,
} from "./parse/deferred.js";
// Reading text: which form it is, the restore / save parser, bare rule lines.
export { detectTextForm, pastedTextProblem, type TextForm } from "./parse/detect.js";
export { type HeaderlessRead, isHeaderlessRules, readHeaderlessRules } from "./parse/headerless.js";
export {
  type ExpectedText,
  type ParseOptions,
  type ParseResult,
  parseRules,
  parseRulesOrThrow,
} from "./parse/parse.js";
export { tokenizesTo } from "./parse/tokenize.js";
// Printing: restore input, save output, JSON, and the order iptables-save lists chains in.
export { canonicalSort } from "./print/canonical-sort.js";
export { formatJson } from "./print/json.js";
export { formatEntry, formatRestore, quoteArgument } from "./print/restore.js";
export { type FormatSaveOptions, formatSave } from "./print/save.js";
export { samePort } from "./same-port.js";
// Rule shapes: a line of one of kube-proxy's shapes in save form, straight from its template.
export { matchSaveLine } from "./shape/match.js";
export type { RuleShape } from "./shape/types.js";
// The kernel's tables after iptables-restore applies a payload.
export {
  type ApplyRestoreOptions,
  type ApplyRestoreResult,
  applyRestore,
  sourceLinesOf,
  type TableSourceLines,
  tryApplyRestore,
} from "./state.js";
