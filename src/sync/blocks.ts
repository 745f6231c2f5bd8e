/**
 * One service port's memoized block: its restore text, and, when asked, its rules split the way
 * the incremental engine edits them (its slice of each shared chain, and each of its own chains
 * with a key to compare by); built once per change of the port or of large-cluster mode.
 *
 * @module
 */

import type { RuleList } from "../diff/edit-script.js";
import {
  type GenerationContext,
  RestoreTextSink,
  type RuleShape,
  type ServicePortRules,
  type ServicePortText,
  servicePortRules,
  servicePortText,
} from "../iptables/index.js";
import type { Rule } from "../ir/types.js";
import type { ServicePort } from "../model/types.js";
import { servicePortName } from "../naming/chain-names.js";

/**
 * The shared chains a service port has rules in, as slots: kube-proxy rewrites these in full on
 * every sync; the engine edits the port's slice of each.
 */
export const SHARED_CHAINS: readonly { readonly table: "filter" | "nat"; readonly chain: string }[] = [
  { table: "filter", chain: "KUBE-SERVICES" },
  { table: "filter", chain: "KUBE-EXTERNAL-SERVICES" },
  { table: "filter", chain: "KUBE-NODEPORTS" },
  { table: "filter", chain: "KUBE-PROXY-FIREWALL" },
  { table: "nat", chain: "KUBE-SERVICES" },
  { table: "nat", chain: "KUBE-NODEPORTS" },
];

/** The number of {@link SHARED_CHAINS}. */
export const SLOTS = 6;

/** One of the port's own chains: its rules and one key for the whole chain. */
export interface OwnChain {
  /** The rules (with their keys). */
  readonly list: RuleList;
  /** The rule keys joined: equal bodies have equal text. */
  readonly body: string;
}

/**
 * A service port with its memoized block. The text is built at once (a full sync joins it); the
 * rules, and the per-chain lists the delta compares, only when an update or a caller asks for
 * them: the first update of a 10,000-service cluster needs none of its 320,000 rules as objects.
 */
export class PortEntry {
  /** The port's rules in each shared chain, counted by slot. */
  readonly counts: readonly number[];
  readonly #ctx: GenerationContext;
  #rules: ServicePortRules | undefined;
  #shared: readonly RuleList[] | undefined;
  #chains: ReadonlyMap<string, OwnChain> | undefined;

  /**
   * @param id `ns/name:port` + NUL + protocol: unique per service port, and its sort key.
   * @param name `ns/name:port`.
   * @param port The port as the model holds it (equal data means equal rules, for one mode).
   * @param text The block as restore text.
   * @param counts The port's rules in each shared chain, by slot.
   */
  constructor(
    readonly id: string,
    readonly name: string,
    readonly port: ServicePort,
    readonly text: ServicePortText,
    ctx: GenerationContext,
    counts: readonly number[],
  ) {
    this.#ctx = ctx;
    this.counts = counts;
  }

  /** Whether the block was built in large-cluster mode. */
  get largeClusterMode(): boolean {
    return this.#ctx.largeClusterMode;
  }

  /** The block as rules, as `assemblePayload` takes it. */
  get rules(): ServicePortRules {
    // The same writers again, through the rules sink: only ports an update touches get here.
    if (this.#rules === undefined) this.#rules = servicePortRules(this.port, this.#ctx);
    return this.#rules;
  }

  /** The port's rules in each shared chain, by slot. */
  get shared(): readonly RuleList[] {
    if (this.#shared === undefined) this.#shared = sharedLists(this.rules);
    return this.#shared;
  }

  /** The port's own nat chains, in declaration order. */
  get chains(): ReadonlyMap<string, OwnChain> {
    if (this.#chains === undefined) this.#chains = ownChains(this.rules);
    return this.#chains;
  }
}

/** The comparison key of a generated rule: its argv (no two arguments contain a NUL). */
export function ruleKey(rule: Rule): string {
  return rule.args.join("\u0000");
}

function listOf(rules: Rule[]): RuleList {
  return { rules, keys: rules.map(ruleKey) };
}

function slotOf(table: "filter" | "nat", chain: string): number {
  for (let i = 0; i < SLOTS; i++) {
    const s = SHARED_CHAINS[i];
    if (s !== undefined && s.table === table && s.chain === chain) return i;
  }
  throw new Error(`unexpected shared chain ${table}/${chain}`);
}

const EMPTY_LIST: RuleList = { rules: [], keys: [] };

/** The restore-text sink that also counts the port's rules in each shared chain, by slot. */
class CountingTextSink extends RestoreTextSink {
  counts: number[] = new Array<number>(SLOTS).fill(0);

  override filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#count("filter", chain);
    super.filter(shape, chain, values);
  }

  override jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.#count("nat", chain);
    super.jump(shape, chain, values);
  }

  #count(table: "filter" | "nat", chain: string): void {
    const slot = slotOf(table, chain);
    this.counts[slot] = (this.counts[slot] as number) + 1;
  }

  /** The counts since the last call. */
  takeCounts(): number[] {
    const counts = this.counts;
    this.counts = new Array<number>(SLOTS).fill(0);
    return counts;
  }
}

const blockSink = new CountingTextSink();

function sharedLists(rules: ServicePortRules): RuleList[] {
  const slots: Rule[][] = [];
  const put = (slot: number, rule: Rule): void => {
    const list = slots[slot];
    if (list === undefined) slots[slot] = [rule];
    else list.push(rule);
  };
  for (const rule of rules.filter) put(slotOf("filter", rule.chain), rule);
  for (const rule of rules.natShared) put(slotOf("nat", rule.chain), rule);
  const shared: RuleList[] = [];
  for (let i = 0; i < SLOTS; i++) {
    const list = slots[i];
    shared.push(list === undefined ? EMPTY_LIST : listOf(list));
  }
  return shared;
}

function ownChains(rules: ServicePortRules): Map<string, OwnChain> {
  const own = new Map<string, Rule[]>();
  for (const chain of rules.natChains) own.set(chain, []);
  for (const rule of rules.natChainRules) {
    let list = own.get(rule.chain);
    if (list === undefined) {
      list = [];
      own.set(rule.chain, list);
    }
    list.push(rule);
  }
  const chains = new Map<string, OwnChain>();
  for (const [chain, list] of own) {
    const rl = listOf(list);
    chains.set(chain, { list: rl, body: rl.keys.join("\u0001") });
  }
  return chains;
}

/** Builds the entry of one service port. */
export function buildEntry(id: string, port: ServicePort, ctx: GenerationContext): PortEntry {
  const name = servicePortName(port.namespace, port.name, port.portName);
  try {
    const text = servicePortText(port, ctx, blockSink);
    return new PortEntry(id, name, port, text, ctx, blockSink.takeCounts());
  } catch (error) {
    blockSink.takeCounts(); // a port refused (UNSAFE_TEXT) leaves no count behind
    throw error;
  }
}

/**
 * Generation order: `ns/name:port` as bytes, then the protocol (as `compareServicePorts`). The id
 * is `name NUL protocol` and NUL sorts before every character a name holds, so comparing ids is
 * that order.
 */
export function compareEntries(a: PortEntry, b: PortEntry): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
