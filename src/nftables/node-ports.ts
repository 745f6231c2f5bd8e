/**
 * Which node addresses accept node-port traffic in nftables mode (spec/kube-proxy-nftables.md
 * §2.2, fixtures/kube-proxy-nft/README.md). Unlike iptables mode, no CIDR means the node's
 * primary address of the family, not every local address, and loopback never qualifies
 * (kube-proxy logs "localhost NodePorts are not supported" and skips it).
 *
 * @module
 */
import { type Cidr, cidrContains, parseCidr } from "../model/ip.js";
import type { IPFamily } from "../model/types.js";

/** `all`: every local address (a `/0` CIDR); else the addresses of the `nodeport-ips` set. */
export type NftNodePorts =
  | { readonly all: true }
  | { readonly all: false; readonly addresses: readonly string[] };

const isLoopback = (ip: string, family: IPFamily): boolean =>
  family === "IPv4" ? ip.startsWith("127.") : ip === "::1";

/**
 * Resolves `nodePortAddresses` for one family.
 *
 * @param nodeIPs the node's addresses of the family, primary first.
 * @example
 * nftNodePorts([], ["192.168.0.2"], "IPv4") // { all: false, addresses: ["192.168.0.2"] }
 */
export function nftNodePorts(
  entries: readonly string[],
  nodeIPs: readonly string[],
  family: IPFamily,
): NftNodePorts {
  const cidrs: Cidr[] = [];
  for (const entry of entries) {
    const cidr =
      entry === "primary"
        ? nodeIPs[0] === undefined
          ? null
          : parseCidr(`${nodeIPs[0]}/${family === "IPv4" ? 32 : 128}`)
        : parseCidr(entry);
    if (cidr !== null && cidr.family === family) cidrs.push(cidr);
  }
  if (cidrs.some((c) => c.prefix === 0)) return { all: true };
  // No CIDR of this family: kube-proxy's default in nftables mode is the primary node IP.
  const candidates = cidrs.length === 0 ? nodeIPs.slice(0, 1) : nodeIPs;
  const addresses = new Set<string>();
  for (const ip of candidates) {
    if (isLoopback(ip, family)) continue;
    if (cidrs.length === 0 || cidrs.some((c) => cidrContains(c, ip))) addresses.add(ip);
  }
  return { all: false, addresses: [...addresses].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}
