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
// The heads of a list of names (see computeHashes).
let heads = new Uint8Array(320);

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

/** The 10 digest bytes that make a hash's 16 characters, written at `offset` of `into`. */
function digestHead(input: string, into: Uint8Array, offset: number): void {
  // `array` returns the digest as plain numbers; only the first 10 are copied and encoded.
  const digest = sha256.array(nativeIsWellFormed?.call(input) === true ? input : wellFormed(input));
  for (let i = 0; i < 10; i++) into[offset + i] = digest[i] as number;
}

/** The hash without memoization: base32 of the digest's first 80 bits (10 bytes, 16 characters). */
function computeHash(input: string): string {
  digestHead(input, head, 0);
  return base32Encode(head, "RFC4648", NO_PADDING);
}

/**
 * The hashes of `prefix + suffix` for several suffixes, encoded together: 10 bytes are exactly 80
 * bits, 16 characters, so the base32 of all the heads one after another, cut every 16
 * characters, is each one's hash (one encoder call, and one view of the bytes, per list).
 */
function computeHashes(prefix: string, suffixes: readonly string[]): string[] {
  const size = 10 * suffixes.length;
  // One buffer for every list, grown when a list needs more: a byte array of over 64 bytes has
  // its memory outside the JS heap, which V8 allocates and later frees one by one (one per port
  // of a cold generation). base32-encode reads the bytes before returning.
  if (size > heads.length) heads = new Uint8Array(Math.max(size, 2 * heads.length));
  for (let i = 0; i < suffixes.length; i++) digestHead(prefix + (suffixes[i] as string), heads, 10 * i);
  const text = base32Encode(size === heads.length ? heads : heads.subarray(0, size), "RFC4648", NO_PADDING);
  const out = new Array<string>(suffixes.length);
  for (let i = 0; i < suffixes.length; i++) out[i] = text.slice(16 * i, 16 * i + 16);
  return out;
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
  if (++cachedNames > maxCachedNames) startOver();
}

/** Empties every cache (they are full); the name being admitted counts as the first. */
function startOver(): void {
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

/**
 * Everything memoized for one service port: its chains, and the SEP chains of the last endpoint
 * list named in full (its `ip:port` strings and their names, index for index). A port's lists
 * (reachable, cluster, local) are in the model's sorted order, each a subsequence of the
 * reachable one, which the writers name first: one remembered list serves them all, and a
 * resync's rebuilt model finds its names by walking it, without a map per port.
 */
interface PortNames {
  readonly protocol: string;
  readonly chains: ServicePortChains;
  sepEndpoints: readonly string[];
  sepNames: readonly string[];
  /** The same name with another protocol (a port whose protocol changed): rare, so a list. */
  other: PortNames | null;
}

// servicePortName → names (then the other protocols, linked). Keys are the caller's own strings,
// so a warm lookup costs one map probe and no string building; one map entry per port, not a
// map per port, keeps what a cold generation leaves behind (and the scavenger copies) small.
const portNames = new Map<string, PortNames>();

// The generator asks for one port's SEP chains one after another: remembering the last port
// spares two map probes per endpoint (a third of the warm cost of naming).
let lastName = "";
let lastProtocol = "";
let lastNames: PortNames | undefined;
const NONE: readonly string[] = [];

function namesOf(servicePortName: string, protocol: string): PortNames {
  if (lastNames !== undefined && servicePortName === lastName && protocol === lastProtocol) return lastNames;
  lastNames = lookupNames(servicePortName, protocol);
  lastName = servicePortName;
  lastProtocol = protocol;
  return lastNames;
}

function lookupNames(servicePortName: string, protocol: string): PortNames {
  const first = portNames.get(servicePortName);
  for (let known: PortNames | null = first ?? null; known !== null; known = known.other)
    if (known.protocol === protocol) return known;
  admitName(); // before the lookups below: it may empty the caches
  const hash = computeHash(servicePortName + protocol);
  const chains = {
    svc: chainName(CHAIN_PREFIX.service, hash),
    svl: chainName(CHAIN_PREFIX.local, hash),
    ext: chainName(CHAIN_PREFIX.external, hash),
    fw: chainName(CHAIN_PREFIX.firewall, hash),
  };
  // `first` again: admitName may have emptied the map.
  const names: PortNames = {
    protocol,
    chains,
    sepEndpoints: NONE,
    sepNames: NONE,
    other: portNames.get(servicePortName) ?? null,
  };
  portNames.set(servicePortName, names);
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

/** The `KUBE-SEP-…` name of one endpoint, hashed. */
function sepName(servicePortName: string, protocol: string, endpoint: string): string {
  return chainName(CHAIN_PREFIX.endpoint, computeHash(servicePortName + protocol + endpoint));
}

/**
 * The `KUBE-SEP-…` chain of one endpoint of a service port.
 *
 * @param endpoint `ip:port`, or `[ip]:port` for IPv6.
 * @example
 * endpointChain("default/my-nginx-svc", "tcp", "10.244.3.38:80") // "KUBE-SEP-DSBJGVCOU4RGUKVK"
 */
export function endpointChain(servicePortName: string, protocol: string, endpoint: string): string {
  // Not memoized: the writers name whole lists (endpointChainList), which the ports remember.
  return sepName(servicePortName, protocol, endpoint);
}

/**
 * The `KUBE-SEP-…` chains of a list of a service port's endpoints, index for index.
 *
 * The port remembers the last list named in full. A list in the same order (the model's sorted
 * `ip:port` order, of which every list of a port is a subsequence) finds its remembered names in
 * one forward walk; a name not found there is hashed. A list in another order costs only misses:
 * the answer is the same.
 *
 * @param endpoints the endpoints, each with its `ip:port` (`[ip]:port` for IPv6) as `endpoint`.
 * @example
 * endpointChainList("default/my-nginx-svc", "tcp", [{ endpoint: "10.244.3.38:80" }])
 * // ["KUBE-SEP-DSBJGVCOU4RGUKVK"]
 */
export function endpointChainList(
  servicePortName: string,
  protocol: string,
  endpoints: readonly { readonly endpoint: string }[],
): string[] {
  const names = namesOf(servicePortName, protocol);
  const known = names.sepEndpoints;
  const knownNames = names.sepNames;
  const out = new Array<string>(endpoints.length);
  // The endpoints not remembered, hashed together once the walk is done.
  const missed: number[] = [];
  let from = 0;
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = (endpoints[i] as { readonly endpoint: string }).endpoint;
    let k = from;
    while (k < known.length && (known[k] as string) < endpoint) k++;
    if (k < known.length && known[k] === endpoint) {
      out[i] = knownNames[k] as string;
      from = k + 1;
    } else missed.push(i);
  }
  if (missed.length === 0) return out;
  const suffixes = new Array<string>(missed.length);
  for (let j = 0; j < missed.length; j++)
    suffixes[j] = (endpoints[missed[j] as number] as { readonly endpoint: string }).endpoint;
  const hashes = computeHashes(servicePortName + protocol, suffixes);
  for (let j = 0; j < missed.length; j++)
    out[missed[j] as number] = chainName(CHAIN_PREFIX.endpoint, hashes[j] as string);
  // Remember the list when it is no shorter than the one kept (the reachable list, which the
  // others are part of).
  if (endpoints.length >= known.length) {
    const strings = new Array<string>(endpoints.length);
    for (let i = 0; i < endpoints.length; i++)
      strings[i] = (endpoints[i] as { readonly endpoint: string }).endpoint;
    cachedNames += endpoints.length - known.length;
    if (cachedNames > maxCachedNames) startOver();
    names.sepEndpoints = strings;
    names.sepNames = out;
  }
  return out;
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
