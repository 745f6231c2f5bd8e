/**
 * The restore-text sink: a service port's writers print into it, and it hands back the port's
 * block of `iptables-restore` text per payload section (what the full-sync payload joins and the
 * generator and the incremental engine remember).
 *
 * @module
 */
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import type { ServicePortText } from "./block.js";
import { printRestoreLine } from "./restore-printer.js";

/**
 * Collects one service port's rules as restore text; {@link RestoreTextSink.take} returns the
 * block and starts the next. One sink serves every port of a generation.
 *
 * @example
 * const sink = new RestoreTextSink();
 * writePort(port, ctx, sink);
 * sink.take().natShared // "-A KUBE-SERVICES -m comment --comment \"ns/web:http cluster IP\" …\n"
 */
export class RestoreTextSink implements PortRuleSink {
  // Lines per section, each section joined once into one flat string per port: a chain of
  // `+=` would leave trees of small strings that every later join has to walk again.
  #filter: string[] = [];
  #shared: string[] = [];
  #declarations: string[] = [];
  #rules: string[] = [];
  #chains: string[] = [];

  /** A filter rule. */
  filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#filter.push(printRestoreLine(shape, chain, values));
  }

  /** A rule in a shared nat chain. */
  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#shared.push(printRestoreLine(shape, chain, values));
  }

  /** One of the port's own nat chains. */
  chain(name: string): void {
    this.#chains.push(name);
    this.#declarations.push(`:${name} - [0:0]\n`);
  }

  /** A rule in one of the port's own chains. */
  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#rules.push(printRestoreLine(shape, chain, values));
  }

  /** The block written since the last call. */
  take(): ServicePortText {
    const block: ServicePortText = {
      filter: this.#filter.join(""),
      natShared: this.#shared.join(""),
      natChains: this.#chains,
      natDeclarations: this.#declarations.join(""),
      natChainRules: this.#rules.join(""),
    };
    this.#filter = [];
    this.#shared = [];
    this.#declarations = [];
    this.#rules = [];
    this.#chains = [];
    return block;
  }
}
