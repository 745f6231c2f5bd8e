// The clusters the bench's lower bounds are held to the library on (bench-*.test.ts): small
// ClusterIP-only clusters written here, and the bench's own 1,000-service model.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { ClusterInput } from "../../src/index.js";

type Shape = { ns: string; name: string; ports: (string | null)[]; endpoints: number };

/** A ClusterIP-only cluster: each service's ports, its endpoints given out of order on purpose. */
export function cluster(shapes: Shape[]): ClusterInput {
  let svcIP = 1;
  let podIP = 1;
  const services = [];
  const endpointSlices = [];
  for (const s of shapes) {
    const clusterIP = `10.96.0.${svcIP++}`;
    const ports = s.ports.map((name, i) => ({
      ...(name === null ? {} : { name }),
      port: 80 + i,
      protocol: "TCP",
      targetPort: 8080 + i,
    }));
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: s.name, namespace: s.ns },
      spec: { type: "ClusterIP", clusterIP, clusterIPs: [clusterIP], ports },
    });
    const endpoints = [];
    for (let e = 0; e < s.endpoints; e++) {
      const n = podIP++;
      endpoints.push({
        addresses: [`10.244.${n >> 8}.${n & 255}`],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: e % 2 === 0 ? "node-a" : "node-b",
      });
    }
    endpoints.reverse();
    endpointSlices.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: `${s.name}-x`, namespace: s.ns, labels: { "kubernetes.io/service-name": s.name } },
      addressType: "IPv4",
      endpoints,
      ports: ports.map((p) => ({
        ...(p.name === undefined ? {} : { name: p.name }),
        port: p.targetPort,
        protocol: "TCP",
      })),
    });
  }
  return {
    config: {
      hostname: "node-a",
      nodeIPs: ["198.18.0.2"],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
      masqueradeBit: 9,
    },
    services,
    endpointSlices,
  } as ClusterInput;
}

export const SMALL: ClusterInput = cluster([
  { ns: "prod", name: "web", ports: ["http", "https"], endpoints: 3 },
  { ns: "default", name: "one", ports: [null], endpoints: 1 },
  // "api-v2" sorts before "api/…"'s neighbours byte-wise ('-' < '/'), and 12 endpoints put
  // "10.244.0.10" before "10.244.0.2".
  { ns: "default", name: "api-v2", ports: ["grpc"], endpoints: 12 },
  { ns: "default", name: "api", ports: ["grpc", "metrics"], endpoints: 7 },
  { ns: "kube-system", name: "dns", ports: ["dns-tcp"], endpoints: 2 },
  // Over 1,000 endpoints in all: kube-proxy's large-cluster mode, the only one the writer knows.
  { ns: "default", name: "big", ports: ["http"], endpoints: 1000 },
]);

export function bench1000(): ClusterInput {
  const raw = gunzipSync(readFileSync("test/fixtures/bench/bench-clusterip-1000.json.gz"));
  return JSON.parse(raw.toString("utf8")) as ClusterInput;
}
