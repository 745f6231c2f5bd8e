/**
 * The offline packet tracer: walk a kernel state (generated or parsed from `iptables-save`)
 * for one packet and get every path it can take, with exact probabilities.
 *
 * @example
 * import { traceRules } from "./trace/index.js";
 * const result = traceRules(generateState(model), {
 *   source: "10.244.0.5", sourcePort: 40000, destination: "10.96.0.10", destinationPort: 80,
 *   protocol: "tcp", from: "pod", inInterface: "cbr0",
 * }, { nodeAddresses: ["192.168.0.2"] });
 * result.outcomes.map((o) => o.summary)
 * // ["default/web:http → 10.244.1.2:8080  p=0.333333333  no masquerade", …]
 *
 * @module
 */
export type { ChainIndex } from "./chain-index.js";
export type { CompiledState } from "./compile.js";
export { compileState } from "./compile.js";
export { conditionText, describeConditions } from "./conditions.js";
export { formatTraceText, traceToJson } from "./format-trace.js";
export type { Fraction } from "./fraction.js";
export {
  add,
  equals,
  formatFraction,
  fraction,
  multiply,
  ONE,
  STATISTIC_SCALE,
  statisticShare,
  ZERO,
} from "./fraction.js";
export { formatSocket, formatSourceNat, outcomeHead, outcomeSummary, outcomeTail } from "./outcome-text.js";
export { TraceInputError, traceRules } from "./trace.js";
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
} from "./types.js";
