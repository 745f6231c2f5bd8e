/**
 * How nft lists an anonymous interval set (`ip saddr != { … }`): the kernel holds ranges, and
 * nft 1.0.6 merges them before loading. Checked against the real nft 1.0.6 (and the vectors):
 * overlapping elements merge; adjacent ones merge when one of them is a prefix or an already
 * merged range (two bare adjacent addresses stay apart); the result is listed sorted, each
 * element as an address, a prefix when it is one aligned block, or `low-high`.
 *
 * @module
 */
import ipaddr from "ipaddr.js";

interface Interval {
  low: bigint;
  high: bigint;
  /** Written as a prefix, or merged: such an interval absorbs its neighbours. */
  range: boolean;
  bits: number;
}

function toBigInt(bytes: readonly number[]): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

function fromBigInt(n: bigint, bits: number): string {
  const bytes: number[] = [];
  for (let i = bits / 8 - 1; i >= 0; i--) bytes.push(Number((n >> BigInt(i * 8)) & 0xffn));
  const addr = ipaddr.fromByteArray(bytes);
  return addr.kind() === "ipv6" ? (addr as ipaddr.IPv6).toRFC5952String() : addr.toString();
}

function parseElement(text: string): Interval | null {
  const slash = text.indexOf("/");
  const addrText = slash < 0 ? text : text.slice(0, slash);
  if (!ipaddr.isValid(addrText)) return null;
  const addr = ipaddr.parse(addrText);
  const bits = addr.kind() === "ipv4" ? 32 : 128;
  const prefix = slash < 0 ? bits : Number(text.slice(slash + 1));
  const value = toBigInt(addr.toByteArray());
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  const low = value & ~hostMask;
  return { low, high: low | hostMask, range: slash >= 0, bits };
}

function formatInterval(i: Interval): string {
  if (i.low === i.high) return fromBigInt(i.low, i.bits);
  const size = i.high - i.low + 1n;
  // One aligned block of 2^k addresses prints as a prefix.
  if ((size & (size - 1n)) === 0n && (i.low & (size - 1n)) === 0n) {
    const hostBits = size.toString(2).length - 1;
    return `${fromBigInt(i.low, i.bits)}/${i.bits - hostBits}`;
  }
  return `${fromBigInt(i.low, i.bits)}-${fromBigInt(i.high, i.bits)}`;
}

/**
 * The elements of an anonymous interval set as nft lists them.
 *
 * @example
 * formatIntervalSet(["198.51.100.0/24", "192.0.2.0/28"]) // ["192.0.2.0/28", "198.51.100.0/24"]
 * formatIntervalSet(["0.0.0.0/0", "203.0.113.9"])          // ["0.0.0.0/0"]
 */
export function formatIntervalSet(elements: readonly string[]): string[] {
  const parsed: Interval[] = [];
  for (const e of elements) {
    const i = parseElement(e);
    if (i === null) return [...elements]; // not addresses: nothing to merge
    parsed.push(i);
  }
  parsed.sort((a, b) => (a.low < b.low ? -1 : a.low > b.low ? 1 : a.high < b.high ? -1 : 1));
  const merged: Interval[] = [];
  for (const cur of parsed) {
    const prev = merged[merged.length - 1];
    if (prev !== undefined) {
      const overlaps = cur.low <= prev.high;
      const adjacent = cur.low === prev.high + 1n && (prev.range || cur.range);
      if (overlaps || adjacent) {
        const identical = cur.low === prev.low && cur.high === prev.high;
        if (cur.high > prev.high) prev.high = cur.high;
        prev.range = prev.range || cur.range || !identical;
        continue;
      }
    }
    merged.push({ ...cur });
  }
  return merged.map(formatInterval);
}
