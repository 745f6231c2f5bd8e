/**
 * The rules of one service port in the `xlb` chain layout (kube-proxy ≤ 1.23, the `v1.22`
 * profile): one KUBE-SVC chain holds cluster-IP, external-IP and node-port masquerading; an
 * eTP=Local port gets a KUBE-XLB chain; refused or unserved external traffic goes to the nat
 * KUBE-MARK-DROP chain instead of filter DROP rules. kube-proxy of that era wrote each feature's
 * jump and chain rules together, so all nat rules of a port go into `natChainRules` in the order
 * written (the `natShared` list stays empty), which keeps `assemblePayload` shared.
 *
 * Rule templates come from the README of `test/fixtures/kube-proxy-v1.22/` and its vectors.
 *
 * @module
 */
import { appendRule, type Rule } from "../../ir/types.js";
import type { Endpoint } from "../../model/types.js";
import { chainHash, endpointChain, servicePortName } from "../../naming/chain-names.js";
import { probability } from "../../naming/probability.js";
import { legacyEndpoints } from "../../plan/endpoints.js";
import type { ServicePortPlan } from "../../plan/types.js";
import type { GenerationContext } from "../context.js";
import type { ServicePortRules } from "../output/block.js";
import { ruleShape, slot } from "../shape/define.js";
import type { PortRuleSink } from "../shape/sink.js";
import type { RuleShape } from "../shape/types.js";
import type { PortWriter } from "./types.js";

/**
 * Builds the rules of one service port in the `xlb` layout.
 *
 * @example
 * buildXlbServicePortRules(plan, createContext(v122Model)).natChains[0] // "KUBE-SVC-…"
 */
export function buildXlbServicePortRules(plan: ServicePortPlan, ctx: GenerationContext): ServicePortRules {
  const port = plan.port;
  const spn = servicePortName(port.namespace, port.name, port.portName);
  const proto = port.protocol;
  const dport = String(port.port);
  const hash = chainHash(spn + proto);
  const svc = `KUBE-SVC-${hash}`;
  const xlb = `KUBE-XLB-${hash}`;
  const fw = `KUBE-FW-${hash}`;
  const local = port.externalPolicyLocal;
  const endpoints = legacyEndpoints(port);
  const hasEndpoints = endpoints.length > 0;
  const hostBits = ctx.family === "IPv4" ? "/32" : "/128";

  const filter: Rule[] = [];
  const natChains: string[] = [];
  const nat: Rule[] = [];
  if (hasEndpoints) natChains.push(svc);
  if (local) natChains.push(xlb);

  // Cluster IP.
  const clusterDest = ["-m", proto, "-p", proto, "-d", port.clusterIP + hostBits, "--dport", dport];
  if (hasEndpoints) {
    const args = ["-m", "comment", "--comment", `${spn} cluster IP`, ...clusterDest];
    if (ctx.config.masqueradeAll) nat.push(appendRule(svc, [...args, "-j", "KUBE-MARK-MASQ"]));
    else if (ctx.ifNotLocal !== null)
      nat.push(appendRule(svc, [...args, ...ctx.ifNotLocal, "-j", "KUBE-MARK-MASQ"]));
    nat.push(appendRule("KUBE-SERVICES", [...args, "-j", svc]));
  } else {
    filter.push(appendRule("KUBE-SERVICES", [...noEndpoints(spn), ...clusterDest, "-j", "REJECT"]));
  }

  // External IPs: eTP=Cluster masquerades off-node traffic in the SVC chain; eTP=Local uses XLB.
  for (const ip of port.externalIPs) {
    const dest = ["-m", proto, "-p", proto, "-d", ip + hostBits, "--dport", dport];
    if (!hasEndpoints) {
      filter.push(appendRule("KUBE-EXTERNAL-SERVICES", [...noEndpoints(spn), ...dest, "-j", "REJECT"]));
      continue;
    }
    const args = ["-m", "comment", "--comment", `${spn} external IP`, ...dest];
    if (!local) {
      const notLocal = ctx.ifNotLocal ?? [];
      nat.push(appendRule(svc, [...args, ...notLocal, "-j", "KUBE-MARK-MASQ"]));
    }
    nat.push(appendRule("KUBE-SERVICES", [...args, "-j", local ? xlb : svc]));
  }

  // Load-balancer IPs: every ingress gets its own pass through the FW chain (declared each time).
  for (const ip of port.loadBalancerVIPs) {
    const dest = ["-m", proto, "-p", proto, "-d", ip + hostBits, "--dport", dport];
    if (!hasEndpoints) {
      filter.push(appendRule("KUBE-EXTERNAL-SERVICES", [...noEndpoints(spn), ...dest, "-j", "REJECT"]));
      continue;
    }
    natChains.push(fw);
    const comment = ["-m", "comment", "--comment", `${spn} loadbalancer IP`];
    nat.push(appendRule("KUBE-SERVICES", [...comment, ...dest, "-j", fw]));
    const chosen = local ? xlb : svc;
    if (!local) nat.push(appendRule(fw, [...comment, "-j", "KUBE-MARK-MASQ"]));
    if (port.loadBalancerSourceRanges.length === 0) {
      nat.push(appendRule(fw, [...comment, "-j", chosen]));
    } else {
      for (const range of port.loadBalancerSourceRanges)
        nat.push(appendRule(fw, [...comment, "-s", range, "-j", chosen]));
      // Traffic from the LB's backends may loop back to the node itself.
      if (plan.firewall?.allowsNode === true)
        nat.push(appendRule(fw, [...comment, "-s", ip + hostBits, "-j", chosen]));
    }
    nat.push(appendRule(fw, [...comment, "-j", "KUBE-MARK-DROP"]));
  }

  // Node port: the bare service-port name as comment, masquerading in the SVC chain.
  if (port.nodePort !== 0) {
    // ≤ 1.23 first reserves the node port on every node-port address; when nodePortAddresses
    // matches no address that step fails and the rest of this port is skipped (vector
    // feature-nodeport-addresses-no-match): no node-port, health-check or endpoint rules.
    if (ctx.nodePortAddresses !== null && ctx.nodePortAddresses.length === 0) {
      return { filter, natShared: NONE, natChains, natChainRules: nat };
    }
    const np = String(port.nodePort);
    if (hasEndpoints) {
      const args = ["-m", "comment", "--comment", spn, "-m", proto, "-p", proto, "--dport", np];
      if (!local) {
        nat.push(appendRule(svc, [...args, "-j", "KUBE-MARK-MASQ"]));
        nat.push(appendRule("KUBE-NODEPORTS", [...args, "-j", svc]));
      } else {
        // Connections from loopback need SNAT, or the reply would be a martian.
        const loopback = ctx.family === "IPv4" ? "127.0.0.0/8" : "::1/128";
        nat.push(appendRule("KUBE-NODEPORTS", [...args, "-s", loopback, "-j", "KUBE-MARK-MASQ"]));
        nat.push(appendRule("KUBE-NODEPORTS", [...args, "-j", xlb]));
      }
    } else {
      filter.push(nodePortRefusal(`${spn} has no endpoints`, proto, port.nodePort, "REJECT"));
    }
  }

  // Health check node port.
  if (port.healthCheckNodePort !== 0) filter.push(healthCheckRule(spn, port.healthCheckNodePort));

  if (!hasEndpoints) return { filter, natShared: NONE, natChains, natChainRules: nat };

  // Every endpoint gets a SEP chain, ready or not; only ready ones are balanced to.
  const seps: string[] = [];
  for (const ep of endpoints) {
    const sep = endpointChain(spn, proto, ep.endpoint);
    seps.push(sep);
    natChains.push(sep);
  }
  const svcComment = ctx.largeClusterMode ? NONE_ARGS : ["-m", "comment", "--comment", spn];
  const seconds = String(port.stickyMaxAgeSeconds);
  if (port.stickyMaxAgeSeconds > 0) {
    for (const sep of seps) {
      nat.push(appendRule(svc, [...svcComment, ...recentCheck(sep, seconds)]));
    }
  }
  const ready: string[] = [];
  for (let i = 0; i < endpoints.length; i++)
    if ((endpoints[i] as Endpoint).ready) ready.push(seps[i] as string);
  writeBalancing(nat, svc, ready, () => svcComment);

  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    const sep = seps[i] as string;
    nat.push(appendRule(sep, [...svcComment, "-s", ep.ip + hostBits, "-j", "KUBE-MARK-MASQ"]));
    const affinity = port.stickyMaxAgeSeconds > 0 ? ["-m", "recent", "--name", sep, "--set"] : NONE_ARGS;
    nat.push(
      appendRule(sep, [
        ...svcComment,
        ...affinity,
        "-m",
        proto,
        "-p",
        proto,
        "-j",
        "DNAT",
        "--to-destination",
        ep.endpoint,
      ]),
    );
  }

  if (!local) return { filter, natShared: NONE, natChains, natChainRules: nat };

  // The XLB chain: pods and the node itself reach the VIP through the cluster chain.
  if (ctx.ifLocal !== null) {
    nat.push(
      appendRule(xlb, [
        "-m",
        "comment",
        "--comment",
        "Redirect pods trying to reach external loadbalancer VIP to clusterIP",
        ...ctx.ifLocal,
        "-j",
        svc,
      ]),
    );
  }
  nat.push(
    appendRule(xlb, [
      "-m",
      "comment",
      "--comment",
      `masquerade LOCAL traffic for ${spn} LB IP`,
      "-m",
      "addrtype",
      "--src-type",
      "LOCAL",
      "-j",
      "KUBE-MARK-MASQ",
    ]),
    appendRule(xlb, [
      "-m",
      "comment",
      "--comment",
      `route LOCAL traffic for ${spn} LB IP to service chain`,
      "-m",
      "addrtype",
      "--src-type",
      "LOCAL",
      "-j",
      svc,
    ]),
  );
  const localReady: string[] = [];
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    if (ep.isLocal && ep.ready) localReady.push(seps[i] as string);
  }
  if (localReady.length === 0) {
    nat.push(
      appendRule(xlb, [
        "-m",
        "comment",
        "--comment",
        `${spn} has no local endpoints`,
        "-j",
        "KUBE-MARK-DROP",
      ]),
    );
  } else {
    if (port.stickyMaxAgeSeconds > 0) {
      for (const sep of localReady) {
        nat.push(appendRule(xlb, ["-m", "comment", "--comment", spn, ...recentCheck(sep, seconds)]));
      }
    }
    writeBalancing(nat, xlb, localReady, (i) => [
      "-m",
      "comment",
      "--comment",
      `Balancing rule ${i} for ${spn}`,
    ]);
  }
  return { filter, natShared: NONE, natChains, natChainRules: nat };
}

const NONE: readonly Rule[] = [];
const NONE_ARGS: readonly string[] = [];

function noEndpoints(spn: string): string[] {
  return ["-m", "comment", "--comment", `${spn} has no endpoints`];
}

function recentCheck(sep: string, seconds: string): string[] {
  return ["-m", "recent", "--name", sep, "--rcheck", "--seconds", seconds, "--reap", "-j", sep];
}

/** `1/(n-i)` statistic jumps, the last one unconditional. */
function writeBalancing(
  out: Rule[],
  chain: string,
  seps: readonly string[],
  comment: (i: number) => readonly string[],
): void {
  const n = seps.length;
  for (let i = 0; i < n; i++) {
    const sep = seps[i] as string;
    if (i < n - 1) {
      out.push(
        appendRule(chain, [
          ...comment(i),
          "-m",
          "statistic",
          "--mode",
          "random",
          "--probability",
          probability(n - i),
          "-j",
          sep,
        ]),
      );
    } else {
      out.push(appendRule(chain, [...comment(i), "-j", sep]));
    }
  }
}

/** The filter rule that opens a health-check node port (always TCP). */
function healthCheckRule(spn: string, healthCheckNodePort: number): Rule {
  return appendRule("KUBE-NODEPORTS", [
    "-m",
    "comment",
    "--comment",
    `${spn} health check node port`,
    "-m",
    "tcp",
    "-p",
    "tcp",
    "--dport",
    String(healthCheckNodePort),
    "-j",
    "ACCEPT",
  ]);
}

/** The filter rule that rejects a node port without endpoints. */
function nodePortRefusal(comment: string, proto: string, nodePort: number, target: string): Rule {
  return appendRule("KUBE-EXTERNAL-SERVICES", [
    "-m",
    "comment",
    "--comment",
    comment,
    "-m",
    "addrtype",
    "--dst-type",
    "LOCAL",
    "-m",
    proto,
    "-p",
    proto,
    "--dport",
    String(nodePort),
    "-j",
    target,
  ]);
}

// The adapter below feeds the rules above to a sink until the v1.22 writers over the plan
// (`writers/legacy.ts`) replace this module: each rule travels as a shape of plain words.
const verbatimShapes: RuleShape[] = [];
const VERBATIM = new WeakSet<RuleShape>();

/**
 * A shape of `n` words printed as given (quoted as needed): a rule that has no shape of its own.
 *
 * @example
 * verbatimShape(2).args // [{ slot: 0, kind: "word" }, { slot: 1, kind: "word" }]
 */
export function verbatimShape(n: number): RuleShape {
  let shape = verbatimShapes[n];
  if (shape === undefined) {
    const args = [];
    for (let i = 0; i < n; i++) args.push(slot(i, "word"));
    shape = ruleShape(`${n} words`, args);
    verbatimShapes[n] = shape;
    VERBATIM.add(shape);
  }
  return shape;
}

/**
 * Whether a shape is a {@link verbatimShape}: its values are a whole rule's arguments, which the
 * save sink prints as a rule rather than through a derived layout.
 *
 * @example
 * isVerbatimShape(verbatimShape(3)) // true
 */
export function isVerbatimShape(shape: RuleShape): boolean {
  return VERBATIM.has(shape);
}

function emit(write: PortRuleSink["filter"], sink: PortRuleSink, rules: readonly Rule[]): void {
  for (const rule of rules) write.call(sink, verbatimShape(rule.args.length), rule.chain, rule.args);
}

/**
 * The v1.22 (`xlb`) layout as a {@link PortWriter}: the rules of {@link buildXlbServicePortRules},
 * section by section.
 *
 * @example
 * writeXlbServicePort(plan, ctx, sink); // sink.rule(…) for every nat rule, in kube-proxy 1.22's order
 */
export const writeXlbServicePort: PortWriter = (
  plan: ServicePortPlan,
  ctx: GenerationContext,
  sink: PortRuleSink,
): void => {
  const rules = buildXlbServicePortRules(plan, ctx);
  emit(sink.filter, sink, rules.filter);
  emit(sink.jump, sink, rules.natShared);
  for (const chain of rules.natChains) sink.chain(chain);
  emit(sink.rule, sink, rules.natChainRules);
};
