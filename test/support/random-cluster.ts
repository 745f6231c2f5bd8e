// Seeded random clusters for property and kernel tests: valid API objects (what the API server
// would accept) in the shape of the conformance vectors (test/fixtures/kube-proxy/random-*.json).
//
// One builder, two drivers: `randomCluster(seed)` runs it on a tiny seeded PRNG (plain tests,
// reproducible from the printed seed), `clusterArbitrary()` runs it on fast-check's `fc.gen()`, so
// a failing property shrinks (fewer services, fewer endpoints, features off). Every draw is
// written so that its smallest value is the simplest choice, which is what shrinking aims at.
//
// Addresses: cluster things come from 10.0.0.0/8 (pods 10.244/16, services 10.96/16),
// 198.18.0.0/15 (nodes, load balancers, external IPs, source ranges) and fd00::/8, so nothing
// here names a routable address; these models are only ever loaded into private namespaces.
import fc from "fast-check";
import type {
  ClusterInput,
  EndpointSlice,
  EndpointSliceEndpoint,
  LoadBalancerIngress,
  ProxyConfigInput,
  Service,
  ServicePortSpec,
} from "./stored-types.js";

/** A source of integers; everything else is derived from it. */
export interface Rng {
  /** A uniform integer in `[min, max]` (both inclusive); shrinks towards `min`. */
  int(min: number, max: number): number;
}

/** Which features a random cluster may use. */
export interface RandomClusterOptions {
  /** Only ClusterIP services, IPv4, ClusterCIDR detection, default node settings. Default false. */
  readonly clusterIPOnly?: boolean;
  /** The proxier's family. Default: IPv4 for `clusterIPOnly`, else IPv6 one time in three. */
  readonly family?: "IPv4" | "IPv6";
  /** Fewest services (default 1). */
  readonly minServices?: number;
  /** Most services (default 20). */
  readonly maxServices?: number;
  /** Chance that one service gets 1001–1100 endpoints (large-cluster mode). Default 0.03, 0 for `clusterIPOnly`. */
  readonly largeRate?: number;
}

/** A generated cluster file (`ClusterInput` with every part present). */
export interface RandomCluster extends ClusterInput {
  readonly config: ProxyConfigInput;
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
}

type Family = "IPv4" | "IPv6";
type Protocol = "TCP" | "UDP" | "SCTP";

const HOSTNAME = "node-a";
const NODES = ["node-b", "node-c", HOSTNAME, "node-d"] as const;
const ZONES = ["zone-a", "zone-b", "zone-c"] as const;
const NAMESPACES = ["default", "prod", "kube-system", "monitoring"] as const;
const WORDS = ["web", "api", "db", "cache", "logs", "auth", "cdn", "feed", "billing", "search"] as const;
const PORT_NAMES = ["http", "https", "grpc", "metrics", "dns", "admin", "api", "tcp-8080"] as const;
const COMMON_PORTS = [80, 443, 53, 8080, 9090, 3000, 5432, 6379] as const;
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

// ---- helpers over Rng ---------------------------------------------------------------------

/** True with probability `p`; shrinks to false. */
function chance(rng: Rng, p: number): boolean {
  return rng.int(0, 999) >= Math.round(1000 * (1 - p));
}

/** One of `items`; shrinks to the first, so list the simplest first. */
function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[rng.int(0, items.length - 1)] as T;
}

function hex(n: number): string {
  return n.toString(16);
}

/** Hands out unique addresses and ports, so the cluster never repeats what must be unique. */
class Allocator {
  private serviceIP = 10;
  private podIP = 0;
  private externalIP = 0;
  private nodePort = NODE_PORT_MIN;
  constructor(private readonly rng: Rng) {}

  /** A service cluster IP (10.96.0.0/16, fd00:10:96::/112). */
  clusterIP(family: Family): string {
    const n = this.serviceIP++;
    return family === "IPv4" ? `10.96.${n >> 8}.${n & 255}` : `fd00:10:96::${hex(n)}`;
  }

  /** A pod IP (10.244.0.0/16, fd00:10:244::/56); gaps vary the text order of neighbours. */
  podIP4or6(family: Family): string {
    this.podIP += 1 + this.rng.int(0, 3);
    const n = this.podIP;
    return family === "IPv4" ? `10.244.${(n / 250) | 0}.${(n % 250) + 1}` : `fd00:10:244::${hex(n)}`;
  }

  /** An external or load-balancer address (198.18.128.0/17, fd00:ff::/64). */
  outsideIP(family: Family): string {
    const n = ++this.externalIP;
    return family === "IPv4" ? `198.18.${128 + (n >> 8)}.${n & 255}` : `fd00:ff::${hex(n)}`;
  }

  /** A node port not used before (30000–32767). */
  nextNodePort(): number {
    this.nodePort += 1 + this.rng.int(0, 20);
    if (this.nodePort > NODE_PORT_MAX) throw new Error("random cluster ran out of node ports");
    return this.nodePort;
  }
}

// ---- config --------------------------------------------------------------------------------

function buildConfig(rng: Rng, family: Family, simple: boolean): ProxyConfigInput {
  const primary4 = `198.18.0.${rng.int(2, 254)}`;
  const primary6 = `fd00:10::${hex(rng.int(2, 0xfff))}`;
  if (simple) {
    return {
      ipFamily: "IPv4",
      hostname: HOSTNAME,
      nodeIPs: [primary4],
      nodeLabels: {},
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
      masqueradeAll: false,
      masqueradeBit: 14,
      nodePortAddresses: [],
      localhostNodePorts: true,
    };
  }
  // Primary of the proxier's family first; sometimes the other family and a second address.
  const nodeIPs = family === "IPv4" ? [primary4] : [primary6];
  if (chance(rng, 0.4)) nodeIPs.push(family === "IPv4" ? primary6 : primary4);
  if (chance(rng, 0.25)) nodeIPs.push(family === "IPv4" ? "198.19.5.2" : "fd00:20::2");

  const detectLocal = pick(rng, [
    () => ({ mode: "ClusterCIDR" as const, cidrs: cidrPair(rng, "10.244.0.0/16", "fd00:10:244::/56") }),
    () => ({ mode: "NodeCIDR" as const, cidrs: cidrPair(rng, "10.244.0.0/24", "fd00:10:244::/64") }),
    () => ({ mode: "BridgeInterface" as const, interface: "cbr0" }),
    () => ({ mode: "InterfaceNamePrefix" as const, prefix: "veth" }),
    () => ({ mode: "None" as const }),
  ])();

  const nodePortAddresses = pick(rng, [
    () => [] as string[],
    () => ["primary"],
    () => {
      // A non-empty subset; it may match node addresses of either family, loopback, or nothing.
      const pool = [
        "198.18.0.0/16",
        "127.0.0.0/8",
        "fd00:10::/64",
        "::1/128",
        "198.19.0.0/16",
        "127.0.0.1/32",
        "10.0.0.0/8",
      ];
      const chosen = pool.filter(() => chance(rng, 0.35));
      return chosen.length > 0 ? chosen : [pick(rng, pool)];
    },
  ])();

  return {
    ipFamily: family,
    hostname: HOSTNAME,
    nodeIPs,
    nodeLabels: chance(rng, 0.5) ? { "topology.kubernetes.io/zone": pick(rng, ZONES) } : {},
    detectLocal,
    masqueradeAll: chance(rng, 0.1),
    masqueradeBit: chance(rng, 0.6) ? 14 : rng.int(0, 31),
    nodePortAddresses,
    localhostNodePorts: !chance(rng, 0.2),
    ...(chance(rng, 0.3) ? { hasRandomFully: chance(rng, 0.5) } : {}),
    ...(chance(rng, 0.3) ? { conntrackTCPBeLiberal: chance(rng, 0.5) } : {}),
  };
}

/** Both CIDRs, one of them, or none (then detection is off for a family without one). */
function cidrPair(rng: Rng, v4: string, v6: string): string[] {
  return pick(rng, [[v4, v6], [v4], [v6], []]);
}

// ---- services --------------------------------------------------------------------------------

interface Plan {
  /** Families with a cluster IP, primary first (empty for headless/ExternalName). */
  readonly families: readonly Family[];
  readonly ports: readonly { readonly spec: ServicePortSpec; readonly endpointPort: number }[];
}

function buildPorts(rng: Rng, simple: boolean, alloc: Allocator, nodePorts: boolean): Plan["ports"] {
  const count = rng.int(1, simple ? 3 : 4);
  const protocols: readonly Protocol[] = simple ? ["TCP", "UDP"] : ["TCP", "UDP", "SCTP"];
  const usedPairs = new Set<string>();
  const usedNames = new Set<string>();
  const ports: { spec: ServicePortSpec; endpointPort: number }[] = [];
  while (ports.length < count) {
    const protocol = pick(rng, protocols);
    const port = chance(rng, 0.7) ? pick(rng, COMMON_PORTS) : rng.int(1, 65535);
    // The API server rejects two ports with the same port and protocol, and repeated names.
    if (usedPairs.has(`${port}/${protocol}`)) continue;
    let name: string = pick(rng, PORT_NAMES);
    for (let k = 2; usedNames.has(name); k++) name = `${pick(rng, PORT_NAMES)}-${k}`;
    usedPairs.add(`${port}/${protocol}`);
    usedNames.add(name);
    const endpointPort = chance(rng, 0.5) ? port : rng.int(1, 65535);
    // A single port may be unnamed; a named target port resolves to the slice's number.
    const named = count > 1 || !chance(rng, 0.3);
    const targetPort: number | string = !simple && named && chance(rng, 0.1) ? "web" : endpointPort;
    ports.push({
      spec: {
        ...(named ? { name } : {}),
        port,
        protocol,
        targetPort,
        ...(nodePorts ? { nodePort: alloc.nextNodePort() } : {}),
      },
      endpointPort,
    });
  }
  return ports;
}

function chooseFamilies(rng: Rng, proxier: Family, simple: boolean): { families: Family[]; policy: string } {
  if (simple) return { families: ["IPv4"], policy: "SingleStack" };
  const other: Family = proxier === "IPv4" ? "IPv6" : "IPv4";
  return pick(rng, [
    () => ({ families: [proxier], policy: "SingleStack" }),
    () => ({ families: [other], policy: "SingleStack" }),
    () => ({ families: [proxier, other], policy: "RequireDualStack" }),
    () => ({ families: [other, proxier], policy: "PreferDualStack" }),
  ])();
}

function lbIngress(
  rng: Rng,
  alloc: Allocator,
  families: readonly Family[],
  n: number,
): LoadBalancerIngress[] {
  const out: LoadBalancerIngress[] = [];
  for (let i = 0; i < n; i++) {
    const family = pick(rng, families);
    out.push(
      pick(rng, [
        (): LoadBalancerIngress => ({ ip: alloc.outsideIP(family), ipMode: "VIP" }),
        (): LoadBalancerIngress => ({ ip: alloc.outsideIP(family) }),
        (): LoadBalancerIngress => ({ ip: alloc.outsideIP(family), ipMode: "Proxy" }),
        (): LoadBalancerIngress => ({ hostname: `lb-${i}.example.com` }),
      ])(),
    );
  }
  return out;
}

function sourceRanges(rng: Rng): string[] {
  const pool = [
    "198.19.1.0/24",
    "198.19.2.0/28",
    "10.0.0.0/8",
    "fd00:ab::/64",
    "198.18.64.0/18",
    "fd00:cd::/48",
  ];
  const chosen = pool.filter(() => chance(rng, 0.3));
  return chosen.length > 0 ? chosen : [pick(rng, pool)];
}

interface BuiltService {
  readonly service: Service;
  readonly plan: Plan;
  /** Zone hints on this service's endpoints: none, all, or some (kube-proxy then ignores them). */
  readonly hints: "none" | "all" | "partial";
  readonly large: boolean;
}

function buildService(
  rng: Rng,
  index: number,
  proxier: Family,
  simple: boolean,
  alloc: Allocator,
  large: boolean,
): BuiltService {
  const name = `${pick(rng, WORDS)}-${index}`;
  const namespace = pick(rng, NAMESPACES);
  const metadata = { name, namespace };
  const base = { apiVersion: "v1", kind: "Service", metadata };

  const kind =
    simple || large
      ? "ClusterIP"
      : pick(rng, ["ClusterIP", "NodePort", "LoadBalancer", "Headless", "ExternalName"] as const);
  // Draw the kind's weight again so ClusterIP stays the most common, as in real clusters.
  const type = kind !== "ClusterIP" && kind !== "ExternalName" && chance(rng, 0.25) ? "ClusterIP" : kind;

  if (type === "ExternalName") {
    const service: Service = {
      ...base,
      spec: { type: "ExternalName", externalName: `${name}.example.com`, sessionAffinity: "None" },
      status: { loadBalancer: {} },
    };
    return { service, plan: { families: [], ports: [] }, hints: "none", large: false };
  }

  const { families, policy } = large
    ? { families: [proxier], policy: "SingleStack" }
    : chooseFamilies(rng, proxier, simple);
  const external = type === "NodePort" || type === "LoadBalancer";
  const allocateNodePorts = type === "NodePort" || (type === "LoadBalancer" && !chance(rng, 0.1));
  const ports = large
    ? [{ spec: { name: "http", port: 80, protocol: "TCP" as const, targetPort: 8080 }, endpointPort: 8080 }]
    : buildPorts(rng, simple, alloc, allocateNodePorts);

  if (type === "Headless") {
    const service: Service = {
      ...base,
      spec: {
        clusterIP: "None",
        clusterIPs: ["None"],
        ipFamilies: families,
        ipFamilyPolicy: policy,
        internalTrafficPolicy: "Cluster",
        ports: ports.map((p) => ({ ...p.spec })),
        selector: { app: name },
        sessionAffinity: "None",
        type: "ClusterIP",
      },
      status: { loadBalancer: {} },
    };
    return { service, plan: { families, ports }, hints: "none", large: false };
  }

  const clusterIPs = families.map((f) => alloc.clusterIP(f));
  const externalIPs =
    !simple && !large && chance(rng, 0.15)
      ? Array.from({ length: rng.int(1, 2) }, () => alloc.outsideIP(pick(rng, families)))
      : [];
  // externalTrafficPolicy may only be set on externally reachable services (API validation).
  const etpAllowed = external || externalIPs.length > 0;
  const etpLocal = !simple && etpAllowed && chance(rng, 0.3);
  const affinity = !simple && !large && chance(rng, 0.2);
  const timeout = pick(rng, [10800, 60, 1, 86400, rng.int(1, 86400)]);
  const ingress = type === "LoadBalancer" ? lbIngress(rng, alloc, families, rng.int(0, 3)) : [];

  const spec: Service["spec"] = {
    clusterIP: clusterIPs[0] as string,
    clusterIPs,
    ipFamilies: families,
    ipFamilyPolicy: policy,
    internalTrafficPolicy: !simple && chance(rng, 0.15) ? "Local" : "Cluster",
    ports: ports.map((p) => p.spec),
    selector: { app: name },
    sessionAffinity: affinity ? "ClientIP" : "None",
    ...(affinity ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: timeout } } } : {}),
    type,
    ...(etpAllowed ? { externalTrafficPolicy: etpLocal ? "Local" : "Cluster" } : {}),
    // The API server allocates a health check port for exactly LoadBalancer + Local.
    ...(type === "LoadBalancer" && etpLocal ? { healthCheckNodePort: alloc.nextNodePort() } : {}),
    ...(type === "LoadBalancer" ? { allocateLoadBalancerNodePorts: allocateNodePorts } : {}),
    ...(externalIPs.length > 0 ? { externalIPs } : {}),
    ...(type === "LoadBalancer" && chance(rng, 0.3) ? { loadBalancerSourceRanges: sourceRanges(rng) } : {}),
    ...(!simple && chance(rng, 0.05) ? { trafficDistribution: "PreferClose" } : {}),
  };
  const service: Service = {
    ...base,
    spec,
    status: { loadBalancer: ingress.length > 0 ? { ingress } : {} },
  };
  const hints = simple || large ? "none" : pick(rng, ["none", "none", "none", "all", "partial"] as const);
  return { service, plan: { families, ports }, hints, large };
}

// ---- endpoint slices -------------------------------------------------------------------------

function endpointConditions(rng: Rng, simple: boolean): EndpointSliceEndpoint["conditions"] | undefined {
  const roll = rng.int(0, 99);
  if (roll < 75) return { ready: true, serving: true, terminating: false };
  if (roll < 85) return { ready: false, serving: false, terminating: false };
  if (simple) return { ready: true, serving: true, terminating: false };
  if (roll < 92) return { ready: false, serving: true, terminating: true };
  if (roll < 98) return { ready: false, serving: false, terminating: true };
  // Absent conditions are valid API input; consumers read them as ready.
  return undefined;
}

function buildEndpoint(
  rng: Rng,
  family: Family,
  alloc: Allocator,
  simple: boolean,
  hints: BuiltService["hints"],
): EndpointSliceEndpoint {
  const address = alloc.podIP4or6(family);
  const addresses = !simple && chance(rng, 0.03) ? [address, alloc.podIP4or6(family)] : [address];
  const conditions = endpointConditions(rng, simple);
  const nodeName = simple || !chance(rng, 0.08) ? pick(rng, NODES) : undefined;
  const zone = !simple && chance(rng, 0.5) ? pick(rng, ZONES) : undefined;
  const hinted = hints === "all" || (hints === "partial" && chance(rng, 0.6));
  return {
    addresses,
    ...(conditions ? { conditions } : {}),
    ...(hinted ? { hints: { forZones: [{ name: zone ?? pick(rng, ZONES) }] } } : {}),
    ...(nodeName !== undefined ? { nodeName } : {}),
    ...(zone !== undefined ? { zone } : {}),
  };
}

function buildSlices(rng: Rng, built: BuiltService, alloc: Allocator, simple: boolean): EndpointSlice[] {
  const { service, plan } = built;
  const name = service.metadata.name as string;
  const namespace = service.metadata.namespace as string;
  const slices: EndpointSlice[] = [];
  // Slice ports echo the service ports by name; rarely a name does not match (valid, and ignored).
  const ports = plan.ports.map((p, i) => ({
    name: !simple && chance(rng, 0.03) ? `other-${i}` : (p.spec.name ?? ""),
    port: p.endpointPort,
    protocol: p.spec.protocol ?? "TCP",
  }));
  let sliceNo = 0;
  const slice = (family: Family, endpoints: EndpointSliceEndpoint[]): EndpointSlice => ({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${name}-${family === "IPv4" ? "v4" : "v6"}${String.fromCharCode(97 + sliceNo++)}`,
      namespace,
      labels: {
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
        "kubernetes.io/service-name": name,
      },
    },
    addressType: family,
    endpoints,
    ports,
  });

  for (const family of plan.families) {
    const count = built.large ? rng.int(1001, 1100) : rng.int(0, simple ? 6 : 8);
    const endpoints = Array.from({ length: count }, () =>
      buildEndpoint(rng, family, alloc, simple, built.hints),
    );
    // An API slice holds at most 1000 endpoints; otherwise split into 1–3 slices at random.
    const parts = built.large ? 2 : count === 0 ? 1 : rng.int(1, Math.min(3, count));
    const size = Math.ceil(count / parts) || 0;
    for (let k = 0; k < parts; k++) slices.push(slice(family, endpoints.slice(k * size, (k + 1) * size)));
    if (!simple && count > 0 && chance(rng, 0.1)) {
      // The same address in another slice, maybe now on this node: kube-proxy deduplicates.
      const copy = pick(rng, endpoints);
      slices.push(slice(family, [{ ...copy, nodeName: pick(rng, NODES) }]));
    }
    if (!simple && count > 0 && chance(rng, 0.05)) {
      // A whole slice repeated under another name (e.g. mid-migration between controllers).
      slices.push(slice(family, endpoints.slice(0, size)));
    }
  }
  return slices;
}

// ---- the cluster -----------------------------------------------------------------------------

/**
 * Builds a random cluster from any integer source. Deterministic in the draws.
 * @throws Error only if the options are contradictory (e.g. min > max services).
 */
export function buildCluster(rng: Rng, options: RandomClusterOptions = {}): RandomCluster {
  const simple = options.clusterIPOnly === true;
  const min = options.minServices ?? 1;
  const max = options.maxServices ?? 20;
  if (min > max || min < 0) throw new Error(`bad service range ${min}..${max}`);
  const family: Family = options.family ?? (simple ? "IPv4" : chance(rng, 1 / 3) ? "IPv6" : "IPv4");
  const largeRate = options.largeRate ?? (simple ? 0 : 0.03);
  const alloc = new Allocator(rng);

  const config = buildConfig(rng, family, simple);
  const count = rng.int(min, max);
  const largeAt = count > 0 && chance(rng, largeRate) ? rng.int(0, count - 1) : -1;
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  for (let i = 0; i < count; i++) {
    const built = buildService(rng, i, family, simple, alloc, i === largeAt);
    services.push(built.service);
    endpointSlices.push(...buildSlices(rng, built, alloc, simple));
  }
  return { config, services, endpointSlices };
}

/** A small, fast, seeded PRNG (mulberry32): plenty for test data, identical on every platform. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/**
 * The random cluster for `seed`: same seed and options, same cluster, on every run.
 * @example randomCluster(42, { clusterIPOnly: true }).services.every((s) => s.spec.type === "ClusterIP") // true
 */
export function randomCluster(seed: number, options: RandomClusterOptions = {}): RandomCluster {
  return buildCluster(seededRng(seed), options);
}

/**
 * A fast-check arbitrary of random clusters that shrinks: every draw goes through `fc.gen()`,
 * so counts shrink towards their minimum and features towards off.
 */
export function clusterArbitrary(options: RandomClusterOptions = {}): fc.Arbitrary<RandomCluster> {
  return fc.gen().map((g) => buildCluster({ int: (min, max) => g(fc.integer, { min, max }) }, options));
}

/** An arbitrary of seeds with their clusters: cheap to report (`seed`), for seed-driven suites. */
export function seededClusterArbitrary(
  options: RandomClusterOptions = {},
): fc.Arbitrary<{ seed: number; cluster: RandomCluster }> {
  return fc.noBias(fc.nat()).map((seed) => ({ seed, cluster: randomCluster(seed, options) }));
}
