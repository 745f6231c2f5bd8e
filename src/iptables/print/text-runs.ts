/**
 * A chain's save text as it is printed: runs of whole lines (a run is the lines one writer gave
 * the chain in a row). Most chains get a single run, which is kept without a list.
 *
 * @module
 */

/**
 * The runs of one chain, in order.
 *
 * @example
 * const runs = new TextRuns();
 * runs.add("-A X -j ACCEPT\n");
 * const out: string[] = [];
 * runs.pushTo(out); // out: ["-A X -j ACCEPT\n"]
 */
export class TextRuns {
  /** The first run, or "". */
  first = "";
  /** The runs after the first, if any. */
  more: string[] | null = null;

  /** Whether it holds a run. */
  hasRuns(): boolean {
    return this.first !== "";
  }

  /** Adds a run (a non-empty string of whole lines). */
  add(run: string): void {
    if (this.first === "") this.first = run;
    else if (this.more === null) this.more = [run];
    else this.more.push(run);
  }

  /** Pushes its runs to `out`. */
  pushTo(out: string[]): void {
    if (this.first !== "") out.push(this.first);
    const more = this.more;
    if (more !== null) for (let i = 0; i < more.length; i++) out.push(more[i] as string);
  }

  /**
   * {@link pushTo}, then holds no run: what outlives the print (an indexed save text keeps its
   * chains) no longer keeps their text alive besides the joined whole.
   */
  moveTo(out: string[]): void {
    this.pushTo(out);
    this.first = "";
    this.more = null;
  }
}
