/**
 * Node settings: defaults for every field of a cluster file's `config`.
 *
 * @module
 */
import { DEFAULT_PROFILE } from "../model/profiles.js";
import type { ProxyConfig } from "../model/types.js";
import { lowerGo, trimGoSpace } from "./go-strings.js";
import type { ProxyConfigInput } from "./types.js";

/**
 * The settings used for every field a cluster file leaves out.
 *
 * @example
 * DEFAULT_CONFIG.masqueradeBit // 14
 * DEFAULT_CONFIG.profile       // "v1.30"
 */
export const DEFAULT_CONFIG: ProxyConfig = {
  ipFamily: "IPv4",
  hostname: "",
  nodeIPs: [],
  nodeLabels: {},
  detectLocal: { mode: "None" },
  masqueradeAll: false,
  masqueradeBit: 14,
  nodePortAddresses: [],
  localhostNodePorts: true,
  hasRandomFully: false,
  conntrackTCPBeLiberal: false,
  profile: DEFAULT_PROFILE,
};

/**
 * Fills in the defaults of a cluster file's `config` (which the validator has checked).
 *
 * @example
 * resolveConfig({ hostname: "k8s1" }).masqueradeBit // 14
 */
export function resolveConfig(
  input: ProxyConfigInput | undefined,
  overrides?: Partial<ProxyConfig>,
): ProxyConfig {
  const c = input ?? {};
  // JSON null is "not set", as everywhere else in the config (the validator accepts it).
  const detectLocal: ProxyConfig["detectLocal"] =
    c.detectLocal === undefined || c.detectLocal === null
      ? DEFAULT_CONFIG.detectLocal
      : c.detectLocal.mode === "ClusterCIDR" || c.detectLocal.mode === "NodeCIDR"
        ? { mode: c.detectLocal.mode, cidrs: c.detectLocal.cidrs ?? [] }
        : (c.detectLocal as ProxyConfig["detectLocal"]);
  const resolved: ProxyConfig = {
    ipFamily: c.ipFamily ?? DEFAULT_CONFIG.ipFamily,
    hostname: c.hostname ?? DEFAULT_CONFIG.hostname,
    nodeIPs: c.nodeIPs ?? DEFAULT_CONFIG.nodeIPs,
    nodeLabels: c.nodeLabels ?? DEFAULT_CONFIG.nodeLabels,
    detectLocal,
    masqueradeAll: c.masqueradeAll ?? DEFAULT_CONFIG.masqueradeAll,
    masqueradeBit: c.masqueradeBit ?? DEFAULT_CONFIG.masqueradeBit,
    nodePortAddresses: c.nodePortAddresses ?? DEFAULT_CONFIG.nodePortAddresses,
    localhostNodePorts: c.localhostNodePorts ?? DEFAULT_CONFIG.localhostNodePorts,
    hasRandomFully: c.hasRandomFully ?? DEFAULT_CONFIG.hasRandomFully,
    conntrackTCPBeLiberal: c.conntrackTCPBeLiberal ?? DEFAULT_CONFIG.conntrackTCPBeLiberal,
    profile: c.profile ?? DEFAULT_CONFIG.profile,
    ...(c.allowServiceExternalIPs === undefined
      ? {}
      : { allowServiceExternalIPs: c.allowServiceExternalIPs }),
    ...overrides,
  };
  // A hostname of another type is the validator's to report; it is kept as it is.
  if (typeof resolved.hostname !== "string") return resolved;
  const name = nodeName(resolved.hostname);
  return name === resolved.hostname ? resolved : { ...resolved, hostname: name };
}

/**
 * The node name kube-proxy runs as, from its `--hostname-override`: GetHostname trims it and
 * lower-cases it, so `Node-A` (say, from a node's `hostname`) is node `node-a`, as the kubelet
 * registers it and endpoints name it.
 *
 * @example
 * nodeName(" Node-A ") // "node-a"
 */
export function nodeName(hostname: string): string {
  return lowerGo(trimGoSpace(hostname));
}
