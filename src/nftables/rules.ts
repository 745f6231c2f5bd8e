/**
 * Every rule shape kube-proxy's nftables mode writes (layout A), each described once with its
 * two forms: the text kube-proxy writes and the text `nft list` prints back. Where the kernel
 * prints a rule differently (the mark arithmetic, quoted interface names, anonymous sets and
 * maps), the difference is written here, next to the shape.
 *
 * @module
 */
import type { LocalDetector } from "../plan/types.js";
import { formatIntervalSet } from "./intervals.js";
import type { NftFamily, NftRule } from "./types.js";

const same = (text: string): NftRule => ({ written: text, listed: text });

/** `ct state new jump CHAIN` (the jumps from the filter base chains). */
export function ctNewJump(chain: string): NftRule {
  return same(`ct state new jump ${chain}`);
}

/** `jump CHAIN` / `goto CHAIN`. */
export function verdictRule(verdict: "jump" | "goto", chain: string): NftRule {
  return same(`${verdict} ${chain}`);
}

/** A rule that nft prints as written (fixed rules of the base layout). */
export function fixedRule(text: string): NftRule {
  return same(text);
}

/** `%#08x` of the mark, as kube-proxy formats it. */
export function markHex(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, "0")}`;
}

/** mark-for-masquerade: `mark set mark or M`; nft spells the meta key and the operator. */
export function setMarkBit(mark: number): NftRule {
  const m = markHex(mark);
  return { written: `mark set mark or ${m}`, listed: `meta mark set meta mark | ${m}` };
}

/** masquerading: `mark set mark xor M`. */
export function clearMarkBit(mark: number): NftRule {
  const m = markHex(mark);
  return { written: `mark set mark xor ${m}`, listed: `meta mark set meta mark ^ ${m}` };
}

/**
 * masquerading: `mark and M == 0 return`. nft prints a mask that covers the top bits as a prefix
 * (`0x80000000` → `0x00000000/1`), any other mask with `&`.
 */
export function returnUnlessMarked(mark: number): NftRule {
  const m = markHex(mark);
  const prefix = highPrefixLength(mark >>> 0);
  return {
    written: `mark and ${m} == 0 return`,
    listed: prefix > 0 ? `meta mark 0x00000000/${prefix} return` : `meta mark & ${m} == 0x00000000 return`,
  };
}

/** The length of the prefix a 32-bit mask covers when it is all high bits (0 when it is not). */
function highPrefixLength(mask: number): number {
  let n = 0;
  while (n < 32 && (mask & (0x80000000 >>> n)) !== 0) n++;
  return n > 0 && (mask << n) >>> 0 === 0 ? n : 0;
}

/** The detector's match for pod traffic (`ip saddr CIDR`, `iif NAME`, `iif PREFIX*`). */
function detectorMatch(family: NftFamily, detector: LocalDetector, negate: boolean): NftRule {
  const not = negate ? "!= " : "";
  switch (detector.kind) {
    case "cidr":
      return same(`${family} saddr ${not}${detector.cidr}`);
    case "interface":
      // nft resolves `iif NAME` to an interface index at load time and prints the name quoted.
      return { written: `iif ${not}${detector.name}`, listed: `iif ${not}"${detector.name}"` };
    case "interface-prefix":
      // 1.30 writes `iif` with a wildcard, which nft cannot load (reported as a problem).
      return {
        written: `iif ${not}${detector.prefix}*`,
        listed: `iif ${not}"${detector.prefix}*"`,
      };
  }
}

const join = (...parts: NftRule[]): NftRule => ({
  written: parts.map((p) => p.written).join(" "),
  listed: parts.map((p) => p.listed).join(" "),
});

/**
 * The cluster-IP masquerade rule of a policy chain: `ip daddr VIP tcp dport P [not-local]
 * jump mark-for-masquerade`.
 */
export function clusterIPMasquerade(
  family: NftFamily,
  clusterIP: string,
  protocol: string,
  port: number,
  notLocal: LocalDetector | null,
): NftRule {
  const head = same(`${family} daddr ${clusterIP} ${protocol} dport ${port}`);
  const tail = same("jump mark-for-masquerade");
  return notLocal === null ? join(head, tail) : join(head, detectorMatch(family, notLocal, true), tail);
}

/** external chain, eTP=Local: pod traffic goes to the cluster-policy chain. */
export function podShortCircuit(family: NftFamily, detector: LocalDetector, chain: string): NftRule {
  return join(detectorMatch(family, detector, false), same(`goto ${chain}`));
}

/** external chain, eTP=Local: `fib saddr type local jump|goto …`. */
export function fromLocalHost(verdict: "jump" | "goto", chain: string): NftRule {
  return same(`fib saddr type local ${verdict} ${chain}`);
}

/**
 * firewall chain: `ip saddr != { A , B } drop`. nft keeps a one-element set as a plain
 * comparison; a larger anonymous set is an interval set, which the kernel lists merged and sorted.
 */
export function sourceRangeDrop(family: NftFamily, sources: readonly string[]): NftRule {
  const written = `${family} saddr != { ${sources.join(" , ")} } drop`;
  const listed =
    sources.length === 1
      ? `${family} saddr != ${sources[0]} drop`
      : `${family} saddr != { ${formatIntervalSet(sources).join(", ")} } drop`;
  return { written, listed };
}

/** policy chain, affinity: `ip saddr @affinity-X goto endpoint-X`. */
export function affinityCheck(family: NftFamily, set: string, chain: string): NftRule {
  return same(`${family} saddr @${set} goto ${chain}`);
}

/** endpoint chain, affinity: `update @affinity-X { ip saddr }`. */
export function affinityUpdate(family: NftFamily, set: string): NftRule {
  return same(`update @${set} { ${family} saddr }`);
}

/** policy chain: `numgen random mod N vmap { 0 : goto A , 1 : goto B }` (nft lists `, `). */
export function balance(chains: readonly string[]): NftRule {
  const elements = chains.map((c, i) => `${i} : goto ${c}`);
  return {
    written: `numgen random mod ${chains.length} vmap { ${elements.join(" , ")} }`,
    listed: `numgen random mod ${chains.length} vmap { ${elements.join(", ")} }`,
  };
}

/** endpoint chain: hairpin traffic from the endpoint itself is masqueraded. */
export function hairpinMasquerade(family: NftFamily, ip: string): NftRule {
  return same(`${family} saddr ${ip} jump mark-for-masquerade`);
}

/** endpoint chain: `meta l4proto tcp dnat to IP:PORT` (`[IPv6]:PORT`). */
export function dnatTo(protocol: string, ip: string, port: number): NftRule {
  const to = ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
  return same(`meta l4proto ${protocol} dnat to ${to}`);
}
