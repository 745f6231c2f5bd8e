/**
 * The Kubernetes API objects this library reads, hand-written with the API's JSON field names.
 * Only the fields kube-proxy looks at are typed; everything else is allowed and ignored.
 *
 * These are input types, as loose as the API's own: a field the API types as `string` is any
 * string here too (its doc comment lists the values kube-proxy knows), and `metadata` and `spec`
 * are optional, so that objects typed by `kubernetes-types` or `@kubernetes/client-node` go in
 * without a cast. The validator checks the values; the model it builds is strict.
 *
 * @module
 */
import type { Profile } from "../model/types.js";

/**
 * `metadata` of an object.
 *
 * @example
 * const metadata: ObjectMeta = { name: "web", namespace: "default", labels: { app: "web" } };
 */
export interface ObjectMeta {
  /** Object name. */
  readonly name?: string;
  /** Object namespace. */
  readonly namespace?: string;
  /** Labels. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * A Service port (`spec.ports[]`).
 *
 * @example
 * const port: ServicePortSpec = { name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 };
 */
export interface ServicePortSpec {
  /** Port name; required when the Service has several ports. */
  readonly name?: string;
  /** `TCP` (default), `UDP` or `SCTP`. */
  readonly protocol?: string;
  /** The Service port. */
  readonly port: number;
  /** Target port (number or name); kube-proxy reads the EndpointSlice's port instead. */
  readonly targetPort?: number | string;
  /** Node port, for NodePort and LoadBalancer Services. */
  readonly nodePort?: number;
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/**
 * A load-balancer ingress entry (`status.loadBalancer.ingress[]`).
 *
 * @example
 * const ingress: LoadBalancerIngress = { ip: "203.0.113.10", ipMode: "VIP" };
 */
export interface LoadBalancerIngress {
  /** The IP, if any. */
  readonly ip?: string;
  /** A hostname; hostname-only entries get no rules. */
  readonly hostname?: string;
  /** `VIP` (default) or `Proxy`; `Proxy` entries get no rules. */
  readonly ipMode?: string;
}

/**
 * The `spec` of a Service: the fields kube-proxy reads.
 *
 * @example
 * const spec: ServiceSpec = {
 *   type: "NodePort", clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"], ipFamilies: ["IPv4"],
 *   ports: [{ name: "http", port: 80, nodePort: 30080 }], externalTrafficPolicy: "Local",
 * };
 */
export interface ServiceSpec {
  /** `ClusterIP` (default), `NodePort`, `LoadBalancer` or `ExternalName` (no rules). */
  readonly type?: string;
  /** The primary cluster IP; empty or `None` for a headless Service (no rules). */
  readonly clusterIP?: string;
  /** The cluster IPs, one per family, primary first. */
  readonly clusterIPs?: readonly string[];
  /** The families of `clusterIPs`, in the same order. */
  readonly ipFamilies?: readonly string[];
  /** `SingleStack`, `PreferDualStack` or `RequireDualStack`; checked, not used. */
  readonly ipFamilyPolicy?: string;
  /** The ports. */
  readonly ports?: readonly ServicePortSpec[];
  /** External IPs that also reach the Service. */
  readonly externalIPs?: readonly string[];
  /** Client CIDRs a LoadBalancer accepts (all when empty). */
  readonly loadBalancerSourceRanges?: readonly string[];
  /** `Local` keeps external traffic on this node's endpoints; default `Cluster`. */
  readonly externalTrafficPolicy?: string;
  /** `Local` keeps cluster traffic on this node's endpoints; default `Cluster`. */
  readonly internalTrafficPolicy?: string;
  /** Health-check port of an `externalTrafficPolicy: Local` LoadBalancer. */
  readonly healthCheckNodePort?: number;
  /** `ClientIP` pins each client to one endpoint; default `None`. */
  readonly sessionAffinity?: string;
  /** The affinity's timeout (`clientIP.timeoutSeconds`, default 10800). */
  readonly sessionAffinityConfig?: {
    /** Settings of `ClientIP` affinity. */
    readonly clientIP?: {
      /** How long a client stays pinned after its last packet, in seconds (1–86400). */
      readonly timeoutSeconds?: number;
    };
  };
  /** The DNS name of an `ExternalName` Service; ignored. */
  readonly externalName?: string;
  /** `PreferClose` lets zone hints narrow the endpoints. */
  readonly trafficDistribution?: string;
  /** Pod selector; ignored (the EndpointSlices list the endpoints). */
  readonly selector?: Readonly<Record<string, string>>;
}

/**
 * A v1 Service.
 *
 * @example
 * const service: Service = {
 *   apiVersion: "v1", kind: "Service",
 *   metadata: { name: "web", namespace: "default" },
 *   spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
 * };
 * // Objects typed by kubernetes-types or @kubernetes/client-node are Services too (no cast).
 */
export interface Service {
  /** `v1`. */
  readonly apiVersion?: string;
  /** `Service`. */
  readonly kind?: string;
  /** Metadata (required by the validator). */
  readonly metadata?: ObjectMeta;
  /** Spec (required by the validator). */
  readonly spec?: ServiceSpec;
  /** Status. */
  readonly status?: {
    /** The load balancer's state. */
    readonly loadBalancer?: {
      /** The load balancer's addresses. */
      readonly ingress?: readonly LoadBalancerIngress[];
    };
  };
}

/**
 * An endpoint of an EndpointSlice.
 *
 * @example
 * const endpoint: EndpointSliceEndpoint = {
 *   addresses: ["10.244.1.5"], conditions: { ready: true }, nodeName: "node-b", zone: "zone-a",
 * };
 */
export interface EndpointSliceEndpoint {
  /** Addresses; only the first is used. */
  readonly addresses: readonly string[];
  /** Conditions; each absent one takes its default. */
  readonly conditions?: {
    /** Ready to take new connections (absent counts as true). */
    readonly ready?: boolean;
    /** Able to serve, even while terminating (absent counts as true). */
    readonly serving?: boolean;
    /** Being shut down (absent counts as false). */
    readonly terminating?: boolean;
  };
  /** The node the endpoint runs on. */
  readonly nodeName?: string;
  /** The endpoint's zone (not used for locality). */
  readonly zone?: string;
  /** Topology hints. */
  readonly hints?: {
    /** The zones whose nodes should use this endpoint (`PreferClose`, topology-aware routing). */
    readonly forZones?: readonly {
      /** A zone name. */
      readonly name: string;
    }[];
    /** The nodes that should use this endpoint (`PreferSameNode`, the `latest` profile). */
    readonly forNodes?: readonly {
      /** A node name. */
      readonly name: string;
    }[];
  };
  /** Hostname; ignored. */
  readonly hostname?: string;
}

/**
 * A port of an EndpointSlice.
 *
 * @example
 * const port: EndpointSlicePort = { name: "http", port: 8080, protocol: "TCP" };
 */
export interface EndpointSlicePort {
  /** Name; must equal the Service port's name (`""` for an unnamed one, and the default). */
  readonly name?: string | null;
  /** Protocol; default `TCP`. */
  readonly protocol?: string;
  /** The target port. */
  readonly port?: number | null;
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/**
 * A discovery.k8s.io/v1 EndpointSlice.
 *
 * @example
 * const slice: EndpointSlice = {
 *   apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice",
 *   metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
 *   addressType: "IPv4",
 *   endpoints: [{ addresses: ["10.244.1.5"], conditions: { ready: true }, nodeName: "node-b" }],
 *   ports: [{ name: "http", port: 8080, protocol: "TCP" }],
 * };
 */
export interface EndpointSlice {
  /** `discovery.k8s.io/v1`. */
  readonly apiVersion?: string;
  /** `EndpointSlice`. */
  readonly kind?: string;
  /** Metadata (required by the validator); the `kubernetes.io/service-name` label names the Service. */
  readonly metadata?: ObjectMeta;
  /** `IPv4`, `IPv6` or `FQDN`. */
  readonly addressType: string;
  /** Endpoints. */
  readonly endpoints?: readonly EndpointSliceEndpoint[] | null;
  /** Ports. */
  readonly ports?: readonly EndpointSlicePort[] | null;
}

/**
 * The node settings as written in a cluster file; every field is optional and has a default.
 *
 * @example
 * const config: ProxyConfigInput = {
 *   hostname: "node-a", nodeIPs: ["192.168.0.2"],
 *   detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
 *   profile: "v1.30",
 * };
 * modelFromKubernetes({ config, services, endpointSlices });
 */
export interface ProxyConfigInput {
  /** The family to generate: `IPv4` (default) or `IPv6`; a CLI flag or `PrepareOptions.family` overrides it. */
  readonly ipFamily?: "IPv4" | "IPv6";
  /** kube-proxy's node name (`--hostname-override`); endpoints whose `nodeName` equals it are local. Default `""` (none local). */
  readonly hostname?: string;
  /** The node's addresses, primary first, any family; they decide `nodePortAddresses: ["primary"]` and what the tracer treats as local. Default none. */
  readonly nodeIPs?: readonly string[];
  /** The node's labels; only `topology.kubernetes.io/zone` matters (topology hints). Default none. */
  readonly nodeLabels?: Readonly<Record<string, string>>;
  /** How pod traffic is told from other traffic (kube-proxy's `--detect-local-mode`): by source CIDR (`ClusterCIDR`, `NodeCIDR`), input interface (`BridgeInterface`, `InterfaceNamePrefix`) or not at all (`None`, the default). */
  readonly detectLocal?:
    | {
        /** By the packet's source address: the cluster's pod CIDRs, or this node's. */
        readonly mode: "ClusterCIDR" | "NodeCIDR";
        /** The CIDRs (one per family; the one of the generated family is used). */
        readonly cidrs?: readonly string[];
      }
    | {
        /** By the packet's input interface: a bridge. */
        readonly mode: "BridgeInterface";
        /** The bridge's name (`cbr0`). */
        readonly interface: string;
      }
    | {
        /** By the packet's input interface: any whose name starts with a prefix. */
        readonly mode: "InterfaceNamePrefix";
        /** The prefix (`veth`). */
        readonly prefix: string;
      }
    | {
        /** Pod traffic is not told apart. */
        readonly mode: "None";
      };
  /** Masquerade all traffic to cluster IPs (`--masquerade-all`). Default `false`. */
  readonly masqueradeAll?: boolean;
  /** The bit of the packet mark that flags traffic for masquerading, 0–31 (`--iptables-masquerade-bit`). Default 14. */
  readonly masqueradeBit?: number;
  /** Where node ports answer: CIDRs, or `["primary"]` for the primary node IPs (`--nodeport-addresses`). Default `[]`, every local address. */
  readonly nodePortAddresses?: readonly string[];
  /** Whether node ports answer on 127.0.0.0/8 (IPv4; `--iptables-localhost-nodeports`). Default `true`. */
  readonly localhostNodePorts?: boolean;
  /** The node's iptables supports `--random-fully` (then MASQUERADE uses it). Default `false`. */
  readonly hasRandomFully?: boolean;
  /** The node has `nf_conntrack_tcp_be_liberal` set (then kube-proxy writes no INVALID drop). Default `false`. */
  readonly conntrackTCPBeLiberal?: boolean;
  /** kube-proxy 1.36+'s `AllowServiceExternalIPs` gate: `false` writes no rules for `spec.externalIPs` (profiles before v1.36 ignore it). Default `true`. */
  readonly allowServiceExternalIPs?: boolean;
  /** Which kube-proxy release's layout to produce (see the README's profiles). Default `v1.30`. */
  readonly profile?: Profile;
}

/**
 * A cluster file: the input part of a conformance vector.
 *
 * @example
 * const input: ClusterInput = { config: { hostname: "node-a" }, services: [service], endpointSlices: [slice] };
 * const { model, problems } = prepareCluster(input);
 */
export interface ClusterInput {
  /** Node settings. */
  readonly config?: ProxyConfigInput;
  /** v1 Services. */
  readonly services?: readonly Service[];
  /** discovery.k8s.io/v1 EndpointSlices. */
  readonly endpointSlices?: readonly EndpointSlice[];
}

/**
 * An address of a v1 Endpoints subset (`subsets[].addresses[]` / `notReadyAddresses[]`).
 *
 * @example
 * const address: EndpointAddress = { ip: "10.244.1.5", nodeName: "node-b", targetRef: { kind: "Pod", name: "web-0" } };
 */
export interface EndpointAddress {
  /** The IP. */
  readonly ip: string;
  /** The hostname; kept on the mirrored endpoint. */
  readonly hostname?: string;
  /** The node the address is on. */
  readonly nodeName?: string;
  /** The object behind the address (a Pod); kept on the mirrored endpoint. */
  readonly targetRef?: {
    /** The object's kind (`Pod`). */
    readonly kind?: string;
    /** Its namespace. */
    readonly namespace?: string;
    /** Its name. */
    readonly name?: string;
    /** Its UID. */
    readonly uid?: string;
  };
}

/**
 * A port of a v1 Endpoints subset.
 *
 * @example
 * const port: EndpointPort = { name: "http", port: 8080, protocol: "TCP" };
 */
export interface EndpointPort {
  /** Name; `""` (the default) for an unnamed one. */
  readonly name?: string;
  /** The port. */
  readonly port: number;
  /** Protocol; default `TCP`. */
  readonly protocol?: string;
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/**
 * A subset of a v1 Endpoints object: addresses that share the same ports.
 *
 * @example
 * const subset: EndpointSubset = {
 *   addresses: [{ ip: "10.244.1.5" }], notReadyAddresses: [{ ip: "10.244.2.6" }], ports: [{ name: "http", port: 8080 }],
 * };
 */
export interface EndpointSubset {
  /** Ready addresses. */
  readonly addresses?: readonly EndpointAddress[] | null;
  /** Addresses that are not ready. */
  readonly notReadyAddresses?: readonly EndpointAddress[] | null;
  /** Ports. */
  readonly ports?: readonly EndpointPort[] | null;
}

/**
 * A v1 Endpoints object, read as the EndpointSlices the control plane mirrors from it.
 *
 * @example
 * // In a List (`kubectl get svc,endpoints -A -o json`), read as the EndpointSlices mirrored from it:
 * const endpoints: Endpoints = {
 *   apiVersion: "v1", kind: "Endpoints", metadata: { name: "web", namespace: "default" },
 *   subsets: [{ addresses: [{ ip: "10.244.1.5" }], ports: [{ name: "http", port: 8080 }] }],
 * };
 * splitKubernetesList({ kind: "List", items: [service, endpoints] }).endpointSlices.length // 1
 */
export interface Endpoints {
  /** `v1`. */
  readonly apiVersion?: string;
  /** `Endpoints`. */
  readonly kind?: string;
  /** Metadata; the name is the Service's. */
  readonly metadata?: ObjectMeta;
  /** Subsets. */
  readonly subsets?: readonly EndpointSubset[] | null;
}
