/**
 * A list of 32-bit integers that grows as an array does, in one typed buffer. The parser keeps
 * a few numbers per line of a node's dump (millions at 50,000 services): arrays of that length
 * grown by `push` are copied into fresh memory again and again and scanned by the collector,
 * which made the cost per line grow with the dump.
 *
 * @module
 */

/** A growable list of int32 values. */
export class IntList {
  private data: Int32Array;
  /** How many values it holds. */
  length = 0;

  /** @param capacity - How many values it holds before it first grows. */
  constructor(capacity = 256) {
    this.data = new Int32Array(Math.max(capacity, 1));
  }

  /** Appends `value` (an int32). */
  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Appends the values of `values`. */
  pushAll(values: Int32Array): void {
    const end = this.length + values.length;
    if (end > this.data.length) this.grow(end);
    this.data.set(values, this.length);
    this.length = end;
  }

  /** Value `i` (0 ≤ i < length). */
  at(i: number): number {
    return this.data[i] as number;
  }

  /** Sets value `i` (0 ≤ i < length). */
  set(i: number, value: number): void {
    this.data[i] = value;
  }

  /** The values, a view of the buffer: valid until the next push. */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  private grow(needed: number): void {
    const next = new Int32Array(Math.max(needed, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }
}
