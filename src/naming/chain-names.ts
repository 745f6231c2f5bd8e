/**
 * kube-proxy's chain names: `KUBE-SVC-`, `KUBE-SVL-`, `KUBE-EXT-`, `KUBE-FW-` and `KUBE-SEP-`
 * followed by the first 16 characters of the RFC 4648 base32 encoding of a SHA-256 digest.
 *
 * Hashing is the one expensive step of naming (a 10,000-service cluster has 110,000 names).
 * How js-sha256 is called decides its cost: its Node entry wraps node:crypto and copies every
 * digest through a Buffer, an Array and a Uint8Array (≈ 11 µs a name with base32-encode here);
 * its pure-JS build computes the same digest in ≈ 2 µs, and encoding only the 10 bytes that make
 * the 16 characters keeps base32-encode under 1 µs. Names are memoized per service port and
 * endpoint in nested maps keyed by the strings the generator already holds, so a warm lookup
 * builds no concatenated key.
 *
 * @module
 */
import base32Encode from "base32-encode";
// The pure-JS build: the same digest without the node:crypto round trips (and browser-safe).
import { sha256 } from "js-sha256/build/sha256.min.mjs";
import { CHAIN_PREFIX } from "./kube-chains.js";

// The 10 digest bytes that make the 16 characters, in one buffer reused by every call
// (base32-encode reads it before returning).
const head = new Uint8Array(10);
const NO_PADDING = { padding: false } as const;

/**
 * `prefix + hash` as one flat string. base32-encode builds its output a character at a time, so
 * the hash is a chain of small string pieces, and concatenation would add one more link; a
 * chain name is copied into ~3 rules of every payload, each time walking the chain again. A
 * join of two parts makes one contiguous string.
 */
function chainName(prefix: string, hash: string): string {
  return [prefix, hash].join("");
}

/**
 * `text` with every unpaired surrogate replaced by U+FFFD: the UTF-8 that node:crypto hashes,
 * and the string Go's JSON decoder hands kube-proxy. js-sha256 would instead pair a lone
 * surrogate with its neighbour. Kubernetes names are ASCII, so only unvalidated input gets here.
 */
function wellFormed(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1); // NaN past the end
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++; // a valid pair
      continue;
    }
    out += `${text.slice(from, i)}\ufffd`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

// ES2024's String.prototype.isWellFormed answers at once for a one-byte string (every hash
// input of a valid cluster); without it, `wellFormed` scans (and returns the text as it is).
const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** The hash without memoization: base32 of the digest's first 80 bits (10 bytes, 16 characters). */
function computeHash(input: string): string {
  // `array` returns the digest as plain numbers; only the first 10 are copied and encoded.
  const digest = sha256.array(nativeIsWellFormed?.call(input) === true ? input : wellFormed(input));
  for (let i = 0; i < 10; i++) head[i] = digest[i] as number;
  return base32Encode(head, "RFC4648", NO_PADDING);
}

/**
 * How many names the caches below may hold in all. They live as long as the process, and a
 * long-running controller sees endpoints come and go for months: past this bound every cache
 * starts over (the names still in use are hashed again on their next use). A 50,000-service
 * cluster with 10 endpoints each needs 550,000 names.
 */
let maxCachedNames = 1 << 20;
let cachedNames = 0;

/** How many names the caches hold now; for tests and diagnostics. */
export function cachedNameCount(): number {
  return cachedNames;
}

/**
 * Sets the bound on cached names and returns the previous one (internal: tests use a small
 * bound to see the caches start over without hashing a million names).
 */
export function limitCachedNames(max: number): number {
  const previous = maxCachedNames;
  maxCachedNames = max;
  return previous;
}

/** Counts one more cached name, first emptying every cache when they are full. */
function admitName(): void {
  if (++cachedNames <= maxCachedNames) return;
  hashCache.clear();
  portNames.clear();
  lastNames = undefined;
  cachedNames = 1;
}

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
    hash = computeHash(input);
    admitName();
    hashCache.set(input, hash);
  }
  return hash;
}

/**
 * The chain names of one service port, which share one hash.
 *
 * @example
 * const chains: ServicePortChains = servicePortChains("kube-system/kube-dns:dns", "udp");
 * chains.svc // "KUBE-SVC-TCOU7JCQXEZGVUNU"
 */
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

/** Everything memoized for one service port: its chains and its endpoints' SEP chains. */
interface PortNames {
  readonly chains: ServicePortChains;
  readonly seps: Map<string, string>;
}

// servicePortName → protocol → names. Keys are the caller's own strings, so a warm lookup costs
// two map probes and no string building.
const portNames = new Map<string, Map<string, PortNames>>();

// The generator asks for one port's SEP chains one after another: remembering the last port
// spares two map probes per endpoint (a third of the warm cost of naming).
let lastName = "";
let lastProtocol = "";
let lastNames: PortNames | undefined;

function namesOf(servicePortName: string, protocol: string): PortNames {
  if (lastNames !== undefined && servicePortName === lastName && protocol === lastProtocol) return lastNames;
  lastNames = lookupNames(servicePortName, protocol);
  lastName = servicePortName;
  lastProtocol = protocol;
  return lastNames;
}

function lookupNames(servicePortName: string, protocol: string): PortNames {
  const known = portNames.get(servicePortName)?.get(protocol);
  if (known !== undefined) return known;
  admitName(); // before the lookups below: it may empty the caches
  let byProtocol = portNames.get(servicePortName);
  if (byProtocol === undefined) {
    byProtocol = new Map();
    portNames.set(servicePortName, byProtocol);
  }
  const hash = computeHash(servicePortName + protocol);
  const chains = {
    svc: chainName(CHAIN_PREFIX.service, hash),
    svl: chainName(CHAIN_PREFIX.local, hash),
    ext: chainName(CHAIN_PREFIX.external, hash),
    fw: chainName(CHAIN_PREFIX.firewall, hash),
  };
  const names = { chains, seps: new Map<string, string>() };
  byProtocol.set(protocol, names);
  return names;
}

/**
 * The SVC/SVL/EXT/FW chain names of a service port (one shared, memoized object).
 *
 * @param servicePortName `ns/name:port`, or `ns/name` for an unnamed port.
 * @param protocol lower-case protocol (`tcp`, `udp`, `sctp`).
 * @example
 * servicePortChains("default/kubernetes:https", "tcp").svc // "KUBE-SVC-NPX46M4PTMTKRN6Y"
 */
export function servicePortChains(servicePortName: string, protocol: string): ServicePortChains {
  return namesOf(servicePortName, protocol).chains;
}

/**
 * The `KUBE-SEP-…` chain of one endpoint of a service port.
 *
 * @param endpoint `ip:port`, or `[ip]:port` for IPv6.
 * @example
 * endpointChain("default/my-nginx-svc", "tcp", "10.244.3.38:80") // "KUBE-SEP-DSBJGVCOU4RGUKVK"
 */
export function endpointChain(servicePortName: string, protocol: string, endpoint: string): string {
  const seps = namesOf(servicePortName, protocol).seps;
  let name = seps.get(endpoint);
  if (name === undefined) {
    name = chainName(CHAIN_PREFIX.endpoint, computeHash(servicePortName + protocol + endpoint));
    // Should this empty the caches, `seps` is left behind with them: the name is still right.
    admitName();
    seps.set(endpoint, name);
  }
  return name;
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
