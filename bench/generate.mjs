// Seeded generators for benchmark shapes that have no committed fixture. Same seed, same
// cluster: the numbers stay comparable between runs and machines.

/** Shapes the bench can generate, by model name. */
export const GENERATED = {
  // IPv6 costs more per address (canonical text, brackets in SEP names).
  "gen-ipv6-10000": { seed: 6, services: 10000, ports: 1, endpoints: 10, family: "IPv6" },
  // Many ports per service: one slice feeds several service ports.
  "gen-multiport-2000x5": { seed: 5, services: 2000, ports: 5, endpoints: 10, family: "IPv4" },
  // Few huge services: 100,000 endpoints catch anything quadratic in a service's endpoints.
  "gen-clusterip-100x1000": { seed: 1000, services: 100, ports: 1, endpoints: 1000, family: "IPv4" },
};

// mulberry32: tiny, fast, good enough to shuffle.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function address(family, base, n) {
  if (family === "IPv6") {
    // Two groups: one group holds only 16 bits (100,000 pods need 17).
    const high = n >>> 16;
    const low = (n & 0xffff).toString(16);
    return `fd00:${base.toString(16)}::${high === 0 ? low : `${high.toString(16)}:${low}`}`;
  }
  return `${base}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Builds a cluster input (config, services, endpointSlices) of one shape. */
export function generateCluster(shape) {
  const rand = random(shape.seed);
  const v6 = shape.family === "IPv6";
  const services = [];
  const endpointSlices = [];
  let podIndex = 1;
  for (let s = 0; s < shape.services; s++) {
    const name = `svc-${s}`;
    const namespace = `ns-${s % 97}`;
    const clusterIP = address(shape.family, v6 ? 0x96 : 172, s + 1);
    const ports = [];
    const slicePorts = [];
    for (let p = 0; p < shape.ports; p++) {
      ports.push({ name: `p${p}`, port: 80 + p, protocol: "TCP", targetPort: 8080 + p });
      slicePorts.push({ name: `p${p}`, port: 8080 + p, protocol: "TCP" });
    }
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace },
      spec: { type: "ClusterIP", clusterIP, clusterIPs: [clusterIP], ipFamilies: [shape.family], ports },
    });
    const endpoints = [];
    for (let e = 0; e < shape.endpoints; e++) {
      endpoints.push({
        addresses: [address(shape.family, v6 ? 0x244 : 10, podIndex++)],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: `node-${Math.floor(rand() * 200)}`,
      });
    }
    // Shuffled: the library must sort, as kube-proxy does.
    for (let i = endpoints.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [endpoints[i], endpoints[j]] = [endpoints[j], endpoints[i]];
    }
    endpointSlices.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: `${name}-gen`, namespace, labels: { "kubernetes.io/service-name": name } },
      addressType: shape.family,
      endpoints,
      ports: slicePorts,
    });
  }
  const config = {
    ipFamily: shape.family,
    hostname: "node-a",
    nodeIPs: [v6 ? "fd00:1::2" : "192.168.0.2"],
    detectLocal: { mode: "ClusterCIDR", cidrs: [v6 ? "fd00:244::/64" : "10.0.0.0/8"] },
  };
  return { name: `generated ${JSON.stringify(shape)}`, config, services, endpointSlices };
}
