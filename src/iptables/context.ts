/**
 * Settings derived once per generation from the node's config and the model: the mark, the
 * local-traffic detector, large-cluster mode, the node-port address rules.
 *
 * @module
 */

import { type Cidr, cidrContains, parseCidr } from "../model/ip.js";
import { expandNodePortKeywords } from "../model/node-port-keywords.js";
import type { ProfileTraits } from "../model/profiles.js";
import type { ClusterModel, IPFamily, ProxyConfig } from "../model/types.js";
import { masqueradeMark } from "../naming/marks.js";
import { planNode } from "../plan/node-plan.js";
import type { LocalDetector, NodePlan } from "../plan/types.js";
import { checkWritableArgs } from "./writable.js";

/** More endpoints than this in total switch kube-proxy to large-cluster mode. */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

/** Everything the per-service rule builders need besides the service port itself. */
export interface GenerationContext {
  /** The node's settings. */
  readonly config: ProxyConfig;
  /** The family. */
  readonly family: IPFamily;
  /** The named layout differences of the configured profile. */
  readonly traits: ProfileTraits;
  /** `0x` + eight hex digits (or bare hex when the profile's `paddedMark` is off) of `1 << masqueradeBit`. */
  readonly mark: string;
  /** Arguments matching pod traffic, or `null` when detection is not implemented. */
  readonly ifLocal: readonly string[] | null;
  /** Arguments matching non-pod traffic, or `null`. */
  readonly ifNotLocal: readonly string[] | null;
  /** Comments are dropped from SVC/SVL→SEP and SEP rules. */
  readonly largeClusterMode: boolean;
  /** Node ports answer on 127.0.0.0/8 (IPv4 only). */
  readonly localhostNodePorts: boolean;
  /** `null` = node ports on every local address; otherwise the node addresses they answer on. */
  readonly nodePortAddresses: readonly string[] | null;
  /** The node's primary IP of this family, or `null`. */
  readonly primaryNodeIP: string | null;
  /** The node-wide plan (family, traits, masquerading, local detection) every port's plan starts from. */
  readonly node: NodePlan;
}

/** The detector's arguments for pod traffic and for the rest (kube-proxy's LocalTrafficDetector). */
function detectorArgs(detector: LocalDetector | null): { ifLocal: string[]; ifNotLocal: string[] } | null {
  if (detector === null) return null;
  const [option, value] =
    detector.kind === "cidr"
      ? ["-s", detector.cidr]
      : ["-i", detector.kind === "interface" ? detector.name : `${detector.prefix}+`];
  return { ifLocal: [option, value], ifNotLocal: ["!", option, value] };
}

/**
 * Whether a node-port CIDR holds some IPv4 loopback address, which keeps localhost node ports on
 * (§10): it holds 127.0.0.1, or lies inside 127.0.0.0/8 (`127.0.0.2/32` counts too).
 */
function overlapsIPv4Loopback(cidr: Cidr): boolean {
  return cidr.family === "IPv4" && (cidr.network.startsWith("127.") || cidrContains(cidr, "127.0.0.1"));
}

/** Node addresses that node ports answer on, or `null` for all (§10 of the spec). */
function resolveNodePortAddresses(
  config: ProxyConfig,
  nodeIPs: readonly string[],
  family: IPFamily,
  traits: ProfileTraits,
): {
  addresses: string[] | null;
  localhost: boolean;
} {
  const cidrs = [];
  for (const entry of expandNodePortKeywords(
    config.nodePortAddresses,
    family,
    traits.nodePortAddressKeywords,
  )) {
    if (entry === "primary") {
      const primary = nodeIPs[0];
      if (primary !== undefined) cidrs.push(parseCidr(`${primary}/${family === "IPv4" ? 32 : 128}`));
      continue;
    }
    const cidr = parseCidr(entry);
    if (cidr !== null && cidr.family === family) cidrs.push(cidr);
  }
  const valid = cidrs.filter((c) => c !== null);
  const matchAll = valid.length === 0 || valid.some((c) => c.prefix === 0);
  const loopback = family === "IPv4" ? "127.0.0.1" : "::1";
  // Before 1.26 there is no localhostNodePorts setting: loopback is one more interface address.
  const legacy = !traits.localhostNodePortsSetting;
  const localhost =
    !legacy &&
    config.localhostNodePorts &&
    family === "IPv4" &&
    (matchAll || valid.some(overlapsIPv4Loopback));
  if (matchAll) return { addresses: null, localhost };
  const candidates = [...nodeIPs, loopback];
  const addresses = new Set<string>();
  for (const ip of candidates) {
    const isLoopback = family === "IPv4" ? ip.startsWith("127.") : ip === "::1";
    if (isLoopback && !legacy && (family === "IPv6" || !localhost)) continue;
    if (valid.some((c) => cidrContains(c, ip))) addresses.add(ip);
  }
  return { addresses: [...addresses].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), localhost };
}

/**
 * Derives the generation context of a model.
 *
 * @param traitOverrides profile traits to override (host facts, or the unpadded mark of the
 *   upstream unit tests).
 * @example
 * createContext(model).mark // "0x00004000"
 */
export function createContext(
  model: ClusterModel,
  traitOverrides?: Partial<ProfileTraits>,
): GenerationContext {
  const config = model.config;
  const family = config.ipFamily;
  const node = planNode(model, traitOverrides);
  const traits = node.traits;
  let totalEndpoints = 0;
  for (const port of model.servicePorts) totalEndpoints += port.endpoints.length;
  const detect = detectorArgs(node.localDetector);
  const nodePorts = resolveNodePortAddresses(config, node.nodeIPs, family, traits);
  // The interface or prefix of local-traffic detection is printed as given (addresses are canonical).
  checkWritableArgs(detect?.ifLocal ?? null, "config.detectLocal");
  checkWritableArgs(detect?.ifNotLocal ?? null, "config.detectLocal");
  return {
    config,
    family,
    traits,
    mark: masqueradeMark(config.masqueradeBit, traits.paddedMark),
    ifLocal: detect?.ifLocal ?? null,
    ifNotLocal: detect?.ifNotLocal ?? null,
    largeClusterMode: totalEndpoints > LARGE_CLUSTER_ENDPOINTS,
    localhostNodePorts: nodePorts.localhost,
    nodePortAddresses: nodePorts.addresses,
    primaryNodeIP: node.primaryNodeIP,
    node,
  };
}
