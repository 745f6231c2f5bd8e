/**
 * The Kubernetes API objects this library reads, hand-written with the API's JSON field names.
 * Only the fields kube-proxy looks at are typed; everything else is allowed and ignored.
 *
 * @module
 */
import type { Profile } from "../model/types.js";

/** `metadata` of an object. */
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

/** A Service port (`spec.ports[]`). */
export interface ServicePortSpec {
  /** Port name; required when the Service has several ports. */
  readonly name?: string;
  /** `TCP` (default), `UDP` or `SCTP`. */
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  /** The Service port. */
  readonly port: number;
  /** Target port (number or name); kube-proxy reads the EndpointSlice's port instead. */
  readonly targetPort?: number | string;
  /** Node port, for NodePort and LoadBalancer Services. */
  readonly nodePort?: number;
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/** A load-balancer ingress entry (`status.loadBalancer.ingress[]`). */
export interface LoadBalancerIngress {
  /** The IP, if any. */
  readonly ip?: string;
  /** A hostname; hostname-only entries get no rules. */
  readonly hostname?: string;
  /** `VIP` (default) or `Proxy`; `Proxy` entries get no rules. */
  readonly ipMode?: "VIP" | "Proxy";
}

/** A v1 Service. */
export interface Service {
  /** `v1`. */
  readonly apiVersion?: string;
  /** `Service`. */
  readonly kind?: string;
  /** Metadata. */
  readonly metadata: ObjectMeta;
  /** Spec. */
  readonly spec: {
    readonly type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
    readonly clusterIP?: string;
    readonly clusterIPs?: readonly string[];
    readonly ipFamilies?: readonly ("IPv4" | "IPv6")[];
    readonly ipFamilyPolicy?: string;
    readonly ports?: readonly ServicePortSpec[];
    readonly externalIPs?: readonly string[];
    readonly loadBalancerSourceRanges?: readonly string[];
    readonly externalTrafficPolicy?: "Cluster" | "Local";
    readonly internalTrafficPolicy?: "Cluster" | "Local";
    readonly healthCheckNodePort?: number;
    readonly sessionAffinity?: "None" | "ClientIP";
    readonly sessionAffinityConfig?: { readonly clientIP?: { readonly timeoutSeconds?: number } };
    readonly externalName?: string;
    readonly trafficDistribution?: string;
    readonly selector?: Readonly<Record<string, string>>;
  };
  /** Status. */
  readonly status?: { readonly loadBalancer?: { readonly ingress?: readonly LoadBalancerIngress[] } };
}

/** An endpoint of an EndpointSlice. */
export interface EndpointSliceEndpoint {
  /** Addresses; only the first is used. */
  readonly addresses: readonly string[];
  /** Conditions; each absent one takes its default. */
  readonly conditions?: {
    readonly ready?: boolean;
    readonly serving?: boolean;
    readonly terminating?: boolean;
  };
  /** The node the endpoint runs on. */
  readonly nodeName?: string;
  /** The endpoint's zone (not used for locality). */
  readonly zone?: string;
  /** Topology hints. */
  readonly hints?: {
    readonly forZones?: readonly { readonly name: string }[];
    readonly forNodes?: readonly { readonly name: string }[];
  };
  /** Hostname; ignored. */
  readonly hostname?: string;
}

/** A port of an EndpointSlice. */
export interface EndpointSlicePort {
  /** Name; must equal the Service port's name (`""` for an unnamed one, and the default). */
  readonly name?: string | null;
  /** Protocol; default `TCP`. */
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  /** The target port. */
  readonly port?: number | null;
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/** A discovery.k8s.io/v1 EndpointSlice. */
export interface EndpointSlice {
  /** `discovery.k8s.io/v1`. */
  readonly apiVersion?: string;
  /** `EndpointSlice`. */
  readonly kind?: string;
  /** Metadata; the `kubernetes.io/service-name` label names the Service. */
  readonly metadata: ObjectMeta;
  /** `IPv4`, `IPv6` or `FQDN`. */
  readonly addressType: "IPv4" | "IPv6" | "FQDN";
  /** Endpoints. */
  readonly endpoints?: readonly EndpointSliceEndpoint[] | null;
  /** Ports. */
  readonly ports?: readonly EndpointSlicePort[] | null;
}

/** The node settings as written in a cluster file; every field is optional and has a default. */
export interface ProxyConfigInput {
  readonly ipFamily?: "IPv4" | "IPv6";
  readonly hostname?: string;
  readonly nodeIPs?: readonly string[];
  readonly nodeLabels?: Readonly<Record<string, string>>;
  readonly detectLocal?:
    | { readonly mode: "ClusterCIDR" | "NodeCIDR"; readonly cidrs?: readonly string[] }
    | { readonly mode: "BridgeInterface"; readonly interface: string }
    | { readonly mode: "InterfaceNamePrefix"; readonly prefix: string }
    | { readonly mode: "None" };
  readonly masqueradeAll?: boolean;
  readonly masqueradeBit?: number;
  readonly nodePortAddresses?: readonly string[];
  readonly localhostNodePorts?: boolean;
  readonly hasRandomFully?: boolean;
  readonly conntrackTCPBeLiberal?: boolean;
  readonly allowServiceExternalIPs?: boolean;
  readonly profile?: Profile;
}

/** A cluster file: the input part of a conformance vector. */
export interface ClusterInput {
  /** Node settings. */
  readonly config?: ProxyConfigInput;
  /** v1 Services. */
  readonly services?: readonly Service[];
  /** discovery.k8s.io/v1 EndpointSlices. */
  readonly endpointSlices?: readonly EndpointSlice[];
}

/** An address of a v1 Endpoints subset (`subsets[].addresses[]` / `notReadyAddresses[]`). */
export interface EndpointAddress {
  /** The IP. */
  readonly ip: string;
  /** The hostname; kept on the mirrored endpoint. */
  readonly hostname?: string;
  /** The node the address is on. */
  readonly nodeName?: string;
  /** The object behind the address (a Pod); kept on the mirrored endpoint. */
  readonly targetRef?: Readonly<Record<string, unknown>>;
}

/** A port of a v1 Endpoints subset. */
export interface EndpointPort {
  /** Name; `""` (the default) for an unnamed one. */
  readonly name?: string;
  /** The port. */
  readonly port: number;
  /** Protocol; default `TCP`. */
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  /** Application protocol; ignored. */
  readonly appProtocol?: string;
}

/** A subset of a v1 Endpoints object: addresses that share the same ports. */
export interface EndpointSubset {
  /** Ready addresses. */
  readonly addresses?: readonly EndpointAddress[] | null;
  /** Addresses that are not ready. */
  readonly notReadyAddresses?: readonly EndpointAddress[] | null;
  /** Ports. */
  readonly ports?: readonly EndpointPort[] | null;
}

/** A v1 Endpoints object, read as the EndpointSlices the control plane mirrors from it. */
export interface Endpoints {
  /** `v1`. */
  readonly apiVersion?: string;
  /** `Endpoints`. */
  readonly kind?: string;
  /** Metadata; the name is the Service's. */
  readonly metadata: ObjectMeta;
  /** Subsets. */
  readonly subsets?: readonly EndpointSubset[] | null;
}
