/**
 * A chain's rules grouped by what they require of a packet, so that a packet visits only the
 * rules that can match it: kube-proxy's KUBE-SERVICES has one rule per cluster IP, external IP
 * and LB IP, KUBE-NODEPORTS one per node port. A rule with a plain `-d ADDR/32` (or `/128`) is
 * filed under that address; else one with `-p P -m P --dport N` under `P/N`; every other rule
 * is visited for every packet. Rules keep their order: a packet's candidates are the merge of
 * its buckets, which first-match semantics makes equivalent to the full walk.
 *
 * @module
 */
import type { CanonicalRule } from "../ir/canonical-types.js";
import type { IPFamily } from "../ir/types.js";

/** A chain's rules by destination address and by protocol/port. */
export interface ChainIndex {
  /** Positions (0-based) of rules filed under a destination address (canonical text). */
  readonly byAddress: ReadonlyMap<string, readonly number[]>;
  /** Positions of rules filed under `protocolNumber/port`. */
  readonly byPort: ReadonlyMap<string, readonly number[]>;
  /** Positions of rules that any packet may match. */
  readonly other: readonly number[];
}

/** The key of a rule in {@link ChainIndex.byPort}. */
export function portKey(protocol: number, port: number): string {
  return `${protocol}/${port}`;
}

function push(map: Map<string, number[]>, key: string, position: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [position]);
  else list.push(position);
}

function destinationPortOf(rule: CanonicalRule): number {
  for (const m of rule.matches) {
    if (m.kind === "ports" && m.destinationPort !== null && !m.destinationPort.negated) {
      if (m.destinationPort.min === m.destinationPort.max) return m.destinationPort.min;
    }
  }
  return -1;
}

/**
 * Files each rule of a chain under the one key every packet it matches must have.
 *
 * @example
 * buildChainIndex(compileState(state).chain("nat", "KUBE-SERVICES")!.rules, "IPv4").byAddress.get("10.96.0.10") // [0, 1]
 */
export function buildChainIndex(
  rules: readonly { readonly canonical: CanonicalRule | null }[],
  family: IPFamily,
): ChainIndex {
  const hostBits = family === "IPv4" ? 32 : 128;
  const byAddress = new Map<string, number[]>();
  const byPort = new Map<string, number[]>();
  const other: number[] = [];
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]?.canonical ?? null;
    if (rule === null) {
      other.push(i);
      continue;
    }
    const d = rule.destination;
    if (d !== null && !d.negated && d.prefixLength === hostBits) {
      push(byAddress, d.address, i);
      continue;
    }
    const p = rule.protocol;
    const port = destinationPortOf(rule);
    if (p !== null && !p.negated && port >= 0) {
      push(byPort, portKey(p.number, port), i);
      continue;
    }
    other.push(i);
  }
  return { byAddress, byPort, other };
}

const EMPTY: readonly number[] = [];

/**
 * The positions, in order, of the rules a packet with this destination may match.
 *
 * @example
 * candidates(index, "10.96.0.10", 6, 80) // [0, 1, 10000]
 */
export function candidates(
  index: ChainIndex,
  address: string,
  protocol: number,
  port: number,
): readonly number[] {
  const a = index.byAddress.get(address) ?? EMPTY;
  const b = index.byPort.get(portKey(protocol, port)) ?? EMPTY;
  const c = index.other;
  if (a.length === 0 && b.length === 0) return c;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  let k = 0;
  // Three-way merge of sorted position lists.
  while (i < a.length || j < b.length || k < c.length) {
    const x = a[i] ?? Number.POSITIVE_INFINITY;
    const y = b[j] ?? Number.POSITIVE_INFINITY;
    const z = c[k] ?? Number.POSITIVE_INFINITY;
    if (x <= y && x <= z) {
      out.push(x);
      i++;
    } else if (y <= z) {
      out.push(y);
      j++;
    } else {
      out.push(z);
      k++;
    }
  }
  return out;
}
