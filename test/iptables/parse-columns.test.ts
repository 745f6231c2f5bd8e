// The parser's per-line columns: IntList (a growable int32 list) and EntryLog (records of lines
// and of runs, cut into entries on demand), checked against plain arrays over random input.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IntList } from "../../src/int-list.js";
import { EntryLog } from "../../src/iptables/parse/entry-log.js";

describe("IntList", () => {
  it("holds what an array would, across its growth", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.oneof(
            fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
            fc.array(fc.integer(), { maxLength: 40 }),
          ),
        ),
        (capacity, steps) => {
          const list = new IntList(capacity);
          const reference: number[] = [];
          for (const step of steps) {
            if (typeof step === "number") {
              list.push(step);
              reference.push(step);
            } else {
              const values = Int32Array.from(step);
              list.pushAll(values);
              reference.push(...values);
            }
          }
          expect(list.length).toBe(reference.length);
          expect([...list.view()]).toEqual(reference);
          for (const [i, v] of reference.entries()) expect(list.at(i)).toBe(v);
          if (reference.length > 0) {
            list.set(0, 7);
            expect(list.at(0)).toBe(7);
          }
        },
      ),
    );
  });
});

describe("EntryLog", () => {
  it("cuts runs into the entries their lines are, between lines and built entries", () => {
    // Line 1 is `*nat`; the log holds a built entry, a line, a run of three, and a line.
    const lines = ["*nat", "-N X", "-A X -j ACCEPT", "-A Y -j A", "-A Y -j B", "-A Y -j C", "-A X -j DROP"];
    const text = `${lines.join("\n")}\n`;
    const startOf = (line: number): number => lines.slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);
    const endOf = (line: number): number => startOf(line) + (lines[line - 1] as string).length;
    const log = new EntryLog();
    const built = { kind: "chain", op: "-N", chain: "X" } as const;
    log.addBuilt(built, 2);
    log.addLine(startOf(3) + 3, endOf(3), 3);
    log.addRun(startOf(4) + 3, endOf(6), 4, 3);
    log.addLine(startOf(7) + 3, endOf(7), 7);
    expect([...log.lines()]).toEqual([2, 3, 4, 7]);
    expect(log.allBuilt()).toBeNull();
    const entries = log.entries(text);
    expect(entries.lines).toEqual([2, 3, 4, 5, 6, 7]);
    expect(entries.entries).toEqual([built, null, null, null, null, null]);
    const spans = [...entries.starts].map((s, i) => text.slice(s, entries.ends[i]));
    expect(spans.slice(1)).toEqual(["X -j ACCEPT", "Y -j A", "Y -j B", "Y -j C", "X -j DROP"]);
    expect(log.entries(text)).toBe(entries);
  });

  it("gives the built entries themselves when every record is one", () => {
    const log = new EntryLog();
    const a = { kind: "chain", op: "-N", chain: "A" } as const;
    const b = { kind: "chain", op: "-X", chain: "A" } as const;
    log.addBuilt(a, 1);
    log.addBuilt(b, 2);
    expect(log.allBuilt()).toEqual([a, b]);
  });
});
