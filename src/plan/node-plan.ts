/**
 * The node-wide part of the plan: family, profile traits, masquerading and local detection.
 *
 * @module
 */

import { canonicalIP, familyOf, parseCidr } from "../model/ip.js";
import { type ProfileTraits, profileTraits } from "../model/profiles.js";
import type { ClusterModel, IPFamily, ProxyConfig } from "../model/types.js";
import type { LocalDetector, NodePlan } from "./types.js";

/**
 * The local detector of one family (kube-proxy's `--detect-local-mode`): the first CIDR of the
 * family for the CIDR modes; the interface modes only where the profile has them (1.23+).
 */
function localDetectorOf(config: ProxyConfig, family: IPFamily, traits: ProfileTraits): LocalDetector | null {
  const d = config.detectLocal;
  switch (d.mode) {
    case "ClusterCIDR":
    case "NodeCIDR": {
      for (const text of d.cidrs) {
        const cidr = parseCidr(text);
        if (cidr !== null && cidr.family === family) return { kind: "cidr", cidr: cidr.text };
      }
      return null;
    }
    case "BridgeInterface":
      return traits.interfaceDetectors ? { kind: "interface", name: d.interface } : null;
    case "InterfaceNamePrefix":
      return traits.interfaceDetectors ? { kind: "interface-prefix", prefix: d.prefix } : null;
    case "None":
      return null;
  }
}

/**
 * The node-wide decisions of a model.
 *
 * @param traitOverrides profile traits to override (host facts).
 * @example
 * planNode(model).localDetector // { kind: "cidr", cidr: "10.244.0.0/16" }
 */
export function planNode(model: ClusterModel, traitOverrides?: Partial<ProfileTraits>): NodePlan {
  return planNodeOfConfig(model.config, profileTraits(model.config.profile, traitOverrides));
}

/**
 * The node-wide decisions of a node's settings under traits already resolved (what a generation
 * context holds), for callers that have no model at hand.
 *
 * @example
 * planNodeOfConfig(model.config, PROFILES["v1.22"]).traits.externalChains // "xlb"
 */
export function planNodeOfConfig(config: ProxyConfig, traits: ProfileTraits): NodePlan {
  const family = config.ipFamily;
  const nodeIPs: string[] = [];
  for (const text of config.nodeIPs) {
    const ip = canonicalIP(text);
    if (ip !== null && familyOf(ip) === family) nodeIPs.push(ip);
  }
  return {
    family,
    traits,
    masqueradeBit: config.masqueradeBit,
    masqueradeAll: config.masqueradeAll,
    localDetector: localDetectorOf(config, family, traits),
    nodeIPs,
    primaryNodeIP: nodeIPs[0] ?? null,
  };
}
