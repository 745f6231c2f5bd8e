/**
 * One service port's memoized rules: the block `buildServicePortRules` made, split the way the
 * incremental engine edits it (its slice of each shared chain, and each of its own chains with
 * a key to compare by), built once per change of the port or of large-cluster mode.
 *
 * @module
 */

import type { RuleList } from "../diff/edit-script.js";
import type { GenerationContext } from "../generate/context.js";
import { buildServicePortRules, type ServicePortRules } from "../generate/service-port.js";
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

/** A service port with its memoized rules. */
export interface PortEntry {
  /** `ns/name:port` + NUL + protocol: unique per service port, and its sort key. */
  readonly id: string;
  /** `ns/name:port`, the sort key. */
  readonly name: string;
  /** The port as the model holds it. */
  readonly port: ServicePort;
  /** The port's data as text; equal text means equal rules (for one large-cluster mode). */
  readonly fingerprint: string;
  /** Whether the block was built in large-cluster mode. */
  readonly largeClusterMode: boolean;
  /** The block, as `assemblePayload` takes it. */
  readonly rules: ServicePortRules;
  /** The port's rules in each shared chain, by slot. */
  readonly shared: readonly RuleList[];
  /** The port's own nat chains, in declaration order. */
  readonly chains: ReadonlyMap<string, OwnChain>;
  /** The number of the port's rules in each shared chain, by slot. */
  readonly counts: readonly number[];
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

/** Builds the entry of one service port. */
export function buildEntry(
  id: string,
  port: ServicePort,
  fingerprint: string,
  ctx: GenerationContext,
): PortEntry {
  const rules = buildServicePortRules(port, ctx);
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
  return {
    id,
    name: servicePortName(port.namespace, port.name, port.portName),
    port,
    fingerprint,
    largeClusterMode: ctx.largeClusterMode,
    rules,
    shared,
    chains,
    counts: shared.map((l) => l.rules.length),
  };
}

/**
 * Generation order: `ns/name:port` as bytes, then the protocol (as `compareServicePorts`). The id
 * is `name NUL protocol` and NUL sorts before every character a name holds, so comparing ids is
 * that order.
 */
export function compareEntries(a: PortEntry, b: PortEntry): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
