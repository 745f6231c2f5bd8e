/**
 * A generator that remembers each service port's text between full generations, for callers
 * that regenerate the whole payload again and again (a controller's periodic resync, a test
 * suite sweeping configurations): an unchanged service port is not rebuilt or re-printed, so a
 * resync costs about one join of the remembered blocks.
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

/** A block and the port it was built from. */
interface Remembered {
  readonly port: ServicePort;
  readonly text: ServicePortText;
}

/**
 * Everything a block depends on besides its service port: the node's settings, the profile's
 * traits and large-cluster mode. When it changes, no remembered block is valid.
 */
function contextKey(ctx: GenerationContext): string {
  return JSON.stringify([ctx.config, ctx.traits, ctx.largeClusterMode]);
}

/**
 * Creates a generator that reuses the text of unchanged service ports across calls.
 *
 * Blocks are remembered per service port (`ns/name:port` and protocol). A port is unchanged
 * when it is the object the block was built from or holds the same data (a model rebuilt from
 * the same objects); models are immutable, as their `readonly` types say. Only the blocks of
 * the last call are kept, so memory stays proportional to one payload.
 *
 * @example
 * const generator = createGenerator();
 * generator.restoreText(model);     // builds every block
 * generator.restoreText(model);     // joins the remembered blocks
 */
export function createGenerator(options: GenerateOptions = {}): Generator {
  let key = "";
  let remembered = new Map<string, Remembered>();
  // The last model's port list and its generation order.
  let lastPorts: readonly ServicePort[] | null = null;
  let lastOrder: ServicePort[] = [];
  const sink = new RestoreTextSink();

  return {
    restoreText(model) {
      const ctx = createContext(model, options.traits);
      const ctxKey = contextKey(ctx);
      const previous = ctxKey === key ? remembered : new Map<string, Remembered>();
      key = ctxKey;
      if (model.servicePorts !== lastPorts) {
        lastPorts = model.servicePorts;
        lastOrder = sortServicePorts(model.servicePorts);
      }
      const current = new Map<string, Remembered>();
      const blockOf = (port: ServicePort): ServicePortText => {
        const id = `${servicePortName(port.namespace, port.name, port.portName)}\u0000${port.protocol}`;
        let entry = previous.get(id);
        if (entry === undefined || !samePort(entry.port, port)) {
          entry = { port, text: servicePortText(port, ctx, sink) };
        }
        current.set(id, entry);
        return entry.text;
      };
      const text = joinPayload(ctx, lastOrder, blockOf, options);
      remembered = current;
      return text;
    },
  };
}
