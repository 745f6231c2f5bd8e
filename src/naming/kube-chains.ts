/**
 * Which chains kube-proxy owns: the prefixes of its per-service chains and the fixed chains it
 * (and kubelet) declare, by table. The one place that spells them; the writers, the parser's
 * table guess, the diff, sync, the tracer and the graph ask here.
 *
 * Sources: kube-proxy's iptables proxier (pkg/proxy/iptables: the `servicePortPolicyClusterChain`
 * family of name builders and the fixed chains it ensures), and kubelet's canary and firewall
 * chains (pkg/kubelet/kubelet_network_linux.go).
 *
 * @module
 */
import { DEFAULT_PROFILE, PROFILES, type ProfileTraits } from "../model/profiles.js";

/**
 * The prefix of each kind of per-service chain; the name is the prefix and a 16-character hash.
 *
 * @example
 * `${CHAIN_PREFIX.endpoint}${chainHash("default/web:httptcp10.0.0.1:80")}` // "KUBE-SEP-…"
 */
export const CHAIN_PREFIX = {
  /** The cluster-policy load-balancing chain. */
  service: "KUBE-SVC-",
  /** The local-policy load-balancing chain (layout of 1.24+). */
  local: "KUBE-SVL-",
  /** The external-traffic chain (layout of 1.24+). */
  external: "KUBE-EXT-",
  /** The load-balancer source-range chain. */
  firewall: "KUBE-FW-",
  /** One endpoint's DNAT chain. */
  endpoint: "KUBE-SEP-",
  /** The external-traffic chain of releases before 1.24 (the `xlb` layout). */
  xlb: "KUBE-XLB-",
} as const;

/** The per-service chains of the 1.24+ layout, which a full sync deletes when unused. */
const SERVICE_CHAIN_PREFIXES: readonly string[] = [
  CHAIN_PREFIX.service,
  CHAIN_PREFIX.local,
  CHAIN_PREFIX.external,
  CHAIN_PREFIX.firewall,
  CHAIN_PREFIX.endpoint,
];
/** The per-service chains of the `xlb` layout (releases before 1.24). */
const XLB_SERVICE_CHAIN_PREFIXES: readonly string[] = [
  CHAIN_PREFIX.service,
  CHAIN_PREFIX.endpoint,
  CHAIN_PREFIX.firewall,
  CHAIN_PREFIX.xlb,
];

/**
 * Every per-service prefix of every layout.
 *
 * @example
 * PER_SERVICE_CHAIN_PREFIXES.includes("KUBE-XLB-") // true
 */
export const PER_SERVICE_CHAIN_PREFIXES: readonly string[] = Object.values(CHAIN_PREFIX);

/**
 * Whether a chain name is one of kube-proxy's per-service chains (those a full sync deletes
 * when unused); the prefixes depend on the profile's chain layout (the default profile's
 * without traits).
 *
 * @example
 * isServiceChain("KUBE-SVL-ABC")                                      // true
 * isServiceChain("KUBE-XLB-ABC", { externalChains: "xlb" })           // true
 * isServiceChain("KUBE-XLB-ABC")                                      // false
 */
export function isServiceChain(
  name: string,
  traits: Pick<ProfileTraits, "externalChains"> = PROFILES[DEFAULT_PROFILE],
): boolean {
  const prefixes = traits.externalChains === "xlb" ? XLB_SERVICE_CHAIN_PREFIXES : SERVICE_CHAIN_PREFIXES;
  return prefixes.some((prefix) => name.startsWith(prefix));
}

/**
 * Whether a chain name is a per-service chain of any layout.
 *
 * @example
 * isPerServiceChain("KUBE-XLB-ABC") // true
 * isPerServiceChain("KUBE-SERVICES") // false
 */
export function isPerServiceChain(name: string): boolean {
  return PER_SERVICE_CHAIN_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * Whether a chain name is an endpoint's chain (`KUBE-SEP-…`).
 *
 * @example
 * isEndpointChain("KUBE-SEP-DSBJGVCOU4RGUKVK") // true
 */
export function isEndpointChain(name: string): boolean {
  return name.startsWith(CHAIN_PREFIX.endpoint);
}

/**
 * kube-proxy's fixed chains that live in nat only (KUBE-MARK-DROP: kubelet's, and kube-proxy's
 * before 1.25). KUBE-SERVICES and KUBE-NODEPORTS are in nat and filter: see {@link KUBE_CHAINS_IN_BOTH}.
 *
 * @example
 * KUBE_CHAINS_NAT_ONLY.includes("KUBE-MARK-MASQ") // true
 */
export const KUBE_CHAINS_NAT_ONLY: readonly string[] = [
  "KUBE-MARK-MASQ",
  "KUBE-MARK-DROP",
  "KUBE-POSTROUTING",
];

/**
 * kube-proxy's (and kubelet's KUBE-FIREWALL) fixed chains that live in filter only.
 *
 * @example
 * KUBE_CHAINS_FILTER_ONLY.includes("KUBE-FORWARD") // true
 */
export const KUBE_CHAINS_FILTER_ONLY: readonly string[] = [
  "KUBE-FORWARD",
  "KUBE-PROXY-FIREWALL",
  "KUBE-EXTERNAL-SERVICES",
  "KUBE-FIREWALL",
];

/**
 * kube-proxy's fixed chains that exist in both nat and filter.
 *
 * @example
 * KUBE_CHAINS_IN_BOTH // ["KUBE-SERVICES", "KUBE-NODEPORTS"]
 */
export const KUBE_CHAINS_IN_BOTH: readonly string[] = ["KUBE-SERVICES", "KUBE-NODEPORTS"];

/**
 * The canary chains kube-proxy and kubelet create in mangle, nat and filter (and the hint chain
 * iptables-nft's wrapper looks for): they say nothing about a table on their own.
 *
 * @example
 * CANARY_CHAINS.includes("KUBE-PROXY-CANARY") // true
 */
export const CANARY_CHAINS: readonly string[] = [
  "KUBE-PROXY-CANARY",
  "KUBE-KUBELET-CANARY",
  "KUBE-IPTABLES-HINT",
];
