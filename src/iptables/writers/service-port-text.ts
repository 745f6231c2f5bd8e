/**
 * The rules of one service port (§5 of the spec): its jumps from the shared chains, its filter
 * REJECT/DROP rules, and its own chains (EXT, FW, SVC, SVL, SEP). The result depends only on the
 * service port and the generation context, so it can be memoized per service port.
 *
 * The builder writes restore text directly, as kube-proxy does: a 10,000-service payload has
 * ~320,000 rules, and one template string per rule costs a fraction of an argv array plus a
 * Rule object plus joining them later. Rules are derived from the text (`rulesOfText`).
 *
 * @module
 */

import { formatEntry, needsEscape, quoteArgument as q } from "../../format/restore.js";
import type { Endpoint, ServicePort } from "../../model/types.js";
import { endpointChain, servicePortChains, servicePortName } from "../../naming/chain-names.js";
import { probability } from "../../naming/probability.js";
import { categorizeEndpoints, externallyAccessible } from "../../plan/endpoints.js";
import type { GenerationContext } from "../context.js";
import {
  argsText,
  declarationLine,
  rulesOfText,
  type ServicePortRules,
  type ServicePortText,
  textOfRules,
} from "../output/block.js";
import { checkWritablePort } from "../writable.js";
import { appendEndpointSaveRuns, type Balancing } from "./endpoint-save.js";
import { healthCheckRule, nodePortRefusal, rangeContains } from "./rule-parts.js";
import { buildXlbServicePortRules } from "./xlb.js";

export type { ServicePortRules, ServicePortText } from "../output/block.js";

/**
 * Builds the rules of one service port.
 *
 * @example
 * buildServicePortRules(port, createContext(model)).natShared[0].chain // "KUBE-SERVICES"
 */
export function buildServicePortRules(port: ServicePort, ctx: GenerationContext): ServicePortRules {
  // Profiles before KUBE-EXT (v1.22) build rules; theirs need no round trip through text.
  if (ctx.traits.externalChains === "xlb") {
    checkWritablePort(port);
    return buildXlbServicePortRules(port, ctx);
  }
  return rulesOfText(buildServicePortText(port, ctx));
}

/**
 * Builds the restore text of one service port.
 *
 * @param saveRuns - For `generateSaveText`: when given, the load-balancing and endpoint-chain
 *   rules are appended here in `iptables-save` form (pairs of chain and text, see
 *   `appendEndpointSaveRuns`) and left out of the block, unless a rule needs the general printer.
 * @example
 * buildServicePortText(port, createContext(model)).natShared
 * // "-A KUBE-SERVICES -m comment --comment \"ns/web:http cluster IP\" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j KUBE-SVC-…\n"
 */
export function buildServicePortText(
  port: ServicePort,
  ctx: GenerationContext,
  saveRuns?: string[],
): ServicePortText {
  // Every writer builds a port's rules here or above: its strings are checked once, as they enter.
  checkWritablePort(port);
  // Profiles before KUBE-EXT (v1.22) route external traffic through KUBE-XLB instead.
  if (ctx.traits.externalChains === "xlb") return textOfRules(buildXlbServicePortRules(port, ctx));
  const spn = servicePortName(port.namespace, port.name, port.portName);
  const qspn = q(spn);
  const proto = port.protocol;
  const dport = String(port.port);
  const chains = servicePortChains(spn, proto);
  const { cluster, local, reachable, hasEndpoints } = categorizeEndpoints(
    port,
    ctx.config.nodeLabels,
    ctx.traits,
    ctx.config.hostname,
  );

  const usesClusterPolicyChain =
    cluster.length > 0 && (!port.internalPolicyLocal || externallyAccessible(port));
  const usesLocalPolicyChain =
    local.length > 0 &&
    (port.internalPolicyLocal || (port.externalPolicyLocal && externallyAccessible(port)));
  const internalPolicyChain = port.internalPolicyLocal ? chains.svl : chains.svc;
  const externalPolicyChain = port.externalPolicyLocal ? chains.svl : chains.svc;
  const hasInternalEndpoints = hasEndpoints && !(port.internalPolicyLocal && local.length === 0);
  const hasExternalEndpoints = hasEndpoints && !(port.externalPolicyLocal && local.length === 0);
  const usesExternalChain = hasEndpoints && externallyAccessible(port);
  const usesFWChain =
    hasEndpoints && port.loadBalancerVIPs.length > 0 && port.loadBalancerSourceRanges.length > 0;
  const loadBalancerChain = usesFWChain ? chains.fw : chains.ext;

  // Comments are spn between constant words with a blank: when spn has nothing to escape,
  // quoting one is wrapping it, and spn is not scanned again for each comment.
  const spnPlain = !needsEscape(spn);
  const quoted = (before: string, after: string): string =>
    spnPlain ? `"${before}${spn}${after}"` : q(`${before}${spn}${after}`);

  const rejectTarget = !hasEndpoints ? "REJECT" : "DROP";
  const rejectComment = !hasEndpoints ? `${spn} has no endpoints` : `${spn} has no local endpoints`;
  const qRejectComment = quoted("", !hasEndpoints ? " has no endpoints" : " has no local endpoints");
  const qClusterIPComment = quoted("", " cluster IP");

  // Lines per section, each section joined once at the end into one flat string: a chain of
  // `+=` would leave trees of small strings that every later join has to walk again.
  const filter: string[] = [];
  const natShared: string[] = [];
  const natDeclarations: string[] = [];
  const natChainRules: string[] = [];
  const natChains: string[] = [];
  // A rule matching traffic to ip:port of this service port, as kube-proxy orders the arguments.
  const toDestination = (chain: string, comment: string, ip: string, target: string): string =>
    `-A ${chain} -m comment --comment ${comment} -m ${proto} -p ${proto} -d ${q(ip)} --dport ${dport} -j ${target}\n`;

  // Cluster IP.
  if (hasInternalEndpoints) {
    natShared.push(toDestination("KUBE-SERVICES", qClusterIPComment, port.clusterIP, internalPolicyChain));
  } else {
    filter.push(toDestination("KUBE-SERVICES", qRejectComment, port.clusterIP, rejectTarget));
  }

  // External IPs.
  if (port.externalIPs.length > 0) {
    const comment = quoted("", " external IP");
    for (const ip of port.externalIPs) {
      if (hasEndpoints) natShared.push(toDestination("KUBE-SERVICES", comment, ip, chains.ext));
      if (!hasExternalEndpoints)
        filter.push(toDestination("KUBE-EXTERNAL-SERVICES", qRejectComment, ip, rejectTarget));
    }
  }

  // Load-balancer IPs.
  if (port.loadBalancerVIPs.length > 0) {
    const comment = quoted("", " loadbalancer IP");
    const firewallComment = quoted("", ` traffic not accepted by ${chains.fw}`);
    for (const ip of port.loadBalancerVIPs) {
      if (hasEndpoints) natShared.push(toDestination("KUBE-SERVICES", comment, ip, loadBalancerChain));
      if (usesFWChain) filter.push(toDestination("KUBE-PROXY-FIREWALL", firewallComment, ip, "DROP"));
    }
    if (!hasExternalEndpoints) {
      for (const ip of port.loadBalancerVIPs)
        filter.push(toDestination("KUBE-EXTERNAL-SERVICES", qRejectComment, ip, rejectTarget));
    }
  }

  // Node port.
  if (port.nodePort !== 0) {
    const np = String(port.nodePort);
    if (hasEndpoints) {
      if (ctx.traits.nfacctCounters && ctx.localhostNodePorts) {
        natShared.push(
          `-A KUBE-NODEPORTS -m comment --comment ${qspn} -m ${proto} -p ${proto} -d 127.0.0.0/8 --dport ${np} -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ${chains.ext}\n`,
        );
      }
      natShared.push(
        `-A KUBE-NODEPORTS -m comment --comment ${qspn} -m ${proto} -p ${proto} --dport ${np} -j ${chains.ext}\n`,
      );
    }
    if (!hasExternalEndpoints) {
      filter.push(`${formatEntry(nodePortRefusal(rejectComment, proto, port.nodePort, rejectTarget))}\n`);
    }
  }

  // Health check node port.
  if (port.healthCheckNodePort !== 0)
    filter.push(`${formatEntry(healthCheckRule(spn, port.healthCheckNodePort))}\n`);

  if (!hasEndpoints) return block(filter, natShared, natChains, natDeclarations, natChainRules);

  // Declarations: EXT, FW, SVC, SVL, then one SEP per reachable endpoint.
  const declare = (chain: string): void => {
    natChains.push(chain);
    natDeclarations.push(declarationLine(chain));
  };
  if (usesExternalChain) declare(chains.ext);
  if (usesFWChain) declare(chains.fw);
  if (usesClusterPolicyChain) declare(chains.svc);
  if (usesLocalPolicyChain) declare(chains.svl);
  const sepChains = sepNames(reachable, spn, proto);
  for (const sep of sepChains) declare(sep);

  // Masquerade rule for off-cluster traffic to the cluster IP, first in the internal chain.
  if (hasInternalEndpoints) {
    if (ctx.config.masqueradeAll) {
      natChainRules.push(
        toDestination(internalPolicyChain, qClusterIPComment, port.clusterIP, "KUBE-MARK-MASQ"),
      );
    } else if (ctx.ifNotLocal !== null) {
      natChainRules.push(
        `-A ${internalPolicyChain} -m comment --comment ${qClusterIPComment} -m ${proto} -p ${proto} -d ${q(port.clusterIP)} --dport ${dport} ${argsText(ctx.ifNotLocal)} -j KUBE-MARK-MASQ\n`,
      );
    }
  }

  // External traffic chain.
  if (usesExternalChain) {
    const ext = chains.ext;
    if (!port.externalPolicyLocal) {
      natChainRules.push(
        `-A ${ext} -m comment --comment ${quoted("masquerade traffic for ", " external destinations")} -j KUBE-MARK-MASQ\n`,
      );
    } else {
      if (ctx.ifLocal !== null) {
        natChainRules.push(
          `-A ${ext} -m comment --comment ${quoted("pod traffic for ", " external destinations")} ${argsText(ctx.ifLocal)} -j ${chains.svc}\n`,
        );
      }
      natChainRules.push(
        `-A ${ext} -m comment --comment ${quoted("masquerade LOCAL traffic for ", " external destinations")} -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ\n`,
      );
      natChainRules.push(
        `-A ${ext} -m comment --comment ${quoted("route LOCAL traffic for ", " external destinations")} -m addrtype --src-type LOCAL -j ${chains.svc}\n`,
      );
    }
    if (hasExternalEndpoints) natChainRules.push(`-A ${ext} -j ${externalPolicyChain}\n`);
  }

  // Load-balancer source ranges.
  if (usesFWChain) {
    const fw = chains.fw;
    const lbComment = quoted("", " loadbalancer IP");
    let allowNode = false;
    for (const range of port.loadBalancerSourceRanges) {
      natChainRules.push(`-A ${fw} -m comment --comment ${lbComment} -s ${q(range)} -j ${chains.ext}\n`);
      if (ctx.primaryNodeIP !== null && rangeContains(range, ctx.primaryNodeIP)) allowNode = true;
    }
    if (allowNode) {
      for (const ip of port.loadBalancerVIPs)
        natChainRules.push(`-A ${fw} -m comment --comment ${lbComment} -s ${q(ip)} -j ${chains.ext}\n`);
    }
    natChainRules.push(
      `-A ${fw} -m comment --comment ${quoted("other traffic to ", " will be dropped by KUBE-PROXY-FIREWALL")}\n`,
    );
  }

  // Load balancing to the endpoints. The SEP names computed above are reused when the list is
  // the reachable list itself (the common case); a narrower list looks its names up again.
  const balancing: Balancing[] = [];
  if (usesClusterPolicyChain) {
    const seps = cluster === reachable ? sepChains : sepNames(cluster, spn, proto);
    balancing.push({ chain: chains.svc, endpoints: cluster, seps });
  }
  if (usesLocalPolicyChain) {
    const seps = local === reachable ? sepChains : sepNames(local, spn, proto);
    balancing.push({ chain: chains.svl, endpoints: local, seps });
  }
  // Every rule from here on is in a chain of its own or last in its chain, so saveRuns can
  // take them apart from natChainRules without reordering any chain.
  if (saveRuns !== undefined) {
    const of = {
      spn,
      proto,
      family: ctx.family,
      withComments: !ctx.largeClusterMode,
      stickySeconds: port.stickyMaxAgeSeconds,
    };
    if (appendEndpointSaveRuns(saveRuns, of, balancing, reachable, sepChains))
      return block(filter, natShared, natChains, natDeclarations, natChainRules);
  }
  for (const b of balancing)
    loadBalancing(natChainRules, b.chain, b.endpoints, b.seps, spn, spnPlain, port, ctx);

  // Endpoint chains: the comment only outside large-cluster mode, the recent match only with
  // affinity.
  const comment = ctx.largeClusterMode ? "" : ` -m comment --comment ${qspn}`;
  const sticky = port.stickyMaxAgeSeconds > 0;
  for (let i = 0; i < reachable.length; i++) {
    const ep = reachable[i] as Endpoint;
    const sep = sepChains[i] as string;
    const recent = sticky ? ` -m recent --name ${sep} --set` : "";
    natChainRules.push(
      `-A ${sep}${comment} -s ${q(ep.ip)} -j KUBE-MARK-MASQ\n`,
      `-A ${sep}${comment}${recent} -m ${proto} -p ${proto} -j DNAT --to-destination ${q(ep.endpoint)}\n`,
    );
  }

  return block(filter, natShared, natChains, natDeclarations, natChainRules);
}

/** The SEP chain of each endpoint, in the list's order. */
function sepNames(endpoints: readonly Endpoint[], spn: string, proto: string): string[] {
  const names = new Array<string>(endpoints.length);
  for (let i = 0; i < endpoints.length; i++)
    names[i] = endpointChain(spn, proto, (endpoints[i] as Endpoint).endpoint);
  return names;
}

/** Writes the SVC/SVL → SEP rule lines to `out`; `seps[i]` is the chain of `endpoints[i]`. */
function loadBalancing(
  out: string[],
  chain: string,
  endpoints: readonly Endpoint[],
  seps: readonly string[],
  spn: string,
  spnPlain: boolean,
  port: ServicePort,
  ctx: GenerationContext,
): void {
  const withComments = !ctx.largeClusterMode;
  const n = endpoints.length;
  const comments = new Array<string>(n).fill("");
  for (let i = 0; withComments && i < n; i++) {
    const endpoint = (endpoints[i] as Endpoint).endpoint;
    // Quoting is wrapping when neither part has anything to escape (only the endpoint is scanned).
    const text = spnPlain && !needsEscape(endpoint) ? `"${spn} -> ${endpoint}"` : q(`${spn} -> ${endpoint}`);
    comments[i] = ` -m comment --comment ${text}`;
  }
  if (port.stickyMaxAgeSeconds > 0) {
    const seconds = String(port.stickyMaxAgeSeconds);
    for (let i = 0; i < n; i++) {
      const sep = seps[i] as string;
      out.push(
        `-A ${chain}${comments[i]} -m recent --name ${sep} --rcheck --seconds ${seconds} --reap -j ${sep}\n`,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    const sep = seps[i] as string;
    out.push(
      i < n - 1
        ? `-A ${chain}${comments[i]} -m statistic --mode random --probability ${probability(n - i)} -j ${sep}\n`
        : `-A ${chain}${comments[i]} -j ${sep}\n`,
    );
  }
}

function block(
  filter: string[],
  natShared: string[],
  natChains: string[],
  natDeclarations: string[],
  natChainRules: string[],
): ServicePortText {
  return {
    filter: filter.join(""),
    natShared: natShared.join(""),
    natChains,
    natDeclarations: natDeclarations.join(""),
    natChainRules: natChainRules.join(""),
  };
}
