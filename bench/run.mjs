// The benchmark suite: every case of cases.mjs, against the built dist/ (`npm run bench` builds
// first). Cold runs are fresh child processes; warm runs loop in one child; one more child with
// --trace-gc measures peak heap growth. Writes bench/results.json, then bench/scaling.svg and
// bench/RESULTS.md.
//   node bench/run.mjs [--only REGEX] [--resume] [--quick]
// (`--only cli-floor` runs only the CLI-process comparison of bench/cli-floor.mjs.)
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { caseIds, caseInfo, runOrder, skipReason } from "./cases.mjs";
import { BENCH_DIR, libraryPath, loadLibrary, ROOT } from "./load.mjs";
import { drawPlot } from "./plot.mjs";
import { writeReport } from "./report.mjs";
import { peakHeap, summarize } from "./stats.mjs";
import { tidy } from "./tidy.mjs";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    // Keep the measured cases of bench/results.json and run only the others.
    resume: { type: "boolean", default: false },
  },
});
// Small models get more runs; from 5,000 services one run takes seconds on a busy 2-core box.
const COLD_RUNS = values.quick ? 2 : 5;
const WARM_SAMPLES = values.quick ? 3 : 10;
const LARGE_COLD_RUNS = values.quick ? 1 : 3;
const LARGE_WARM_SAMPLES = values.quick ? 3 : 5;
// 50,000 services: one run is tens of seconds here.
const HUGE_COLD_RUNS = values.quick ? 1 : 2;
// Incremental updates take about a millisecond: five samples of them make a median that one
// collection can move several-fold, and a hundred cost nothing.
const INCREMENTAL_OPS = new Set(["update-endpoint", "add-service", "remove-service"]);
const INCREMENTAL_WARM_SAMPLES = values.quick ? 10 : 100;
// Back-to-back cold runs of the 10k and 50k models, for their ratio (see the end).
const PAIRS = values.quick ? 1 : 3;

// Other people rebuild dist/ while the suite runs (tsup cleans it first): measure a private copy,
// kept under node_modules so that the build's bare imports (js-sha256, yaml…) still resolve.
const cacheDir = join(ROOT, "node_modules", ".cache");
mkdirSync(cacheDir, { recursive: true });
const snapshot = mkdtempSync(join(cacheDir, "kube-iptables-bench-"));
cpSync(dirname(libraryPath()), snapshot, { recursive: true });
const env = { ...process.env, KI_DIST: join(snapshot, basename(libraryPath())) };
process.env.KI_DIST = env.KI_DIST;
const lib = await loadLibrary();

function child(script, args, nodeFlags = []) {
  const r = spawnSync(process.execPath, ["--expose-gc", ...nodeFlags, join(BENCH_DIR, script), ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 15 * 60 * 1000,
  });
  const line = r.stdout?.split("\n").find((l) => l.startsWith("@@RESULT "));
  if (r.status !== 0 || line === undefined) {
    throw new Error(
      `${script} ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr?.slice(-2000)}`,
    );
  }
  return { result: JSON.parse(line.slice(9)), stdout: r.stdout };
}

function measureCase(id) {
  const info = caseInfo(id);
  const large = info.services >= 5000 || info.model.endsWith("x100") || info.model.endsWith("x1000");
  const coldRuns = info.services >= 50000 ? HUGE_COLD_RUNS : large ? LARGE_COLD_RUNS : COLD_RUNS;
  // The first cold run also traces GC for the heap figures (a few hundred lines of output cost
  // far less than the run's own noise).
  const traced = child("cold.mjs", [id], ["--trace-gc"]);
  const { peak, collections } = peakHeap(traced.stdout, traced.result.heapAfter);
  const cold = [traced.result];
  while (cold.length < coldRuns) cold.push(child("cold.mjs", [id]).result);
  const samples = INCREMENTAL_OPS.has(info.op)
    ? INCREMENTAL_WARM_SAMPLES
    : large
      ? LARGE_WARM_SAMPLES
      : WARM_SAMPLES;
  const warm = child("warm.mjs", [id, String(samples), "30"]).result;
  const { id: _id, ms: _ms, cpuMs: _cpu, heapBefore: _b, heapAfter: _a, maxRSS: _r, ...output } = cold[0];
  return {
    ...info,
    cold: { wall: summarize(cold.map((c) => c.ms)), cpu: summarize(cold.map((c) => c.cpuMs)) },
    warm: { wall: summarize(warm.wall), cpu: summarize(warm.cpu), firstWall: warm.first.wall },
    heap: {
      peakGrowth: peak - traced.result.heapBefore,
      retained: traced.result.heapAfter - traced.result.heapBefore,
      collections,
      maxRSS: Math.max(...cold.map((c) => c.maxRSS)),
    },
    output,
  };
}

function git(args) {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

// Read when the build is copied, not when results are written: src/ may change during the run
// without changing what is measured.
const dirtyAtStart = git(["status", "--porcelain", "--untracked-files=no", "src"]) !== "";
const only = values.only === undefined ? null : new RegExp(values.only);
const started = new Date();
const loadBefore = loadavg();
const RESULTS = join(BENCH_DIR, "results.json");
// With --only, the other cases keep their earlier results; with --resume, the measured ones do.
const previous =
  (only !== null || values.resume) && existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, "utf8")) : null;
const keep = (c) => (values.resume ? c.skip === undefined && c.error === undefined : !only.test(c.id));
const earlier = previous === null ? [] : previous.cases.filter(keep);
const done = new Set(earlier.map((c) => c.id));
const cases = [];
/** The back-to-back 10k/50k cold runs, once measured (see the end). */
let pairs = null;
/** The CLI processes beside the JSON floor (bench/cli-floor.mjs), once measured. */
let cliFloor = null;
process.on("exit", () => rmSync(snapshot, { recursive: true, force: true }));

function save(complete) {
  const order = caseIds();
  const all = [...earlier, ...cases].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const results = {
    date: started.toISOString(),
    commit: git(["rev-parse", "--short", "HEAD"]),
    // Uncommitted changes are the norm here (the lead commits): say so rather than pretend.
    dirty: dirtyAtStart,
    complete,
    machine: {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      freeMemoryGiB: Math.round(freemem() / 2 ** 30),
      platform: `${platform()} ${release()}`,
      node: process.version,
      loadAverage: { start: loadBefore, end: loadavg() },
    },
    settings: {
      coldRuns: COLD_RUNS,
      warmSamples: WARM_SAMPLES,
      largeColdRuns: LARGE_COLD_RUNS,
      largeWarmSamples: LARGE_WARM_SAMPLES,
      incrementalWarmSamples: INCREMENTAL_WARM_SAMPLES,
      hugeColdRuns: HUGE_COLD_RUNS,
      quick: values.quick,
    },
    cases: all,
    ...(pairs === null ? (previous?.pairs === undefined ? {} : { pairs: previous.pairs }) : { pairs }),
    ...(cliFloor === null
      ? previous?.cliFloor === undefined
        ? {}
        : { cliFloor: previous.cliFloor }
      : { cliFloor }),
  };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(BENCH_DIR, "scaling.svg"), drawPlot(results));
  writeReport(results);
  tidy(["bench/results.json", "bench/RESULTS.md"]);
}

for (const id of runOrder()) {
  if ((only !== null && !only.test(id)) || done.has(id)) continue;
  const skip = skipReason(lib, id);
  if (skip !== null) {
    console.log(`skip  ${id}: ${skip}`);
    cases.push({ ...caseInfo(id), skip });
    continue;
  }
  const t0 = performance.now();
  let c;
  try {
    c = measureCase(id);
  } catch (error) {
    // One broken case must not cost the rest of a long run.
    console.log(`error ${id}: ${String(error.message).slice(0, 300)}`);
    cases.push({
      ...caseInfo(id),
      skip: `failed: ${String(error.message).split("\n")[0].slice(0, 200)}`,
      error: true,
    });
    save(false);
    continue;
  }
  cases.push(c);
  const f = (x) => x.toFixed(1).padStart(8);
  console.log(
    `${id.padEnd(40)} cold ${f(c.cold.wall.median)} ms (cpu ${f(c.cold.cpu.median)})  warm ${f(c.warm.wall.median)} ms (cpu ${f(c.warm.cpu.median)})  heap +${(c.heap.peakGrowth / 2 ** 20).toFixed(0)} MiB  [${((performance.now() - t0) / 1000).toFixed(0)} s]`,
  );
  // After every case, so that an interrupted run keeps what it measured.
  save(false);
}
// The 50k/10k ratio, measured in pairs: the two cases' medians above are taken minutes apart on
// a shared machine whose speed drifts by a third, which moves their quotient as much as the
// code does. Here each 50k cold run follows a 10k one at once, and the ratio is taken per pair.
const PAIR_IDS = ["restore:bench-clusterip-10000", "restore:bench-clusterip-50000"];
if (only === null || PAIR_IDS.some((id) => only.test(id))) {
  const runs = [];
  for (let i = 0; i < PAIRS; i++) {
    const [ten, fifty] = PAIR_IDS.map((id) => child("cold.mjs", [id]).result);
    runs.push({ ten: { wall: ten.ms, cpu: ten.cpuMs }, fifty: { wall: fifty.ms, cpu: fifty.cpuMs } });
    console.log(`pair ${i + 1}: 10k ${ten.ms.toFixed(0)} ms, 50k ${fifty.ms.toFixed(0)} ms`);
  }
  pairs = { ids: PAIR_IDS, runs };
}
// The CLI as a process beside its floor (a process that only reads and JSON.parses the file),
// run in turn: bench/cli-floor.mjs writes bench/cli-floor.json.
if (only === null || only.test("cli-floor")) {
  execFileSync(process.execPath, [join(BENCH_DIR, "cli-floor.mjs"), "--runs", String(values.quick ? 2 : 5)], {
    cwd: ROOT,
    env,
    stdio: "inherit",
  });
  cliFloor = JSON.parse(readFileSync(join(BENCH_DIR, "cli-floor.json"), "utf8"));
}
save(true);
console.log("wrote bench/results.json, bench/scaling.svg, bench/RESULTS.md");
