/**
 * The writer of kube-proxy's nftables layouts (spec/kube-proxy-nftables.md §2): the fixed base
 * chains, sets and maps, then each service port's chains, map elements and rules, in the order
 * kube-proxy's full sync writes them. Layout A (1.30–1.33) is checked byte for byte against the
 * vectors of fixtures/kube-proxy-nft. Layout B (1.34/1.35) differs in its base chains, the
 * cluster-IP masquerade rule and `iifname`; its content follows kube-proxy's golden test, the
 * order of its base chains in the transaction is inferred (no real 1.34 transaction was seen).
 *
 * @module
 */

import { masqueradeMark } from "../iptables/context.js";
import type { Endpoint } from "../model/types.js";
import { nftEndpointBase, nftServicePortNames, nftServicePortReadable } from "../naming/nft-names.js";
import type { NodePlan, NoEndpointsVerdict, ServicePortPlan } from "../plan/types.js";
import type { NftNodePorts } from "./node-ports.js";
import * as R from "./rules.js";
import type { NftCommand, NftFamily, NftHook, NftRule } from "./types.js";

/**
 * The table's comment.
 *
 * @example
 * `add table ip kube-proxy { comment "${TABLE_COMMENT}" ; }`
 */
export const TABLE_COMMENT = "rules for kube-proxy";

type BaseChains = readonly (readonly [string, NftHook])[];
type JumpChains = readonly (readonly [string, readonly string[], boolean])[];

/** Layout A's base chains, in kube-proxy's order. */
const BASE_CHAINS_A: BaseChains = [
  ["filter-prerouting", { type: "filter", hook: "prerouting", priority: -110 }],
  ["filter-input", { type: "filter", hook: "input", priority: -110 }],
  ["filter-forward", { type: "filter", hook: "forward", priority: -110 }],
  ["filter-output", { type: "filter", hook: "output", priority: -110 }],
  ["filter-output-post-dnat", { type: "filter", hook: "output", priority: -90 }],
  ["nat-prerouting", { type: "nat", hook: "prerouting", priority: -100 }],
  ["nat-output", { type: "nat", hook: "output", priority: -100 }],
  ["nat-postrouting", { type: "nat", hook: "postrouting", priority: 100 }],
];

/**
 * Layout B's base chains (PR #132456): firewall checks before DNAT at -110, the no-endpoint and
 * cluster-IP checks after it at priority 0. INFERRED order (the golden test lists by name).
 */
const BASE_CHAINS_B: BaseChains = [
  ["filter-prerouting-pre-dnat", { type: "filter", hook: "prerouting", priority: -110 }],
  ["filter-output-pre-dnat", { type: "filter", hook: "output", priority: -110 }],
  ["filter-input", { type: "filter", hook: "input", priority: 0 }],
  ["filter-forward", { type: "filter", hook: "forward", priority: 0 }],
  ["filter-output", { type: "filter", hook: "output", priority: 0 }],
  ["nat-prerouting", { type: "nat", hook: "prerouting", priority: -100 }],
  ["nat-output", { type: "nat", hook: "output", priority: -100 }],
  ["nat-postrouting", { type: "nat", hook: "postrouting", priority: 100 }],
];

/** Layout A's jump chains, each with the base chains that jump to it (`ct state new` for filter ones). */
const JUMP_CHAINS_A: JumpChains = [
  ["nodeport-endpoints-check", ["filter-input"], true],
  ["service-endpoints-check", ["filter-input", "filter-forward", "filter-output"], true],
  ["firewall-check", ["filter-prerouting", "filter-output"], true],
  ["services", ["nat-output", "nat-prerouting"], false],
  ["masquerading", ["nat-postrouting"], false],
  ["cluster-ips-check", ["filter-forward", "filter-output-post-dnat"], true],
  ["mark-for-masquerade", [], false],
];

/** Layout B's jump chains. */
const JUMP_CHAINS_B: JumpChains = [
  ["nodeport-endpoints-check", ["filter-input"], true],
  ["service-endpoints-check", ["filter-input", "filter-forward", "filter-output"], true],
  ["firewall-check", ["filter-prerouting-pre-dnat", "filter-output-pre-dnat"], true],
  ["services", ["nat-output", "nat-prerouting"], false],
  ["masquerading", ["nat-postrouting"], false],
  ["cluster-ips-check", ["filter-forward", "filter-output"], true],
  ["mark-for-masquerade", [], false],
];

const REJECT_CHAIN = "reject-chain";

/**
 * Collects the transaction's commands: {@link LayoutWriter.writeBase} once, then
 * {@link LayoutWriter.writeServicePort} for each plan in kube-proxy's order.
 *
 * @example
 * const writer = new LayoutWriter(plan.node, nodePorts, "A", []);
 * writer.writeBase();
 * for (const port of plan.servicePorts) writer.writeServicePort(port);
 * writer.commands[0] // { object: "table", verb: "add", comment: "rules for kube-proxy" }
 */
export class LayoutWriter {
  readonly commands: NftCommand[] = [];
  private readonly activeChains = new Set<string>();
  private readonly ipX: NftFamily;
  private readonly addrType: string;
  private readonly ifKey: "iif" | "iifname";

  /**
   * @param serviceCIDRs the cluster's service CIDRs of this family (kube-proxy then drops
   *   traffic to unallocated cluster IPs); empty when kube-proxy does not know them.
   */
  constructor(
    private readonly node: NodePlan,
    private readonly nodePorts: NftNodePorts,
    private readonly layout: "A" | "B",
    private readonly serviceCIDRs: readonly string[],
  ) {
    this.ipX = node.family === "IPv4" ? "ip" : "ip6";
    // 1.30 matched interfaces with `iif` (an index, resolved when nft loads); PR #134024
    // (1.35, 1.34.x) switched to `iifname`.
    this.ifKey = layout === "A" ? "iif" : "iifname";
    this.addrType = node.family === "IPv4" ? "ipv4_addr" : "ipv6_addr";
  }

  private rule(chain: string, rule: NftRule, comment?: string): void {
    this.commands.push(
      comment === undefined
        ? { object: "rule", verb: "add", chain, rule }
        : { object: "rule", verb: "add", chain, rule, comment },
    );
  }

  private chain(name: string, verb: "add" | "flush" | "delete", hook?: NftHook, comment?: string): void {
    const c: { object: "chain"; verb: typeof verb; name: string; hook?: NftHook; comment?: string } = {
      object: "chain",
      verb,
      name,
    };
    if (hook !== undefined) c.hook = hook;
    if (comment !== undefined) c.comment = comment;
    this.commands.push(c);
  }

  /** kube-proxy's ensureChain: add and flush a chain the first time this sync uses it. */
  private ensureChain(name: string): void {
    if (this.activeChains.has(name)) return;
    this.activeChains.add(name);
    this.chain(name, "add");
    this.chain(name, "flush");
  }

  private container(object: "set" | "map", name: string, type: string, comment: string): void {
    this.commands.push({ object, verb: "add", name, type, comment });
  }

  private element(
    container: "set" | "map",
    name: string,
    key: readonly string[],
    value?: string,
    comment?: string,
  ): void {
    const e: {
      object: "element";
      verb: "add";
      container: "set" | "map";
      name: string;
      key: readonly string[];
      value?: string;
      comment?: string;
    } = { object: "element", verb: "add", container, name, key };
    if (value !== undefined) e.value = value;
    if (comment !== undefined) e.comment = comment;
    this.commands.push(e);
  }

  /** The table, base chains, jump chains, fixed sets and maps, and their flushes. */
  writeBase(): void {
    const { ipX, addrType } = this;
    const mark = (1 << this.node.masqueradeBit) >>> 0;
    const markText = masqueradeMark(this.node.masqueradeBit, this.node.traits.paddedMark);
    this.commands.push({ object: "table", verb: "add", comment: TABLE_COMMENT });
    // First sync of the process: every base chain is created and deleted, so that a changed
    // hook or priority cannot fail the transaction, then created again.
    const baseChains = this.layout === "A" ? BASE_CHAINS_A : BASE_CHAINS_B;
    for (const [name] of baseChains) {
      this.chain(name, "add");
      this.chain(name, "delete");
    }
    for (const [name, hook] of baseChains) {
      this.chain(name, "add", hook);
      this.chain(name, "flush");
    }
    for (const [name, from, ctNew] of this.layout === "A" ? JUMP_CHAINS_A : JUMP_CHAINS_B) {
      this.ensureChain(name);
      for (const base of from) this.rule(base, ctNew ? R.ctNewJump(name) : R.verdictRule("jump", name));
    }
    this.rule("mark-for-masquerade", R.setMarkBit(mark, markText));
    this.rule("masquerading", R.returnUnlessMarked(mark, markText));
    this.rule("masquerading", R.clearMarkBit(mark, markText));
    this.rule("masquerading", R.fixedRule("masquerade fully-random"));

    this.container("set", "cluster-ips", addrType, "Active ClusterIPs");
    this.rule(
      "cluster-ips-check",
      R.fixedRule(`${ipX} daddr @cluster-ips reject`),
      "Reject traffic to invalid ports of ClusterIPs",
    );
    if (this.serviceCIDRs.length > 0) {
      this.rule(
        "cluster-ips-check",
        R.serviceCIDRsDrop(ipX, this.serviceCIDRs),
        "Drop traffic to unallocated ClusterIPs",
      );
    }
    this.container("set", "nodeport-ips", addrType, "IPs that accept NodePort traffic");
    if (this.nodePorts.all) {
      // Added then deleted: a plain delete would fail when the set does not exist.
      this.commands.push({ object: "set", verb: "delete", name: "nodeport-ips" });
    } else {
      this.commands.push({ object: "set", verb: "flush", name: "nodeport-ips" });
      for (const ip of this.nodePorts.addresses) this.element("set", "nodeport-ips", [ip]);
    }
    this.container(
      "map",
      "no-endpoint-services",
      `${addrType} . inet_proto . inet_service : verdict`,
      "vmap to drop or reject packets to services with no endpoints",
    );
    this.container(
      "map",
      "no-endpoint-nodeports",
      "inet_proto . inet_service : verdict",
      "vmap to drop or reject packets to service nodeports with no endpoints",
    );
    this.chain(REJECT_CHAIN, "add", undefined, "helper for @no-endpoint-services / @no-endpoint-nodeports");
    this.chain(REJECT_CHAIN, "flush");
    this.rule(REJECT_CHAIN, R.fixedRule("reject"));
    this.rule(
      "service-endpoints-check",
      R.fixedRule(`${ipX} daddr . meta l4proto . th dport vmap @no-endpoint-services`),
    );
    const noLocalhost = ipX === "ip" ? "ip daddr != 127.0.0.0/8" : "ip6 daddr != ::1";
    this.rule(
      "nodeport-endpoints-check",
      R.fixedRule(
        this.nodePorts.all
          ? `${noLocalhost} meta l4proto . th dport vmap @no-endpoint-nodeports`
          : `${ipX} daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports`,
      ),
    );
    this.container(
      "map",
      "firewall-ips",
      `${addrType} . inet_proto . inet_service : verdict`,
      "destinations that are subject to LoadBalancerSourceRanges",
    );
    this.rule("firewall-check", R.fixedRule(`${ipX} daddr . meta l4proto . th dport vmap @firewall-ips`));
    this.container(
      "map",
      "service-ips",
      `${addrType} . inet_proto . inet_service : verdict`,
      "ClusterIP, ExternalIP and LoadBalancer IP traffic",
    );
    this.container("map", "service-nodeports", "inet_proto . inet_service : verdict", "NodePort traffic");
    this.rule("services", R.fixedRule(`${ipX} daddr . meta l4proto . th dport vmap @service-ips`));
    this.rule(
      "services",
      R.fixedRule(
        this.nodePorts.all
          ? `fib daddr type local ${noLocalhost} meta l4proto . th dport vmap @service-nodeports`
          : `${ipX} daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports`,
      ),
    );
    this.commands.push({ object: "set", verb: "flush", name: "cluster-ips" });
    for (const name of [
      "firewall-ips",
      "no-endpoint-services",
      "no-endpoint-nodeports",
      "service-ips",
      "service-nodeports",
    ]) {
      this.commands.push({ object: "map", verb: "flush", name });
    }
  }

  /** One service port's chains, elements and rules. */
  writeServicePort(plan: ServicePortPlan): void {
    const { ipX } = this;
    const port = plan.port;
    const proto = port.protocol;
    const portText = String(port.port);
    const spn = plan.servicePortName;
    const readable = nftServicePortReadable(port.namespace, port.name, proto, port.portName);
    const names = nftServicePortNames(port.namespace, port.name, proto, port.portName);
    const endpointBase = (ep: Endpoint): string => nftEndpointBase(readable, ep.ip, ep.port);
    const endpointChain = (ep: Endpoint): string => `endpoint-${endpointBase(ep)}`;
    const verdictOf = (v: NoEndpointsVerdict | null): string =>
      v === "drop" ? "drop" : `goto ${REJECT_CHAIN}`;
    const internalChain = plan.internalPolicy === "local" ? names.local : names.service;
    const externalPolicyChain = plan.externalPolicy === "local" ? names.local : names.service;

    for (const ep of plan.reachableEndpoints) this.ensureChain(endpointChain(ep));
    if (plan.usesClusterPolicyChain) this.ensureChain(names.service);
    if (plan.usesLocalPolicyChain) this.ensureChain(names.local);
    if (plan.usesExternalChain) this.ensureChain(names.external);

    // The cluster IP.
    this.element("set", "cluster-ips", [port.clusterIP]);
    if (plan.hasInternalEndpoints) {
      this.element("map", "service-ips", [port.clusterIP, proto, portText], `goto ${internalChain}`);
    } else {
      this.element(
        "map",
        "no-endpoint-services",
        [port.clusterIP, proto, portText],
        verdictOf(plan.internalNoEndpoints),
        spn,
      );
    }

    // External IPs.
    for (const ip of port.externalIPs) {
      if (plan.hasEndpoints)
        this.element("map", "service-ips", [ip, proto, portText], `goto ${names.external}`);
      if (!plan.hasExternalEndpoints)
        this.element(
          "map",
          "no-endpoint-services",
          [ip, proto, portText],
          verdictOf(plan.externalNoEndpoints),
          spn,
        );
    }

    // loadBalancerSourceRanges: the firewall chain exists whenever they apply, endpoints or not.
    if (plan.firewall !== null) {
      this.ensureChain(names.firewall);
      const sources = [...plan.firewall.sourceRanges];
      // The node may reach an LB VIP that is local to it with the VIP as source.
      if (plan.firewall.allowsNode) sources.push(...port.loadBalancerVIPs);
      this.rule(names.firewall, R.sourceRangeDrop(ipX, sources));
    }

    // Load-balancer IPs.
    for (const ip of port.loadBalancerVIPs) {
      if (plan.hasEndpoints)
        this.element("map", "service-ips", [ip, proto, portText], `goto ${names.external}`);
      if (plan.firewall !== null) {
        const comment = this.node.traits.nftFirewallElementComment ? spn : undefined;
        this.element("map", "firewall-ips", [ip, proto, portText], `goto ${names.firewall}`, comment);
      }
    }
    if (!plan.hasExternalEndpoints) {
      for (const ip of port.loadBalancerVIPs)
        this.element(
          "map",
          "no-endpoint-services",
          [ip, proto, portText],
          verdictOf(plan.externalNoEndpoints),
          spn,
        );
    }

    // The node port.
    if (port.nodePort !== 0) {
      const np = String(port.nodePort);
      if (plan.hasEndpoints) this.element("map", "service-nodeports", [proto, np], `goto ${names.external}`);
      if (!plan.hasExternalEndpoints)
        this.element("map", "no-endpoint-nodeports", [proto, np], verdictOf(plan.externalNoEndpoints), spn);
    }

    // Masquerading of cluster-IP traffic, first in the internal policy chain.
    if (plan.hasInternalEndpoints && plan.clusterIPMasquerade !== "none") {
      const notLocal = plan.clusterIPMasquerade === "all" ? null : this.node.localDetector;
      // Layout B (PR #131492) matches the cluster IP only, not the protocol and port.
      const dport = this.layout === "A" ? { protocol: proto, port: port.port } : null;
      this.rule(internalChain, R.clusterIPMasquerade(ipX, port.clusterIP, dport, notLocal, this.ifKey));
    }

    // The external-destinations chain.
    if (plan.usesExternalChain) {
      const ext = names.external;
      if (plan.externalPolicy === "cluster") {
        this.rule(ext, R.verdictRule("jump", "mark-for-masquerade"));
      } else {
        const detector = this.node.localDetector;
        if (detector !== null)
          this.rule(
            ext,
            R.podShortCircuit(ipX, detector, names.service, this.ifKey),
            "short-circuit pod traffic",
          );
        this.rule(ext, R.fromLocalHost("jump", "mark-for-masquerade"), "masquerade local traffic");
        this.rule(ext, R.fromLocalHost("goto", names.service), "short-circuit local traffic");
      }
      if (plan.hasExternalEndpoints) this.rule(ext, R.verdictRule("goto", externalPolicyChain));
    }

    // ClientIP affinity: one dynamic set per endpoint.
    const sticky = plan.affinitySeconds > 0;
    if (sticky) {
      for (const ep of plan.reachableEndpoints) {
        this.commands.push({
          object: "set",
          verb: "add",
          name: `affinity-${endpointBase(ep)}`,
          type: this.addrType,
          flags: ["dynamic", "timeout"],
          timeoutSeconds: plan.affinitySeconds,
        });
      }
    }

    if (plan.usesClusterPolicyChain) this.balance(names.service, plan.clusterEndpoints, sticky, endpointBase);
    if (plan.usesLocalPolicyChain) this.balance(names.local, plan.localEndpoints, sticky, endpointBase);

    for (const ep of plan.reachableEndpoints) {
      const chain = endpointChain(ep);
      this.rule(chain, R.hairpinMasquerade(ipX, ep.ip));
      if (sticky) this.rule(chain, R.affinityUpdate(ipX, `affinity-${endpointBase(ep)}`));
      this.rule(chain, R.dnatTo(proto, ep.ip, ep.port));
    }
  }

  /** A policy chain: affinity checks, then one `numgen` jump map over its endpoints. */
  private balance(
    chain: string,
    endpoints: readonly Endpoint[],
    sticky: boolean,
    base: (ep: Endpoint) => string,
  ): void {
    if (sticky) {
      for (const ep of endpoints)
        this.rule(chain, R.affinityCheck(this.ipX, `affinity-${base(ep)}`, `endpoint-${base(ep)}`));
    }
    this.rule(chain, R.balance(endpoints.map((ep) => `endpoint-${base(ep)}`)));
  }
}
