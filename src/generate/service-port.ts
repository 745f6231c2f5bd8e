/**
 * The rules of one service port (§5 of the spec): its jumps from the shared chains, its filter
 * REJECT/DROP rules, and its own chains (EXT, FW, SVC, SVL, SEP). The result depends only on the
 * service port and the generation context, so it can be memoized per service port.
 *
 * @module
 */
import { appendRule, type Rule } from "../ir/types.js";
import type { Endpoint, ServicePort } from "../model/types.js";
import { endpointChain, servicePortChains, servicePortName } from "../naming/chain-names.js";
import { probability } from "../naming/probability.js";
import type { GenerationContext } from "./context.js";
import { categorizeEndpoints, externallyAccessible } from "./endpoints.js";
import { healthCheckRule, nodePortRefusal, rangeContains } from "./rule-parts.js";
import { buildXlbServicePortRules } from "./service-port-xlb.js";

/** Everything one service port contributes to the payload. */
export interface ServicePortRules {
  /** Filter rules, in emission order. */
  readonly filter: readonly Rule[];
  /** nat `KUBE-SERVICES` and `KUBE-NODEPORTS` rules, in emission order. */
  readonly natShared: readonly Rule[];
  /** The per-service nat chains, in declaration order. */
  readonly natChains: readonly string[];
  /** The rules of those chains, in emission order. */
  readonly natChainRules: readonly Rule[];
}

/**
 * Builds the rules of one service port.
 *
 * @example
 * buildServicePortRules(port, createContext(model)).natShared[0].chain // "KUBE-SERVICES"
 */
export function buildServicePortRules(port: ServicePort, ctx: GenerationContext): ServicePortRules {
  // Profiles before KUBE-EXT (v1.22) route external traffic through KUBE-XLB instead.
  if (ctx.traits.externalChains === "xlb") return buildXlbServicePortRules(port, ctx);
  const spn = servicePortName(port.namespace, port.name, port.portName);
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

  const noEndpointsComment = `${spn} has no endpoints`;
  const noLocalComment = `${spn} has no local endpoints`;
  const internalReject = !hasEndpoints ? "REJECT" : "DROP";
  const internalRejectComment = !hasEndpoints ? noEndpointsComment : noLocalComment;
  const externalReject = internalReject;
  const externalRejectComment = internalRejectComment;

  const filter: Rule[] = [];
  const natShared: Rule[] = [];
  const natChains: string[] = [];
  const natChainRules: Rule[] = [];
  // A rule matching traffic to ip:port of this service port, as kube-proxy orders the arguments.
  const toDestination = (chain: string, text: string, ip: string, target: string): Rule =>
    appendRule(chain, [
      "-m",
      "comment",
      "--comment",
      text,
      "-m",
      proto,
      "-p",
      proto,
      "-d",
      ip,
      "--dport",
      dport,
      "-j",
      target,
    ]);

  // Cluster IP.
  if (hasInternalEndpoints) {
    natShared.push(toDestination("KUBE-SERVICES", `${spn} cluster IP`, port.clusterIP, internalPolicyChain));
  } else {
    filter.push(toDestination("KUBE-SERVICES", internalRejectComment, port.clusterIP, internalReject));
  }

  // External IPs.
  for (const ip of port.externalIPs) {
    if (hasEndpoints) natShared.push(toDestination("KUBE-SERVICES", `${spn} external IP`, ip, chains.ext));
    if (!hasExternalEndpoints) {
      filter.push(toDestination("KUBE-EXTERNAL-SERVICES", externalRejectComment, ip, externalReject));
    }
  }

  // Load-balancer IPs.
  for (const ip of port.loadBalancerVIPs) {
    if (hasEndpoints)
      natShared.push(toDestination("KUBE-SERVICES", `${spn} loadbalancer IP`, ip, loadBalancerChain));
    if (usesFWChain) {
      filter.push(
        toDestination("KUBE-PROXY-FIREWALL", `${spn} traffic not accepted by ${chains.fw}`, ip, "DROP"),
      );
    }
  }
  if (!hasExternalEndpoints) {
    for (const ip of port.loadBalancerVIPs) {
      filter.push(toDestination("KUBE-EXTERNAL-SERVICES", externalRejectComment, ip, externalReject));
    }
  }

  // Node port.
  if (port.nodePort !== 0) {
    const np = String(port.nodePort);
    if (hasEndpoints) {
      if (ctx.traits.nfacctCounters) {
        if (ctx.localhostNodePorts) {
          natShared.push(
            appendRule("KUBE-NODEPORTS", [
              "-m",
              "comment",
              "--comment",
              spn,
              "-m",
              proto,
              "-p",
              proto,
              "-d",
              "127.0.0.0/8",
              "--dport",
              np,
              "-m",
              "nfacct",
              "--nfacct-name",
              "localhost_nps_accepted_pkts",
              "-j",
              chains.ext,
            ]),
          );
        }
      }
      natShared.push(
        appendRule("KUBE-NODEPORTS", [
          "-m",
          "comment",
          "--comment",
          spn,
          "-m",
          proto,
          "-p",
          proto,
          "--dport",
          np,
          "-j",
          chains.ext,
        ]),
      );
    }
    if (!hasExternalEndpoints) {
      filter.push(nodePortRefusal(externalRejectComment, proto, port.nodePort, externalReject));
    }
  }

  // Health check node port.
  if (port.healthCheckNodePort !== 0) filter.push(healthCheckRule(spn, port.healthCheckNodePort));

  if (!hasEndpoints) return { filter, natShared, natChains, natChainRules };

  // Declarations: EXT, FW, SVC, SVL, then one SEP per reachable endpoint.
  if (usesExternalChain) natChains.push(chains.ext);
  if (usesFWChain) natChains.push(chains.fw);
  if (usesClusterPolicyChain) natChains.push(chains.svc);
  if (usesLocalPolicyChain) natChains.push(chains.svl);
  const sepChains = sepNames(reachable, spn, proto);
  for (const sep of sepChains) natChains.push(sep);

  // Masquerade rule for off-cluster traffic to the cluster IP, first in the internal chain.
  if (hasInternalEndpoints) {
    if (ctx.config.masqueradeAll) {
      natChainRules.push(
        toDestination(internalPolicyChain, `${spn} cluster IP`, port.clusterIP, "KUBE-MARK-MASQ"),
      );
    } else if (ctx.ifNotLocal !== null) {
      const args = [
        "-m",
        "comment",
        "--comment",
        `${spn} cluster IP`,
        "-m",
        proto,
        "-p",
        proto,
        "-d",
        port.clusterIP,
        "--dport",
        dport,
      ];
      for (const arg of ctx.ifNotLocal) args.push(arg);
      args.push("-j", "KUBE-MARK-MASQ");
      natChainRules.push(appendRule(internalPolicyChain, args));
    }
  }

  // External traffic chain.
  if (usesExternalChain) {
    const ext = chains.ext;
    if (!port.externalPolicyLocal) {
      natChainRules.push(
        appendRule(ext, [
          "-m",
          "comment",
          "--comment",
          `masquerade traffic for ${spn} external destinations`,
          "-j",
          "KUBE-MARK-MASQ",
        ]),
      );
    } else {
      if (ctx.ifLocal !== null) {
        const args = ["-m", "comment", "--comment", `pod traffic for ${spn} external destinations`];
        for (const arg of ctx.ifLocal) args.push(arg);
        args.push("-j", chains.svc);
        natChainRules.push(appendRule(ext, args));
      }
      natChainRules.push(
        appendRule(ext, [
          "-m",
          "comment",
          "--comment",
          `masquerade LOCAL traffic for ${spn} external destinations`,
          "-m",
          "addrtype",
          "--src-type",
          "LOCAL",
          "-j",
          "KUBE-MARK-MASQ",
        ]),
        appendRule(ext, [
          "-m",
          "comment",
          "--comment",
          `route LOCAL traffic for ${spn} external destinations`,
          "-m",
          "addrtype",
          "--src-type",
          "LOCAL",
          "-j",
          chains.svc,
        ]),
      );
    }
    if (hasExternalEndpoints) natChainRules.push(appendRule(ext, ["-j", externalPolicyChain]));
  }

  // Load-balancer source ranges.
  if (usesFWChain) {
    const fw = chains.fw;
    const lbComment = `${spn} loadbalancer IP`;
    let allowNode = false;
    for (const range of port.loadBalancerSourceRanges) {
      natChainRules.push(
        appendRule(fw, ["-m", "comment", "--comment", lbComment, "-s", range, "-j", chains.ext]),
      );
      if (ctx.primaryNodeIP !== null && rangeContains(range, ctx.primaryNodeIP)) allowNode = true;
    }
    if (allowNode) {
      for (const ip of port.loadBalancerVIPs) {
        natChainRules.push(
          appendRule(fw, ["-m", "comment", "--comment", lbComment, "-s", ip, "-j", chains.ext]),
        );
      }
    }
    natChainRules.push(
      appendRule(fw, [
        "-m",
        "comment",
        "--comment",
        `other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`,
      ]),
    );
  }

  // Load balancing to the endpoints. The SEP names computed above are reused when the list is
  // the reachable list itself (the common case); a narrower list looks its names up again.
  if (usesClusterPolicyChain) {
    const seps = cluster === reachable ? sepChains : sepNames(cluster, spn, proto);
    writeLoadBalancing(natChainRules, chains.svc, cluster, seps, spn, port, ctx);
  }
  if (usesLocalPolicyChain) {
    const seps = local === reachable ? sepChains : sepNames(local, spn, proto);
    writeLoadBalancing(natChainRules, chains.svl, local, seps, spn, port, ctx);
  }

  // Endpoint chains.
  const sticky = port.stickyMaxAgeSeconds > 0;
  for (let i = 0; i < reachable.length; i++) {
    const ep = reachable[i] as Endpoint;
    const sep = sepChains[i] as string;
    // One array per rule, grown in place: the comment only outside large-cluster mode, the
    // recent match only with affinity.
    const masq = ctx.largeClusterMode ? [] : ["-m", "comment", "--comment", spn];
    masq.push("-s", ep.ip, "-j", "KUBE-MARK-MASQ");
    const dnat = ctx.largeClusterMode ? [] : ["-m", "comment", "--comment", spn];
    if (sticky) dnat.push("-m", "recent", "--name", sep, "--set");
    dnat.push("-m", proto, "-p", proto, "-j", "DNAT", "--to-destination", ep.endpoint);
    natChainRules.push(appendRule(sep, masq), appendRule(sep, dnat));
  }

  return { filter, natShared, natChains, natChainRules };
}

/** The SEP chain of each endpoint, in the list's order. */
function sepNames(endpoints: readonly Endpoint[], spn: string, proto: string): string[] {
  const names = new Array<string>(endpoints.length);
  for (let i = 0; i < endpoints.length; i++)
    names[i] = endpointChain(spn, proto, (endpoints[i] as Endpoint).endpoint);
  return names;
}

/** The SVC/SVL → SEP rules; `seps[i]` is the chain of `endpoints[i]`. */
function writeLoadBalancing(
  out: Rule[],
  chain: string,
  endpoints: readonly Endpoint[],
  seps: readonly string[],
  spn: string,
  port: ServicePort,
  ctx: GenerationContext,
): void {
  const withComments = !ctx.largeClusterMode;
  if (port.stickyMaxAgeSeconds > 0) {
    const seconds = String(port.stickyMaxAgeSeconds);
    for (let i = 0; i < endpoints.length; i++) {
      const ep = endpoints[i] as Endpoint;
      const sep = seps[i] as string;
      const args = withComments ? ["-m", "comment", "--comment", `${spn} -> ${ep.endpoint}`] : [];
      args.push("-m", "recent", "--name", sep, "--rcheck", "--seconds", seconds, "--reap", "-j", sep);
      out.push(appendRule(chain, args));
    }
  }
  const n = endpoints.length;
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i] as Endpoint;
    const sep = seps[i] as string;
    let args: string[];
    if (i < n - 1) {
      const p = probability(n - i);
      args = withComments
        ? [
            "-m",
            "comment",
            "--comment",
            `${spn} -> ${ep.endpoint}`,
            "-m",
            "statistic",
            "--mode",
            "random",
            "--probability",
            p,
            "-j",
            sep,
          ]
        : ["-m", "statistic", "--mode", "random", "--probability", p, "-j", sep];
    } else {
      args = withComments
        ? ["-m", "comment", "--comment", `${spn} -> ${ep.endpoint}`, "-j", sep]
        : ["-j", sep];
    }
    out.push(appendRule(chain, args));
  }
}
