// One cold run of one case in this fresh process: nothing of the library has run yet (no JIT,
// empty hash caches). Run by run.mjs as `node --expose-gc [--trace-gc] bench/cold.mjs CASE`;
// prints `@@BEGIN`/`@@END` around the timed call (so run.mjs can read the --trace-gc lines in
// between) and one `@@RESULT {json}` line.
import { createHash } from "node:crypto";
import { writeSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { setupCase } from "./cases.mjs";
import { loadLibrary } from "./load.mjs";

const id = process.argv[2];
const lib = await loadLibrary();
const bench = setupCase(lib, id);
// A case may prepare and run asynchronously (the CLI's main); the clock stops once it settles.
const state = await bench.prepare();
globalThis.gc?.();
const heapBefore = getHeapStatistics().used_heap_size;
// Synchronous writes keep the markers in order with V8's --trace-gc lines on the same fd.
writeSync(1, "@@BEGIN\n");
const c0 = process.cpuUsage();
const t0 = performance.now();
let output = bench.run(state);
if (typeof output?.then === "function") output = await output;
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
writeSync(1, "@@END\n");
const heapAfter = getHeapStatistics().used_heap_size;
const result = {
  id,
  ms,
  cpuMs: (cpu.user + cpu.system) / 1000,
  heapBefore,
  heapAfter,
  maxRSS: process.resourceUsage().maxRSS * 1024,
  ...bench.describe(output),
  // run.mjs's alternations of two ways to the same text compare the bytes (after the clock).
  ...(process.env.BENCH_DIGEST === "1" && typeof output === "string"
    ? { digest: createHash("sha256").update(output).digest("hex") }
    : {}),
};
writeSync(1, `@@RESULT ${JSON.stringify(result)}\n`);
