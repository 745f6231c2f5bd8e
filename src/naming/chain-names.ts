/**
 * kube-proxy's chain names: `KUBE-SVC-`, `KUBE-SVL-`, `KUBE-EXT-`, `KUBE-FW-` and `KUBE-SEP-`
 * followed by the first 16 characters of the RFC 4648 base32 encoding of a SHA-256 digest.
 *
 * Hashing is the one expensive step of generation (a 10,000-service cluster has 110,000 names),
 * so every digest is computed once per process and only the 10 bytes that make the 16
 * characters are encoded.
 *
 * @module
 */
import base32Encode from "base32-encode";
import { sha256 } from "js-sha256";

const hashCache = new Map<string, string>();

/**
 * The 16-character hash kube-proxy puts in a chain name.
 *
 * @example
 * chainHash("ns1/svc1:p80tcp") // "XPGD46QRK7WJZT7O"
 */
export function chainHash(input: string): string {
  let hash = hashCache.get(input);
  if (hash === undefined) {
    // 16 base32 characters carry 80 bits: the first 10 bytes of the digest.
    const digest = new Uint8Array(sha256.arrayBuffer(input), 0, 10);
    hash = base32Encode(digest, "RFC4648", { padding: false });
    hashCache.set(input, hash);
  }
  return hash;
}

/** The chain names of one service port, which share one hash. */
export interface ServicePortChains {
  /** `KUBE-SVC-…`: the cluster-policy load-balancing chain. */
  readonly svc: string;
  /** `KUBE-SVL-…`: the local-policy load-balancing chain. */
  readonly svl: string;
  /** `KUBE-EXT-…`: the external-traffic chain. */
  readonly ext: string;
  /** `KUBE-FW-…`: the load-balancer source-range chain. */
  readonly fw: string;
}

/**
 * The SVC/SVL/EXT/FW chain names of a service port.
 *
 * @param servicePortName `ns/name:port`, or `ns/name` for an unnamed port.
 * @param protocol lower-case protocol (`tcp`, `udp`, `sctp`).
 * @example
 * servicePortChains("default/kubernetes:https", "tcp").svc // "KUBE-SVC-NPX46M4PTMTKRN6Y"
 */
export function servicePortChains(servicePortName: string, protocol: string): ServicePortChains {
  const hash = chainHash(servicePortName + protocol);
  return {
    svc: `KUBE-SVC-${hash}`,
    svl: `KUBE-SVL-${hash}`,
    ext: `KUBE-EXT-${hash}`,
    fw: `KUBE-FW-${hash}`,
  };
}

/**
 * The `KUBE-SEP-…` chain of one endpoint of a service port.
 *
 * @param endpoint `ip:port`, or `[ip]:port` for IPv6.
 * @example
 * endpointChain("default/my-nginx-svc", "tcp", "10.244.3.38:80") // "KUBE-SEP-DSBJGVCOU4RGUKVK"
 */
export function endpointChain(servicePortName: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${chainHash(servicePortName + protocol + endpoint)}`;
}

/**
 * The name kube-proxy gives a service port in comments: `ns/name:port`, or `ns/name`.
 *
 * @example
 * servicePortName("kube-system", "kube-dns", "dns") // "kube-system/kube-dns:dns"
 */
export function servicePortName(namespace: string, name: string, portName: string): string {
  return portName === "" ? `${namespace}/${name}` : `${namespace}/${name}:${portName}`;
}
