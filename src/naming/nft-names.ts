/**
 * kube-proxy's nftables object names (nftables mode, every release so far): a readable base
 * `ns/name/proto/portname` (plus `__ip/port` for an endpoint) behind the first 8 characters of
 * the RFC 4648 base32 encoding of its SHA-256 digest, e.g. `service-SUSTUHLJ-default/web/tcp/http`.
 *
 * @module
 */
import base32Encode from "base32-encode";
import { sha256 } from "js-sha256/build/sha256.min.mjs";

/**
 * The longest base (hash, dash and readable part) kube-proxy keeps: nftables names hold 256
 * bytes and the longest prefix (`external-`, `affinity-` …) is given 16 of them.
 *
 * @example
 * nftNameBase("x".repeat(300)).length // 240
 */
export const NFT_NAME_BASE_MAX = 240;

// The 5 digest bytes that make the 8 characters (5 × 8 bits = 8 × 5 bits, no padding).
const head = new Uint8Array(5);
const cache = new Map<string, string>();
const MAX_CACHED = 1 << 18;

/**
 * `HASH8-readable`, cut to {@link NFT_NAME_BASE_MAX} characters with `...` when longer (the
 * hash is taken over the whole readable text, so a cut name stays unique).
 *
 * @example
 * nftNameBase("default/web/tcp/http") // "SUSTUHLJ-default/web/tcp/http"
 */
export function nftNameBase(readable: string): string {
  let base = cache.get(readable);
  if (base !== undefined) return base;
  const digest = sha256.array(readable);
  for (let i = 0; i < 5; i++) head[i] = digest[i] as number;
  base = `${base32Encode(head, "RFC4648", { padding: false })}-${readable}`;
  if (base.length > NFT_NAME_BASE_MAX) base = `${base.slice(0, NFT_NAME_BASE_MAX - 3)}...`;
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(readable, base);
  return base;
}

/**
 * The per-service-port object names of one service port.
 *
 * @example
 * nftServicePortNames("default", "web", "tcp", "http").local // "local-SUSTUHLJ-default/web/tcp/http"
 */
export interface NftServicePortNames {
  /** `service-…`: the cluster-policy chain. */
  readonly service: string;
  /** `local-…`: the local-policy chain. */
  readonly local: string;
  /** `external-…`: the external-destinations chain. */
  readonly external: string;
  /** `firewall-…`: the loadBalancerSourceRanges chain. */
  readonly firewall: string;
}

/**
 * The readable part of a service port's names: `ns/name/proto/portname` (the port name may be
 * empty, giving a trailing slash).
 *
 * @example
 * nftServicePortReadable("default", "web", "tcp", "") // "default/web/tcp/"
 */
export function nftServicePortReadable(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
): string {
  return `${namespace}/${name}/${protocol}/${portName}`;
}

/**
 * The chain names of one service port.
 *
 * @example
 * nftServicePortNames("default", "web", "tcp", "http").service // "service-SUSTUHLJ-default/web/tcp/http"
 */
export function nftServicePortNames(
  namespace: string,
  name: string,
  protocol: string,
  portName: string,
): NftServicePortNames {
  const base = nftNameBase(nftServicePortReadable(namespace, name, protocol, portName));
  return {
    service: `service-${base}`,
    local: `local-${base}`,
    external: `external-${base}`,
    firewall: `firewall-${base}`,
  };
}

/**
 * The base of an endpoint's chain and affinity set: the service port's readable part, `__`, the
 * IP with its colons turned into dots (colons cannot appear in a chain name), `/`, the port.
 *
 * @example
 * nftEndpointBase("default/web/tcp/http", "10.244.1.1", 8080) // "6NNI7AUO-default/web/tcp/http__10.244.1.1/8080"
 */
export function nftEndpointBase(servicePortReadable: string, ip: string, port: number): string {
  return nftNameBase(`${servicePortReadable}__${ip.replaceAll(":", ".")}/${port}`);
}
