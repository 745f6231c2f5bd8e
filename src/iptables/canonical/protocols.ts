/**
 * IP protocol names and numbers as iptables 1.8.9 reads and prints them (spec §2.3): its
 * built-in table first (the first entry for a number wins), then Debian's /etc/protocols.
 *
 * @module
 */

import { parseCUnsigned } from "./values.js";

/** iptables' built-in protocol table, in its order; the first name of a number is printed. */
const BUILTIN: readonly (readonly [string, number])[] = [
  ["tcp", 6],
  ["sctp", 132],
  ["udp", 17],
  ["udplite", 136],
  ["icmp", 1],
  ["icmpv6", 58],
  ["ipv6-icmp", 58],
  ["esp", 50],
  ["ah", 51],
  ["ipv6-mh", 135],
  ["mh", 135],
  ["all", 0],
];

/** Debian netbase /etc/protocols (name, number), used for numbers not in the built-in table. */
const ETC_PROTOCOLS: readonly (readonly [string, number])[] = [
  ["ip", 0],
  ["hopopt", 0],
  ["icmp", 1],
  ["igmp", 2],
  ["ggp", 3],
  ["ipencap", 4],
  ["st", 5],
  ["tcp", 6],
  ["egp", 8],
  ["igp", 9],
  ["pup", 12],
  ["udp", 17],
  ["hmp", 20],
  ["xns-idp", 22],
  ["rdp", 27],
  ["iso-tp4", 29],
  ["dccp", 33],
  ["xtp", 36],
  ["ddp", 37],
  ["idpr-cmtp", 38],
  ["ipv6", 41],
  ["ipv6-route", 43],
  ["ipv6-frag", 44],
  ["idrp", 45],
  ["rsvp", 46],
  ["gre", 47],
  ["esp", 50],
  ["ah", 51],
  ["skip", 57],
  ["ipv6-icmp", 58],
  ["ipv6-nonxt", 59],
  ["ipv6-opts", 60],
  ["rspf", 73],
  ["vmtp", 81],
  ["eigrp", 88],
  ["ospf", 89],
  ["ax.25", 93],
  ["ipip", 94],
  ["etherip", 97],
  ["encap", 98],
  ["pim", 103],
  ["ipcomp", 108],
  ["vrrp", 112],
  ["l2tp", 115],
  ["isis", 124],
  ["sctp", 132],
  ["fc", 133],
  ["mobility-header", 135],
  ["udplite", 136],
  ["mpls-in-ip", 137],
  ["manet", 138],
  ["hip", 139],
  ["shim6", 140],
  ["wesp", 141],
  ["rohc", 142],
  ["ethernet", 143],
];

const numberByName = new Map<string, number>();
for (const [name, num] of ETC_PROTOCOLS) numberByName.set(name, num);
for (const [name, num] of BUILTIN) numberByName.set(name, num);

/** The name iptables-save prints for each number (spec §2.3's table, then /etc/protocols). */
const PRINTED: ReadonlyMap<number, string> = new Map<number, string>([
  ...ETC_PROTOCOLS.slice()
    .reverse()
    .map(([name, num]) => [num, name] as [number, string]),
  [6, "tcp"],
  [132, "sctp"],
  [17, "udp"],
  [136, "udplite"],
  [1, "icmp"],
  [58, "ipv6-icmp"],
  [50, "esp"],
  [51, "ah"],
  [135, "mobility-header"],
  [0, "all"],
]);

/**
 * Reads a `-p` value as iptables does: a number 0–255 (C base 0: `0x6` is tcp, `010` is 8),
 * else a name, case-insensitive; -1 when unknown.
 *
 * @example
 * protocolNumber("TCP") // 6
 * protocolNumber("icmpv6") // 58
 * protocolNumber("0x6") // 6
 * protocolNumber("bogus") // -1
 */
export function protocolNumber(text: string): number {
  const n = parseCUnsigned(text, 255);
  return n >= 0 ? n : (numberByName.get(text.toLowerCase()) ?? -1);
}

/**
 * The name iptables-save prints for a protocol number (the number itself when unnamed).
 *
 * @example
 * protocolName(47) // "gre"
 * protocolName(200) // "200"
 */
export function protocolName(num: number): string {
  return PRINTED.get(num) ?? String(num);
}
