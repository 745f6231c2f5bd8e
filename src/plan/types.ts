/**
 * The mode-neutral plan: what kube-proxy decides for a node and for each service port before it
 * writes a single rule, in either mode. Plans hold decisions (which chains exist, which
 * endpoints serve which traffic, what happens to traffic with no endpoints), never text.
 *
 * @module
 */
import type { ProfileTraits } from "../model/profiles.js";
import type { Endpoint, IPFamily, ServicePort } from "../model/types.js";

/**
 * How local (pod) traffic is told apart, once resolved for one family; `null`: not at all.
 *
 * @example
 * planCluster(model).node.localDetector // { kind: "cidr", cidr: "10.244.0.0/16" } (detectLocal ClusterCIDR)
 */
export type LocalDetector =
  | {
      /** Pod traffic comes from this CIDR (ClusterCIDR / NodeCIDR modes). */
      readonly kind: "cidr";
      /** The CIDR of the proxier's family, network address and prefix. */
      readonly cidr: string;
    }
  | {
      /** Pod traffic enters through this bridge (BridgeInterface mode). */
      readonly kind: "interface";
      /** The interface name. */
      readonly name: string;
    }
  | {
      /** Pod traffic enters through interfaces whose names start with this (InterfaceNamePrefix mode). */
      readonly kind: "interface-prefix";
      /** The prefix. */
      readonly prefix: string;
    };

/**
 * The node-wide decisions: the same for every service port.
 *
 * @example
 * const { node } = planCluster(model);
 * [node.family, node.masqueradeBit, node.primaryNodeIP] // ["IPv4", 14, "10.210.40.172"]
 */
export interface NodePlan {
  /** The proxier's family. */
  readonly family: IPFamily;
  /** The named layout differences of the configured profile. */
  readonly traits: ProfileTraits;
  /** The masquerade mark bit (0–31). */
  readonly masqueradeBit: number;
  /** Masquerade all traffic to cluster IPs. */
  readonly masqueradeAll: boolean;
  /** The local-traffic detector, or `null` when the mode is None (or unknown to the profile). */
  readonly localDetector: LocalDetector | null;
  /** The node's addresses of this family, canonical, primary first. */
  readonly nodeIPs: readonly string[];
  /** The node's primary address of this family, or `null`. */
  readonly primaryNodeIP: string | null;
}

/**
 * What happens to traffic that reaches an address of the service port with nowhere to go.
 *
 * @example
 * // A Service whose only endpoint is gone: kube-proxy rejects its cluster-IP traffic.
 * planCluster(model).servicePorts.find((p) => !p.hasInternalEndpoints)?.internalNoEndpoints // "reject"
 */
export type NoEndpointsVerdict = "reject" | "drop";

/**
 * One service port's decisions.
 *
 * @example
 * const web = planCluster(model).servicePorts.find((p) => p.servicePortName === "default/my-nginx-svc");
 * [web?.usesClusterPolicyChain, web?.clusterIPMasquerade, web?.firewall] // [true, "non-local", null]
 */
export interface ServicePortPlan {
  /** The service port the plan is for. */
  readonly port: ServicePort;
  /** `ns/name:port` (or `ns/name`), the name kube-proxy gives it in comments. */
  readonly servicePortName: string;
  /** Endpoints of the cluster-policy chain (ready, topology-narrowed, or serving-terminating). */
  readonly clusterEndpoints: readonly Endpoint[];
  /** Endpoints of the local-policy chain. */
  readonly localEndpoints: readonly Endpoint[];
  /** Every endpoint that gets a chain of its own (sorted by `ip:port`). */
  readonly reachableEndpoints: readonly Endpoint[];
  /** Some usable endpoint exists anywhere. */
  readonly hasEndpoints: boolean;
  /** Cluster-IP traffic has somewhere to go. */
  readonly hasInternalEndpoints: boolean;
  /** Traffic to external destinations (node port, external IPs, LB IPs) has somewhere to go. */
  readonly hasExternalEndpoints: boolean;
  /** The port has a node port, external IPs or load-balancer IPs. */
  readonly externallyAccessible: boolean;
  /** The cluster-policy chain (KUBE-SVC / `service-`) exists. */
  readonly usesClusterPolicyChain: boolean;
  /** The local-policy chain (KUBE-SVL / `local-`) exists. */
  readonly usesLocalPolicyChain: boolean;
  /** The external-destinations chain (KUBE-EXT / `external-`) exists. */
  readonly usesExternalChain: boolean;
  /** Which policy chain cluster-IP traffic goes to. */
  readonly internalPolicy: "cluster" | "local";
  /** Which policy chain external traffic ends in. */
  readonly externalPolicy: "cluster" | "local";
  /** The fate of cluster-IP traffic when `hasInternalEndpoints` is false. */
  readonly internalNoEndpoints: NoEndpointsVerdict | null;
  /** The fate of external traffic when `hasExternalEndpoints` is false. */
  readonly externalNoEndpoints: NoEndpointsVerdict | null;
  /**
   * loadBalancerSourceRanges apply (LB IPs and ranges both given), with whether the node's own
   * address falls in a range (then the LB IPs are allowed sources too); `null` when they do not
   * apply. iptables mode writes the firewall only with endpoints, nftables mode always.
   */
  readonly firewall: {
    /** The allowed source CIDRs: the service port's `loadBalancerSourceRanges` in the model. */
    readonly sourceRanges: readonly string[];
    /** A node address falls in a range: the load-balancer IPs are allowed sources too. */
    readonly allowsNode: boolean;
  } | null;
  /** Masquerading of cluster-IP traffic: all of it, only non-pod traffic, or none. */
  readonly clusterIPMasquerade: "all" | "non-local" | "none";
  /** ClientIP affinity timeout in seconds, 0 for none. */
  readonly affinitySeconds: number;
  /**
   * The ≤ 1.23 layout (`xlb` profiles): every endpoint gets a chain, ready ones are balanced to,
   * local ready ones serve the XLB chain; `null` for the current layout.
   */
  readonly legacy: LegacyPlan | null;
}

/**
 * The endpoint lists of the ≤ 1.23 (`xlb`) layout.
 *
 * @example
 * planCluster(model).servicePorts[0]?.legacy // null with a current profile; { hasEndpoints, endpoints, ready, localReady } with an `xlb` one
 */
export interface LegacyPlan {
  /**
   * Some endpoint exists, ready or not: ≤ 1.23 counts every endpoint it lists (this differs from
   * `ServicePortPlan.hasEndpoints`, which counts usable ones). Without one the port's traffic is
   * rejected in filter and it gets no SVC chain.
   */
  readonly hasEndpoints: boolean;
  /** Endpoints with a chain of their own, ready or not. */
  readonly endpoints: readonly Endpoint[];
  /** The ready ones, which the SVC chain balances to. */
  readonly ready: readonly Endpoint[];
  /** The local ready ones, which the XLB chain balances to (eTP=Local). */
  readonly localReady: readonly Endpoint[];
}

/**
 * The plans of a whole model: the node's and one per service port, in kube-proxy's order.
 *
 * @example
 * planCluster(model).servicePorts.map((p) => p.servicePortName)
 * // ["default/kubernetes:https", "default/my-nginx-svc", "kube-system/kube-dns:dns", …]
 */
export interface ClusterPlan {
  /** Node-wide decisions. */
  readonly node: NodePlan;
  /** One plan per service port, sorted by `ns/name:port` then protocol. */
  readonly servicePorts: readonly ServicePortPlan[];
}
