/**
 * The one place a service port becomes rules: its strings are checked, it is planned, and the
 * profile's writer set writes the plan to a sink. Every output (restore text, rules, save text,
 * the generator's and the incremental engine's blocks) goes through here.
 *
 * @module
 */
import type { ServicePort } from "../../model/types.js";
import { planServicePort } from "../../plan/service-port-plan.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";
import { checkWritablePort } from "../writable.js";
import { writeLegacyServicePort } from "../writers/legacy/index.js";
import { writeServicePort } from "../writers/service-port.js";
import type { PortWriter } from "../writers/types.js";
import type { ServicePortRules, ServicePortText } from "./block.js";
import { RestoreTextSink } from "./restore-sink.js";
import { RuleBlockSink } from "./rules-sink.js";

/**
 * The writer set of the context's layout: KUBE-EXT (1.24+) or KUBE-XLB (≤ 1.23).
 *
 * @example
 * portWriterOf(createContext(model)) === writeServicePort // for every profile but v1.22
 */
export function portWriterOf(ctx: GenerationContext): PortWriter {
  return ctx.traits.externalChains === "xlb" ? writeLegacyServicePort : writeServicePort;
}

/**
 * Whether the context's writer set declares each of a port's chains once: the KUBE-EXT writers
 * do (`declarePortChains`); the ≤ 1.23 writers declare a load balancer's KUBE-FW chain once per
 * ingress IP, as kube-proxy 1.22 wrote it.
 *
 * @example
 * declaresChainsOnce(createContext(model)) // true for every profile but v1.22
 */
export function declaresChainsOnce(ctx: GenerationContext): boolean {
  return portWriterOf(ctx) === writeServicePort;
}

/**
 * Writes one service port's rules to `sink`.
 *
 * @throws KubeIptablesError (`UNSAFE_TEXT`) when a string of the port that its rules print holds
 *   `\n`, `\r` or NUL (checked once, here, whatever the sink).
 * @example
 * const sink = new RestoreTextSink();
 * writePort(port, createContext(model), sink);
 * sink.take().natChains // ["KUBE-SVC-…", "KUBE-SEP-…"]
 */
export function writePort(port: ServicePort, ctx: GenerationContext, sink: PortRuleSink): void {
  checkWritablePort(port);
  portWriterOf(ctx)(planServicePort(port, ctx.node, ctx.config), ctx, sink);
}

/**
 * One service port's block of restore text.
 *
 * @param sink - A sink to reuse across ports (one is made otherwise).
 * @example
 * servicePortText(port, createContext(model)).natShared
 * // "-A KUBE-SERVICES -m comment --comment \"ns/web:http cluster IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-SVC-…\n"
 */
export function servicePortText(
  port: ServicePort,
  ctx: GenerationContext,
  sink: RestoreTextSink = new RestoreTextSink(),
): ServicePortText {
  return writeAndTake(port, ctx, sink);
}

/**
 * One service port's block of rules.
 *
 * @param sink - A sink to reuse across ports (one is made otherwise).
 * @example
 * servicePortRules(port, createContext(model)).natShared[0]?.chain // "KUBE-SERVICES"
 */
export function servicePortRules(
  port: ServicePort,
  ctx: GenerationContext,
  sink: RuleBlockSink = new RuleBlockSink(),
): ServicePortRules {
  return writeAndTake(port, ctx, sink);
}

/** Writes one port to a block sink and takes the block; a port refused half-way leaves the sink empty. */
function writeAndTake<T>(port: ServicePort, ctx: GenerationContext, sink: PortRuleSink & { take(): T }): T {
  try {
    writePort(port, ctx, sink);
  } catch (error) {
    sink.take();
    throw error;
  }
  return sink.take();
}
