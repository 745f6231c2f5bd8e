/**
 * A generator that remembers each service port's text between full generations, for callers
 * that regenerate the whole payload again and again (a controller's periodic resync, a test
 * suite sweeping configurations): an unchanged service port is not rebuilt or re-printed, and a
 * payload whose every port is unchanged is not joined again.
 *
 * @module
 */
import type { ClusterModel, ServicePort } from "../../model/types.js";
import { servicePortName } from "../../naming/chain-names.js";
import { sortServicePorts } from "../../plan/service-port-order.js";
import { createContext, type GenerationContext } from "../context.js";
import { samePort } from "../same-port.js";
import type { ServicePortText } from "./block.js";
import { RestoreTextSink } from "./restore-sink.js";
import { joinPayload } from "./restore-text.js";
import type { GenerateOptions } from "./rules.js";
import { servicePortText } from "./write-port.js";

/**
 * A stateful generator of full payloads; see {@link createGenerator}.
 *
 * @example
 * const generator: Generator = createGenerator();
 * generator.restoreText(model);   // builds every service port's block
 * generator.restoreText(model2);  // reuses the blocks of unchanged ports
 */
export interface Generator {
  /**
   * The payload of a full sync of `model` as `iptables-restore` input: the same bytes as
   * `generateRestoreText(model, options)`.
   */
  restoreText(model: ClusterModel): string;
}

/** What the last call printed, by the index of each port in its model. */
interface LastCall {
  /** Everything the blocks depend on besides their ports (see {@link contextKey}). */
  readonly key: string;
  /** The model's ports, in model order. */
  readonly ports: readonly ServicePort[];
  /** The block of each of them (same index). */
  readonly blocks: readonly ServicePortText[];
  /** The generation order, as indices into `ports`. */
  readonly order: readonly number[];
  /** The payload. */
  readonly text: string;
}

/**
 * Everything a block depends on besides its service port: the node's settings, the profile's
 * traits and large-cluster mode. When it changes, no remembered block is valid.
 */
function contextKey(ctx: GenerationContext): string {
  return JSON.stringify([ctx.config, ctx.traits, ctx.largeClusterMode]);
}

/** A port's identity: what its chain names and its place in the generation order derive from. */
function portId(port: ServicePort): string {
  return `${servicePortName(port.namespace, port.name, port.portName)}\u0000${port.protocol}`;
}

/** Whether two ports have the same identity (and so the same place in the generation order). */
function sameId(a: ServicePort, b: ServicePort): boolean {
  return (
    a.namespace === b.namespace && a.name === b.name && a.portName === b.portName && a.protocol === b.protocol
  );
}

/** The generation order of `ports`, as indices into it. */
function orderOf(ports: readonly ServicePort[]): number[] {
  const index = new Map<ServicePort, number>();
  for (let i = 0; i < ports.length; i++) index.set(ports[i] as ServicePort, i);
  return sortServicePorts(ports).map((port) => index.get(port) as number);
}

/**
 * Creates a generator that reuses the text of unchanged service ports across calls.
 *
 * A port is unchanged when it is the object the block was built from or holds the same data (a
 * model rebuilt from the same objects); models are immutable, as their `readonly` types say.
 * Ports are matched by position first (a rebuilt model lists them in the same order) and by
 * identity (`ns/name:port` and protocol) otherwise. When every port matched its position, the
 * generation order and the payload are those of the last call, which is returned as it was.
 * Only the last call is kept (its blocks and its payload), so memory stays proportional to one
 * payload.
 *
 * @example
 * const generator = createGenerator();
 * generator.restoreText(model);     // builds every block
 * generator.restoreText(model);     // the same payload, neither rebuilt nor joined
 */
export function createGenerator(options: GenerateOptions = {}): Generator {
  let last: LastCall | null = null;
  const sink = new RestoreTextSink();

  return {
    restoreText(model) {
      const ctx = createContext(model, options.traits);
      const key = contextKey(ctx);
      const before = last !== null && last.key === key ? last : null;
      const oldPorts = before?.ports ?? [];
      const ports = model.servicePorts;
      // A block per port, remembered or (undefined) still to build: blocks are built in
      // generation order, so that of two refused ports the first in that order is reported,
      // as a fresh generation reports it.
      const blocks = new Array<ServicePortText | undefined>(ports.length);
      let unchanged = before !== null && ports.length === oldPorts.length;
      let sameOrder = unchanged;
      let byId: Map<string, number> | null = null;
      for (let i = 0; i < ports.length; i++) {
        const port = ports[i] as ServicePort;
        const old = oldPorts[i];
        if (old !== undefined && samePort(old, port)) {
          blocks[i] = before?.blocks[i];
          continue;
        }
        unchanged = false;
        if (old === undefined || !sameId(old, port)) sameOrder = false;
        if (before === null) continue;
        if (byId === null) {
          byId = new Map();
          for (let j = 0; j < oldPorts.length; j++) byId.set(portId(oldPorts[j] as ServicePort), j);
        }
        const j = byId.get(portId(port));
        if (j !== undefined && samePort(oldPorts[j] as ServicePort, port)) blocks[i] = before.blocks[j];
      }
      if (unchanged && before !== null) {
        last = { ...before, ports };
        return before.text;
      }
      const order = sameOrder && before !== null ? before.order : orderOf(ports);
      const text = joinPayload(
        ctx,
        order,
        (i) => {
          let block = blocks[i];
          if (block === undefined) {
            block = servicePortText(ports[i] as ServicePort, ctx, sink);
            blocks[i] = block;
          }
          return block;
        },
        options,
      );
      last = { key, ports, blocks: blocks as ServicePortText[], order, text };
      return text;
    },
  };
}
