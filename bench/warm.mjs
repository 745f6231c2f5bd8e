// Warm timings of one case: the same process runs the operation again and again (JIT done,
// caches filled), as a long-lived controller would. Own loop rather than mitata: each sample
// needs CPU time beside wall time (this machine is shared; CPU time is what survives a busy
// neighbour), and a fixed, small sample count keeps the 50k cases to minutes.
//   node bench/warm.mjs CASE [SAMPLES] [MAX_SECONDS]
// Prints one `@@RESULT {json}` line with every sample in ms.
import { writeSync } from "node:fs";
import { setupCase } from "./cases.mjs";
import { loadLibrary } from "./load.mjs";

const [id, samplesArg = "10", maxSecondsArg = "60"] = process.argv.slice(2);
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
  // Untimed: a full collection, so that every sample starts from the same heap. Without it
  // the garbage of earlier samples piles up in the old generation (V8 puts off a full
  // collection while the heap has room) and later samples pay for it at random: the 50k model's
  // one-shot generation took 1.4 s in its first warm sample and 3 s by the fourth.
  globalThis.gc?.();
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const first = await once(); // the first, cold generation is not a warm sample
const wall = [];
const cpu = [];
const deadline = performance.now() + Number(maxSecondsArg) * 1000;
// At least 3 samples; more up to SAMPLES while time allows.
while (wall.length < Number(samplesArg) && (wall.length < 3 || performance.now() < deadline)) {
  const s = await once();
  wall.push(s.wall);
  cpu.push(s.cpu);
}
writeSync(1, `@@RESULT ${JSON.stringify({ id, first, wall, cpu })}\n`);
