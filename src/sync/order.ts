/**
 * The service ports in generation order, kept as a list of sorted chunks (a shallow B-tree), each
 * with the sum of its entries' rule counts per shared chain. Where a port's slice of a shared
 * chain starts is the sum over the chunks before it plus a scan inside its own chunk: O(n/B + B)
 * work instead of a walk over every port before it.
 *
 * Persistent: `with` copies the chunk list and the chunks it edits only, and leaves this order
 * intact, so that the lazily built payload of an earlier update still sees its own snapshot.
 * An update of one port thus allocates a few hundred pointers, not a copy of the whole order
 * (which, at 10,000 ports, fed the garbage collector more than the update itself cost).
 *
 * @module
 */
import { compareEntries, type PortEntry, SLOTS } from "./blocks.js";

/** A run of entries in order, with the per-slot sums of their rule counts. */
interface Chunk {
  readonly entries: readonly PortEntry[];
  readonly sums: readonly number[];
}

// Chunks are cut at TARGET entries and split in halves when they reach 2 × TARGET; one that
// shrinks below TARGET / 4 joins a neighbour when the two fit in one.
const TARGET = 128;
const MAX = 2 * TARGET;
const MIN = TARGET / 4;

function sumsOf(entries: readonly PortEntry[]): number[] {
  const sums = new Array<number>(SLOTS).fill(0);
  for (const e of entries)
    for (let s = 0; s < SLOTS; s++) sums[s] = (sums[s] as number) + (e.counts[s] as number);
  return sums;
}

const chunkOf = (entries: readonly PortEntry[]): Chunk => ({ entries, sums: sumsOf(entries) });

// The first index of `list` whose id is not smaller than `id`.
function lowerBound(list: readonly PortEntry[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as PortEntry).id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The chunk an id belongs in: the first whose last id is not smaller (else the last chunk).
function chunkIndex(chunks: readonly Chunk[], id: string): number {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = chunks[mid] as Chunk;
    if ((c.entries[c.entries.length - 1] as PortEntry).id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where a port sits in an order: its index and where its slice of each shared chain starts. */
export interface Position {
  /** The index of the port (or where it would be inserted). */
  readonly at: number;
  /** Rules of the entries before it, per shared slot. */
  readonly start: number[];
}

/** An immutable snapshot of the ports in generation order. */
export class PortOrder {
  /** The number of entries. */
  readonly size: number;
  private readonly chunks: readonly Chunk[];

  private constructor(chunks: readonly Chunk[], size: number) {
    this.chunks = chunks;
    this.size = size;
  }

  /** The empty order. */
  static empty(): PortOrder {
    return new PortOrder([], 0);
  }

  /** Sorts entries into an order (for a first sync or a change of most ports). */
  static of(entries: readonly PortEntry[]): PortOrder {
    const sorted = [...entries].sort(compareEntries);
    const chunks: Chunk[] = [];
    for (let i = 0; i < sorted.length; i += TARGET) chunks.push(chunkOf(sorted.slice(i, i + TARGET)));
    return new PortOrder(chunks, sorted.length);
  }

  /** Every entry in order (O(n): for the full payload, built on demand). */
  toArray(): PortEntry[] {
    const out: PortEntry[] = [];
    for (const c of this.chunks) for (const e of c.entries) out.push(e);
    return out;
  }

  /** A new order with `removed` taken out, `replaced` swapped in (same ids) and `added` put in. */
  with(
    removed: readonly PortEntry[],
    replaced: readonly PortEntry[],
    added: readonly PortEntry[],
  ): PortOrder {
    const chunks = this.chunks.slice();
    let size = this.size;
    for (const old of removed) {
      if (chunks.length === 0) break;
      const ci = chunkIndex(chunks, old.id);
      const c = chunks[ci] as Chunk;
      const at = lowerBound(c.entries, old.id);
      if ((c.entries[at] as PortEntry | undefined)?.id !== old.id) continue;
      const entries = c.entries.slice();
      const gone = entries.splice(at, 1)[0] as PortEntry;
      chunks[ci] = { entries, sums: c.sums.map((v, s) => v - (gone.counts[s] as number)) };
      size--;
      rebalance(chunks, ci);
    }
    for (const entry of replaced) {
      if (chunks.length === 0) break;
      const ci = chunkIndex(chunks, entry.id);
      const c = chunks[ci] as Chunk;
      const at = lowerBound(c.entries, entry.id);
      const prev = c.entries[at];
      if (prev?.id !== entry.id) continue;
      const entries = c.entries.slice();
      entries[at] = entry;
      chunks[ci] = {
        entries,
        sums: c.sums.map((v, s) => v - (prev.counts[s] as number) + (entry.counts[s] as number)),
      };
    }
    for (const entry of added) {
      if (chunks.length === 0) {
        chunks.push(chunkOf([entry]));
        size++;
        continue;
      }
      const ci = chunkIndex(chunks, entry.id);
      const c = chunks[ci] as Chunk;
      const entries = c.entries.slice();
      entries.splice(lowerBound(entries, entry.id), 0, entry);
      size++;
      if (entries.length >= MAX) {
        const half = entries.length >> 1;
        chunks.splice(ci, 1, chunkOf(entries.slice(0, half)), chunkOf(entries.slice(half)));
      } else {
        chunks[ci] = { entries, sums: c.sums.map((v, s) => v + (entry.counts[s] as number)) };
      }
    }
    return new PortOrder(chunks, size);
  }

  /** Where the port with this id is, or would be inserted. */
  position(id: string): Position {
    const start = new Array<number>(SLOTS).fill(0);
    const chunks = this.chunks;
    if (chunks.length === 0) return { at: 0, start };
    // Chunks before the id's own add their sums (numbers only); inside it, entries one by one.
    const ci = chunkIndex(chunks, id);
    let at = 0;
    for (let i = 0; i < ci; i++) {
      const c = chunks[i] as Chunk;
      at += c.entries.length;
      for (let s = 0; s < SLOTS; s++) start[s] = (start[s] as number) + (c.sums[s] as number);
    }
    const own = (chunks[ci] as Chunk).entries;
    const end = lowerBound(own, id);
    for (let i = 0; i < end; i++) {
      const counts = (own[i] as PortEntry).counts;
      for (let s = 0; s < SLOTS; s++) start[s] = (start[s] as number) + (counts[s] as number);
    }
    return { at: at + end, start };
  }

  /** The total of each shared slot. */
  totals(): number[] {
    const sums = new Array<number>(SLOTS).fill(0);
    for (const c of this.chunks)
      for (let s = 0; s < SLOTS; s++) sums[s] = (sums[s] as number) + (c.sums[s] as number);
    return sums;
  }
}

// After a removal from chunk `ci`: drop it when empty, or join a neighbour when both are small.
function rebalance(chunks: Chunk[], ci: number): void {
  const c = chunks[ci] as Chunk;
  if (c.entries.length === 0) {
    chunks.splice(ci, 1);
    return;
  }
  if (c.entries.length >= MIN) return;
  for (const ni of [ci - 1, ci + 1]) {
    const n = chunks[ni];
    if (n === undefined || n.entries.length + c.entries.length >= MAX) continue;
    const lo = Math.min(ci, ni);
    const a = chunks[lo] as Chunk;
    const b = chunks[lo + 1] as Chunk;
    chunks.splice(lo, 2, {
      entries: [...a.entries, ...b.entries],
      sums: a.sums.map((v, s) => v + (b.sums[s] as number)),
    });
    return;
  }
}
