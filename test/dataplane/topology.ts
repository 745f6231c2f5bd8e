// The lab's wiring, the same for both families: a "node" namespace with a pod bridge, pods on it,
// a pod-network client and an outside client on their own veth links. Only the addresses differ
// (198.18.0.0/15 or fd00::/8), and IPv6 needs a few sysctls more.
import type { IPFamily } from "../../src/index.js";
import type { Lab } from "./netns.js";

/** Every address of one family's lab. */
export interface AddressPlan {
  /** The family. */
  readonly family: IPFamily;
  /** Prefix length of every link. */
  readonly prefixLength: number;
  /** The whole test range: client and pod namespaces route it (and only it) to the node. */
  readonly testRange: string;
  /** The cluster CIDR (detect-local): pods and the pod client, not the outside client. */
  readonly clusterCIDR: string;
  /** The node's address on the pod bridge. */
  readonly bridge: string;
  /** One address per pod, on the bridge's subnet. */
  readonly pods: readonly string[];
  /** The pod client's link: the node's and the client's address. */
  readonly podClient: { readonly node: string; readonly peer: string };
  /** The outside client's link: the node's (primary) and the client's address. */
  readonly client: { readonly node: string; readonly peer: string };
  /** Where cluster IPs are routed on the node (a dead-end veth pair). */
  readonly serviceRange: string;
  /** Cluster IPs of the lab's services. */
  readonly vips: {
    readonly web: string;
    readonly dns: string;
    readonly empty: string;
    readonly sticky: string;
    readonly local: string;
  };
  /** The servers' wildcard bind address. */
  readonly wildcard: string;
}

/** The two labs; the IPv6 one mirrors the IPv4 one (198.18.1.11 ↔ fd00:18:1::11). */
export const PLANS: Readonly<Record<IPFamily, AddressPlan>> = {
  IPv4: {
    family: "IPv4",
    prefixLength: 24,
    testRange: "198.18.0.0/15",
    clusterCIDR: "198.18.0.0/16",
    bridge: "198.18.1.1",
    pods: ["198.18.1.11", "198.18.1.12", "198.18.1.13"],
    podClient: { node: "198.18.2.1", peer: "198.18.2.2" },
    client: { node: "198.19.255.1", peer: "198.19.255.2" },
    serviceRange: "198.19.0.0/24",
    vips: {
      web: "198.19.0.10",
      dns: "198.19.0.11",
      empty: "198.19.0.12",
      sticky: "198.19.0.13",
      local: "198.19.0.14",
    },
    wildcard: "0.0.0.0",
  },
  IPv6: {
    family: "IPv6",
    prefixLength: 64,
    testRange: "fd00::/8",
    clusterCIDR: "fd00:18::/32",
    bridge: "fd00:18:1::1",
    pods: ["fd00:18:1::11", "fd00:18:1::12", "fd00:18:1::13"],
    podClient: { node: "fd00:18:2::1", peer: "fd00:18:2::2" },
    client: { node: "fd00:19:255::1", peer: "fd00:19:255::2" },
    serviceRange: "fd00:19::/112",
    vips: {
      web: "fd00:19::10",
      dns: "fd00:19::11",
      empty: "fd00:19::12",
      sticky: "fd00:19::13",
      local: "fd00:19::14",
    },
    wildcard: "::",
  },
};

/** The node's own addresses (what `addrtype LOCAL` and masquerade see), primary first. */
export function nodeAddresses(plan: AddressPlan): string[] {
  return [plan.client.node, plan.bridge, plan.podClient.node];
}

/** Namespace names of one lab. */
export interface LabNames {
  /** The node, where the rules are loaded. */
  readonly node: string;
  /** The outside client. */
  readonly client: string;
  /** The client on the pod network. */
  readonly podClient: string;
  /** The pods, in the order of `AddressPlan.pods`. */
  readonly pods: readonly string[];
}

/** Namespace names starting with `id` (which should carry the process id, so runs never collide). */
export function labNames(id: string): LabNames {
  return { node: `${id}n`, client: `${id}c`, podClient: `${id}q`, pods: [`${id}p1`, `${id}p2`, `${id}p3`] };
}

/** Creates the namespaces and links of `plan`; resolves once every address is usable. */
export async function buildTopology(lab: Lab, plan: AddressPlan, names: LabNames): Promise<void> {
  const v6 = plan.family === "IPv6";
  const addNamespace = (name: string): string => {
    lab.addNamespace(name);
    // No duplicate address detection: the lab has no duplicates, and a tentative address is unusable.
    if (v6) lab.sysctl(name, "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0");
    return name;
  };
  const addAddress = (ns: string, address: string, dev: string): void => {
    lab.ip(ns, "addr", "add", `${address}/${plan.prefixLength}`, "dev", dev, ...(v6 ? ["nodad"] : []));
  };
  const node = addNamespace(names.node);
  // Multicast snooping off: neighbour discovery must reach the bridge's own address however MLD went.
  lab.ip(node, "link", "add", "kbr0", "type", "bridge", "mcast_snooping", "0");
  addAddress(node, plan.bridge, "kbr0");
  lab.ip(node, "link", "set", "kbr0", "up");
  names.pods.forEach((pod, i) => {
    addNamespace(pod);
    lab.ip(node, "link", "add", `vp${i}`, "type", "veth", "peer", "name", "eth0", "netns", pod);
    lab.ip(node, "link", "set", `vp${i}`, "master", "kbr0", "up");
    addAddress(pod, plan.pods[i] as string, "eth0");
    lab.ip(pod, "link", "set", "eth0", "up");
    lab.ip(pod, "route", "add", plan.testRange, "via", plan.bridge);
  });
  for (const [ns, dev, link] of [
    [names.podClient, "vq", plan.podClient],
    [names.client, "vc", plan.client],
  ] as const) {
    addNamespace(ns);
    lab.ip(node, "link", "add", dev, "type", "veth", "peer", "name", "eth0", "netns", ns);
    addAddress(node, link.node, dev);
    lab.ip(node, "link", "set", dev, "up");
    addAddress(ns, link.peer, "eth0");
    lab.ip(ns, "link", "set", "eth0", "up");
    lab.ip(ns, "route", "add", plan.testRange, "via", link.node);
  }
  // Cluster IPs need a route for the FORWARD path (no route = "network unreachable" before any
  // filter rule); a veth pair with both ends in the node namespace takes that route, so even
  // a packet that got through would stay here (it would only ever see unanswered ARP or ND).
  lab.ip(node, "link", "add", "svc0", "type", "veth", "peer", "name", "svc1");
  lab.ip(node, "link", "set", "svc0", "up");
  lab.ip(node, "link", "set", "svc1", "up");
  lab.ip(node, "route", "add", plan.serviceRange, "dev", "svc0");
  // REJECT answers with ICMP, which the kernel rate-limits by default.
  if (v6) lab.sysctl(node, "net.ipv6.conf.all.forwarding=1", "net.ipv6.icmp.ratelimit=0");
  else lab.sysctl(node, "net.ipv4.ip_forward=1", "net.ipv4.icmp_ratelimit=0");
  if (v6)
    for (const ns of [node, ...names.pods, names.podClient, names.client]) await lab.waitForIPv6Addresses(ns);
}
