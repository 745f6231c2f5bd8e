/**
 * Model → RuleSet: the payload kube-proxy hands to `iptables-restore --noflush` on a full sync
 * (§3 of the spec), and the state the kernel then holds.
 *
 * @module
 */

import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type Entry,
  type Rule,
  type RuleSet,
  type Table,
} from "../../ir/types.js";
import { DEFAULT_PROFILE, PROFILES, type ProfileTraits } from "../../model/profiles.js";
import type { ClusterModel } from "../../model/types.js";
import { isServiceChain } from "../../naming/kube-chains.js";
import { sortServicePorts } from "../../plan/service-port-order.js";
import {
  builtinJumps,
  filterChains,
  filterHeadRules,
  forwardRules,
  jumpTargetChains,
  NAT_FIXED_CHAINS,
  natHeadRules,
  nodePortsTailRules,
} from "../base-chains.js";
import { createContext, type GenerationContext } from "../context.js";
import { checkWritable } from "../unsafe-text.js";
import type { ServicePortRules } from "./block.js";
import { RuleBlockSink } from "./rules-sink.js";
import { servicePortRules } from "./write-port.js";

/**
 * Options of {@link generateRules}.
 *
 * @example
 * // kube-proxy's full sync deletes the per-service chains it finds in the kernel and no longer uses:
 * generateRules(model, { existingChains: ["KUBE-SVC-OLDCHAINNAME1234"] });
 */
export interface GenerateOptions {
  /**
   * The chains the kernel's nat table holds now (from `iptables-save -t nat`); per-service chains
   * among them that no current service port uses are declared and deleted (`-X`).
   */
  readonly existingChains?: readonly string[];
  /**
   * Profile traits to override: host facts (an nfacct counter that could not be created) or the
   * unpadded mark (`paddedMark: false`) that upstream unit tests inject.
   */
  readonly traits?: Partial<ProfileTraits>;
}

const userChain = (name: string): ChainDeclaration => ({ name, policy: null });

/** The fixed start of a payload, before any service port's rules. */
export interface PayloadHead {
  /** The filter table's declarations (all of them: service ports add no filter chains). */
  readonly filterChains: ChainDeclaration[];
  /** The filter rules before the service ports'. */
  readonly filterRules: Rule[];
  /** The nat declarations before the service ports' chains. */
  readonly natChains: ChainDeclaration[];
  /** The nat rules before the service ports'. */
  readonly natRules: Rule[];
}

/**
 * The fixed start of the payload. Shared by {@link generateRules} and `generateRestoreText` so
 * that the two cannot disagree about it.
 */
export function payloadHead(ctx: GenerationContext): PayloadHead {
  return {
    filterChains: filterChains(ctx).map(userChain),
    filterRules: filterHeadRules(ctx),
    natChains: NAT_FIXED_CHAINS.map(userChain),
    natRules: natHeadRules(ctx),
  };
}

/** The fixed end of a payload, after every service port's rules. */
export interface PayloadTail {
  /** The filter rules after the service ports' (the FORWARD-side chains). */
  readonly filterRules: Rule[];
  /** nat declarations after the service ports' chains: the stale chains to delete. */
  readonly natChains: ChainDeclaration[];
  /** nat entries after the service ports' rules: `-X` of the stale chains, then the nodeports tail. */
  readonly natEntries: Entry[];
}

/**
 * The fixed end of the payload. `isActive` says whether a chain is declared by the payload so
 * far; it is asked only when `existingChains` is non-empty, so a caller can build its set of
 * active chains lazily (only a caller that passes the kernel's chains pays for it).
 */
export function payloadTail(
  ctx: GenerationContext,
  existingChains: readonly string[],
  isActive: (chain: string) => boolean,
): PayloadTail {
  const natChains: ChainDeclaration[] = [];
  const natEntries: Entry[] = [];
  if (existingChains.length > 0) {
    // A dump that declares a chain twice names it twice: it is deleted once.
    const stale = [...new Set(existingChains)]
      .filter((c) => isServiceChain(c, ctx.traits) && !isActive(c))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const chain of stale) {
      checkWritable(chain, `existingChains[${existingChains.indexOf(chain)}]`);
      natChains.push(userChain(chain));
      natEntries.push({ kind: "chain", op: "-X", chain });
    }
  }
  for (const rule of nodePortsTailRules(ctx)) natEntries.push(rule);
  return { filterRules: forwardRules(ctx), natChains, natEntries };
}

/**
 * Collects per-service-port blocks into the payload's entry lists. Blocks are added as they are
 * built, so that their own small arrays die young instead of surviving to a final assembly.
 */
class PayloadBuilder {
  readonly filterChains: ChainDeclaration[];
  readonly filterEntries: Entry[];
  readonly natEntries: Entry[];
  readonly natDecls: ChainDeclaration[];

  constructor(ctx: GenerationContext) {
    const head = payloadHead(ctx);
    this.filterChains = head.filterChains;
    this.filterEntries = head.filterRules;
    this.natEntries = head.natRules;
    this.natDecls = head.natChains;
  }

  add(block: ServicePortRules): void {
    // Indexed loops: these run once per rule of the payload (~320,000 for 10k services).
    const { filterEntries, natEntries, natDecls } = this;
    const { filter, natShared, natChainRules, natChains } = block;
    for (let i = 0; i < filter.length; i++) filterEntries.push(filter[i] as Rule);
    for (let i = 0; i < natShared.length; i++) natEntries.push(natShared[i] as Rule);
    for (let i = 0; i < natChainRules.length; i++) natEntries.push(natChainRules[i] as Rule);
    for (let i = 0; i < natChains.length; i++) natDecls.push(userChain(natChains[i] as string));
  }

  finish(ctx: GenerationContext, existingChains: readonly string[]): RuleSet {
    const { filterChains, filterEntries, natEntries, natDecls } = this;
    let active: Set<string> | null = null;
    const tail = payloadTail(ctx, existingChains, (chain) => {
      active ??= new Set(natDecls.map((d) => d.name));
      return active.has(chain);
    });
    for (const rule of tail.filterRules) filterEntries.push(rule);
    for (const decl of tail.natChains) natDecls.push(decl);
    for (const entry of tail.natEntries) natEntries.push(entry);
    return {
      family: ctx.family,
      tables: [
        { name: "filter", chains: filterChains, entries: filterEntries },
        { name: "nat", chains: natDecls, entries: natEntries },
      ],
    };
  }
}

/**
 * Assembles the payload from per-service-port blocks already in generation order. Exposed so
 * that the incremental engine can reuse memoized blocks.
 */
export function assemblePayload(
  ctx: GenerationContext,
  blocks: readonly ServicePortRules[],
  existingChains: readonly string[] = [],
): RuleSet {
  const builder = new PayloadBuilder(ctx);
  for (const block of blocks) builder.add(block);
  return builder.finish(ctx, existingChains);
}

/**
 * The payload kube-proxy writes on a full sync of this model: its filter and nat chains, in its
 * order, as `formatRestore` prints them.
 *
 * @example
 * formatRestore(generateRules(model)).startsWith("*filter\n:KUBE-SERVICES - [0:0]\n") // true
 */
export function generateRules(model: ClusterModel, options: GenerateOptions = {}): RuleSet {
  const ctx = createContext(model, options.traits);
  const builder = new PayloadBuilder(ctx);
  const sink = new RuleBlockSink();
  for (const port of sortServicePorts(model.servicePorts)) builder.add(servicePortRules(port, ctx, sink));
  return builder.finish(ctx, options.existingChains ?? []);
}

/**
 * The kernel state after kube-proxy's first full sync on an empty kernel: built-in chains, the
 * jumps into kube-proxy's chains, and the payload. This is what `formatSave` prints as
 * `iptables-save` would.
 *
 * @example
 * formatSave(generateState(model)).startsWith("*filter\n:INPUT ACCEPT [0:0]\n") // true
 */
export function generateState(model: ClusterModel, options: GenerateOptions = {}): RuleSet {
  const traits = createContext(model, options.traits).traits;
  return stateAfterFullSync(generateRules(model, options), traits);
}

/**
 * The state an empty kernel holds after the jumps are ensured and `payload` is restored.
 *
 * @param traits the profile whose jumps and ensured chains apply (default v1.30).
 */
export function stateAfterFullSync(
  payload: RuleSet,
  traits: ProfileTraits = PROFILES[DEFAULT_PROFILE],
): RuleSet {
  const jumps = builtinJumps(traits);
  const targets = jumpTargetChains(traits);
  const tables: Table[] = [];
  for (const name of ["filter", "nat"] as const) {
    const table = payload.tables.find((t) => t.name === name);
    const deleted = new Set<string>();
    for (const entry of table?.entries ?? [])
      if (entry.kind === "chain" && entry.op === "-X") deleted.add(entry.chain);
    const chains: ChainDeclaration[] = (BUILTIN_CHAINS[name] ?? []).map((c) => ({
      name: c,
      policy: "ACCEPT",
      counters: { packets: 0n, bytes: 0n },
    }));
    const seen = new Set<string>();
    for (const c of [...targets[name], ...(table?.chains ?? []).map((d) => d.name)]) {
      if (seen.has(c) || deleted.has(c)) continue;
      seen.add(c);
      chains.push(userChain(c));
    }
    const entries: Rule[] = [];
    for (let i = jumps.length - 1; i >= 0; i--) {
      const jump = jumps[i];
      if (jump !== undefined && jump.table === name) entries.push(jump.rule);
    }
    for (const entry of table?.entries ?? [])
      if (entry.kind === "rule" && entry.op === "-A") entries.push(entry);
    tables.push({ name, chains, entries });
  }
  return { family: payload.family, tables };
}
