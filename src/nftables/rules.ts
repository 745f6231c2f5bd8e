/**
 * Every rule shape kube-proxy's nftables mode writes (layouts A and B), each described once with its
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

/**
 * `ct state new jump CHAIN` (the jumps from the filter base chains).
 *
 * @example
 * ctNewJump("firewall-check").written // "ct state new jump firewall-check"
 */
export function ctNewJump(chain: string): NftRule {
  return same(`ct state new jump ${chain}`);
}

/**
 * `jump CHAIN` / `goto CHAIN`.
 *
 * @example
 * verdictRule("goto", "local-X").written // "goto local-X"
 */
export function verdictRule(verdict: "jump" | "goto", chain: string): NftRule {
  return same(`${verdict} ${chain}`);
}

/**
 * A rule that nft prints as written (fixed rules of the base layout).
 *
 * @example
 * fixedRule("reject").listed // "reject"
 */
export function fixedRule(text: string): NftRule {
  return same(text);
}

/**
 * A mark in eight hex digits: as nft lists every mark, and as kube-proxy formats its own
 * (`%#08x`; the configured text comes from `masqueradeMark`).
 *
 * @example
 * markHex(1 << 14) // "0x00004000"
 */
export function markHex(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, "0")}`;
}

/**
 * mark-for-masquerade: `mark set mark or M`; nft spells the meta key and the operator, and
 * lists the mark in eight hex digits whatever was written (`written` is kube-proxy's text of the
 * mark: `0x00004000`, or `0x4000` in upstream unit tests).
 *
 * @example
 * setMarkBit(0x4000).listed // "meta mark set meta mark | 0x00004000"
 */
export function setMarkBit(mark: number, written: string = markHex(mark)): NftRule {
  return { written: `mark set mark or ${written}`, listed: `meta mark set meta mark | ${markHex(mark)}` };
}

/**
 * masquerading: `mark set mark xor M`.
 *
 * @example
 * clearMarkBit(0x4000).written // "mark set mark xor 0x00004000"
 */
export function clearMarkBit(mark: number, written: string = markHex(mark)): NftRule {
  return { written: `mark set mark xor ${written}`, listed: `meta mark set meta mark ^ ${markHex(mark)}` };
}

/**
 * masquerading: `mark and M == 0 return`. nft prints a mask that covers the top bits as a prefix
 * (`0x80000000` → `0x00000000/1`), any other mask with `&`.
 *
 * @example
 * returnUnlessMarked(0x80000000).listed // "meta mark 0x00000000/1 return"
 */
export function returnUnlessMarked(mark: number, written: string = markHex(mark)): NftRule {
  const m = markHex(mark);
  const prefix = highPrefixLength(mark >>> 0);
  return {
    written: `mark and ${written} == 0 return`,
    listed: prefix > 0 ? `meta mark 0x00000000/${prefix} return` : `meta mark & ${m} == 0x00000000 return`,
  };
}

/** The length of the prefix a 32-bit mask covers when it is all high bits (0 when it is not). */
function highPrefixLength(mask: number): number {
  let n = 0;
  while (n < 32 && (mask & (0x80000000 >>> n)) !== 0) n++;
  return n > 0 && (mask << n) >>> 0 === 0 ? n : 0;
}

/** How an interface is matched: `iif` (1.30) or `iifname` (1.34.x, 1.35). */
export type InterfaceKey = "iif" | "iifname";

/** The detector's match for pod traffic (`ip saddr CIDR`, `iif NAME`, `iifname PREFIX*`). */
function detectorMatch(
  family: NftFamily,
  detector: LocalDetector,
  negate: boolean,
  key: InterfaceKey,
): NftRule {
  const not = negate ? "!= " : "";
  switch (detector.kind) {
    case "cidr":
      return same(`${family} saddr ${not}${detector.cidr}`);
    case "interface":
      // nft resolves `iif NAME` to an interface index at load time; it lists names quoted.
      return { written: `${key} ${not}${detector.name}`, listed: `${key} ${not}"${detector.name}"` };
    case "interface-prefix":
      // `iif` with a wildcard cannot load (reported as a problem); `iifname` can.
      return {
        written: `${key} ${not}${detector.prefix}*`,
        listed: `${key} ${not}"${detector.prefix}*"`,
      };
  }
}

const join = (...parts: NftRule[]): NftRule => ({
  written: parts.map((p) => p.written).join(" "),
  listed: parts.map((p) => p.listed).join(" "),
});

/**
 * The cluster-IP masquerade rule of a policy chain: `ip daddr VIP [tcp dport P] [not-local]
 * jump mark-for-masquerade` (layout B leaves the protocol and port out: `dport` null).
 *
 * @example
 * clusterIPMasquerade("ip", "10.96.0.10", { protocol: "tcp", port: 80 }, null, "iif").written
 * // "ip daddr 10.96.0.10 tcp dport 80 jump mark-for-masquerade"
 */
export function clusterIPMasquerade(
  family: NftFamily,
  clusterIP: string,
  dport: { readonly protocol: string; readonly port: number } | null,
  notLocal: LocalDetector | null,
  key: InterfaceKey,
): NftRule {
  const head = same(
    `${family} daddr ${clusterIP}${dport === null ? "" : ` ${dport.protocol} dport ${dport.port}`}`,
  );
  const tail = same("jump mark-for-masquerade");
  return notLocal === null ? join(head, tail) : join(head, detectorMatch(family, notLocal, true, key), tail);
}

/**
 * external chain, eTP=Local: pod traffic goes to the cluster-policy chain.
 *
 * @example
 * podShortCircuit("ip", { kind: "interface", name: "cbr0" }, "service-X", "iif").listed
 * // 'iif "cbr0" goto service-X'
 */
export function podShortCircuit(
  family: NftFamily,
  detector: LocalDetector,
  chain: string,
  key: InterfaceKey,
): NftRule {
  return join(detectorMatch(family, detector, false, key), same(`goto ${chain}`));
}

/**
 * external chain, eTP=Local: `fib saddr type local jump|goto …`.
 *
 * @example
 * fromLocalHost("jump", "mark-for-masquerade").written // "fib saddr type local jump mark-for-masquerade"
 */
export function fromLocalHost(verdict: "jump" | "goto", chain: string): NftRule {
  return same(`fib saddr type local ${verdict} ${chain}`);
}

/**
 * firewall chain: `ip saddr != { A , B } drop`. nft keeps a one-element set as a plain
 * comparison; a larger anonymous set is an interval set, which the kernel lists merged and sorted.
 *
 * @example
 * sourceRangeDrop("ip", ["198.51.100.0/24"]).listed // "ip saddr != 198.51.100.0/24 drop"
 */
export function sourceRangeDrop(family: NftFamily, sources: readonly string[]): NftRule {
  const written = `${family} saddr != { ${sources.join(" , ")} } drop`;
  const listed =
    sources.length === 1
      ? `${family} saddr != ${sources[0]} drop`
      : `${family} saddr != { ${formatIntervalSet(sources).join(", ")} } drop`;
  return { written, listed };
}

/**
 * cluster-ips-check: `ip daddr { CIDR,CIDR } drop`; kube-proxy joins its service CIDRs with a
 * bare comma. The kernel lists them as an interval set (one alone without braces).
 *
 * @example
 * serviceCIDRsDrop("ip", ["10.96.0.0/16"]).written // "ip daddr { 10.96.0.0/16 } drop"
 */
export function serviceCIDRsDrop(family: NftFamily, cidrs: readonly string[]): NftRule {
  const listed =
    cidrs.length === 1
      ? `${family} daddr ${cidrs[0]} drop`
      : `${family} daddr { ${formatIntervalSet(cidrs).join(", ")} } drop`;
  return { written: `${family} daddr { ${cidrs.join(",")} } drop`, listed };
}

/**
 * policy chain, affinity: `ip saddr @affinity-X goto endpoint-X`.
 *
 * @example
 * affinityCheck("ip", "affinity-X", "endpoint-X").written // "ip saddr @affinity-X goto endpoint-X"
 */
export function affinityCheck(family: NftFamily, set: string, chain: string): NftRule {
  return same(`${family} saddr @${set} goto ${chain}`);
}

/**
 * endpoint chain, affinity: `update @affinity-X { ip saddr }`.
 *
 * @example
 * affinityUpdate("ip6", "affinity-X").written // "update @affinity-X { ip6 saddr }"
 */
export function affinityUpdate(family: NftFamily, set: string): NftRule {
  return same(`update @${set} { ${family} saddr }`);
}

/**
 * policy chain: `numgen random mod N vmap { 0 : goto A , 1 : goto B }` (nft lists `, `).
 *
 * @example
 * balance(["endpoint-A", "endpoint-B"]).written
 * // "numgen random mod 2 vmap { 0 : goto endpoint-A , 1 : goto endpoint-B }"
 */
export function balance(chains: readonly string[]): NftRule {
  const elements = chains.map((c, i) => `${i} : goto ${c}`);
  return {
    written: `numgen random mod ${chains.length} vmap { ${elements.join(" , ")} }`,
    listed: `numgen random mod ${chains.length} vmap { ${elements.join(", ")} }`,
  };
}

/**
 * endpoint chain: hairpin traffic from the endpoint itself is masqueraded.
 *
 * @example
 * hairpinMasquerade("ip", "10.244.1.1").written // "ip saddr 10.244.1.1 jump mark-for-masquerade"
 */
export function hairpinMasquerade(family: NftFamily, ip: string): NftRule {
  return same(`${family} saddr ${ip} jump mark-for-masquerade`);
}

/**
 * endpoint chain: `meta l4proto tcp dnat to IP:PORT` (`[IPv6]:PORT`).
 *
 * @example
 * dnatTo("tcp", "fd00::5", 8080).written // "meta l4proto tcp dnat to [fd00::5]:8080"
 */
export function dnatTo(protocol: string, ip: string, port: number): NftRule {
  const to = ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
  return same(`meta l4proto ${protocol} dnat to ${to}`);
}
