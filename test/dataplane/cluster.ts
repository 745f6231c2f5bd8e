// The lab's cluster, as Kubernetes objects: the same five services in either family, so that the
// IPv4 and IPv6 data-plane tests check the same behaviour.
import type { ClusterInput, IPFamily } from "../../src/index.js";
import { type AddressPlan, nodeAddresses } from "./topology.js";

type Protocol = "TCP" | "UDP";

function service(
  family: IPFamily,
  name: string,
  clusterIP: string,
  port: number,
  protocol: Protocol,
  extra: Record<string, unknown> = {},
) {
  const { nodePort, ...spec } = extra;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default" },
    spec: {
      type: nodePort === undefined ? "ClusterIP" : "NodePort",
      clusterIP,
      clusterIPs: [clusterIP],
      ipFamilies: [family],
      ports: [
        {
          name: "p",
          port,
          protocol,
          targetPort: protocol === "UDP" ? 5353 : 8080,
          ...(nodePort === undefined ? {} : { nodePort }),
        },
      ],
      ...spec,
    },
  };
}

function slice(
  family: IPFamily,
  name: string,
  protocol: Protocol,
  ips: readonly string[],
  nodeName = "node-a",
) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `${name}-abc`, namespace: "default", labels: { "kubernetes.io/service-name": name } },
    addressType: family,
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true }, nodeName })),
    ports: [{ name: "p", port: protocol === "UDP" ? 5353 : 8080, protocol }],
  };
}

/**
 * The lab's node ("node-a", primary address facing the outside client) and services: `web`
 * (NodePort 30080, three pods), `dns` (UDP), `empty` (no endpoints), `sticky` (ClientIP
 * affinity) and `local` (NodePort 30081, externalTrafficPolicy Local, its one pod on node-b).
 */
export function labCluster(plan: AddressPlan): ClusterInput {
  const f = plan.family;
  const { vips, pods } = plan;
  return {
    config: {
      ipFamily: f,
      hostname: "node-a",
      nodeIPs: [nodeAddresses(plan)[0]],
      detectLocal: { mode: "ClusterCIDR", cidrs: [plan.clusterCIDR] },
      masqueradeAll: false,
      masqueradeBit: 14,
      nodePortAddresses: [],
      localhostNodePorts: true,
    },
    services: [
      service(f, "web", vips.web, 80, "TCP", { nodePort: 30080, externalTrafficPolicy: "Cluster" }),
      service(f, "dns", vips.dns, 53, "UDP"),
      service(f, "empty", vips.empty, 80, "TCP"),
      service(f, "sticky", vips.sticky, 80, "TCP", {
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      }),
      service(f, "local", vips.local, 80, "TCP", { nodePort: 30081, externalTrafficPolicy: "Local" }),
    ],
    endpointSlices: [
      slice(f, "web", "TCP", pods),
      slice(f, "dns", "UDP", pods),
      slice(f, "sticky", "TCP", pods),
      slice(f, "local", "TCP", [pods[0] as string], "node-b"),
    ],
  } as unknown as ClusterInput;
}
