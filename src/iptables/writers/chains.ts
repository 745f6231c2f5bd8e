/**
 * The chain names a service port's writers print: its SVC/SVL/EXT/FW chains and one KUBE-SEP
 * chain per endpoint (memoized by `naming/`), which chain each policy sends traffic to, and the
 * declarations of the port's own chains.
 *
 * @module
 */
import type { Endpoint } from "../../model/types.js";
import { endpointChainList, type ServicePortChains, servicePortChains } from "../../naming/chain-names.js";
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { PortRuleSink } from "../shape/sink.js";

/**
 * The SVC/SVL/EXT/FW chain names of the plan's port (one shared, memoized object).
 *
 * @example
 * portChains(plan).svc // "KUBE-SVC-…"
 */
export function portChains(plan: ServicePortPlan): ServicePortChains {
  return servicePortChains(plan.servicePortName, plan.port.protocol);
}

/**
 * Names the port's chains once, before its writers run: its SVC/SVL/EXT/FW chains and the SEP
 * chain of each reachable endpoint, which every writer then reads back. The hashing runs here
 * and nowhere else, so that V8's optimizing compiler builds it into this function alone: when
 * the writers asked first, each writer's compiled code carried its own copy of the hashing
 * (a port with no endpoints is named on demand: its refusals name no chain).
 *
 * @example
 * nameServicePort(plan); // then portChains(plan) and endpointChains(plan, plan.reachableEndpoints) look nothing up
 */
export function nameServicePort(plan: ServicePortPlan): void {
  if (!plan.hasEndpoints) return;
  // Both are remembered where they are asked next: the port's chains by the naming module (its
  // last port), its SEP chains by endpointChains (its last list).
  servicePortChains(plan.servicePortName, plan.port.protocol);
  rememberChains(plan, plan.reachableEndpoints);
}

/**
 * The chain internal (cluster-IP) traffic goes to: KUBE-SVL with internalTrafficPolicy=Local.
 *
 * @example
 * internalPolicyChain(plan) === portChains(plan).svc // for internalTrafficPolicy=Cluster
 */
export function internalPolicyChain(plan: ServicePortPlan): string {
  const chains = portChains(plan);
  return plan.internalPolicy === "local" ? chains.svl : chains.svc;
}

/**
 * The chain external traffic ends in: KUBE-SVL with externalTrafficPolicy=Local.
 *
 * @example
 * externalPolicyChain(plan) === portChains(plan).svl // for externalTrafficPolicy=Local
 */
export function externalPolicyChain(plan: ServicePortPlan): string {
  const chains = portChains(plan);
  return plan.externalPolicy === "local" ? chains.svl : chains.svc;
}

/**
 * Whether the port's KUBE-FW chain exists: source ranges apply and, in iptables mode, only
 * while the port has endpoints (the nftables writers keep the firewall without them).
 *
 * @example
 * usesFirewallChain(plan) // true for a LoadBalancer with loadBalancerSourceRanges and endpoints
 */
export function usesFirewallChain(plan: ServicePortPlan): boolean {
  return plan.hasEndpoints && plan.firewall !== null;
}

// The writers of one port ask for the same list's names twice (the load balancing, then the
// endpoint chains): the last answer is kept, by the list's identity and the port's name.
let lastList: readonly Endpoint[] | null = null;
let lastName = "";
let lastProtocol = "";
let lastChains: readonly string[] = [];

/**
 * The KUBE-SEP chain of each endpoint of `endpoints` (one of the plan's lists), in its order.
 *
 * @example
 * endpointChains(plan, plan.reachableEndpoints)[0] // "KUBE-SEP-…"
 */
export function endpointChains(plan: ServicePortPlan, endpoints: readonly Endpoint[]): readonly string[] {
  if (endpoints === lastList && plan.servicePortName === lastName && plan.port.protocol === lastProtocol)
    return lastChains;
  return rememberChains(plan, endpoints);
}

/** Names a list of the port's endpoints and keeps the answer for the next writer that asks. */
function rememberChains(plan: ServicePortPlan, endpoints: readonly Endpoint[]): readonly string[] {
  const name = plan.servicePortName;
  const protocol = plan.port.protocol;
  const chains = endpointChainList(name, protocol, endpoints);
  lastList = endpoints;
  lastName = name;
  lastProtocol = protocol;
  lastChains = chains;
  return chains;
}

/**
 * Declares the port's own nat chains in kube-proxy's order: EXT, FW, SVC, SVL, then one SEP per
 * endpoint with a chain of its own (sorted by `ip:port`).
 *
 * @example
 * declarePortChains(plan, ctx, sink); // sink.chain("KUBE-EXT-…"), sink.chain("KUBE-SVC-…"), …
 */
export function declarePortChains(plan: ServicePortPlan, _ctx: GenerationContext, sink: PortRuleSink): void {
  if (!plan.hasEndpoints) return;
  const chains = portChains(plan);
  if (plan.usesExternalChain) sink.chain(chains.ext);
  if (usesFirewallChain(plan)) sink.chain(chains.fw);
  if (plan.usesClusterPolicyChain) sink.chain(chains.svc);
  if (plan.usesLocalPolicyChain) sink.chain(chains.svl);
  const seps = endpointChains(plan, plan.reachableEndpoints);
  for (let i = 0; i < seps.length; i++) sink.chain(seps[i] as string);
}
