// The long injection fuzz run: `npm run fuzz` (builds dist/ first), or
//   node test/fuzz/run.mjs [--cases N] [--seed S] [--workers W]
// Runs the property of test/fuzz/injection.ts N times (default 1,000,000) against the built
// library in dist/, split over worker threads in chunks; prints the count and the seed, and on a
// failure the chunk's seed, fast-check's path and the counterexample, which reproduce it with
//   fc.check(property, { seed, path }) (or `--seed S --workers 1` for the whole run).
// The oracle (parser, tokenizer, canonicalizer) comes from src/, bundled with esbuild along with
// the property itself, since the public API does not export it.
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BUNDLE = join(ROOT, "node_modules", ".cache", "kube-iptables-fuzz", "injection.mjs");
/** Cases per chunk: small enough for steady progress, large enough to amortize the overhead. */
const CHUNK = 5_000;
/** One quoting case per this many injection cases (the quoting property is much cheaper). */
const QUOTING_RATIO = 4;

if (isMainThread) await main();
else await work();

async function main() {
  const { values } = parseArgs({
    options: { cases: { type: "string" }, seed: { type: "string" }, workers: { type: "string" } },
  });
  const cases = Number(values.cases ?? 1_000_000);
  // A fresh seed each run unless given: the long run is for finding new inputs.
  const seed = Number(values.seed ?? Math.floor(Math.random() * 0x7fffffff));
  const workers = Math.max(1, Number(values.workers ?? availableParallelism()));
  if (!Number.isSafeInteger(cases) || cases < 1 || !Number.isSafeInteger(seed)) {
    console.error("usage: node test/fuzz/run.mjs [--cases N] [--seed S] [--workers W]");
    process.exit(1);
  }
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [join(ROOT, "test", "fuzz", "injection.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: BUNDLE,
    logLevel: "error",
  });
  console.log(`injection fuzz: ${cases} cases, seed ${seed}, ${workers} workers, library dist/`);

  const chunks = [];
  for (let start = 0, i = 0; start < cases; start += CHUNK, i++)
    chunks.push({ seed: seed + i, runs: Math.min(CHUNK, cases - start) });
  const totals = { refused: 0, "partly-left-out": 0, accepted: 0, quoting: 0 };
  let done = 0;
  let failed = false;
  const started = Date.now();
  const pool = Array.from({ length: Math.min(workers, chunks.length) }, () => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { bundle: BUNDLE, root: ROOT } });
    return new Promise((resolve) => {
      const next = () => {
        const chunk = failed ? undefined : chunks.shift();
        if (chunk === undefined) {
          void worker.terminate().then(resolve);
          return;
        }
        worker.postMessage(chunk);
      };
      worker.on("message", (m) => {
        if (m.failure !== undefined) {
          failed = true;
          console.error(`FAILED in chunk seed ${m.seed}:\n${m.failure}`);
        } else {
          for (const k of Object.keys(totals)) totals[k] += m.outcomes[k];
          done += m.runs;
          if (done % 100_000 < CHUNK || done === cases) {
            const s = ((Date.now() - started) / 1000).toFixed(0);
            console.log(`  ${done} cases (${s} s): ${JSON.stringify(totals)}`);
          }
        }
        next();
      });
      worker.on("error", (e) => {
        failed = true;
        console.error(e);
        resolve();
      });
      next();
    });
  });
  await Promise.all(pool);
  if (failed) {
    console.error(`injection fuzz FAILED after ${done} passing cases, seed ${seed}`);
    process.exit(1);
  }
  console.log(`injection fuzz passed: ${done} cases (+${totals.quoting} quoting cases), seed ${seed}`);
}

async function work() {
  const fc = (await import("fast-check")).default;
  const fuzz = await import(pathToFileURL(workerData.bundle).href);
  // The main entry and kube-iptables/util (quoteArgument lives there).
  const lib = {
    ...(await import(pathToFileURL(join(workerData.root, "dist", "util.js")).href)),
    ...(await import(pathToFileURL(join(workerData.root, "dist", "index.js")).href)),
  };
  parentPort.on("message", ({ seed, runs }) => {
    const outcomes = { refused: 0, "partly-left-out": 0, accepted: 0, quoting: 0 };
    const property = fc.property(fuzz.injectionCaseArbitrary, (c) => {
      outcomes[fuzz.checkInjection(lib, fuzz.buildInjected(c))]++;
    });
    const quoting = fc.property(fuzz.argvArbitrary, (argv) => {
      fuzz.checkQuoting(lib, argv);
      outcomes.quoting++;
    });
    for (const [p, n] of [
      [property, runs],
      [quoting, Math.ceil(runs / QUOTING_RATIO)],
    ]) {
      const details = fc.check(p, { seed, numRuns: n });
      if (details.failed) {
        parentPort.postMessage({ seed, failure: fc.defaultReportMessage(details) });
        return;
      }
    }
    parentPort.postMessage({ seed, runs, outcomes });
  });
}
