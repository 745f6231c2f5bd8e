/**
 * From a kernel state (generated from a cluster, or parsed from a node's `iptables-save`) to the
 * picture of service ports: the rules whose comments name them, the chains those rules lead to
 * (every rule of those), the jumps from the built-in chains down to them, and, for the
 * masquerade mark, the chain that masquerades marked packets on their way out.
 *
 * @module
 */

import { formatCanonicalRule } from "../iptables/index.js";
import type { CanonicalRule } from "../ir/canonical-types.js";
import { isBuiltinChain, type RuleSet } from "../ir/types.js";
import { isEndpointChain } from "../naming/kube-chains.js";
import {
  type CompiledState,
  compileState,
  type Fraction,
  multiply,
  ONE,
  statisticShare,
} from "../trace/index.js";
import { chainRole, describeAction, ruleCondition } from "./describe.js";
import {
  chainKey,
  type IndexedRule,
  indexRules,
  type RuleIndex,
  servicePortOfComment,
} from "./rule-index.js";
import type { EdgeKind, GraphEdge, GraphNode, ServiceGraph } from "./types.js";

type CompiledChain = NonNullable<ReturnType<CompiledState["chain"]>>;
type CompiledRule = CompiledChain["rules"][number];

/**
 * Whether a service port name is selected: `ns/name` selects every port of the service,
 * `ns/name:port` one port; no selection selects all.
 */
function isSelected(name: string, select: readonly string[]): boolean {
  if (select.length === 0) return true;
  for (const s of select) if (name === s || name.startsWith(`${s}:`)) return true;
  return false;
}

/**
 * The service ports a kernel state has rules for, sorted: the first words of the comments in
 * kube-proxy's chains (`KUBE-…`) that look like `namespace/name[:port]`.
 *
 * @example
 * listServicePorts(generateState(model)) // ["default/kubernetes:https", "kube-system/kube-dns:dns", …]
 */
export function listServicePorts(state: RuleSet): string[] {
  return [...namedRulesOf(state).byServicePort.keys()].sort();
}

/** A state's rule index and the rules naming each service port, built once per state object. */
interface NamedRules {
  readonly index: RuleIndex;
  readonly byServicePort: ReadonlyMap<string, readonly IndexedRule[]>;
  /** The nat chains with a MASQUERADE or SNAT rule. */
  readonly natSourceChains: readonly string[];
}

const namedCache = new WeakMap<RuleSet, NamedRules>();

function namedRulesOf(state: RuleSet): NamedRules {
  let named = namedCache.get(state);
  if (named === undefined) {
    const index = indexRules(state);
    const byServicePort = new Map<string, IndexedRule[]>();
    for (const byChain of index.chains.values())
      for (const [chain, rules] of byChain) {
        if (!chain.startsWith("KUBE-")) continue;
        for (const rule of rules) {
          const name = servicePortOfComment(rule.comment);
          if (name === null) continue;
          const list = byServicePort.get(name);
          if (list === undefined) byServicePort.set(name, [rule]);
          else list.push(rule);
        }
      }
    const natSourceChains: string[] = [];
    for (const [chain, rules] of index.chains.get("nat") ?? [])
      if (rules.some((r) => r.target === "MASQUERADE" || r.target === "SNAT")) natSourceChains.push(chain);
    named = { index, byServicePort, natSourceChains };
    namedCache.set(state, named);
  }
  return named;
}

interface MutableNode {
  id: string;
  kind: GraphNode["kind"];
  action: GraphNode["action"];
  table: string;
  chain: string;
  title: string;
  lines: string[];
  servicePorts: Set<string>;
  /** For a MARK action: the bits it sets or flips. */
  markBits: number;
}

/** The shares of a chain's rules when only its statistic matches decide (null: no share shown). */
function chainShares(chain: CompiledChain): (Fraction | null)[] {
  const shares: (Fraction | null)[] = [];
  let remaining: Fraction | null = ONE;
  let split = false;
  for (const rule of chain.rules) {
    const canonical = rule.canonical;
    let share: Fraction | null = null;
    if (canonical === null) remaining = null;
    else {
      const statistic = canonical.matches.find((m) => m.kind === "statistic");
      const target = canonical.target;
      if (statistic !== undefined) {
        if (statistic.mode === "random" && remaining !== null) {
          // The kernel's stored k: the rule takes k/2^31 of what reaches it (the complement when negated).
          share = multiply(remaining, statisticShare(statistic.probability, !statistic.negated));
          remaining = multiply(remaining, statisticShare(statistic.probability, statistic.negated));
          split = true;
        } else remaining = null;
      } else if (!isAffinityCheck(canonical) && remaining !== null) {
        const toEndpoint = target?.kind === "chain" && isEndpointChain(target.name);
        if (split || toEndpoint) share = remaining;
      }
    }
    shares.push(share);
  }
  return shares;
}

function isAffinityCheck(rule: CanonicalRule): boolean {
  return rule.matches.some((m) => m.kind === "recent" && (m.command === "rcheck" || m.command === "update"));
}

function setsAffinity(rule: CanonicalRule): boolean {
  return rule.matches.some((m) => m.kind === "recent" && m.command === "set");
}

/**
 * Draws the selected service ports of a kernel state as one graph: each rule whose comment names
 * a selected service port in a chain it does not reach through another such rule (the entries:
 * KUBE-SERVICES, KUBE-NODEPORTS, KUBE-EXTERNAL-SERVICES, KUBE-PROXY-FIREWALL…), every rule of
 * the chains those lead to, the jumps from the built-in chains down to the entries, and where a
 * path sets a mark that a nat chain masquerades on, that chain with a `later` edge. Edge shares
 * are exact (the kernel's fixed-point statistic values, multiplied as the tracer does).
 *
 * @param state a kernel state: `generateState(model)` or a parsed `iptables-save` dump.
 * @param select service ports (`ns/name:port`) or services (`ns/name`); empty for all.
 * @returns the graph; with no rule naming a selected service port, a graph without nodes.
 * @example
 * const g = buildServiceGraph(generateState(model), ["default/web:http"]);
 * g.nodes.map((n) => n.title) // ["KUBE-SERVICES", "PREROUTING", "OUTPUT", "KUBE-SVC-…", "KUBE-MARK-MASQ", …]
 */
export function buildServiceGraph(state: RuleSet, select: readonly string[] = []): ServiceGraph {
  const { index, byServicePort, natSourceChains } = namedRulesOf(state);
  const compiled = compileState(state);
  const named: IndexedRule[] = [];
  const servicePorts = new Set<string>();
  for (const [name, rules] of byServicePort) {
    if (!isSelected(name, select)) continue;
    for (const rule of rules) named.push(rule);
    servicePorts.add(name);
  }

  const nodes = new Map<string, MutableNode>();
  const edges = new Map<string, GraphEdge>();
  const expanded = new Set<string>();
  const climbed = new Set<string>();

  const compiledRule = (table: string, chain: string, i: number): CompiledRule | undefined =>
    compiled.chain(table, chain)?.rules[i - 1];

  const chainNode = (table: string, chain: string): MutableNode => {
    const id = chainKey(table, chain);
    let node = nodes.get(id);
    if (node === undefined) {
      const role = chainRole(table, chain);
      node = {
        id,
        kind: role.kind,
        action: null,
        table,
        chain,
        title: chain,
        lines: [role.line],
        servicePorts: new Set(),
        markBits: 0,
      };
      nodes.set(id, node);
    }
    return node;
  };

  const addEdge = (
    from: MutableNode,
    to: MutableNode,
    kind: EdgeKind,
    rule: CompiledRule,
    table: string,
    chain: string,
    share: Fraction | null,
  ): void => {
    const id = `${table} ${chain} #${rule.index}`;
    if (edges.has(id)) return;
    const canonical = rule.canonical;
    edges.set(id, {
      id,
      from: from.id,
      to: to.id,
      kind,
      condition: canonical === null ? rule.args.join(" ") : ruleCondition(canonical),
      probability: share,
      affinity: canonical !== null && isAffinityCheck(canonical),
      rule: { table, chain, index: rule.index },
      ruleText:
        canonical === null ? `-A ${chain} ${rule.args.join(" ")}` : formatCanonicalRule(chain, canonical),
      traced: null,
    });
  };

  // One rule: an edge to the chain it jumps to (drawn in full), or to a node for its action.
  const addRule = (table: string, chain: string, rule: CompiledRule, share: Fraction | null): void => {
    const from = chainNode(table, chain);
    const name = servicePortOfComment(rule.comment);
    if (name !== null && from.kind === "service") from.servicePorts.add(name);
    const target = rule.canonical?.target ?? null;
    if (target?.kind === "chain" && compiled.chain(table, target.name) !== undefined) {
      const to = chainNode(table, target.name);
      if (name !== null && to.kind === "service") to.servicePorts.add(name);
      addEdge(from, to, target.goto ? "goto" : "jump", rule, table, chain, share);
      expand(table, target.name);
      return;
    }
    const described =
      rule.canonical === null
        ? { action: "other" as const, title: `unreadable rule: ${rule.error ?? ""}`.trim() }
        : describeAction(target);
    const id = `${table} ${chain} #${rule.index}`;
    const lines: string[] = [];
    if (rule.canonical !== null && setsAffinity(rule.canonical)) lines.push("records the client (affinity)");
    if (described.action === "continue" && rule.comment !== null) lines.push(rule.comment);
    const node: MutableNode = {
      id,
      kind: "action",
      action: described.action,
      table,
      chain,
      title: described.title,
      lines,
      servicePorts: new Set(),
      markBits: target?.kind === "mark" ? target.value : 0,
    };
    nodes.set(id, node);
    if (described.action === "dnat" && from.kind === "endpoint")
      from.lines[0] = `${table}: endpoint ${described.title.slice("DNAT → ".length)}`;
    addEdge(from, node, "action", rule, table, chain, share);
  };

  // A chain reached from an entry: every one of its rules.
  const expand = (table: string, chain: string): void => {
    const key = chainKey(table, chain);
    if (expanded.has(key) || isBuiltinChain(table, chain)) return;
    expanded.add(key);
    const compiledChain = compiled.chain(table, chain);
    if (compiledChain === undefined) return;
    const shares = chainShares(compiledChain);
    compiledChain.rules.forEach((rule, i) => {
      addRule(table, chain, rule, shares[i] ?? null);
    });
  };

  // The jumps from the built-in chains down to a chain.
  const climb = (table: string, chain: string): void => {
    const key = chainKey(table, chain);
    if (climbed.has(key)) return;
    climbed.add(key);
    const to = chainNode(table, chain);
    for (const jump of index.jumpsTo.get(key) ?? []) {
      const rule = compiledRule(table, jump.chain, jump.index);
      if (rule === undefined) continue;
      const from = chainNode(table, jump.chain);
      const goto = rule.canonical?.target?.goto === true;
      addEdge(from, to, goto ? "goto" : "jump", rule, table, jump.chain, null);
      climb(table, jump.chain);
    }
  };

  // Chains reached from the service port's rules are drawn in full; the others hold its entries.
  const inner = new Set<string>();
  const reach = (table: string, chain: string): void => {
    const key = chainKey(table, chain);
    if (inner.has(key) || isBuiltinChain(table, chain)) return;
    inner.add(key);
    for (const rule of index.chains.get(table)?.get(chain) ?? [])
      if (rule.target !== null && index.chains.get(table)?.has(rule.target) === true)
        reach(table, rule.target);
  };
  for (const rule of named)
    if (rule.target !== null && index.chains.get(rule.table)?.has(rule.target) === true)
      reach(rule.table, rule.target);
  for (const rule of named) {
    if (inner.has(chainKey(rule.table, rule.chain))) continue;
    const compiledEntry = compiledRule(rule.table, rule.chain, rule.index);
    if (compiledEntry === undefined) continue;
    climb(rule.table, rule.chain);
    addRule(rule.table, rule.chain, compiledEntry, null);
  }
  addMasquerade(nodes, index, natSourceChains, compiled, { expand, climb, chainNode, edges });

  const out: GraphNode[] = [...nodes.values()].map((n) => ({
    id: n.id,
    kind: n.kind,
    action: n.action,
    table: n.table,
    chain: n.chain,
    title: n.title,
    lines: n.servicePorts.size === 0 ? n.lines : [...n.lines, servicePortsLine(n.servicePorts)],
    traced: null,
  }));
  const ports = [...servicePorts].sort();
  return {
    title: ports.length === 1 ? (ports[0] as string) : `${ports.length} service ports`,
    servicePorts: ports,
    nodes: out,
    edges: [...edges.values()],
    outcomes: [],
  };
}

function servicePortsLine(names: ReadonlySet<string>): string {
  const sorted = [...names].sort();
  return sorted.length <= 2 ? sorted.join(", ") : `${sorted.slice(0, 2).join(", ")} +${sorted.length - 2}`;
}

interface Builder {
  readonly expand: (table: string, chain: string) => void;
  readonly climb: (table: string, chain: string) => void;
  readonly chainNode: (table: string, chain: string) => MutableNode;
  readonly edges: Map<string, GraphEdge>;
}

/**
 * The masquerade mark, followed: a path that sets a mark bit in nat (KUBE-MARK-MASQ) is
 * masqueraded on its way out by a nat chain that tests that bit before MASQUERADE or SNAT
 * (KUBE-POSTROUTING). That chain, its way down from POSTROUTING, and a `later` edge from each
 * mark to the built-in chain it is reached from.
 */
function addMasquerade(
  nodes: Map<string, MutableNode>,
  index: RuleIndex,
  natSourceChains: readonly string[],
  compiled: CompiledState,
  builder: Builder,
): void {
  let bits = 0;
  const marks: MutableNode[] = [];
  for (const n of nodes.values()) {
    if (n.action !== "mark" || n.table !== "nat" || n.markBits === 0) continue;
    bits |= n.markBits;
    marks.push(n);
  }
  if (marks.length === 0 || bits === 0) return;
  const masqueraders: string[] = [];
  for (const chain of natSourceChains) {
    const compiledChain = compiled.chain("nat", chain);
    const testsBits = compiledChain?.rules.some((r) =>
      r.canonical?.matches.some((m) => m.kind === "mark" && (m.mask & bits) !== 0),
    );
    if (testsBits === true) masqueraders.push(chain);
  }
  for (const chain of masqueraders) {
    builder.expand("nat", chain);
    builder.climb("nat", chain);
    const roots = rootsOf(index, "nat", chain);
    const targets = roots.length === 0 ? [chain] : roots;
    for (const mark of marks) {
      if (masqueraders.includes(mark.chain)) continue;
      for (const root of targets) {
        const to = builder.chainNode("nat", root);
        const id = `later ${mark.id} → ${to.id}`;
        builder.edges.set(id, {
          id,
          from: mark.id,
          to: to.id,
          kind: "later",
          condition: `then, leaving: nat ${root}`,
          probability: null,
          affinity: false,
          rule: null,
          ruleText: null,
          traced: null,
        });
      }
    }
  }
}

/** The built-in chains a chain is reached from through jumps. */
function rootsOf(index: RuleIndex, table: string, chain: string): string[] {
  const roots: string[] = [];
  const seen = new Set<string>();
  const up = (c: string): void => {
    if (seen.has(c)) return;
    seen.add(c);
    if (isBuiltinChain(table, c)) {
      roots.push(c);
      return;
    }
    for (const jump of index.jumpsTo.get(chainKey(table, c)) ?? []) up(jump.chain);
  };
  up(chain);
  return roots;
}
