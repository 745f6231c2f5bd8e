// PortOrder, the engine's persistent list of service ports in generation order: after any
// sequence of removals, replacements and additions it holds exactly the sorted entries, tells
// where each id sits and where its slice of each shared chain starts, and earlier snapshots
// stay as they were.
import { describe, expect, it } from "vitest";
import { compareEntries, type PortEntry, SLOTS } from "../../src/sync/blocks.js";
import { PortOrder } from "../../src/sync/order.js";
import { seededRng } from "../support/random-cluster.js";

/** An entry with only what the order reads: its id and rule counts. */
function entry(id: string, counts: number[]): PortEntry {
  return { id, counts } as unknown as PortEntry;
}

const idOf = (n: number): string => `ns/svc-${String(n).padStart(5, "0")}:p\u0000TCP`;

/** What the order must answer, computed the slow way from a sorted array. */
function expectMatches(order: PortOrder, model: readonly PortEntry[], probes: readonly string[]): void {
  const sorted = [...model].sort(compareEntries);
  expect(order.size).toBe(sorted.length);
  expect(order.toArray().map((e) => e.id)).toEqual(sorted.map((e) => e.id));
  expect(order.toArray()).toEqual(sorted);
  const totals = new Array<number>(SLOTS).fill(0);
  for (const e of sorted)
    for (let s = 0; s < SLOTS; s++) totals[s] = (totals[s] as number) + (e.counts[s] as number);
  expect(order.totals()).toEqual(totals);
  for (const id of probes) {
    const at = sorted.findIndex((e) => e.id >= id);
    const index = at < 0 ? sorted.length : at;
    const start = new Array<number>(SLOTS).fill(0);
    for (const e of sorted.slice(0, index))
      for (let s = 0; s < SLOTS; s++) start[s] = (start[s] as number) + (e.counts[s] as number);
    expect(order.position(id), id).toEqual({ at: index, start });
  }
}

describe("PortOrder", () => {
  it("an empty order", () => {
    const empty = PortOrder.empty();
    expect(empty.toArray()).toEqual([]);
    expect(empty.position(idOf(1))).toEqual({ at: 0, start: [0, 0, 0, 0, 0, 0] });
    const one = empty.with([], [], [entry(idOf(1), [1, 0, 0, 0, 2, 0])]);
    expectMatches(one, [entry(idOf(1), [1, 0, 0, 0, 2, 0])], [idOf(0), idOf(1), idOf(2)]);
    expectMatches(one.with([entry(idOf(1), [])], [], []), [], [idOf(1)]);
  });

  it("a chunk emptied or shrunk to a few entries, and one grown past its limit", () => {
    const all = Array.from({ length: 1000 }, (_, i) => entry(idOf(i * 2), [i % 3, 1, 0, 0, i % 2, 0]));
    const base = PortOrder.of(all);
    const shrunk = base.with(all.slice(0, 120), [], []);
    expectMatches(shrunk, all.slice(120), [idOf(0), idOf(240), idOf(250), idOf(1999)]);
    const emptied = base.with(all.slice(128, 256), [], []);
    expectMatches(emptied, [...all.slice(0, 128), ...all.slice(256)], [idOf(255), idOf(256), idOf(600)]);
    const grown = Array.from({ length: 300 }, (_, i) => entry(idOf(i * 2 + 1), [1, 1, 1, 1, 1, 1]));
    const big = base.with([], [], grown);
    expectMatches(big, [...all, ...grown], [idOf(1), idOf(301), idOf(599), idOf(601), idOf(2001)]);
    expectMatches(base, all, [idOf(1), idOf(600)]);
  });

  it("random removals, replacements and additions, across chunk splits and merges", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rng = seededRng(seed);
      const counts = (): number[] => Array.from({ length: SLOTS }, () => rng.int(0, 3));
      let model = new Map<string, PortEntry>();
      for (let i = 0; i < 600; i++) {
        const id = idOf(rng.int(0, 2000));
        model.set(id, entry(id, counts()));
      }
      let order = PortOrder.of([...model.values()]);
      const snapshots: { order: PortOrder; model: PortEntry[] }[] = [];
      for (let step = 0; step < 120; step++) {
        const ids = [...model.keys()];
        const removed: PortEntry[] = [];
        const replaced: PortEntry[] = [];
        const added: PortEntry[] = [];
        const next = new Map(model);
        // Bursts of removals in one region make chunks shrink and merge; of additions, split.
        const region = rng.int(0, 2000);
        const removals = rng.int(0, 12);
        for (let k = 0; k < removals && ids.length > 0; k++) {
          const id = ids[rng.int(0, ids.length - 1)] as string;
          if (!next.has(id)) continue;
          removed.push(next.get(id) as PortEntry);
          next.delete(id);
        }
        for (let k = 0; k < rng.int(0, 4); k++) {
          const id = ids[rng.int(0, ids.length - 1)] as string;
          if (!next.has(id) || replaced.some((e) => e.id === id)) continue;
          const e = entry(id, counts());
          replaced.push(e);
          next.set(id, e);
        }
        const additions = rng.int(0, 20);
        for (let k = 0; k < additions; k++) {
          const id = idOf(Math.min(2999, region + rng.int(0, 40)));
          if (next.has(id) || model.has(id)) continue;
          const e = entry(id, counts());
          added.push(e);
          next.set(id, e);
        }
        order = order.with(removed, replaced, added);
        model = next;
        const probes = [idOf(region), idOf(0), idOf(3000), ...[...model.keys()].slice(0, 5)];
        for (let k = 0; k < 10; k++) probes.push(idOf(rng.int(0, 3000)));
        expectMatches(order, [...model.values()], probes);
        if (step % 30 === 0) snapshots.push({ order, model: [...model.values()] });
      }
      // Earlier snapshots still hold what they held.
      for (const s of snapshots) expectMatches(s.order, s.model, [idOf(100), idOf(1500)]);
    }
  });
});
