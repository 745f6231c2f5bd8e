// A one-line progress display on stderr for the few long stages of a run (reading a large dump,
// generating rules for thousands of Services, comparing): each stage replaces the line, and the
// line is cleared before anything else is written, so that it never mixes with output or
// messages. It is drawn only on a terminal: a log file or a pipe gets nothing.

/** Where the progress line is drawn: stderr, or a stand-in in tests. */
export interface ProgressTarget {
  /** Writes text as it is. */
  write(text: string): unknown;
  /** Whether the target is a terminal; nothing is drawn otherwise. */
  readonly isTTY?: boolean;
  /** The terminal's width: a longer line is cut, as a wrapped line cannot be cleared with `\r`. */
  readonly columns?: number;
}

/** The progress line of one run. */
export interface Progress {
  /** Shows `kube-iptables: MESSAGE…` in place of the previous stage's line. */
  show(message: string): void;
  /** Clears the line, if one is shown. */
  clear(): void;
}

/**
 * A progress line on `target`, drawn when `enabled` and the target is a terminal. Each call
 * writes a few bytes: stages are shown, not items, so the cost is nil next to the work.
 *
 * @example
 * const progress = createProgress(process.stderr, true);
 * progress.show("reading big.json"); // "kube-iptables: reading big.json…" on a terminal
 * progress.clear();                  // the line is blank again
 */
export function createProgress(target: ProgressTarget, enabled: boolean): Progress {
  if (!enabled || target.isTTY !== true) return { show() {}, clear() {} };
  let shown = 0;
  const clear = (): void => {
    // Spaces rather than an erase sequence: any terminal, even TERM=dumb, clears with them.
    if (shown > 0) target.write(`\r${" ".repeat(shown)}\r`);
    shown = 0;
  };
  return {
    show(message) {
      // A terminal of unknown size (a pseudo-terminal nobody sized) reports 0 columns.
      const columns = target.columns !== undefined && target.columns > 0 ? target.columns : 80;
      const width = Math.max(columns - 1, 10);
      let line = `kube-iptables: ${message}…`;
      if (line.length > width) line = `${line.slice(0, width - 1)}…`;
      const blank = shown > line.length ? " ".repeat(shown - line.length) : "";
      target.write(`\r${line}${blank}${blank === "" ? "" : `\r${line}`}`);
      shown = line.length;
    },
    clear,
  };
}

/**
 * A count as it reads in a message: `10,000` (digits grouped, whatever the locale).
 *
 * @example
 * formatCount(10000) // "10,000"
 */
export function formatCount(n: number): string {
  // By hand for whole numbers: the first toLocaleString loads ICU's locale data, ≈ 25-50 ms of
  // CPU for one progress message of a run that prints no other localized text.
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}
