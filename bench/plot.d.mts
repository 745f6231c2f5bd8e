/** The SVG text of bench/scaling.svg for a results object as bench/run.mjs writes it. */
export declare function drawPlot(results: unknown): string;
