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
  ruleTarget,
  type Table,
} from "../../ir/types.js";
import { DEFAULT_PROFILE, PROFILES, type ProfileTraits } from "../../model/profiles.js";
import type { ClusterModel, ServicePort } from "../../model/types.js";
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
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import { checkWritable } from "../unsafe-text.js";
import type { ServicePortRules } from "./block.js";
import { ruleOf } from "./rules-sink.js";
import { declaresChainsOnce, writePort } from "./write-port.js";

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

/** A rule's chain and its target (how a kube-proxy jump is recognised). */
function jumpKey(rule: Rule): string {
  return `${rule.chain} ${ruleTarget(rule.args) ?? ""}`;
}

/** Whether an entry is a plain append (what a state keeps of a payload). */
function isAppend(entry: Entry): entry is Rule {
  return entry.kind === "rule" && entry.op === "-A";
}

/**
 * Collects the payload's entry lists: the fixed head, then each service port's rules as its
 * writers write them (it is their sink) or as a remembered block, then the fixed tail. Rules go
 * straight into the table's lists, so that no per-port array is made and a 10k-service payload's
 * ~320,000 rules are each pushed once.
 */
class PayloadBuilder implements PortRuleSink {
  readonly filterChains: ChainDeclaration[];
  readonly filterEntries: Entry[];
  readonly natEntries: Entry[];
  /** The fixed nat chains, then the service ports' chains. */
  readonly natChains: string[];
  /** The current port's rules in its own chains, which follow its shared-chain rules. */
  readonly #pending: Rule[] = [];
  /**
   * How many of {@link natChains} may repeat a name (the fixed chains; all of them when the
   * writers may declare a port's chain twice); the service ports' own chains follow.
   */
  readonly #fixedNatChains: number;

  /**
   * @param jumps - For a state: the jumps from the built-in chains, which come first, and only
   *   the head's appends are kept (a payload's other commands leave nothing in the kernel).
   */
  constructor(
    ctx: GenerationContext,
    jumps: { readonly filter: Rule[]; readonly nat: Rule[] } | null = null,
  ) {
    const head = payloadHead(ctx);
    this.filterChains = head.filterChains;
    this.natChains = head.natChains.map((d) => d.name);
    this.#fixedNatChains = declaresChainsOnce(ctx) ? this.natChains.length : Number.POSITIVE_INFINITY;
    this.filterEntries =
      jumps === null ? head.filterRules : [...jumps.filter, ...head.filterRules.filter(isAppend)];
    this.natEntries = jumps === null ? head.natRules : [...jumps.nat, ...head.natRules.filter(isAppend)];
  }

  filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.filterEntries.push(ruleOf(shape, chain, values));
  }

  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.natEntries.push(ruleOf(shape, chain, values));
  }

  chain(name: string): void {
    this.natChains.push(name);
  }

  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#pending.push(ruleOf(shape, chain, values));
  }

  /** Writes one service port (see `writePort`) and files its rules. */
  write(port: ServicePort, ctx: GenerationContext): void {
    writePort(port, ctx, this);
    const pending = this.#pending;
    const natEntries = this.natEntries;
    for (let i = 0; i < pending.length; i++) natEntries.push(pending[i] as Rule);
    pending.length = 0;
  }

  /** Files a remembered block. */
  add(block: ServicePortRules): void {
    // Indexed loops: these run once per rule of the payload (~320,000 for 10k services).
    const { filterEntries, natEntries, natChains } = this;
    const { filter, natShared, natChainRules } = block;
    for (let i = 0; i < filter.length; i++) filterEntries.push(filter[i] as Rule);
    for (let i = 0; i < natShared.length; i++) natEntries.push(natShared[i] as Rule);
    for (let i = 0; i < natChainRules.length; i++) natEntries.push(natChainRules[i] as Rule);
    for (let i = 0; i < block.natChains.length; i++) natChains.push(block.natChains[i] as string);
  }

  /** The fixed tail, with the stale chains among `existingChains`. */
  tail(ctx: GenerationContext, existingChains: readonly string[]): PayloadTail {
    let active: Set<string> | null = null;
    return payloadTail(ctx, existingChains, (chain) => {
      active ??= new Set(this.natChains);
      return active.has(chain);
    });
  }

  /** The payload. */
  payload(ctx: GenerationContext, existingChains: readonly string[]): RuleSet {
    const { filterChains, filterEntries, natEntries } = this;
    const tail = this.tail(ctx, existingChains);
    const natDecls = this.natChains.map(userChain);
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

  /**
   * The state after the jumps (given to the constructor) are ensured and the payload is
   * restored on an empty kernel: what {@link stateAfterFullSync} makes of {@link payload}, built
   * without the payload (its `-A` rules are the state's, in the same order).
   */
  state(ctx: GenerationContext, existingChains: readonly string[]): RuleSet {
    const tail = this.tail(ctx, existingChains);
    // The stale chains are declared and deleted (-X): the kernel is left without them.
    const deleted = new Set<string>();
    for (const decl of tail.natChains) deleted.add(decl.name);
    const targets = jumpTargetChains(ctx.traits);
    // The head's appends were kept by the constructor, and the writers' rules are appends.
    const { filterEntries, natEntries } = this;
    for (const rule of tail.filterRules) if (isAppend(rule)) filterEntries.push(rule);
    for (const entry of tail.natEntries) if (isAppend(entry)) natEntries.push(entry);
    const filterNames = this.filterChains.map((d) => d.name);
    return {
      family: ctx.family,
      tables: [
        {
          name: "filter",
          chains: stateChains("filter", targets.filter, filterNames, filterNames.length, deleted),
          entries: filterEntries,
        },
        {
          name: "nat",
          chains: stateChains("nat", targets.nat, this.natChains, this.#fixedNatChains, deleted),
          entries: natEntries,
        },
      ],
    };
  }
}

/**
 * A state table's chains: the built-ins (policy ACCEPT, zero counters), then the jump targets
 * and the declared chains in that order, each once, without the deleted ones.
 *
 * @param fixed - How many of `declared` come first and may repeat a target or be deleted; the
 *   rest are the service ports' own chains (their names hash the port), each declared once and
 *   active, so they are taken without a set lookup (~0.5 µs each at 110,000 chains).
 */
function stateChains(
  table: "filter" | "nat",
  targets: readonly string[],
  declared: readonly string[],
  fixed: number,
  deleted: ReadonlySet<string>,
): ChainDeclaration[] {
  const chains: ChainDeclaration[] = (BUILTIN_CHAINS[table] ?? []).map((name) => ({
    name,
    policy: "ACCEPT",
    counters: { packets: 0n, bytes: 0n },
  }));
  const seen = new Set<string>();
  const keep = (name: string): void => {
    if (seen.has(name) || deleted.has(name)) return;
    seen.add(name);
    chains.push(userChain(name));
  };
  for (let i = 0; i < targets.length; i++) keep(targets[i] as string);
  const repeatable = Math.min(fixed, declared.length);
  for (let i = 0; i < repeatable; i++) keep(declared[i] as string);
  for (let i = repeatable; i < declared.length; i++) chains.push(userChain(declared[i] as string));
  return chains;
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
  return builder.payload(ctx, existingChains);
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
  for (const port of sortServicePorts(model.servicePorts)) builder.write(port, ctx);
  return builder.payload(ctx, options.existingChains ?? []);
}

/**
 * The kernel state after kube-proxy's first full sync on an empty kernel: built-in chains, the
 * jumps into kube-proxy's chains, and the payload. This is what `formatSave` prints as
 * `iptables-save` would: `stateAfterFullSync(generateRules(model, options))`, built in one pass.
 *
 * @example
 * formatSave(generateState(model)).startsWith("*filter\n:INPUT ACCEPT [0:0]\n") // true
 */
export function generateState(model: ClusterModel, options: GenerateOptions = {}): RuleSet {
  const ctx = createContext(model, options.traits);
  const builder = new PayloadBuilder(ctx, stateJumps(ctx.traits));
  for (const port of sortServicePorts(model.servicePorts)) builder.write(port, ctx);
  return builder.state(ctx, options.existingChains ?? []);
}

/** The jumps from the built-in chains that a state starts each table with (last ensured first). */
function stateJumps(traits: ProfileTraits): { filter: Rule[]; nat: Rule[] } {
  const jumps = builtinJumps(traits);
  const out = { filter: [] as Rule[], nat: [] as Rule[] };
  for (let i = jumps.length - 1; i >= 0; i--) {
    const jump = jumps[i];
    if (jump !== undefined && (jump.table === "filter" || jump.table === "nat"))
      out[jump.table].push(jump.rule);
  }
  return out;
}

/**
 * The state an empty kernel holds after the jumps are ensured and `payload` is restored.
 *
 * kube-proxy checks each of its jumps (`iptables -C`) and inserts only the missing ones: a
 * payload never holds them, but rule lines read without their tables (`iptables -t nat -S`, a
 * grep of a dump) often do, and a built-in chain that already jumps to a kube-proxy chain keeps
 * that rule where it is, not a second copy in front of the rules before it.
 *
 * @param traits the profile whose jumps and ensured chains apply (default v1.30).
 */
export function stateAfterFullSync(
  payload: RuleSet,
  traits: ProfileTraits = PROFILES[DEFAULT_PROFILE],
): RuleSet {
  const jumps = stateJumps(traits);
  const targets = jumpTargetChains(traits);
  const tables: Table[] = [];
  for (const name of ["filter", "nat"] as const) {
    const table = payload.tables.find((t) => t.name === name);
    const deleted = new Set<string>();
    for (const entry of table?.entries ?? [])
      if (entry.kind === "chain" && entry.op === "-X") deleted.add(entry.chain);
    const declared = (table?.chains ?? []).map((d) => d.name);
    const appends = (table?.entries ?? []).filter(isAppend);
    const present = new Set<string>();
    const builtins = BUILTIN_CHAINS[name] ?? [];
    for (const rule of appends) if (builtins.includes(rule.chain)) present.add(jumpKey(rule));
    const entries: Rule[] = jumps[name].filter((jump) => !present.has(jumpKey(jump)));
    for (const rule of appends) entries.push(rule);
    tables.push({
      name,
      chains: stateChains(name, targets[name], declared, declared.length, deleted),
      entries,
    });
  }
  return { family: payload.family, tables };
}
