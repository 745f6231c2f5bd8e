/**
 * The typed cluster model: one node's proxy settings and, for one IP family, the Service ports
 * with their endpoints — exactly the data kube-proxy's iptables proxier works from after its
 * change trackers have digested Services and EndpointSlices.
 *
 * @module
 */

/**
 * An IP family.
 *
 * @example
 * const family: IPFamily = "IPv6";
 * prepareCluster(input, { family });
 */
export type IPFamily = "IPv4" | "IPv6";

/**
 * A Service port protocol, lower case as kube-proxy writes it.
 *
 * @example
 * const protocol: Protocol = "udp"; // lower case, as kube-proxy writes it in rules
 * servicePortChains("kube-system/kube-dns:dns", protocol).svc // "KUBE-SVC-TCOU7JCQXEZGVUNU"
 */
export type Protocol = "tcp" | "udp" | "sctp";

/**
 * How kube-proxy tells traffic from local pods apart (`--detect-local-mode`).
 *
 * @example
 * const detect: DetectLocal = { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] };
 */
export type DetectLocal =
  | {
      /** Pod traffic is traffic from a CIDR: the cluster CIDR, or the node's pod CIDR. */
      readonly mode: "ClusterCIDR" | "NodeCIDR";
      /** The CIDRs, any family; the first one of the proxier's family is used. */
      readonly cidrs: readonly string[];
    }
  | {
      /** Pod traffic enters through one bridge interface. */
      readonly mode: "BridgeInterface";
      /** The bridge's name. */
      readonly interface: string;
    }
  | {
      /** Pod traffic enters through interfaces whose names start with a prefix. */
      readonly mode: "InterfaceNamePrefix";
      /** The prefix. */
      readonly prefix: string;
    }
  | {
      /** No detection. */
      readonly mode: "None";
    };

/**
 * Which kube-proxy release's layout to produce.
 *
 * @example
 * const profile: Profile = "v1.22";
 * modelFromKubernetes({ config: { profile }, services, endpointSlices });
 */
export type Profile = "v1.22" | "v1.30" | "v1.32" | "v1.34" | "v1.36" | "v1.37" | "latest";

/**
 * One node's proxy settings: the `config` part of a cluster file.
 *
 * @example
 * const config: ProxyConfig = resolveConfig({ hostname: "node-a" });
 * config.masqueradeBit // 14: every field has its value
 */
export interface ProxyConfig {
  /** The family this proxier handles. */
  readonly ipFamily: IPFamily;
  /** kube-proxy's node name; endpoints whose `nodeName` equals it are local. */
  readonly hostname: string;
  /** The node's addresses, primary first, any family. */
  readonly nodeIPs: readonly string[];
  /** The node's labels; only `topology.kubernetes.io/zone` matters. */
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** Local traffic detection. */
  readonly detectLocal: DetectLocal;
  /** Masquerade all traffic to cluster IPs. */
  readonly masqueradeAll: boolean;
  /** The bit of the packet mark that flags traffic for masquerading (0–31). */
  readonly masqueradeBit: number;
  /** `[]` = every local address; `["primary"]`; or CIDRs (1.37+: mixed with `primary`, `localhost`, `all`). */
  readonly nodePortAddresses: readonly string[];
  /** Whether node ports answer on 127.0.0.0/8 (IPv4 only). */
  readonly localhostNodePorts: boolean;
  /** The iptables binary supports `--random-fully`. */
  readonly hasRandomFully: boolean;
  /** The `nf_conntrack_tcp_be_liberal` sysctl is set. */
  readonly conntrackTCPBeLiberal: boolean;
  /**
   * The `AllowServiceExternalIPs` feature gate (1.36+, default on): off, Services' `externalIPs`
   * get no rules. Profiles before 1.36 ignore it. Absent = on.
   */
  readonly allowServiceExternalIPs?: boolean;
  /** The kube-proxy release whose layout to produce. */
  readonly profile: Profile;
}

/**
 * One endpoint of a Service port, after kube-proxy's de-duplication.
 *
 * @example
 * const web = modelFromKubernetes(input).servicePorts[0];
 * web?.endpoints[0] // { ip: "10.244.1.5", port: 8080, endpoint: "10.244.1.5:8080", ready: true, isLocal: false, … }
 */
export interface Endpoint {
  /** Canonical IP address. */
  readonly ip: string;
  /** The target port. */
  readonly port: number;
  /** `ip:port`, or `[ip]:port` for IPv6. */
  readonly endpoint: string;
  /** `conditions.ready` (nil counts as true). */
  readonly ready: boolean;
  /** `conditions.serving` (nil counts as true). */
  readonly serving: boolean;
  /** `conditions.terminating` (nil counts as false). */
  readonly terminating: boolean;
  /** The endpoint runs on this node. */
  readonly isLocal: boolean;
  /** The node it runs on (its slice's `nodeName`), when named: a node name makes it local. */
  readonly nodeName?: string | undefined;
  /** Zone hints (`hints.forZones[].name`). */
  readonly zoneHints: readonly string[];
  /** Node hints (`hints.forNodes[].name`), used by the `latest` profile. */
  readonly nodeHints: readonly string[];
}

/**
 * One port of a Service as one family's proxier sees it.
 *
 * @example
 * const port = modelFromKubernetes(input).servicePorts[0];
 * port?.protocol  // "tcp"
 * port?.clusterIP // "10.96.0.10"
 */
export interface ServicePort {
  /** The Service's namespace. */
  readonly namespace: string;
  /** The Service's name. */
  readonly name: string;
  /** The port's name (`""` when unnamed). */
  readonly portName: string;
  /** Lower-case protocol. */
  readonly protocol: Protocol;
  /** The cluster IP of this family, canonical. */
  readonly clusterIP: string;
  /** The Service port. */
  readonly port: number;
  /** The node port, 0 for none. */
  readonly nodePort: number;
  /** External IPs of this family, canonical, in spec order. */
  readonly externalIPs: readonly string[];
  /** Load-balancer ingress IPs of this family (not `ipMode: Proxy`), canonical, in status order. */
  readonly loadBalancerVIPs: readonly string[];
  /** Source ranges of this family, as network CIDRs. */
  readonly loadBalancerSourceRanges: readonly string[];
  /** ClientIP affinity timeout in seconds, or 0 for no affinity. */
  readonly stickyMaxAgeSeconds: number;
  /** `externalTrafficPolicy: Local` on an externally accessible Service. */
  readonly externalPolicyLocal: boolean;
  /** `internalTrafficPolicy: Local`. */
  readonly internalPolicyLocal: boolean;
  /** The health check node port, 0 for none. */
  readonly healthCheckNodePort: number;
  /** The Service's `trafficDistribution`, when set. */
  readonly trafficDistribution: string;
  /** The endpoints, de-duplicated and sorted by the `endpoint` string. */
  readonly endpoints: readonly Endpoint[];
}

/**
 * All Service ports one family's proxier handles, plus its settings.
 *
 * @example
 * const model: ClusterModel = modelFromKubernetes({ config: { hostname: "node-a" }, services, endpointSlices });
 * model.servicePorts.map((p) => `${p.namespace}/${p.name}:${p.portName}`) // ["default/web:http", …]
 */
export interface ClusterModel {
  /** The node's proxy settings. */
  readonly config: ProxyConfig;
  /** The Service ports, in any order; generation sorts them. */
  readonly servicePorts: readonly ServicePort[];
}
