// bench/api-checks.mjs stands for validation in the required CLI bound (bench/cli-floor.mjs): it
// must accept every bench model the library accepts, and refuse, with the field's path, every
// object the API server refuses. Each rule it checks is held to an object the library refuses
// too, so that the bound never checks more than a correct CLI must; and what the API server
// stores, the bound and the library both accept.
import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { checkClusterObjects } from "../../bench/api-checks.mjs";
import { validateClusterInput } from "../../src/index.js";

type Obj = Record<string, unknown>;
interface Cluster {
  readonly services: Obj[];
  readonly endpointSlices: Obj[];
}

const FIXTURES = "test/fixtures/bench";

/** A cluster that passes: ClusterIP, NodePort, LoadBalancer and dual-stack Services, their slices. */
function base(): Cluster {
  const meta = (name: string, labels?: Obj) => ({ name, namespace: "prod", ...(labels ? { labels } : {}) });
  const service = (name: string, spec: Obj, status?: Obj) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: meta(name, { app: name }),
    spec: {
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
      selector: { app: name, "app.kubernetes.io/part-of": "shop" },
      sessionAffinity: "None",
      ...spec,
    },
    status: status ?? { loadBalancer: {} },
  });
  const slice = (name: string, service: string, addressType: string, addresses: string[][]) => ({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: meta(name, {
      "kubernetes.io/service-name": service,
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    }),
    addressType,
    endpoints: addresses.map((a, i) => ({
      addresses: a,
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `node-${i}.example`,
      hostname: `pod-${i}`,
      zone: "zone-a",
    })),
    ports: [
      { name: "http", port: 8080, protocol: "TCP", appProtocol: "http" },
      { name: "metrics", port: 9090, protocol: "TCP" },
    ],
  });
  return {
    services: [
      service("web", {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [
          { name: "http", port: 80, protocol: "TCP", targetPort: "http-alt" },
          { name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090 },
        ],
      }),
      service("np", {
        type: "NodePort",
        clusterIP: "10.96.0.11",
        clusterIPs: ["10.96.0.11"],
        externalTrafficPolicy: "Cluster",
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30080 }],
      }),
      service(
        "lb",
        {
          type: "LoadBalancer",
          clusterIP: "10.96.0.12",
          clusterIPs: ["10.96.0.12"],
          externalTrafficPolicy: "Local",
          healthCheckNodePort: 32000,
          allocateLoadBalancerNodePorts: true,
          loadBalancerSourceRanges: ["198.51.100.0/24", " 192.0.2.128/25 "],
          externalIPs: ["198.18.0.9"],
          sessionAffinity: "ClientIP",
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
          ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 8443, nodePort: 30443 }],
        },
        { loadBalancer: { ingress: [{ ip: "203.0.113.7", ipMode: "VIP" }, { hostname: "lb.example.com" }] } },
      ),
      service("dual", {
        type: "ClusterIP",
        clusterIP: "10.96.0.13",
        clusterIPs: ["10.96.0.13", "fd00:96::13"],
        ipFamilies: ["IPv4", "IPv6"],
        ipFamilyPolicy: "PreferDualStack",
        ports: [{ port: 53, protocol: "UDP" }],
      }),
    ],
    endpointSlices: [
      slice("web-abc", "web", "IPv4", [["10.244.0.5"], ["10.244.1.7"]]),
      slice("dual-v6", "dual", "IPv6", [["fd00:244::5"], ["fd00:244::1:7"]]),
    ],
  };
}

/** A copy of the base cluster with values set at dotted paths (`services.0.spec.type`); `undefined` deletes. */
function changed(...sets: [string, unknown][]): Cluster {
  const cluster = structuredClone(base());
  for (const [path, value] of sets) {
    const keys = path.split(".");
    const last = keys.pop() as string;
    let at = cluster as unknown as Obj;
    for (const k of keys) at = at[k] as Obj;
    if (value === undefined) delete at[last];
    else at[last] = value;
  }
  return cluster;
}

/** The path the bound's error names (the text before `: `), or `null` when it accepts. */
function boundRefusal(input: unknown): string | null {
  try {
    checkClusterObjects(input);
    return null;
  } catch (error) {
    return (error as Error).message.split(": ")[0] ?? "";
  }
}

function libraryErrors(input: unknown): string[] {
  return validateClusterInput(input)
    .filter((p) => p.severity === "error")
    .map((p) => p.path);
}

interface Case {
  /** What is wrong, in words. */
  readonly what: string;
  readonly input: Cluster;
  /** Where the bound refuses it. */
  readonly at: string;
  /** Where the library refuses it, when it names another field (a prefix of the path). */
  readonly library?: string;
}

const S0 = "services[0]";
const S2 = "services[2]";
const E0 = "endpointSlices[0]";
const E1 = "endpointSlices[1]";
const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

const CASES: Case[] = [
  // ObjectMeta (ValidateObjectMeta, ValidateLabels, ValidateAnnotations).
  { what: "no metadata", input: changed(["services.0.metadata", undefined]), at: `${S0}.metadata` },
  {
    what: "a Service name not a DNS-1035 label",
    input: changed(["services.0.metadata.name", "1web"]),
    at: `${S0}.metadata.name`,
  },
  {
    what: "an upper-case Service name",
    input: changed(["services.0.metadata.name", "Web"]),
    at: `${S0}.metadata.name`,
  },
  {
    what: "a bad namespace",
    input: changed(["services.0.metadata.namespace", "Prod"]),
    at: `${S0}.metadata.namespace`,
  },
  {
    what: "a label key with two slashes",
    input: changed(["services.0.metadata.labels", { "a/b/c": "x" }]),
    at: `${S0}.metadata.labels["a/b/c"]`,
  },
  {
    what: "a label value starting with '-'",
    input: changed(["services.0.metadata.labels", { app: "-web" }]),
    at: `${S0}.metadata.labels.app`,
  },
  {
    what: "a label value of 64 characters",
    input: changed(["services.0.metadata.labels", { app: "a".repeat(64) }]),
    at: `${S0}.metadata.labels.app`,
  },
  {
    what: "a label value that is a number",
    input: changed(["services.0.metadata.labels", { app: 5 }]),
    at: `${S0}.metadata.labels.app`,
  },
  {
    what: "an annotation value that is a number",
    input: changed(["services.0.metadata.annotations", { note: 5 }]),
    at: `${S0}.metadata.annotations.note`,
  },
  {
    what: "an annotation key that is not a qualified name",
    input: changed(["services.0.metadata.annotations", { "bad key!": "x" }]),
    at: `${S0}.metadata.annotations["bad key!"]`,
  },
  {
    what: "annotations over 256 KiB",
    input: changed(["services.0.metadata.annotations", { big: "x".repeat(256 * 1024) }]),
    at: `${S0}.metadata.annotations`,
  },
  // ServiceSpec.
  { what: "no spec", input: changed(["services.0.spec", undefined]), at: `${S0}.spec` },
  { what: "an unknown type", input: changed(["services.0.spec.type", "Ingress"]), at: `${S0}.spec.type` },
  {
    what: "an invalid cluster IP",
    input: changed(
      ["services.0.spec.clusterIP", "10.96.0.256"],
      ["services.0.spec.clusterIPs", ["10.96.0.256"]],
    ),
    at: `${S0}.spec.clusterIPs[0]`,
  },
  {
    what: "clusterIPs[0] not clusterIP",
    input: changed(["services.0.spec.clusterIPs", ["10.96.0.99"]]),
    at: `${S0}.spec.clusterIPs`,
    library: `${S0}.spec.clusterIP`,
  },
  {
    what: "clusterIPs without clusterIP",
    input: changed(["services.0.spec.clusterIP", undefined]),
    at: `${S0}.spec.clusterIPs`,
  },
  {
    what: "two cluster IPs of one family",
    input: changed(
      ["services.0.spec.clusterIPs", ["10.96.0.10", "10.96.0.20"]],
      ["services.0.spec.ipFamilyPolicy", "PreferDualStack"],
    ),
    at: `${S0}.spec.clusterIPs`,
  },
  {
    what: "three cluster IPs",
    input: changed(["services.3.spec.clusterIPs", ["10.96.0.13", "fd00:96::13", "fd00:96::14"]]),
    at: "services[3].spec.clusterIPs",
  },
  {
    what: "a family that does not match the cluster IP",
    input: changed(["services.0.spec.ipFamilies", ["IPv6"]]),
    at: `${S0}.spec.clusterIPs[0]`,
    library: `${S0}.spec.ipFamilies[0]`,
  },
  {
    what: "an unknown IP family",
    input: changed(["services.0.spec.ipFamilies", ["IPv5"]]),
    at: `${S0}.spec.ipFamilies[0]`,
  },
  {
    what: "a family listed twice",
    input: changed(["services.3.spec.ipFamilies", ["IPv4", "IPv4"]]),
    at: "services[3].spec.ipFamilies[1]",
  },
  {
    what: "an unknown family policy",
    input: changed(["services.0.spec.ipFamilyPolicy", "Single"]),
    at: `${S0}.spec.ipFamilyPolicy`,
  },
  {
    what: "SingleStack with two cluster IPs",
    input: changed(["services.3.spec.ipFamilyPolicy", "SingleStack"]),
    at: "services[3].spec.ipFamilyPolicy",
  },
  {
    what: "a headless NodePort Service",
    input: changed(
      ["services.1.spec.clusterIP", "None"],
      ["services.1.spec.clusterIPs", ["None"]],
      ["services.1.spec.ipFamilies", undefined],
    ),
    at: "services[1].spec.clusterIPs[0]",
    library: "services[1].spec.clusterIP",
  },
  {
    what: "an unknown internal traffic policy",
    input: changed(["services.0.spec.internalTrafficPolicy", "Everywhere"]),
    at: `${S0}.spec.internalTrafficPolicy`,
  },
  {
    what: "an unknown session affinity",
    input: changed(["services.0.spec.sessionAffinity", "Cookie"]),
    at: `${S0}.spec.sessionAffinity`,
  },

  {
    what: "an affinity timeout of 0",
    input: changed(["services.2.spec.sessionAffinityConfig.clientIP.timeoutSeconds", 0]),
    at: `${S2}.spec.sessionAffinityConfig.clientIP.timeoutSeconds`,
  },
  {
    what: "an affinity timeout over a day",
    input: changed(["services.2.spec.sessionAffinityConfig.clientIP.timeoutSeconds", 86401]),
    at: `${S2}.spec.sessionAffinityConfig.clientIP.timeoutSeconds`,
  },
  {
    what: "a selector key with a space",
    input: changed(["services.0.spec.selector", { "bad key": "web" }]),
    at: `${S0}.spec.selector["bad key"]`,
  },
  {
    what: "a selector value that is not a label value",
    input: changed(["services.0.spec.selector", { app: "web shop" }]),
    at: `${S0}.spec.selector.app`,
  },
  { what: "no ports", input: changed(["services.0.spec.ports", []]), at: `${S0}.spec.ports` },
  {
    what: "a port name in capitals",
    input: changed(["services.0.spec.ports.0.name", "HTTP"]),
    at: `${S0}.spec.ports[0].name`,
  },
  {
    what: "an unnamed port among several",
    input: changed(["services.0.spec.ports.1.name", undefined]),
    at: `${S0}.spec.ports[1].name`,
  },
  {
    what: "a port name twice",
    input: changed(["services.0.spec.ports.1.name", "http"]),
    at: `${S0}.spec.ports[1].name`,
  },
  { what: "port 0", input: changed(["services.0.spec.ports.0.port", 0]), at: `${S0}.spec.ports[0].port` },
  {
    what: "port 65536",
    input: changed(["services.0.spec.ports.0.port", 65536]),
    at: `${S0}.spec.ports[0].port`,
  },
  {
    what: "a port given as a string",
    input: changed(["services.0.spec.ports.0.port", "80"]),
    at: `${S0}.spec.ports[0].port`,
  },
  {
    what: "an unknown protocol",
    input: changed(["services.0.spec.ports.0.protocol", "ICMP"]),
    at: `${S0}.spec.ports[0].protocol`,
  },
  {
    what: "a port and protocol twice",
    input: changed(["services.0.spec.ports.1.port", 80]),
    at: `${S0}.spec.ports[1]`,
  },
  {
    what: "a target port number out of range",
    input: changed(["services.0.spec.ports.1.targetPort", 65536]),
    at: `${S0}.spec.ports[1].targetPort`,
  },
  {
    what: "a target port name of 16 characters",
    input: changed(["services.0.spec.ports.0.targetPort", "http-alternative"]),
    at: `${S0}.spec.ports[0].targetPort`,
  },
  {
    what: "a target port name without a letter",
    input: changed(["services.0.spec.ports.0.targetPort", "8080"]),
    at: `${S0}.spec.ports[0].targetPort`,
  },
  {
    what: "a target port name with '--'",
    input: changed(["services.0.spec.ports.0.targetPort", "http--alt"]),
    at: `${S0}.spec.ports[0].targetPort`,
  },
  {
    what: "a target port that is a boolean",
    input: changed(["services.0.spec.ports.0.targetPort", true]),
    at: `${S0}.spec.ports[0].targetPort`,
  },
  {
    what: "a node port on a ClusterIP Service",
    input: changed(["services.0.spec.ports.0.nodePort", 30001]),
    at: `${S0}.spec.ports[0].nodePort`,
  },
  {
    what: "a node port out of range",
    input: changed(["services.1.spec.ports.0.nodePort", 70000]),
    at: "services[1].spec.ports[0].nodePort",
  },
  {
    what: "an appProtocol that is not a qualified name",
    input: changed(["services.0.spec.ports.0.appProtocol", "h t t p"]),
    at: `${S0}.spec.ports[0].appProtocol`,
  },
  {
    what: "an external traffic policy on a ClusterIP Service",
    input: changed(["services.0.spec.externalTrafficPolicy", "Cluster"]),
    at: `${S0}.spec.externalTrafficPolicy`,
  },
  {
    what: "an unknown external traffic policy",
    input: changed(["services.1.spec.externalTrafficPolicy", "Sideways"]),
    at: "services[1].spec.externalTrafficPolicy",
  },
  {
    what: "a health-check node port on a NodePort Service (bench-mixed-10000's 1,000)",
    input: changed(
      ["services.1.spec.externalTrafficPolicy", "Local"],
      ["services.1.spec.healthCheckNodePort", 32001],
    ),
    at: "services[1].spec.healthCheckNodePort",
  },
  {
    what: "a health-check node port out of range",
    input: changed(["services.2.spec.healthCheckNodePort", 65536]),
    at: `${S2}.spec.healthCheckNodePort`,
  },
  {
    what: "allocateLoadBalancerNodePorts on a NodePort Service",
    input: changed(["services.1.spec.allocateLoadBalancerNodePorts", false]),
    at: "services[1].spec.allocateLoadBalancerNodePorts",
  },
  {
    what: "source ranges on a NodePort Service",
    input: changed(["services.1.spec.loadBalancerSourceRanges", ["10.0.0.0/8"]]),
    at: "services[1].spec.loadBalancerSourceRanges",
  },
  {
    what: "a source range with a prefix of 33",
    input: changed(["services.2.spec.loadBalancerSourceRanges.1", "10.0.0.0/33"]),
    at: `${S2}.spec.loadBalancerSourceRanges[1]`,
  },
  {
    what: "a source range without a prefix",
    input: changed(["services.2.spec.loadBalancerSourceRanges.0", "10.0.0.0"]),
    at: `${S2}.spec.loadBalancerSourceRanges[0]`,
  },
  {
    what: "an invalid external IP",
    input: changed(["services.2.spec.externalIPs", ["198.18.0"]]),
    at: `${S2}.spec.externalIPs[0]`,
  },
  {
    what: "a loopback external IP",
    input: changed(["services.2.spec.externalIPs", ["127.0.0.1"]]),
    at: `${S2}.spec.externalIPs[0]`,
  },
  {
    what: "the source-range annotation on a NodePort Service",
    input: changed([
      "services.1.metadata.annotations",
      { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8" },
    ]),
    at: 'services[1].metadata.annotations["service.beta.kubernetes.io/load-balancer-source-ranges"]',
  },
  {
    what: "a source-range annotation that is not a CIDR list",
    input: changed(
      ["services.2.spec.loadBalancerSourceRanges", undefined],
      [
        "services.2.metadata.annotations",
        { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 10.1.0.0" },
      ],
    ),
    at: 'services[2].metadata.annotations["service.beta.kubernetes.io/load-balancer-source-ranges"]',
  },
  {
    what: "a topology mode unlike the topology-hints annotation",
    input: changed([
      "services.0.metadata.annotations",
      {
        "service.kubernetes.io/topology-mode": "Auto",
        "service.kubernetes.io/topology-aware-hints": "Disabled",
      },
    ]),
    at: 'services[0].metadata.annotations["service.kubernetes.io/topology-mode"]',
  },
  {
    what: "a load-balancer class on a NodePort Service",
    input: changed(["services.1.spec.loadBalancerClass", "example.com/lb"]),
    at: "services[1].spec.loadBalancerClass",
  },
  {
    what: "a load-balancer class that is not a qualified name",
    input: changed(["services.2.spec.loadBalancerClass", "example.com/my lb"]),
    at: `${S2}.spec.loadBalancerClass`,
  },
  {
    what: "an unknown traffic distribution",
    input: changed(["services.0.spec.trafficDistribution", "Anywhere"]),
    at: `${S0}.spec.trafficDistribution`,
  },
  {
    what: "an ExternalName Service with a cluster IP",
    input: changed(
      ["services.0.spec.type", "ExternalName"],
      ["services.0.spec.externalName", "db.example.com"],
    ),
    at: `${S0}.spec.clusterIPs`,
  },
  {
    what: "an ExternalName Service without a name",
    input: changed(
      ["services.0.spec.type", "ExternalName"],
      ["services.0.spec.clusterIP", undefined],
      ["services.0.spec.clusterIPs", undefined],
      ["services.0.spec.ipFamilies", undefined],
      ["services.0.spec.ipFamilyPolicy", undefined],
    ),
    at: `${S0}.spec.externalName`,
  },
  // ServiceStatus (ValidateLoadBalancerStatus).
  {
    what: "load-balancer ingress on a ClusterIP Service",
    input: changed(["services.0.status", { loadBalancer: { ingress: [{ ip: "203.0.113.9" }] } }]),
    at: `${S0}.status.loadBalancer.ingress`,
  },
  {
    what: "an invalid ingress IP",
    input: changed(["services.2.status.loadBalancer.ingress.0.ip", "203.0.113"]),
    at: `${S2}.status.loadBalancer.ingress[0].ip`,
  },
  {
    what: "an unknown ipMode",
    input: changed(["services.2.status.loadBalancer.ingress.0.ipMode", "Tunnel"]),
    at: `${S2}.status.loadBalancer.ingress[0].ipMode`,
  },
  {
    what: "an ipMode without an IP",
    input: changed(["services.2.status.loadBalancer.ingress.1.ipMode", "VIP"]),
    at: `${S2}.status.loadBalancer.ingress[1].ipMode`,
  },
  {
    what: "an ingress hostname that is an IP",
    input: changed(["services.2.status.loadBalancer.ingress.1.hostname", "203.0.113.8"]),
    at: `${S2}.status.loadBalancer.ingress[1].hostname`,
  },
  {
    what: "an ingress hostname that is not a DNS name",
    input: changed(["services.2.status.loadBalancer.ingress.1.hostname", "LB.example"]),
    at: `${S2}.status.loadBalancer.ingress[1].hostname`,
  },
  // Two objects of one namespace and name.
  { what: "a Service twice", input: changed(["services.1.metadata.name", "web"]), at: "services[1]" },
  // EndpointSlice (ValidateEndpointSlice).
  {
    what: "a slice name with '_'",
    input: changed(["endpointSlices.0.metadata.name", "web_abc"]),
    at: `${E0}.metadata.name`,
  },
  {
    what: "a bad slice namespace",
    input: changed(["endpointSlices.0.metadata.namespace", "-prod"]),
    at: `${E0}.metadata.namespace`,
  },
  {
    what: "a service-name label that is not a label value",
    input: changed(["endpointSlices.0.metadata.labels", { "kubernetes.io/service-name": "web/x" }]),
    at: `${E0}.metadata.labels["kubernetes.io/service-name"]`,
  },
  {
    what: "no address type",
    input: changed(["endpointSlices.0.addressType", undefined]),
    at: `${E0}.addressType`,
  },
  {
    what: "the deprecated address type IP",
    input: changed(["endpointSlices.0.addressType", "IP"]),
    at: `${E0}.addressType`,
  },
  {
    what: "1,001 endpoints",
    input: changed([
      "endpointSlices.0.endpoints",
      many(1001, (i) => ({ addresses: [`10.244.${i >> 8}.${(i & 255) + 1}`.replace(/\.256$/, ".1")] })),
    ]),
    at: `${E0}.endpoints`,
  },
  {
    what: "an endpoint without addresses",
    input: changed(["endpointSlices.0.endpoints.1.addresses", []]),
    at: `${E0}.endpoints[1].addresses`,
  },
  {
    what: "101 addresses",
    input: changed(["endpointSlices.0.endpoints.0.addresses", many(101, (i) => `10.244.9.${i + 1}`)]),
    at: `${E0}.endpoints[0].addresses`,
  },
  {
    what: "an invalid IPv4 address",
    input: changed(["endpointSlices.0.endpoints.1.addresses", ["10.244.1"]]),
    at: `${E0}.endpoints[1].addresses[0]`,
  },
  {
    what: "an IPv6 address in an IPv4 slice",
    input: changed(["endpointSlices.0.endpoints.1.addresses", ["fd00::1"]]),
    at: `${E0}.endpoints[1].addresses[0]`,
  },
  {
    what: "an IPv4 address in an IPv6 slice",
    input: changed(["endpointSlices.1.endpoints.0.addresses", ["10.244.0.9"]]),
    at: `${E1}.endpoints[0].addresses[0]`,
  },
  {
    what: "a loopback endpoint",
    input: changed(["endpointSlices.0.endpoints.0.addresses", ["127.0.0.2"]]),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "a link-local endpoint",
    input: changed(["endpointSlices.0.endpoints.0.addresses", ["169.254.1.1"]]),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "a link-local multicast endpoint",
    input: changed(["endpointSlices.0.endpoints.0.addresses", ["224.0.0.5"]]),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "the unspecified endpoint",
    input: changed(["endpointSlices.0.endpoints.0.addresses", ["0.0.0.0"]]),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "a loopback IPv6 endpoint",
    input: changed(["endpointSlices.1.endpoints.0.addresses", ["::1"]]),
    at: `${E1}.endpoints[0].addresses[0]`,
  },
  {
    what: "a link-local IPv6 endpoint",
    input: changed(["endpointSlices.1.endpoints.0.addresses", ["fe80::1"]]),
    at: `${E1}.endpoints[0].addresses[0]`,
  },
  {
    what: "an IPv6 endpoint with a zone",
    input: changed(["endpointSlices.1.endpoints.0.addresses", ["fd00::1%eth0"]]),
    at: `${E1}.endpoints[0].addresses[0]`,
  },
  {
    what: "a condition that is not a boolean",
    input: changed(["endpointSlices.0.endpoints.0.conditions.ready", "yes"]),
    at: `${E0}.endpoints[0].conditions.ready`,
  },
  {
    what: "serving that is not a boolean",
    input: changed(["endpointSlices.0.endpoints.0.conditions.serving", 1]),
    at: `${E0}.endpoints[0].conditions.serving`,
  },
  {
    what: "terminating that is not a boolean",
    input: changed(["endpointSlices.0.endpoints.0.conditions.terminating", "no"]),
    at: `${E0}.endpoints[0].conditions.terminating`,
  },
  {
    what: "a node name with '_'",
    input: changed(["endpointSlices.0.endpoints.1.nodeName", "node_1"]),
    at: `${E0}.endpoints[1].nodeName`,
  },
  {
    what: "a hostname with a dot",
    input: changed(["endpointSlices.0.endpoints.1.hostname", "pod.1"]),
    at: `${E0}.endpoints[1].hostname`,
  },
  {
    what: "nine zone hints",
    input: changed([
      "endpointSlices.0.endpoints.0.hints",
      { forZones: many(9, (i) => ({ name: `zone-${i}` })) },
    ]),
    at: `${E0}.endpoints[0].hints.forZones`,
  },
  {
    what: "a zone hint twice",
    input: changed([
      "endpointSlices.0.endpoints.0.hints",
      { forZones: [{ name: "zone-a" }, { name: "zone-a" }] },
    ]),
    at: `${E0}.endpoints[0].hints.forZones[1].name`,
  },
  {
    what: "a slice port name in capitals",
    input: changed(["endpointSlices.0.ports.0.name", "HTTP"]),
    at: `${E0}.ports[0].name`,
  },
  {
    what: "a slice port name twice",
    input: changed(["endpointSlices.0.ports.1.name", "http"]),
    at: `${E0}.ports[1].name`,
  },
  {
    what: "two unnamed slice ports",
    input: changed(["endpointSlices.0.ports.0.name", undefined], ["endpointSlices.0.ports.1.name", ""]),
    at: `${E0}.ports[1].name`,
  },
  {
    what: "an unknown slice port protocol",
    input: changed(["endpointSlices.0.ports.0.protocol", "ICMP"]),
    at: `${E0}.ports[0].protocol`,
  },
  {
    what: "an empty slice port protocol",
    input: changed(["endpointSlices.0.ports.0.protocol", ""]),
    at: `${E0}.ports[0].protocol`,
  },
  {
    what: "a slice port number that is not an integer",
    input: changed(["endpointSlices.0.ports.0.port", 80.5]),
    at: `${E0}.ports[0].port`,
  },
  {
    what: "a slice appProtocol that is not a qualified name",
    input: changed(["endpointSlices.0.ports.0.appProtocol", "-http"]),
    at: `${E0}.ports[0].appProtocol`,
  },
  {
    what: "an FQDN address of one label",
    input: changed(
      ["endpointSlices.0.addressType", "FQDN"],
      ["endpointSlices.0.endpoints.0.addresses", ["localhost"]],
    ),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "an FQDN address with a label of 64 characters",
    input: changed(
      ["endpointSlices.0.addressType", "FQDN"],
      ["endpointSlices.0.endpoints.0.addresses", [`${"a".repeat(64)}.example.com`]],
    ),
    at: `${E0}.endpoints[0].addresses[0]`,
  },
  {
    what: "an EndpointSlice twice",
    input: changed(["endpointSlices.1.metadata.name", "web-abc"]),
    at: "endpointSlices[1]",
  },
];

describe("bench/api-checks.mjs", () => {
  it("accepts what the library accepts: the base cluster and its legacy spellings", () => {
    for (const input of [
      base(),
      // Stored objects keep the spellings the API server took before StrictIPCIDRValidation.
      changed(["services.0.spec.clusterIP", "010.96.0.10"], ["services.0.spec.clusterIPs", ["010.96.0.10"]]),
      changed(["endpointSlices.0.endpoints.0.addresses", ["::ffff:10.244.0.5"]]),
      changed(["services.2.spec.loadBalancerSourceRanges", ["10.0.0.1/8", "::ffff:10.0.0.0/104"]]),
      changed(
        ["services.2.spec.loadBalancerSourceRanges", undefined],
        [
          "services.2.metadata.annotations",
          { "service.beta.kubernetes.io/load-balancer-source-ranges": " 10.0.0.0/8, 10.1.0.0/16 " },
        ],
        [
          "services.0.metadata.annotations",
          {
            "service.kubernetes.io/topology-mode": "Auto",
            "service.kubernetes.io/topology-aware-hints": "Auto",
          },
        ],
      ),
      changed(
        ["endpointSlices.0.addressType", "FQDN"],
        ["endpointSlices.0.endpoints.1.addresses", ["db.example.com"]],
        ["endpointSlices.0.endpoints.0.addresses", ["db-0.example.com"]],
      ),
      // Defaulted fields may be absent.
      changed(
        ["services.0.spec.type", undefined],
        ["services.0.spec.sessionAffinity", undefined],
        ["services.0.spec.internalTrafficPolicy", undefined],
        ["services.0.spec.ipFamilyPolicy", undefined],
        ["services.0.spec.ipFamilies", undefined],
        ["services.0.spec.clusterIPs", undefined],
      ),
      changed(
        ["services.2.spec.sessionAffinityConfig", undefined],
        ["services.2.spec.healthCheckNodePort", undefined],
      ),
      changed(["services.2.spec.loadBalancerClass", "example.com/internal-lb"]),
      // A slice port may have no number.
      changed(["endpointSlices.0.ports.1.port", undefined]),
    ]) {
      expect(boundRefusal(input)).toBeNull();
      expect(libraryErrors(input)).toEqual([]);
    }
  });

  it("accepts every bench model the library accepts, and refuses bench-mixed-10000 where the library does", async () => {
    const names = readdirSync(FIXTURES)
      .filter((f) => f.endsWith(".json.gz"))
      .map((f) => f.replace(/\.json\.gz$/, ""));
    expect(names).toContain("bench-mixed-10000");
    for (const name of names) {
      const input = JSON.parse(gunzipSync(readFileSync(`${FIXTURES}/${name}.json.gz`)).toString("utf8"));
      const errors = libraryErrors(input);
      if (name === "bench-mixed-10000") {
        expect(errors).toHaveLength(1000);
        expect(boundRefusal(input)).toBe(errors[0]);
      } else {
        expect([name, errors]).toEqual([name, []]);
        expect([name, boundRefusal(input)]).toEqual([name, null]);
      }
    }
    // The seeded shapes of bench/generate.mjs (IPv6, multi-port, huge services).
    const generator = "../../bench/generate.mjs";
    const { GENERATED, generateCluster } = (await import(generator)) as {
      GENERATED: Record<string, object>;
      generateCluster: (shape: object) => unknown;
    };
    for (const [name, shape] of Object.entries(GENERATED)) {
      const input = generateCluster(shape);
      expect([name, libraryErrors(input)]).toEqual([name, []]);
      expect([name, boundRefusal(input)]).toEqual([name, null]);
    }
  });

  // What the API server accepts once SetDefaults_Service (or the discovery defaults) ran, or never
  // checks: the bound and the library accept these.
  for (const [what, input] of [
    [
      "an affinity config with affinity None (SetDefaults_Service drops it)",
      changed(["services.0.spec.sessionAffinityConfig", { clientIP: { timeoutSeconds: 99999 } }]),
    ],
    ["an empty type (SetDefaults_Service: ClusterIP)", changed(["services.0.spec.type", ""])],
    [
      "an empty session affinity (SetDefaults_Service: None)",
      changed(["services.0.spec.sessionAffinity", ""]),
    ],
    ["an empty port protocol (SetDefaults_Service: TCP)", changed(["services.0.spec.ports.0.protocol", ""])],
    [
      "an empty external traffic policy (SetDefaults_Service: Cluster)",
      changed(["services.1.spec.externalTrafficPolicy", ""]),
    ],
    [
      "a zone that is not a label value (validateEndpoints leaves the zone unchecked)",
      changed(["endpointSlices.0.endpoints.0.zone", "Zone A!"]),
    ],
    [
      "an FQDN address with a trailing dot (IsFullyQualifiedDomainName trims it)",
      changed(
        ["endpointSlices.0.addressType", "FQDN"],
        ["endpointSlices.0.endpoints.0.addresses", ["db.example.com."]],
      ),
    ],
  ] as const) {
    it(`accepts ${what}`, () => expect(boundRefusal(input)).toBeNull());
    it(`the library accepts ${what} too`, () => expect(libraryErrors(input)).toEqual([]));
  }

  // What the API server leaves unchecked: the library accepts these, and so does the bound.
  for (const [what, input] of [
    [
      "a loadBalancerIP that is not an IP (ValidateService never checks it; only GetWarningsForIP warns)",
      changed(["services.2.spec.loadBalancerIP", "not-an-ip"]),
    ],
  ] as const) {
    it(`accepts ${what}`, () => expect(boundRefusal(input)).toBeNull());
    it(`the library accepts ${what}`, () => expect(libraryErrors(input)).toEqual([]));
  }

  it("stops at an object of another kind, which the CLI leaves out rather than refuses", () => {
    const other = changed(["services.0.kind", "Deployment"], ["services.0.apiVersion", "apps/v1"]);
    expect(() => checkClusterObjects(other)).toThrow(/services\[0\]: .*outside this bound/);
  });

  for (const c of CASES) {
    it(`refuses ${c.what} at ${c.at}`, () => {
      expect(boundRefusal(c.input)).toBe(c.at);
    });
    const library = c.library ?? c.at;
    it(`the library refuses ${c.what} too (${library})`, () => {
      expect(
        libraryErrors(c.input).some(
          (p) => p === library || p.startsWith(`${library}.`) || p.startsWith(`${library}[`),
        ),
      ).toBe(true);
    });
  }
});
