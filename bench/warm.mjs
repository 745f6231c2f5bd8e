// Warm timings of one case: the same process runs the operation again and again (JIT done,
// caches filled), as a long-lived controller would. Own loop rather than mitata: each sample
// needs CPU time beside wall time (this machine is shared; CPU time is what survives a busy
// neighbour), and a fixed, small sample count keeps the 50k cases to minutes.
//   node bench/warm.mjs CASE [SAMPLES] [MAX_SECONDS] [MIN_SAMPLES]
// Prints one `@@RESULT {json}` line with every sample in ms.
import { writeSync } from "node:fs";
import { setupCase } from "./cases.mjs";
import { loadLibrary } from "./load.mjs";

const [id, samplesArg = "10", maxSecondsArg = "60", minSamplesArg = "3"] = process.argv.slice(2);
const lib = await loadLibrary();
const bench = setupCase(lib, id);
const state = await bench.prepare();

async function once() {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const output = bench.run(state);
  // Only an asynchronous case (the CLI's main) pays for an await.
  if (typeof output?.then === "function") await output;
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  bench.reset?.(state); // untimed: puts an incremental engine back before the next change
  // No forced collection between samples: V8 collects when a long-lived process would. Forcing
  // one (tried) spared the 50k one-shot generation the garbage of earlier samples (1.4 s against
  // 2.5–3 s) but moved full-collection work into the samples of mid-sized cases (10k validated
  // objects → model 103 → 140 ms, 10k resync 67 → 84 ms).
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const first = await once(); // the first, cold generation is not a warm sample
const wall = [];
const cpu = [];
const deadline = performance.now() + Number(maxSecondsArg) * 1000;
// At least MIN_SAMPLES; more up to SAMPLES while time allows.
while (
  wall.length < Number(samplesArg) &&
  (wall.length < Number(minSamplesArg) || performance.now() < deadline)
) {
  const s = await once();
  wall.push(s.wall);
  cpu.push(s.cpu);
}
writeSync(1, `@@RESULT ${JSON.stringify({ id, first, wall, cpu })}\n`);
