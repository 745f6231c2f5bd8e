/**
 * Words for the picture: a rule's condition as iptables-save prints it (without what the
 * picture shows otherwise), what an action does, and what a chain is for.
 *
 * @module
 */

import { formatCanonicalRule } from "../iptables/index.js";
import type { CanonicalRule, CanonicalTarget } from "../ir/canonical-types.js";
import { isBuiltinChain } from "../ir/types.js";
import { CHAIN_PREFIX as KUBE_PREFIX } from "../naming/kube-chains.js";
import type { ActionKind, NodeKind } from "./types.js";

const CHAIN_PREFIX = "-A -";
// `-p tcp -m tcp --dport 80`: the `-m tcp` adds nothing to a reader once `-p tcp` is there.
const PROTOCOL_MODULE = / -m (?:tcp|udp|sctp)(?= |$)/g;

/**
 * A rule's matches as iptables-save prints them, less the comment (the picture names the
 * service), the statistic match (the edge shows the exact share instead) and the target.
 *
 * @example
 * ruleCondition(canonicalizeRule(["-d", "10.96.0.10", "-p", "tcp", "-m", "tcp", "--dport", "80", "-j", "X"], "IPv4"))
 * // "-d 10.96.0.10/32 -p tcp --dport 80"
 */
export function ruleCondition(rule: CanonicalRule): string {
  const matches = rule.matches.filter(
    (m) =>
      m.kind !== "comment" &&
      !(m.kind === "statistic" && m.mode === "random") &&
      !(m.kind === "ports" && m.options.length === 0),
  );
  const text = formatCanonicalRule("-", { ...rule, matches, target: null });
  const condition = text.slice(CHAIN_PREFIX.length).trim();
  return rule.protocol === null ? condition : condition.replace(PROTOCOL_MODULE, "");
}

/** An address and port as Kubernetes prints an endpoint. */
function socket(address: string, port: number | null): string {
  if (port === null) return address;
  return address.indexOf(":") >= 0 ? `[${address}]:${port}` : `${address}:${port}`;
}

function hex(n: number): string {
  return `0x${(n >>> 0).toString(16)}`;
}

function optionText(target: CanonicalTarget): string {
  return target.options
    .map((o) => `${o.negated ? "! " : ""}${o.name}${o.values.length > 0 ? ` ${o.values.join(" ")}` : ""}`)
    .join(" ");
}

/** What a rule's own target does: its kind and a short title. */
export interface ActionText {
  /** What the action does. */
  readonly action: ActionKind;
  /** The title (`DNAT → 10.244.1.2:8080`). */
  readonly title: string;
}

/**
 * The action of a rule that does not jump to a chain (a null target: the rule only counts, and
 * the packet goes on with the next rule).
 *
 * @example
 * describeAction(canonicalizeRule(["-p", "tcp", "-j", "DNAT", "--to-destination", "10.0.0.1:80"], "IPv4").target)
 * // { action: "dnat", title: "DNAT → 10.0.0.1:80" }
 */
export function describeAction(target: CanonicalTarget | null): ActionText {
  if (target === null) return { action: "continue", title: "no target: on to the next rule" };
  switch (target.kind) {
    case "nat": {
      const to =
        target.minAddress === target.maxAddress
          ? socket(target.minAddress, target.ports === null ? null : target.ports.min)
          : `${target.minAddress}-${target.maxAddress}`;
      if (target.name === "DNAT") return { action: "dnat", title: `DNAT → ${to}` };
      if (target.name === "SNAT") return { action: "snat", title: `SNAT → ${to}` };
      return { action: "other", title: `${target.name} ${optionText(target)}`.trim() };
    }
    case "ports":
      if (target.name === "MASQUERADE")
        return { action: "masquerade", title: `MASQUERADE ${optionText(target)}`.trim() };
      return { action: "other", title: `${target.name} ${optionText(target)}`.trim() };
    case "mark": {
      // mark = (mark & ~mask) ^ value: kube-proxy sets bits (value = mask) or flips them (mask 0).
      const title =
        target.value === target.mask
          ? `MARK set ${hex(target.value)}`
          : target.mask === 0
            ? `MARK xor ${hex(target.value)}`
            : `MARK ${hex(target.value)}/${hex(target.mask)}`;
      return { action: "mark", title };
    }
    case "reject":
      return { action: "reject", title: `REJECT (${target.rejectWith})` };
    case "verdict":
      if (target.name === "ACCEPT") return { action: "accept", title: "ACCEPT" };
      if (target.name === "DROP") return { action: "drop", title: "DROP" };
      if (target.name === "RETURN") return { action: "return", title: "RETURN to the caller" };
      return { action: "other", title: target.name };
    case "chain":
    case "generic":
      return { action: "other", title: `${target.name} ${optionText(target)}`.trim() };
  }
}

const BUILTIN_ROLES: Readonly<Record<string, string>> = {
  "nat PREROUTING": "packets from pods and from outside",
  "nat OUTPUT": "packets from the node itself",
  "nat POSTROUTING": "every packet leaving",
  "nat INPUT": "packets to the node",
  "filter INPUT": "packets to the node",
  "filter FORWARD": "packets routed through the node",
  "filter OUTPUT": "packets from the node itself",
};

const CHAIN_ROLES: Readonly<Record<string, string>> = {
  "KUBE-SERVICES": "dispatch by destination",
  "KUBE-NODEPORTS": "node ports",
  "KUBE-EXTERNAL-SERVICES": "externally visible services",
  "KUBE-PROXY-FIREWALL": "load balancer source ranges",
  "KUBE-MARK-MASQ": "mark for masquerade",
  "KUBE-MARK-DROP": "mark for drop",
  "KUBE-POSTROUTING": "masquerade marked packets",
  "KUBE-FORWARD": "forwarding",
};

// kube-proxy's per-service chain prefixes (pkg/proxy/iptables: servicePortPolicyClusterChain and kin).
const SERVICE_ROLES: readonly (readonly [prefix: string, role: string, kind: NodeKind])[] = [
  [KUBE_PREFIX.service, "every endpoint (cluster traffic policy)", "service"],
  [KUBE_PREFIX.local, "local endpoints only", "service"],
  [KUBE_PREFIX.external, "external traffic", "service"],
  [KUBE_PREFIX.firewall, "load balancer firewall", "service"],
  [KUBE_PREFIX.endpoint, "endpoint", "endpoint"],
];

/** What a chain node is and the line that says what it is for. */
export interface ChainRole {
  /** The node kind. */
  readonly kind: NodeKind;
  /** `table: role`. */
  readonly line: string;
}

/**
 * The kind of a chain's node and a line saying what the chain is for.
 *
 * @example
 * chainRole("nat", "KUBE-SVC-ABC") // { kind: "service", line: "nat: every endpoint (cluster traffic policy)" }
 */
export function chainRole(table: string, chain: string): ChainRole {
  if (isBuiltinChain(table, chain)) {
    const role = BUILTIN_ROLES[`${table} ${chain}`];
    return { kind: "entry", line: role === undefined ? `${table} table` : `${table}: ${role}` };
  }
  for (const [prefix, role, kind] of SERVICE_ROLES)
    if (chain.startsWith(prefix)) return { kind, line: `${table}: ${role}` };
  const role = CHAIN_ROLES[chain];
  return { kind: "chain", line: role === undefined ? `${table} table` : `${table}: ${role}` };
}
