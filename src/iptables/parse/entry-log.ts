/**
 * The entries of a table block as the parser records them: one record per line read, or one per
 * run of `-A` lines it read as an expected text's (see `ParseOptions.expected`). A node's dump
 * read against its cluster's text is nearly all such runs, and a diff of the two then needs no
 * entry by number: the runs are cut into entries only when something asks for one.
 *
 * @module
 */

import { IntList } from "../../int-list.js";
import type { Entry } from "../../ir/types.js";

/** The entries of a {@link EntryLog}, one by one. */
export interface LoggedEntries {
  /** Per entry: the entry built as it was read, or `null` (built from its line on demand). */
  readonly entries: (Entry | null)[];
  /** Per entry: where its line's `CHAIN ARGS` start in the text (-1: built). */
  readonly starts: Int32Array;
  /** Per entry: where its line ends. */
  readonly ends: Int32Array;
  /** Per entry: its 1-based line. */
  readonly lines: number[];
}

/** The records of one table block's entries. */
export class EntryLog {
  /** The entries built as they were read, and the record of each (other records are built on demand). */
  private readonly built: Entry[] = [];
  private readonly builtAt = new IntList();
  /** Per record: where its (first) line's `CHAIN ARGS` start (-1: built). */
  private readonly starts = new IntList(1024);
  /** Per record: where its (last) line ends. */
  private readonly ends = new IntList(1024);
  /** Per record: its (first) 1-based line. */
  private readonly firstLines = new IntList(1024);
  /** Per record: how many lines it is (a run's count, else 1). */
  private readonly counts = new IntList(1024);
  private size = 0;
  private expanded: LoggedEntries | null = null;

  /** Records an entry built as it was read, from `line`. */
  addBuilt(entry: Entry, line: number): void {
    this.builtAt.push(this.counts.length);
    this.built.push(entry);
    this.add(-1, -1, line, 1);
  }

  /** Records the line at `line` whose `CHAIN ARGS` are `[start, end)`, to build on demand. */
  addLine(start: number, end: number, line: number): void {
    this.add(start, end, line, 1);
  }

  /**
   * Records `count` consecutive `-A` lines from `line`: the first one's `CHAIN ARGS` start at
   * `start`, the last one ends at `end`, and none is longer than a line iptables-restore reads.
   */
  addRun(start: number, end: number, line: number, count: number): void {
    this.add(start, end, line, count);
  }

  private add(start: number, end: number, line: number, count: number): void {
    this.starts.push(start);
    this.ends.push(end);
    this.firstLines.push(line);
    this.counts.push(count);
    this.size += count;
  }

  /** The (first) line of each record. */
  lines(): Int32Array {
    return this.firstLines.view();
  }

  /** The entries built as they were read, when every record is one (no line was left to build). */
  allBuilt(): Entry[] | null {
    return this.built.length === this.counts.length ? this.built : null;
  }

  /** The entries one by one, the runs of `text` cut into lines (once). */
  entries(text: string): LoggedEntries {
    if (this.expanded !== null) return this.expanded;
    const n = this.size;
    // (Arrays are pushed: `new Array(n)` of tens of millions is a dictionary, slow to fill.)
    const entries: (Entry | null)[] = [];
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    const lines: number[] = [];
    let b = 0;
    for (let r = 0, e = 0; r < this.counts.length; r++) {
      const count = this.counts.at(r);
      const line = this.firstLines.at(r);
      if (count === 1) {
        entries.push(b < this.builtAt.length && this.builtAt.at(b) === r ? (this.built[b++] as Entry) : null);
        starts[e] = this.starts.at(r);
        ends[e] = this.ends.at(r);
        lines.push(line);
        e++;
        continue;
      }
      // A run: each line starts with `-A ` after the newline of the one before.
      let start = this.starts.at(r);
      for (let k = 0; k < count; k++) {
        const nl = k === count - 1 ? this.ends.at(r) : text.indexOf("\n", start);
        entries.push(null);
        starts[e] = start;
        ends[e] = nl;
        lines.push(line + k);
        e++;
        start = nl + 4;
      }
    }
    this.expanded = { entries, starts, ends, lines };
    return this.expanded;
  }
}
