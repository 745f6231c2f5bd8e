/**
 * A generator that remembers each service port's text between full generations, for callers
 * that regenerate the whole payload again and again (a controller's periodic resync, a test
 * suite sweeping configurations): an unchanged service port is not rebuilt or re-printed, so a
 * resync costs about one join of the remembered blocks.
 *
 * @module
 */
import type { ClusterModel, ServicePort } from "../model/types.js";
import type { ServicePortText } from "./block.js";
import { createContext, type GenerationContext } from "./context.js";
import { joinPayload } from "./restore-text.js";
import { type GenerateOptions, sortServicePorts } from "./rules.js";
import { buildServicePortText } from "./service-port.js";

/** A stateful generator of full payloads; see {@link createGenerator}. */
export interface Generator {
  /**
   * The payload of a full sync of `model` as `iptables-restore` input: the same bytes as
   * `generateRestoreText(model, options)`.
   */
  restoreText(model: ClusterModel): string;
}

/** What one service port's block was built from, besides the generation context. */
interface Remembered {
  readonly fingerprint: string;
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
 * A service port counts as unchanged when it is the same object as last time (models are
 * immutable, as their `readonly` types say: a changed port is a new object) or, for a model
 * rebuilt from scratch, when it has the same content (its JSON). Only the blocks of the last
 * call are kept, so memory stays proportional to one payload.
 *
 * @example
 * const generator = createGenerator();
 * generator.restoreText(model);     // builds every block
 * generator.restoreText(model);     // joins the remembered blocks
 */
export function createGenerator(options: GenerateOptions = {}): Generator {
  let key = "";
  let byObject = new WeakMap<ServicePort, Remembered>();
  let byFingerprint = new Map<string, Remembered>();
  // The last model's port list and its generation order.
  let lastPorts: readonly ServicePort[] | null = null;
  let lastOrder: ServicePort[] = [];

  return {
    restoreText(model) {
      const ctx = createContext(model, options.traits);
      const ctxKey = contextKey(ctx);
      if (ctxKey !== key) {
        key = ctxKey;
        byObject = new WeakMap();
        byFingerprint = new Map();
      }
      if (model.servicePorts !== lastPorts) {
        lastPorts = model.servicePorts;
        lastOrder = sortServicePorts(model.servicePorts);
      }
      const previous = byFingerprint;
      const current = new Map<string, Remembered>();
      const blockOf = (port: ServicePort): ServicePortText => {
        let entry = byObject.get(port);
        if (entry === undefined) {
          const fingerprint = JSON.stringify(port);
          entry = previous.get(fingerprint) ?? { fingerprint, text: buildServicePortText(port, ctx) };
          byObject.set(port, entry);
        }
        current.set(entry.fingerprint, entry);
        return entry.text;
      };
      const text = joinPayload(ctx, lastOrder, blockOf, options);
      byFingerprint = current;
      return text;
    },
  };
}
