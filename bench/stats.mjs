// Small statistics shared by run.mjs and report.mjs.

/** Median (mean of the two middle values for an even count). */
export function median(values) {
  const a = [...values].sort((x, y) => x - y);
  const mid = a.length >> 1;
  return a.length % 2 === 1 ? a[mid] : (a[mid - 1] + a[mid]) / 2;
}

/** Nearest-rank percentile: with few samples p95 is simply the largest. */
export function percentile(values, p) {
  const a = [...values].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.ceil((p / 100) * a.length) - 1)];
}

/** `{ median, p95, min, max, n }` of a list of samples (min and max draw the plot's whiskers). */
export function summarize(values) {
  return {
    median: median(values),
    p95: percentile(values, 95),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

const GC_LINE =
  /(?:Scavenge|Mark-Compact|Mark-Sweep|Mark-sweep|Minor Mark-Compact|Minor Mark-Sweep)\s+([\d.]+) \(([\d.]+)\) -> ([\d.]+)/;

/**
 * Peak used heap (bytes) between the `@@BEGIN` and `@@END` markers of a child run with
 * --trace-gc: V8 prints the used size before every collection, so the largest of those and the
 * size at the end bound the peak from below far more tightly than sampling could (a synchronous
 * call leaves no turn to sample in).
 */
export function peakHeap(stdout, heapAfter) {
  const begin = stdout.indexOf("@@BEGIN\n");
  const end = stdout.indexOf("@@END\n");
  let peak = heapAfter;
  let collections = 0;
  for (const line of stdout.slice(begin, end).split("\n")) {
    const m = GC_LINE.exec(line);
    if (m === null) continue;
    collections++;
    peak = Math.max(peak, Number(m[1]) * 1024 * 1024);
  }
  return { peak, collections };
}
