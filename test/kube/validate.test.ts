import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, test } from "vitest";
import {
  type ClusterInput,
  prepareCluster,
  splitKubernetesDocuments,
  splitKubernetesList,
  validateClusterInput,
  validateKubernetesList,
} from "../../src/index.js";
import {
  cidrProblem,
  ipFamilyOf,
  ipProblem,
  isValidCIDR,
  isValidIP,
  specialIPProblem,
} from "../../src/kube/addresses.js";
import { relocateProblems, remapListPaths, validateObjectKinds } from "../../src/kube/list.js";
import { readClusterText } from "../../src/kube/read-input.js";
import { kubeProxyVectors } from "../support/corpora.js";

type Json = Record<string, unknown>;

function service(spec: Json = {}, extra: Json = {}): Json {
  return {
    metadata: { name: "web", namespace: "default" },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }], ...spec },
    ...extra,
  };
}

/** A LoadBalancer Service's spec, with the node port the API server assigns. */
const LB: Json = {
  type: "LoadBalancer",
  ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080 }],
};

function slice(extra: Json = {}): Json {
  return {
    metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.1.1"], conditions: { ready: true }, nodeName: "node-a" }],
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    ...extra,
  };
}

function problems(input: unknown): string[] {
  return validateClusterInput(input).map((p) => `${p.severity} ${p.code} ${p.path}: ${p.message}`);
}

describe("validateClusterInput: good input", () => {
  const good: [string, unknown][] = [
    ["an empty file", {}],
    ["empty lists", { config: {}, services: [], endpointSlices: [] }],
    ["null lists (Go reads null as empty)", { services: null, endpointSlices: null }],
    ["a ClusterIP Service with its slice", { services: [service()], endpointSlices: [slice()] }],
    [
      "an appProtocol with a prefix, and a selector",
      {
        services: [
          service({
            ports: [{ name: "h", port: 80, appProtocol: "kubernetes.io/h2c" }],
            selector: { "app.kubernetes.io/name": "web" },
          }),
        ],
      },
    ],
    // API server: port names are DNS-1123 labels (what `kubectl create service clusterip x
    // --tcp=80:8080` writes is "80-8080"), in Services and EndpointSlices alike.
    ...["80", "80-8080", "external-service-port-4510", "p".repeat(63)].map((name): [string, unknown] => [
      `the port name ${name.length > 30 ? "of 63 characters" : name}`,
      {
        services: [service({ ports: [{ name, port: 80 }] })],
        endpointSlices: [slice({ ports: [{ name, port: 8080 }] })],
      },
    ]),
    [
      "legacy IP spellings an older API server stored (sloppy: leading zeros, IPv4-mapped)",
      {
        services: [
          service({
            type: "LoadBalancer",
            clusterIP: "010.096.000.010",
            clusterIPs: ["010.096.000.010"],
            ipFamilies: ["IPv4"],
            externalIPs: ["::ffff:192.0.2.1", "192.000.002.002"],
            loadBalancerSourceRanges: ["203.0.113.000/025", "::ffff:198.51.100.0/120"],
          }),
          service(
            { clusterIP: "::ffff:10.96.0.11", ipFamilies: ["IPv4"] },
            { metadata: { name: "mapped", namespace: "default" } },
          ),
        ],
        endpointSlices: [
          slice({ endpoints: [{ addresses: ["010.244.001.001"] }, { addresses: ["::ffff:10.244.1.2"] }] }),
        ],
      },
    ],
    [
      "a load-balancer ingress IP with leading zeros, a hostname that only a sloppy parser reads as an IP",
      {
        services: [
          service(LB, {
            status: { loadBalancer: { ingress: [{ ip: "203.0.113.001" }, { hostname: "010.1.2.3" }] } },
          }),
        ],
      },
    ],
    [
      "a full config",
      {
        config: {
          ipFamily: "IPv6",
          hostname: "node-a",
          nodeIPs: ["192.168.0.2", "fd00:10::2"],
          nodeLabels: { "topology.kubernetes.io/zone": "zone-a" },
          detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16", "fd00:10:244::/56"] },
          masqueradeAll: false,
          masqueradeBit: 0,
          nodePortAddresses: ["127.0.0.0/8", "::1/128", "192.168.0.1/16"],
          localhostNodePorts: true,
          hasRandomFully: false,
          conntrackTCPBeLiberal: true,
          profile: "latest",
        },
      },
    ],
    ["nodePortAddresses primary", { config: { nodePortAddresses: ["primary"] } }],
    [
      "a 15-character bridge",
      { config: { detectLocal: { mode: "BridgeInterface", interface: "abcdefghijklmno" } } },
    ],
    [
      "a 14-character prefix",
      { config: { detectLocal: { mode: "InterfaceNamePrefix", prefix: "abcdefghijklmn" } } },
    ],
    ["masqueradeBit 31", { config: { masqueradeBit: 31 } }],
    [
      "a dual-stack LoadBalancer with everything",
      {
        services: [
          service(
            {
              type: "LoadBalancer",
              clusterIP: "10.96.0.10",
              clusterIPs: ["10.96.0.10", "fd00:10:96::a"],
              ipFamilies: ["IPv4", "IPv6"],
              ipFamilyPolicy: "RequireDualStack",
              ports: [
                { name: "http", port: 80, nodePort: 30080, targetPort: "web" },
                { name: "dns", port: 53, protocol: "UDP", nodePort: 30053, targetPort: 5353 },
                { name: "dns-tcp", port: 53, protocol: "TCP", nodePort: 30053 },
              ],
              externalIPs: ["192.0.2.40", "2001:db8::40"],
              loadBalancerSourceRanges: [" 203.0.113.0/25", "10.0.0.1/24", "2001:db8::/48"],
              externalTrafficPolicy: "Local",
              internalTrafficPolicy: "Local",
              healthCheckNodePort: 32000,
              sessionAffinity: "ClientIP",
              sessionAffinityConfig: { clientIP: { timeoutSeconds: 86400 } },
              allocateLoadBalancerNodePorts: true,
              trafficDistribution: "PreferClose",
            },
            {
              status: {
                loadBalancer: { ingress: [{ ip: "203.0.113.10", ipMode: "VIP" }, { ip: "2001:db8::10" }] },
              },
            },
          ),
        ],
      },
    ],
    [
      "nodePort 80 (the 30000-32767 range is not enforced)",
      { services: [service({ type: "NodePort", ports: [{ port: 80, nodePort: 80 }] })] },
    ],
    [
      "nodePort 0 on a ClusterIP Service (means none)",
      { services: [service({ ports: [{ port: 80, nodePort: 0 }] })] },
    ],
    [
      "externalTrafficPolicy on a ClusterIP with externalIPs",
      { services: [service({ externalIPs: ["192.0.2.1"], externalTrafficPolicy: "Local" })] },
    ],
    ["a single unnamed port", { services: [service({ ports: [{ port: 80 }] })] }],
    [
      "the same port number for TCP and UDP",
      {
        services: [
          service({
            ports: [
              { name: "a", port: 53 },
              { name: "b", port: 53, protocol: "UDP" },
            ],
          }),
        ],
      },
    ],
    ["a headless Service without ports", { services: [service({ clusterIP: "None", ports: [] })] }],
    [
      "an IPv6 slice",
      {
        endpointSlices: [
          slice({
            addressType: "IPv6",
            endpoints: [{ addresses: ["fd00:10:244::1"] }],
            metadata: { name: "s", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
          }),
        ],
        services: [service()],
      },
    ],
    [
      "slice conditions and hints",
      {
        services: [service()],
        endpointSlices: [
          slice({
            endpoints: [
              {
                addresses: ["10.244.1.1"],
                conditions: { ready: false, serving: true, terminating: null },
                zone: "zone-a",
                hints: { forZones: [{ name: "zone-a" }], forNodes: [{ name: "node-a" }] },
              },
            ],
          }),
        ],
      },
    ],
    [
      'a zone hint without a name (Go reads it as the valid label value "")',
      {
        services: [service()],
        endpointSlices: [slice({ endpoints: [{ addresses: ["10.244.1.1"], hints: { forZones: [{}] } }] })],
      },
    ],
    [
      "a conformance vector's extra keys",
      { name: "x", description: "y", kubeProxy: "v1.30.5", expected: {}, v122Notes: [] },
    ],
  ];
  test.each(good)("%s", (_, input) => {
    expect(validateClusterInput(input).filter((p) => p.severity === "error")).toEqual([]);
  });
});

describe("validateClusterInput: bad input", () => {
  const bad: [string, unknown, string][] = [
    [
      "a port out of range",
      { services: [service({ ports: [{ port: 70000 }] })] },
      "error INVALID_VALUE services[0].spec.ports[0].port: 70000 is not a port number (1-65535)",
    ],
    [
      "a fractional port",
      { services: [service({ ports: [{ port: 80.5 }] })] },
      "error INVALID_VALUE services[0].spec.ports[0].port: 80.5 is not a port number (1-65535)",
    ],
    [
      "a lowercase protocol",
      { services: [service({ ports: [{ port: 80, protocol: "udp" }] })] },
      'error INVALID_VALUE services[0].spec.ports[0].protocol: "udp" is not a protocol (TCP, UDP or SCTP)',
    ],
    [
      "a missing port name with two ports",
      { services: [service({ ports: [{ name: "a", port: 80 }, { port: 81 }] })] },
      "error REQUIRED services[0].spec.ports[1].name: is required when a Service has several ports",
    ],
    [
      "a port name in upper case",
      { services: [service({ ports: [{ name: "HTTP", port: 80 }] })] },
      `error INVALID_VALUE services[0].spec.ports[0].name: "HTTP" is not a valid port name: lowercase letters, digits and '-', starting and ending with a letter or digit`,
    ],
    [
      "a port name of 64 characters",
      { services: [service({ ports: [{ name: "p".repeat(64), port: 80 }] })] },
      `error INVALID_VALUE services[0].spec.ports[0].name: "${"p".repeat(64)}" is not a valid port name: at most 63 characters`,
    ],
    [
      "a target port name without a letter (IANA_SVC_NAME)",
      { services: [service({ ports: [{ port: 80, targetPort: "8080" }] })] },
      'error INVALID_VALUE services[0].spec.ports[0].targetPort: "8080" is not a valid port name: at least one letter',
    ],
    [
      "a duplicate port/protocol pair",
      {
        services: [
          service({
            ports: [
              { name: "a", port: 80 },
              { name: "b", port: 80, protocol: "TCP" },
            ],
          }),
        ],
      },
      "error DUPLICATE services[0].spec.ports[1]: 80/TCP is already used by ports[0]",
    ],
    [
      "a nodePort on a ClusterIP Service",
      { services: [service({ type: "ClusterIP", ports: [{ port: 80, nodePort: 30080 }] })] },
      "error INVALID_VALUE services[0].spec.ports[0].nodePort: 30080 is set, but a ClusterIP Service has no node ports",
    ],
    [
      "a headless LoadBalancer Service",
      { services: [service({ type: "LoadBalancer", clusterIP: "None", clusterIPs: ["None"] })] },
      'error INVALID_VALUE services[0].spec.clusterIP: "None" (headless) is not allowed for a LoadBalancer Service',
    ],
    [
      "an appProtocol that is not a qualified name",
      { services: [service({ ports: [{ name: "h", port: 80, appProtocol: "http 2" }] })] },
      `error INVALID_VALUE services[0].spec.ports[0].appProtocol: "http 2" is not a valid application protocol: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    ],
    [
      "a selector value that is not a label value",
      { services: [service({ selector: { app: "web/1" } })] },
      `error INVALID_VALUE services[0].spec.selector.app: "web/1" is not a valid label value: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    ],
    [
      "a Service name with upper case",
      { services: [service({}, { metadata: { name: "Web", namespace: "default" } })] },
      `error INVALID_VALUE services[0].metadata.name: "Web" is not a valid Service name: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit`,
    ],
    [
      "a Service name starting with a digit",
      { services: [service({}, { metadata: { name: "1web", namespace: "default" } })] },
      `error INVALID_VALUE services[0].metadata.name: "1web" is not a valid Service name: lowercase letters, digits and '-', starting with a letter and ending with a letter or digit`,
    ],
    [
      "a namespace with a quote",
      { services: [service({}, { metadata: { name: "web", namespace: 'de"fault' } })] },
      'error UNSAFE_TEXT services[0].metadata.namespace: "de\\"fault" contains a double quote, which cannot be written safely into iptables rules',
    ],
    [
      "a cluster IP with a zone",
      { services: [service({ clusterIP: "fe80::1%eth0" })] },
      'error INVALID_VALUE services[0].spec.clusterIP: "fe80::1%eth0" is not a valid IP address: zone indexes (%) are not allowed',
    ],
    [
      "a cluster IP octet above 255 after leading zeros",
      { services: [service({ clusterIP: "10.96.0.0256" })] },
      'error INVALID_VALUE services[0].spec.clusterIP: "10.96.0.0256" is not a valid IP address',
    ],
    [
      "an IPv4-mapped cluster IP declared IPv6",
      { services: [service({ clusterIP: "::ffff:10.96.0.10", ipFamilies: ["IPv6"] })] },
      'error INVALID_VALUE services[0].spec.ipFamilies[0]: "IPv6" does not match the cluster IP "::ffff:10.96.0.10", which is IPv4',
    ],
    [
      "an IPv4-mapped loopback external IP",
      { services: [service({ externalIPs: ["::ffff:127.0.0.1"] })] },
      'error INVALID_VALUE services[0].spec.externalIPs[0]: "::ffff:127.0.0.1" is a loopback address (127.0.0.0/8, ::1/128), which is not allowed as an external IP',
    ],
    [
      "an IPv4-mapped address in an IPv6 slice",
      { endpointSlices: [slice({ addressType: "IPv6", endpoints: [{ addresses: ["::ffff:10.244.1.1"] }] })] },
      'error INVALID_VALUE endpointSlices[0].endpoints[0].addresses[0]: "::ffff:10.244.1.1" is an IPv4 address, not IPv6',
    ],
    [
      "ipFamilies not matching clusterIPs",
      { services: [service({ clusterIP: "10.96.0.10", ipFamilies: ["IPv6"] })] },
      'error INVALID_VALUE services[0].spec.ipFamilies[0]: "IPv6" does not match the cluster IP "10.96.0.10", which is IPv4',
    ],
    [
      "a loopback external IP",
      { services: [service({ externalIPs: ["127.0.0.2"] })] },
      'error INVALID_VALUE services[0].spec.externalIPs[0]: "127.0.0.2" is a loopback address (127.0.0.0/8, ::1/128), which is not allowed as an external IP',
    ],
    [
      "a garbage source range",
      { services: [service({ type: "LoadBalancer", loadBalancerSourceRanges: ["10.0.0.0/8,10.1.0.0/16"] })] },
      'error INVALID_VALUE services[0].spec.loadBalancerSourceRanges[0]: "10.0.0.0/8,10.1.0.0/16" is not a CIDR (address/prefix-length)',
    ],
    [
      "healthCheckNodePort with eTP Cluster",
      { services: [service({ type: "LoadBalancer", healthCheckNodePort: 32000 })] },
      "error INVALID_VALUE services[0].spec.healthCheckNodePort: 32000 may only be set on a LoadBalancer Service with externalTrafficPolicy Local",
    ],
    [
      "a timeout above a day",
      {
        services: [
          service({
            sessionAffinity: "ClientIP",
            sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } },
          }),
        ],
      },
      "error INVALID_VALUE services[0].spec.sessionAffinityConfig.clientIP.timeoutSeconds: 86401 is not a timeout in seconds (1-86400)",
    ],
    [
      "an unknown ipMode",
      {
        services: [
          service(LB, { status: { loadBalancer: { ingress: [{ ip: "203.0.113.1", ipMode: "vip" }] } } }),
        ],
      },
      'error INVALID_VALUE services[0].status.loadBalancer.ingress[0].ipMode: "vip" is not an IP mode (VIP or Proxy)',
    ],
    [
      "an IPv6 address in an IPv4 slice",
      { endpointSlices: [slice({ endpoints: [{ addresses: ["10.244.1.1"] }, { addresses: ["fd00::1"] }] })] },
      'error INVALID_VALUE endpointSlices[0].endpoints[1].addresses[0]: "fd00::1" is an IPv6 address, not IPv4',
    ],
    [
      "a slice port above 65535 (cannot be written)",
      { endpointSlices: [slice({ ports: [{ name: "http", port: 70000 }] })] },
      "error INVALID_VALUE endpointSlices[0].ports[0].port: 70000 is not a port number (1-65535)",
    ],
    [
      "a slice port name in upper case",
      { endpointSlices: [slice({ ports: [{ name: "HTTP", port: 80 }] })] },
      `error INVALID_VALUE endpointSlices[0].ports[0].name: "HTTP" is not a valid port name: lowercase letters, digits and '-', starting and ending with a letter or digit`,
    ],
    [
      "a /0 cluster CIDR",
      { config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["0.0.0.0/0"] } } },
      'error INVALID_VALUE config.detectLocal.cidrs[0]: "0.0.0.0/0" covers every IPv4 address: the rule kube-proxy would write for it (! -s 0.0.0.0/0) is refused by iptables-restore on the nf_tables backend; give the pods\' CIDR',
    ],
    [
      "a /0 node CIDR for IPv6, after an IPv4 one",
      { config: { detectLocal: { mode: "NodeCIDR", cidrs: ["10.244.1.0/24", "::/0"] } } },
      'error INVALID_VALUE config.detectLocal.cidrs[1]: "::/0" covers every IPv6 address: the rule kube-proxy would write for it (! -s ::/0) is refused by iptables-restore on the nf_tables backend; give the pods\' CIDR',
    ],
    [
      "an IPv4-mapped /96, which kube-proxy reads as 0.0.0.0/0",
      { config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["::ffff:10.0.0.0/96"] } } },
      'error INVALID_VALUE config.detectLocal.cidrs[0]: "::ffff:10.0.0.0/96" covers every IPv4 address: the rule kube-proxy would write for it (! -s 0.0.0.0/0) is refused by iptables-restore on the nf_tables backend; give the pods\' CIDR',
    ],
    [
      "duplicate slice port names",
      {
        endpointSlices: [
          slice({
            ports: [
              { name: "", port: 80 },
              { name: "", port: 81 },
            ],
          }),
        ],
      },
      'error DUPLICATE endpointSlices[0].ports[1].name: "" is already the name of ports[0]',
    ],
    [
      "an interface with '!'",
      { config: { detectLocal: { mode: "BridgeInterface", interface: "!br0" } } },
      `error INVALID_VALUE config.detectLocal.interface: "!br0" is not a valid interface name: no '/', ':', '!' or whitespace`,
    ],
    [
      "an interface that reads as an option (found by the fuzzer)",
      { config: { detectLocal: { mode: "BridgeInterface", interface: "--comment" } } },
      `error INVALID_VALUE config.detectLocal.interface: "--comment" is not a valid interface name: not starting with '-' (iptables would read it as an option)`,
    ],
    [
      "an interface prefix that reads as an option",
      { config: { detectLocal: { mode: "InterfaceNamePrefix", prefix: "-j" } } },
      `error INVALID_VALUE config.detectLocal.prefix: "-j" is not a valid interface name prefix: not starting with '-' (iptables would read it as an option)`,
    ],
    [
      "a 16-character interface",
      { config: { detectLocal: { mode: "BridgeInterface", interface: "abcdefghijklmnop" } } },
      `error INVALID_VALUE config.detectLocal.interface: "abcdefghijklmnop" is not a valid interface name: at most 15 characters`,
    ],
    [
      "a 15-character prefix",
      { config: { detectLocal: { mode: "InterfaceNamePrefix", prefix: "abcdefghijklmno" } } },
      `error INVALID_VALUE config.detectLocal.prefix: "abcdefghijklmno" is not a valid interface name prefix: at most 14 characters, so that the '+' iptables appends fits`,
    ],
    [
      "a NUL in an interface",
      { config: { detectLocal: { mode: "BridgeInterface", interface: "br\u0000" } } },
      'error UNSAFE_TEXT config.detectLocal.interface: "br\\u0000" contains a NUL character, which cannot be written safely into iptables rules',
    ],
    [
      "a bad detect-local CIDR",
      { config: { detectLocal: { mode: "NodeCIDR", cidrs: ["10.244.0.0/24", "10.244.0/24"] } } },
      'error INVALID_VALUE config.detectLocal.cidrs[1]: "10.244.0/24" is not a valid IP CIDR',
    ],
    [
      "masqueradeBit 1.5",
      { config: { masqueradeBit: 1.5 } },
      "error INVALID_VALUE config.masqueradeBit: 1.5 is not a mark bit (0-31)",
    ],
    [
      "a string boolean",
      { config: { hasRandomFully: "true" } },
      'error TYPE config.hasRandomFully: expected true or false, got the string "true"',
    ],
    [
      "an unknown top-level key",
      { service: [] },
      'error INVALID_VALUE : unknown key "service"; a cluster file has config, services and endpointSlices',
    ],
    [
      "not an object",
      "hello",
      'error TYPE : a cluster file is an object with config, services and endpointSlices; got the string "hello"',
    ],
  ];
  test.each(bad)("%s", (_, input, expected) => {
    expect(problems(input).filter((p) => p.startsWith("error "))).toEqual([expected]);
  });
});

describe("validateClusterInput: warnings for what kube-proxy skips", () => {
  const cases: [string, unknown, string][] = [
    [
      "a slice port 0 (kube-proxy skips it)",
      { services: [service()], endpointSlices: [slice({ ports: [{ name: "http", port: 0 }] })] },
      "warning SKIPPED endpointSlices[0].ports[0].port: no port number: kube-proxy ignores this port",
    ],
    [
      "headless",
      { services: [service({ clusterIP: "None", clusterIPs: ["None"] })] },
      "warning SKIPPED services[0]: headless Service (clusterIP None): kube-proxy makes no rules for it",
    ],
    [
      "ExternalName",
      {
        services: [
          {
            metadata: { name: "x", namespace: "y" },
            spec: { type: "ExternalName", externalName: "db.example.com." },
          },
        ],
      },
      "warning SKIPPED services[0]: ExternalName Service: kube-proxy makes no rules for it",
    ],
    [
      "no cluster IP",
      { services: [service({ clusterIP: "" })] },
      "warning SKIPPED services[0]: Service without a cluster IP: kube-proxy makes no rules for it (the API server assigns one when it creates the Service: give the Service as 'kubectl get svc -o yaml' prints it)",
    ],
    [
      "a NodePort Service without its node port",
      { services: [service({ type: "NodePort" })] },
      "warning SKIPPED services[0].spec.ports[0].nodePort: not set: kube-proxy makes no node port rules for this port (the API server assigns a node port when it creates a NodePort or LoadBalancer Service)",
    ],
    [
      "a LoadBalancer Service with externalTrafficPolicy Local without its health check port",
      { services: [service({ ...LB, externalTrafficPolicy: "Local" })] },
      "warning SKIPPED services[0].spec.healthCheckNodePort: not set: kube-proxy makes no health check rule (the API server assigns this port when it creates a LoadBalancer Service with externalTrafficPolicy Local)",
    ],
    [
      "ipMode Proxy",
      {
        services: [
          service(LB, { status: { loadBalancer: { ingress: [{ ip: "203.0.113.1", ipMode: "Proxy" }] } } }),
        ],
      },
      'warning SKIPPED services[0].status.loadBalancer.ingress[0].ipMode: "Proxy": kube-proxy makes no rules for this ingress IP',
    ],
    [
      "hostname-only ingress",
      {
        services: [service(LB, { status: { loadBalancer: { ingress: [{ hostname: "lb.example.com" }] } } })],
      },
      'warning SKIPPED services[0].status.loadBalancer.ingress[0]: hostname-only ingress "lb.example.com": kube-proxy makes no rules for it',
    ],
    [
      "a slice without the service-name label",
      { endpointSlices: [slice({ metadata: { name: "s", namespace: "default" } })] },
      "warning SKIPPED endpointSlices[0].metadata.labels: no kubernetes.io/service-name label: kube-proxy ignores the slice",
    ],
    [
      "an FQDN slice",
      {
        services: [service()],
        endpointSlices: [slice({ addressType: "FQDN", endpoints: [{ addresses: ["db.example.com"] }] })],
      },
      'warning SKIPPED endpointSlices[0].addressType: "FQDN": kube-proxy ignores FQDN slices',
    ],
    [
      "a slice port matching no Service port",
      { services: [service()], endpointSlices: [slice({ ports: [{ name: "https", port: 8443 }] })] },
      'warning SKIPPED endpointSlices[0].ports[0]: port name "https" (TCP) matches no port of Service default/web: kube-proxy ignores it',
    ],
    [
      "a slice port matching the name but not the protocol",
      {
        services: [service()],
        endpointSlices: [slice({ ports: [{ name: "http", port: 8080, protocol: "UDP" }] })],
      },
      'warning SKIPPED endpointSlices[0].ports[0]: port name "http" (UDP) matches no port of Service default/web: kube-proxy ignores it',
    ],
    [
      "a slice of a missing Service",
      { endpointSlices: [slice()] },
      "warning SKIPPED endpointSlices[0]: no Service default/web in the input: its endpoints make no rules",
    ],
  ];
  test.each(cases)("%s", (_, input, expected) => {
    expect(problems(input)).toEqual([expected]);
  });
});

describe("slices given without any Service", () => {
  const of = (service: string, n: number, namespace = "default"): Json =>
    slice({
      metadata: {
        name: `${service}-${n}`,
        namespace,
        labels: { "kubernetes.io/service-name": service },
      },
    });

  test("get one warning naming the Services, not one each ('kubectl get endpointslices' alone)", () => {
    const slices = [of("web", 1), of("web", 2), of("api", 1), of("kube-dns", 1, "kube-system"), of("db", 1)];
    expect(problems({ endpointSlices: slices })).toEqual([
      "warning SKIPPED : no Service in the input: the endpoints given for 4 Services (default/web, default/api, kube-system/kube-dns, …) make no rules; 'kubectl get svc,endpointslices -A -o yaml' prints the Services too",
    ]);
    expect(problems({ services: [], endpointSlices: [of("web", 1), of("api", 1)] })).toEqual([
      "warning SKIPPED : no Service in the input: the endpoints given for 2 Services (default/web, default/api) make no rules; 'kubectl get svc,endpointslices -A -o yaml' prints the Services too",
    ]);
  });

  test("the slices of one Service keep their own warnings, as do slices beside other Services", () => {
    expect(problems({ endpointSlices: [of("web", 1), of("web", 2)] })).toEqual([
      "warning SKIPPED endpointSlices[0]: no Service default/web in the input: its endpoints make no rules",
      "warning SKIPPED endpointSlices[1]: no Service default/web in the input: its endpoints make no rules",
    ]);
    const other = service({}, { metadata: { name: "other", namespace: "default" } });
    expect(problems({ services: [other], endpointSlices: [of("web", 1), of("api", 1)] })).toEqual([
      "warning SKIPPED endpointSlices[0]: no Service default/web in the input: its endpoints make no rules",
      "warning SKIPPED endpointSlices[1]: no Service default/api in the input: its endpoints make no rules",
    ]);
  });
});

describe("node ports the API server would have assigned", () => {
  test("none is expected of a LoadBalancer without node ports, nor reported for a Service without a cluster IP", () => {
    const noNodePorts = service({ type: "LoadBalancer", allocateLoadBalancerNodePorts: false });
    expect(problems({ services: [noNodePorts] })).toEqual([]);
    expect(problems({ services: [service({ type: "NodePort", clusterIP: "" })] })).toEqual([
      "warning SKIPPED services[0]: Service without a cluster IP: kube-proxy makes no rules for it (the API server assigns one when it creates the Service: give the Service as 'kubectl get svc -o yaml' prints it)",
    ]);
  });

  test("the Service still gets its other rules; a port with a node port gets its node port rules", () => {
    const svc = service({
      type: "NodePort",
      ports: [
        { name: "http", port: 80, protocol: "TCP" },
        { name: "https", port: 443, protocol: "TCP", nodePort: 30443 },
      ],
    });
    const prepared = prepareCluster({ services: [svc] } as unknown as ClusterInput);
    expect(prepared.problems.map((p) => `${p.severity} ${p.path}`)).toEqual([
      "warning services[0].spec.ports[0].nodePort",
    ]);
    expect(prepared.model?.servicePorts.map((sp) => `${sp.portName} ${sp.nodePort}`)).toEqual([
      "http 0",
      "https 30443",
    ]);
  });
});

describe("a Service whose type was lost (a kubectl paste cut short)", () => {
  // The shape of a real paste (Azure/AKS#3699): an ingress-nginx LoadBalancer Service printed by
  // `kubectl get svc -o yaml`, cut before its `type:` and `status:` lines.
  const lostType = {
    allocateLoadBalancerNodePorts: true,
    externalTrafficPolicy: "Local",
    healthCheckNodePort: 31497,
    ports: [{ name: "http", nodePort: 31669, port: 80, protocol: "TCP", targetPort: "http" }],
  };

  test("one error at spec.type names the likely cause, in front of the ClusterIP errors it explains", () => {
    expect(problems({ services: [service(lostType)] })).toEqual([
      'error REQUIRED services[0].spec.type: not set, so ClusterIP, yet nodePort, externalTrafficPolicy, healthCheckNodePort, allocateLoadBalancerNodePorts are set, as on a LoadBalancer Service: was "type: LoadBalancer" lost (a paste cut short)? The errors below follow from it',
      "error INVALID_VALUE services[0].spec.ports[0].nodePort: 31669 is set, but a ClusterIP Service has no node ports",
      'error INVALID_VALUE services[0].spec.externalTrafficPolicy: "Local" may only be set on an externally accessible Service (NodePort, LoadBalancer or with externalIPs)',
      "error INVALID_VALUE services[0].spec.healthCheckNodePort: 31497 may only be set on a LoadBalancer Service with externalTrafficPolicy Local",
      "error INVALID_VALUE services[0].spec.allocateLoadBalancerNodePorts: may only be set on a LoadBalancer Service, not a ClusterIP Service",
    ]);
  });

  test("node ports alone suggest NodePort; load-balancer status alone suggests LoadBalancer", () => {
    const [nodePort] = problems({ services: [service({ ports: [{ port: 80, nodePort: 30080 }] })] });
    expect(nodePort).toContain(
      'nodePort is set, as on a NodePort or LoadBalancer Service: was "type: NodePort" lost',
    );
    const ingress = { status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } } };
    const [status] = problems({ services: [service({}, ingress)] });
    expect(status).toContain(
      'status.loadBalancer.ingress is set, as on a LoadBalancer Service: was "type: LoadBalancer" lost',
    );
  });

  test("not when the type is written, nor when nothing but other errors needs it", () => {
    for (const type of ["ClusterIP", ""]) {
      const found = problems({ services: [service({ ...lostType, type })] });
      expect(found).toHaveLength(4);
      expect(found.join("\n")).not.toContain("spec.type");
    }
    expect(problems({ services: [service({ ports: [{ name: "HTTP", port: 80 }] })] })).toHaveLength(1);
    // The same fields with externalIPs: the policy is allowed there, and nothing else needs a type.
    expect(
      problems({ services: [service({ externalIPs: ["203.0.113.9"], externalTrafficPolicy: "Local" })] }),
    ).toEqual([]);
  });
});

describe("ipMode under the v1.22 profile", () => {
  // kube-proxy 1.22 predates the field: it makes rules for a Proxy ingress IP, so no warning.
  const lb = service(LB, { status: { loadBalancer: { ingress: [{ ip: "203.0.113.1", ipMode: "Proxy" }] } } });
  test("is not reported as skipped, from the config or from prepareCluster's override", () => {
    expect(problems({ config: { profile: "v1.22" }, services: [lb] })).toEqual([]);
    const prepared = prepareCluster({ services: [lb] } as unknown as ClusterInput, {
      config: { profile: "v1.22" },
    });
    expect(prepared.problems).toEqual([]);
    expect(prepared.model?.servicePorts[0]?.loadBalancerVIPs).toEqual(["203.0.113.1"]);
    expect(prepareCluster({ services: [lb] } as unknown as ClusterInput).problems.map((p) => p.code)).toEqual(
      ["SKIPPED"],
    );
  });

  test("is not reported when the caller names the profile, for a cluster file or a List", () => {
    expect(validateClusterInput({ services: [lb] }, { profile: "v1.22" })).toEqual([]);
    expect(validateClusterInput({ services: [lb] }).map((p) => p.code)).toEqual(["SKIPPED"]);
    const list = { kind: "List", apiVersion: "v1", items: [{ kind: "Service", apiVersion: "v1", ...lb }] };
    expect(validateKubernetesList(list, { profile: "v1.22" })).toEqual([]);
    expect(validateKubernetesList(list).map((p) => p.code)).toEqual(["SKIPPED"]);
  });
});

describe("trafficDistribution: any value some release's API server takes", () => {
  const with_ = (distribution: string, profile?: string) =>
    problems({
      ...(profile === undefined ? {} : { config: { profile } }),
      services: [service({ trafficDistribution: distribution })],
    });
  test("under every profile: the API server may be newer than kube-proxy, which reads only hints", () => {
    // PreferSameZone and PreferSameNode came with PreferSameTrafficDistribution (on from 1.34),
    // and a kube-proxy 1.30 may run beside a 1.33 API server that has the gate on.
    for (const profile of [undefined, "v1.22", "v1.30", "v1.32", "v1.34", "latest"])
      for (const value of ["PreferClose", "PreferSameZone", "PreferSameNode"])
        expect(with_(value, profile)).toEqual([]);
  });
  test("the Service keeps its rules under an older profile", () => {
    const input = {
      config: { profile: "v1.30", hostname: "node-a" },
      services: [service({ trafficDistribution: "PreferSameNode" })],
    };
    const prepared = prepareCluster(input as unknown as ClusterInput);
    expect(prepared.problems).toEqual([]);
    expect(prepared.model?.servicePorts.map((sp) => sp.trafficDistribution)).toEqual(["PreferSameNode"]);
  });
  test("a value no release takes names every value", () => {
    for (const profile of ["v1.22", "latest"])
      expect(with_("Anywhere", profile)).toEqual([
        'error INVALID_VALUE services[0].spec.trafficDistribution: "Anywhere" is not a traffic distribution (PreferClose, PreferSameZone or PreferSameNode)',
      ]);
  });
});

describe("the slices of a Service left out as invalid", () => {
  test("say where it is, not that there is none", () => {
    const invalid = { metadata: { name: "Web_1", namespace: "default" }, spec: { clusterIP: "10.96.0.10" } };
    const found = problems({
      services: [service(), invalid],
      endpointSlices: [
        slice({
          metadata: { name: "w", namespace: "default", labels: { "kubernetes.io/service-name": "Web_1" } },
        }),
      ],
    });
    expect(found).toContain(
      "warning SKIPPED endpointSlices[0]: its Service default/Web_1 (services[1]) is invalid: its endpoints make no rules",
    );
    expect(found.filter((p) => p.startsWith("warning SKIPPED endpointSlices"))).toHaveLength(1);
  });
});

describe("validateClusterInput: collects everything, never throws", () => {
  test("reports every problem of one object", () => {
    const input = {
      services: [service({ ports: [{ name: "A", port: 0, protocol: "tcp" }], sessionAffinity: "x" })],
    };
    expect(validateClusterInput(input).map((p) => p.path)).toEqual([
      "services[0].spec.ports[0].name",
      "services[0].spec.ports[0].protocol",
      "services[0].spec.ports[0].port",
      "services[0].spec.sessionAffinity",
    ]);
  });

  test("never throws on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        validateClusterInput(value);
        validateClusterInput({ services: [value], endpointSlices: [value], config: value });
        validateKubernetesList({ kind: "List", items: [value] });
      }),
      { numRuns: 2000 },
    );
  });

  test("does not mutate its input", () => {
    const input = { services: [service()], endpointSlices: [slice()] };
    const copy = structuredClone(input);
    validateClusterInput(input);
    expect(input).toEqual(copy);
  });

  test("no string a user writes in a name reaches rule text unchecked", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (name) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
        const bad = /["'\\\u0000-\u001f\u007f-\u009f]/.test(name);
        const input = { services: [service({}, { metadata: { name: "web", namespace: name } })] };
        const codes = validateClusterInput(input).map((p) => p.code);
        if (bad) expect(codes).toContain("UNSAFE_TEXT");
      }),
      { numRuns: 2000 },
    );
  });
});

describe("addresses", () => {
  test.each([
    ["192.0.2.1", undefined, true],
    ["0.0.0.0", undefined, true],
    ["255.255.255.255", "IPv4", true],
    ["256.0.0.1", undefined, false],
    ["192.0.2.01", undefined, true],
    ["0192.00.002.0001", "IPv4", true],
    ["192.0.2.0256", undefined, false],
    ["192.0.2", undefined, false],
    ["0x1.2.3.4", undefined, false],
    [" 192.0.2.1", undefined, false],
    ["2001:db8::1", undefined, true],
    ["2001:DB8::1", "IPv6", true],
    ["::", undefined, true],
    ["::1.2.3.4", "IPv6", true],
    ["1:2:3:4:5:6:7::", undefined, true],
    ["1:2:3:4:5:6:7:8::", undefined, false],
    ["1::2::3", undefined, false],
    ["::ffff:192.0.2.1", "IPv4", true],
    ["::ffff:192.0.2.1", "IPv6", false],
    ["::ffff:192.0.2.01", "IPv4", true],
    ["fd00::00001", "IPv6", true],
    ["fd00::10000", undefined, false],
    ["fe80::1%eth0", undefined, false],
    ["[::1]", undefined, false],
    ["12345::", undefined, false],
    ["2001:db8::1", "IPv4", false],
    ["192.0.2.1", "IPv6", false],
  ] as const)("isValidIP(%j, %s) is %s", (text, family, valid) => {
    expect(isValidIP(text, family)).toBe(valid);
  });

  test.each([
    ["10.0.0.0/8", undefined, true],
    ["10.0.0.1/24", "IPv4", true],
    ["0.0.0.0/0", undefined, true],
    ["fd00::/8", "IPv6", true],
    ["::/0", undefined, true],
    ["10.0.0.0/33", undefined, false],
    ["10.0.0.0/08", undefined, true],
    ["10.0.0.0/0032", "IPv4", true],
    ["::ffff:10.0.0.0/104", "IPv4", true],
    ["::ffff:10.0.0.0/64", "IPv6", true],
    ["10.0.0.0/", undefined, false],
    ["10.0.0.0", undefined, false],
    ["10.0.0.0/8/8", undefined, false],
    ["fd00::/129", undefined, false],
    ["010.0.0.0/8", undefined, true],
    ["10.0.0.0/8 ", undefined, false],
    ["fd00::/8", "IPv4", false],
  ] as const)("isValidCIDR(%j, %s) is %s", (text, family, valid) => {
    expect(isValidCIDR(text, family)).toBe(valid);
  });

  test("explains", () => {
    expect(ipProblem("10.0.0.01")).toBeUndefined();
    expect(ipFamilyOf("::ffff:10.0.0.1")).toBe("IPv4");
    expect(ipProblem("10.0.0.1%eth0")).toBe("is not a valid IP address: zone indexes (%) are not allowed");
    expect(specialIPProblem("0127.0.0.1")).toBe("is a loopback address (127.0.0.0/8, ::1/128)");
    expect(ipProblem("fd00::1", "IPv4")).toBe("is an IPv6 address, not IPv4");
    expect(cidrProblem("10.0.0.0/33")).toBe("is not a valid IPv4 CIDR: the prefix length must be 0-32");
    expect(ipFamilyOf("fd00::1")).toBe("IPv6");
    expect(ipFamilyOf("fd00::1::")).toBeUndefined();
    expect(specialIPProblem("ff02::1")).toBe("is a link-local multicast address (224.0.0.0/24, ff02::/16)");
    expect(specialIPProblem("::")).toBe("is the unspecified address");
    expect(specialIPProblem("2001:db8::1")).toBeUndefined();
  });

  // Go's sloppy parser reads a number with leading zeros as the number without them: stripping
  // them must turn every text it accepts into one ipaddr.js accepts strictly, and nothing else.
  const stripZeros = (s: string): string => s.replace(/(^|[^0-9a-fA-F])0+(?=[0-9a-fA-F])/g, "$1");
  const strictIPv6 = (s: string): boolean => {
    if (!ipaddr.IPv6.isValid(s)) return false;
    const tail = /:([^:]*\.[^:]*)$/.exec(s);
    return tail === null || ipaddr.IPv4.isValidFourPartDecimal(tail[1] ?? "");
  };

  test("IPv4 agrees with ipaddr.IPv4.isValidFourPartDecimal once leading zeros are stripped", () => {
    const text = fc.oneof(fc.stringMatching(/^[0-9.]{0,16}$/), fc.ipV4(), fc.ipV4Extended());
    fc.assert(
      fc.property(text, (s) => {
        expect(isValidIP(s, "IPv4")).toBe(ipaddr.IPv4.isValidFourPartDecimal(stripZeros(s)));
      }),
      { numRuns: 5000 },
    );
  });

  test("IPv6 agrees with ipaddr.js once leading zeros are stripped", () => {
    const text = fc.oneof(fc.stringMatching(/^[0-9a-fA-F:.]{0,45}$/), fc.ipV6());
    fc.assert(
      fc.property(text, (s) => {
        const mine = s.includes(":") && (isValidIP(s, "IPv6") || isValidIP(s, "IPv4"));
        expect(mine).toBe(s.indexOf(":") >= 0 && !/^[^:]*\./.test(s) && strictIPv6(stripZeros(s)));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("Kubernetes List input", () => {
  const list = {
    apiVersion: "v1",
    kind: "List",
    items: [
      { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", ...slice() },
      { apiVersion: "v1", kind: "Service", ...service({ ports: [{ port: 70000 }] }) },
      { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } },
      { apiVersion: "discovery.k8s.io/v1beta1", kind: "EndpointSlice" },
      { apiVersion: "v1", kind: "Service", ...service() },
      "nope",
    ],
  };

  test("validateObjectKinds names unknown kinds and their item paths", () => {
    // Other kinds (and apiVersions) are one note, not errors; what is not an object is an error.
    expect(
      validateObjectKinds(list.items).map((p) => `${p.severity} ${p.code} ${p.path}: ${p.message}`),
    ).toEqual([
      'error TYPE items[5]: expected a Kubernetes object, got the string "nope"',
      "warning OTHER_KIND : skipped 2 objects of other kinds or versions: Pod (1), discovery.k8s.io/v1beta1 EndpointSlice (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints",
    ]);
    expect(validateObjectKinds([{ metadata: {} }]).map((p) => `${p.code} ${p.path}`)).toEqual([
      "REQUIRED items[0].kind",
    ]);
    expect(validateObjectKinds([{ metadata: {} }], "Service")).toEqual([]);
  });

  test("splitKubernetesList keeps original paths", () => {
    const split = splitKubernetesList(list);
    expect(split.servicePaths).toEqual(["items[1]", "items[4]"]);
    expect(split.endpointSlicePaths).toEqual(["items[0]"]);
    expect(split.services).toHaveLength(2);
    expect(split.problems.map((p) => p.path)).toEqual(["items[5]", ""]);
    expect(split.skipped).toEqual([
      { path: "items[2]", kind: "Pod" },
      { path: "items[3]", kind: "EndpointSlice", apiVersion: "discovery.k8s.io/v1beta1" },
    ]);
  });

  test("validateKubernetesList reports problems at the items' paths", () => {
    expect(validateKubernetesList(list).map((p) => `${p.code} ${p.path}: ${p.message}`)).toEqual([
      'TYPE items[5]: expected a Kubernetes object, got the string "nope"',
      "OTHER_KIND : skipped 2 objects of other kinds or versions: Pod (1), discovery.k8s.io/v1beta1 EndpointSlice (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints",
      "INVALID_VALUE items[1].spec.ports[0].port: 70000 is not a port number (1-65535)",
      "DUPLICATE items[4]: Service default/web is already items[1]",
      'SKIPPED items[0].ports[0]: port name "http" (TCP) matches no port of Service default/web: kube-proxy ignores it',
    ]);
  });

  test("documents: one is read at its root, several at documents[i], Lists inside item by item", () => {
    const one = splitKubernetesDocuments([{ kind: "EndpointSlice", ...slice() }]);
    expect(one.endpointSlicePaths).toEqual([""]);
    const stream = splitKubernetesDocuments([
      { kind: "Service", ...service() },
      { kind: "EndpointSliceList", items: [slice(), { kind: "Pod" }] },
      { kind: "List", items: [{ kind: "List", items: [{ kind: "Service", ...service() }] }] },
      { kind: "List" },
    ]);
    expect(stream.servicePaths).toEqual(["documents[0]", "documents[2].items[0].items[0]"]);
    expect(stream.endpointSlicePaths).toEqual(["documents[1].items[0]"]);
    expect(stream.problems.map((p) => `${p.code} ${p.path}`)).toEqual([
      "REQUIRED documents[3].items",
      "OTHER_KIND ",
    ]);
    expect(stream.skipped).toEqual([{ path: "documents[1].items[1]", kind: "Pod" }]);
    // The same objects through the text reader: YAML documents, then problems at the same paths.
    const read = readClusterText(
      ["kind: ServiceList\nitems: []", "kind: EndpointSlice\napiVersion: discovery.k8s.io/v1"].join(
        "\n---\n",
      ),
    );
    expect(read.shape).toBe("list");
    expect(read.origins.endpointSlices).toEqual(["documents[1]"]);
    expect(read.problems).toEqual([]);
  });

  test("typed lists and bad lists", () => {
    const typed = splitKubernetesList({ kind: "ServiceList", items: [service()] });
    expect(typed.servicePaths).toEqual(["items[0]"]);
    expect(typed.problems).toEqual([]);
    // A typed list of another kind is a list whose items are skipped.
    const pods = splitKubernetesList({ kind: "PodList", items: [{ metadata: {} }] });
    expect(pods.problems.map((p) => `${p.code} ${p.path}: ${p.message}`)).toEqual([
      "OTHER_KIND : skipped 1 object of another kind: Pod (1)",
    ]);
    expect(
      splitKubernetesList({ kind: "Pod", items: [] }).problems.map((p) => `${p.code} ${p.path}`),
    ).toEqual(["UNKNOWN_KIND kind"]);
    expect(splitKubernetesList({ kind: "List" }).problems.map((p) => `${p.code} ${p.path}`)).toEqual([
      "REQUIRED items",
    ]);
    expect(splitKubernetesList(null).problems.map((p) => p.code)).toEqual(["TYPE"]);
  });

  test("a List given as a cluster file says how to read it", () => {
    expect(problems(list)).toEqual([
      'error INVALID_VALUE : this is a Kubernetes "List", not a cluster file; read it with splitKubernetesList',
    ]);
  });

  test("remapListPaths leaves other paths alone", () => {
    const split = splitKubernetesList(list);
    const p = { code: "TYPE", path: "config.x", message: "m", severity: "error" } as const;
    expect(remapListPaths([p], split)).toEqual([p]);
  });

  test("prepareCluster names other objects in messages as the input does, not services[i]", () => {
    const split = splitKubernetesList(list);
    const origins = { services: split.servicePaths, endpointSlices: split.endpointSlicePaths };
    const { problems: found } = prepareCluster(
      { services: split.services, endpointSlices: split.endpointSlices },
      { origins },
    );
    expect(found.find((p) => p.code === "DUPLICATE")).toMatchObject({
      path: "items[4]",
      message: "Service default/web is already items[1]",
    });
  });

  test("relocateProblems: a lone object is the root; an object without an origin keeps its path", () => {
    const p = (path: string, message = "m") => ({ code: "TYPE", path, message, severity: "error" }) as const;
    const origins = { services: [""], endpointSlices: ["documents[2]"] };
    expect(
      relocateProblems(
        [p("services[0].spec.ports[0]"), p("endpointSlices[0]", "like services[0] and endpointSlices[1]")],
        origins,
      ).map((x) => `${x.path}: ${x.message}`),
    ).toEqual(["spec.ports[0]: m", "documents[2]: like services[0] and endpointSlices[1]"]);
  });
});

describe("the conformance vectors are accepted (they are API-server-accepted input)", () => {
  const vectors = (["kube-proxy", "kube-proxy-v1.22"] as const).flatMap((folder) =>
    kubeProxyVectors(folder).map((v) => ({ vector: v, label: `${folder}/${v.name}` })),
  );
  test("there are vectors to check", () => {
    expect(vectors.length).toBeGreaterThan(290);
  });
  test.each(vectors.map((v) => [v.label, v.vector] as const))("%s", (_, vector) => {
    const errors = validateClusterInput(vector).filter((p) => p.severity === "error");
    expect(errors).toEqual([]);
  });
});

// The API server defaults and normalizes fields before anyone reads them: kube-proxy never sees a
// slice port without a name, or a Service whose clusterIPs is empty while clusterIP is set. What
// the validator accepts as such input, the model must read as the API server would have stored
// it, and what it cannot store must be reported rather than silently make no rules.
describe("fields the API server defaults: the validator and the model agree", () => {
  const endpointsOf = (input: unknown) =>
    prepareCluster(input as never).model?.servicePorts.map((sp) => sp.endpoints.map((e) => e.endpoint));

  test.each([
    ["absent", { port: 8080, protocol: "TCP" }],
    ["null", { name: null, port: 8080, protocol: "TCP" }],
  ])('a slice port whose name is %s is the unnamed port (the API defaults it to "")', (_, port) => {
    const input = {
      services: [service({ ports: [{ port: 80 }] })],
      endpointSlices: [slice({ ports: [port] })],
    };
    expect(problems(input)).toEqual([]);
    expect(endpointsOf(input)).toEqual([["10.244.1.1:8080"]]);
  });

  test.each([
    ["[]", []],
    ["null", null],
  ])(
    "clusterIPs %s beside clusterIP and ipFamilies is [clusterIP] (the API fills it in)",
    (_, clusterIPs) => {
      const input = { services: [service({ clusterIPs, ipFamilies: ["IPv4"] })], endpointSlices: [slice()] };
      expect(problems(input)).toEqual([]);
      expect(endpointsOf(input)).toEqual([["10.244.1.1:8080"]]);
    },
  );

  test.each([
    ["absent", { clusterIPs: ["10.96.0.10"], ipFamilies: ["IPv4"] }],
    ["empty", { clusterIP: "", clusterIPs: ["10.96.0.10"], ipFamilies: ["IPv4"] }],
  ])("clusterIPs without clusterIP (%s) is refused, not silently headless", (_, spec) => {
    const { clusterIP: _omit, ...rest } = service().spec as Json;
    const input = { services: [{ ...service(), spec: { ...rest, ...spec } }] };
    expect(problems(input)).toEqual([
      "error INVALID_VALUE services[0].spec.clusterIPs: must be empty when clusterIP is not set",
    ]);
  });
});
