// The benchmark suite: every case of cases.mjs, against the built dist/ (`npm run bench` builds
// first). Cold runs are fresh child processes; warm runs loop in one child; one more child with
// --trace-gc measures peak heap growth. Then the alternations of cases.mjs (two cases in turn in
// fresh processes, for their quotient) and bench/cli-floor.mjs (the CLI beside read + parse).
// Writes bench/results.json, then bench/scaling.svg and bench/RESULTS.md. See bench/README.md.
//   node bench/run.mjs [--issue21] [--only REGEX] [--resume] [--quick]
// --issue21: only what the issue-21 targets and the scaling plot read (cases, alternations,
//   the CLI floor); the other cases keep their earlier results, marked with their run.
// --only REGEX: the cases, alternations (`ab:…`) and `cli-floor` whose id matches; the rest kept.
// --quick: fewer samples everywhere (for a timing estimate or a smoke run, not for the record).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { ALTERNATIONS, caseIds, caseInfo, issue21CaseIds, runOrder, skipReason } from "./cases.mjs";
import { BENCH_DIR, libraryPath, loadLibrary, ROOT } from "./load.mjs";
import { drawPlot } from "./plot.mjs";
import { writeReport } from "./report.mjs";
import { peakHeap, summarize } from "./stats.mjs";
import { tidy } from "./tidy.mjs";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    issue21: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    // Keep the measured cases of bench/results.json and run only the others.
    resume: { type: "boolean", default: false },
    // Rounds of every 10k alternation and processes of each CLI-floor kind (a bound read against
    // its limit wants more than the default 5: a median of 5 on this machine moves by a tenth).
    rounds: { type: "string" },
  },
});
const ROUNDS = values.rounds === undefined ? undefined : Number(values.rounds);
if (ROUNDS !== undefined && !(Number.isInteger(ROUNDS) && ROUNDS > 0))
  throw new Error("--rounds N: a positive integer");
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
// Rounds of each alternation (a, b in turn): the 10k ones take seconds a round, the 50k ones
// (a 50k run beside a 10k one) up to a minute.
const ALT_ROUNDS = ROUNDS ?? (values.quick ? 2 : 5);
const HUGE_ALT_ROUNDS = values.quick ? 1 : 3;
const CLI_FLOOR_RUNS = ROUNDS ?? (values.quick ? 2 : 5);
if (values.issue21 && values.only !== undefined) throw new Error("--issue21 and --only: choose one");

// Other people rebuild dist/ while the suite runs (tsup cleans it first): measure a private copy,
// kept under node_modules so that the build's bare imports (js-sha256, yaml…) still resolve.
const cacheDir = join(ROOT, "node_modules", ".cache");
mkdirSync(cacheDir, { recursive: true });
const snapshot = mkdtempSync(join(cacheDir, "kube-iptables-bench-"));
cpSync(dirname(libraryPath()), snapshot, { recursive: true });
// BENCH_FILES_DIR: the CLI cases' input files, written once per run for this build (cases.mjs).
const env = {
  ...process.env,
  KI_DIST: join(snapshot, basename(libraryPath())),
  BENCH_FILES_DIR: join(snapshot, "bench-files"),
};
process.env.KI_DIST = env.KI_DIST;
const lib = await loadLibrary();

function child(script, args, nodeFlags = [], extraEnv = {}) {
  const r = spawnSync(process.execPath, ["--expose-gc", ...nodeFlags, join(BENCH_DIR, script), ...args], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
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
  // At least 3 warm samples, more while within 30 s; the 50k CLI cases take a minute a run on a
  // busy machine, and a CLI is a one-shot process anyway: one sample there.
  const minSamples = info.services >= 50000 && info.op.startsWith("cli") ? 1 : 3;
  const warm = child("warm.mjs", [id, String(samples), "30", String(minSamples)]).result;
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
const issue21 = values.issue21 ? new Set(issue21CaseIds()) : null;
const started = new Date();
const loadBefore = loadavg();
/** Which run measured a result: every case, alternation and the CLI floor carries it. */
const thisRun = {
  date: started.toISOString(),
  commit: git(["rev-parse", "--short", "HEAD"]),
  dirty: dirtyAtStart,
};
const RESULTS = join(BENCH_DIR, "results.json");
const partial = only !== null || issue21 !== null;
// A partial run keeps the other results; --resume keeps the measured ones.
const previous =
  (partial || values.resume) && existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, "utf8")) : null;
// Results written before entries carried their run are stamped with their file's.
const previousRun =
  previous === null ? null : { date: previous.date, commit: previous.commit, dirty: previous.dirty === true };
const stamped = (x) => ({ ...x, run: x.run ?? previousRun });
/** Whether this run measures a case. */
const wantCase = (id) => (only !== null ? only.test(id) : issue21 !== null ? issue21.has(id) : true);
/** Whether this run measures an alternation or the CLI floor (`cli-floor`). */
const wantExtra = (id) => (only !== null ? only.test(id) : true);
const keep = (c) => !wantCase(c.id) || (values.resume && c.skip === undefined);
const earlier = previous === null ? [] : previous.cases.filter(keep).map(stamped);
const done = new Set(earlier.map((c) => c.id));
const cases = [];
// Results from before the alternations: the back-to-back 10k/50k restore runs were one.
if (previous !== null && previous.alternations === undefined && previous.pairs !== undefined) {
  previous.alternations = [
    {
      ...ALTERNATIONS.find((a) => a.id === "ab:restore-scaling"),
      runs: previous.pairs.runs.map((r) => ({ a: r.fifty, b: r.ten })),
    },
  ];
}
const earlierAlternations = (previous?.alternations ?? [])
  .filter((a) => ALTERNATIONS.some((x) => x.id === a.id))
  .filter((a) => !wantExtra(a.id) || (values.resume && a.skip === undefined))
  .map(stamped);
const alternations = [];
/** The CLI processes beside the JSON floor (bench/cli-floor.mjs), once measured. */
let cliFloor = previous?.cliFloor === undefined ? null : stamped(previous.cliFloor);
let cliFloorNow = false;
process.on("exit", () => rmSync(snapshot, { recursive: true, force: true }));

function save(complete) {
  const order = caseIds();
  const all = [...earlier, ...cases].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const altOrder = ALTERNATIONS.map((a) => a.id);
  const alts = [
    ...earlierAlternations.filter((a) => !alternations.some((x) => x.id === a.id)),
    ...alternations,
  ];
  alts.sort((a, b) => altOrder.indexOf(a.id) - altOrder.indexOf(b.id));
  const results = {
    date: thisRun.date,
    commit: thisRun.commit,
    // Uncommitted changes are the norm here (the lead commits): say so rather than pretend.
    dirty: dirtyAtStart,
    complete,
    // What this run measured; everything else came from earlier runs (each entry says which).
    scope:
      issue21 !== null
        ? "issue21"
        : only !== null
          ? `only ${values.only}`
          : values.resume
            ? "resume"
            : "full",
    rerun: [
      ...cases.filter((c) => c.skip === undefined).map((c) => c.id),
      ...alternations.map((a) => a.id),
      ...(cliFloorNow ? ["cli-floor"] : []),
    ],
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
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
      alternationRounds: ALT_ROUNDS,
      hugeAlternationRounds: HUGE_ALT_ROUNDS,
      quick: values.quick,
    },
    cases: all,
    alternations: alts,
    ...(cliFloor === null ? {} : { cliFloor }),
  };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(BENCH_DIR, "scaling.svg"), drawPlot(results));
  writeReport(results);
  tidy(["bench/results.json", "bench/RESULTS.md", "bench/cli-floor.json"]);
}

for (const id of runOrder()) {
  if (!wantCase(id) || done.has(id)) continue;
  const skip = skipReason(lib, id);
  if (skip !== null) {
    console.log(`skip  ${id}: ${skip}`);
    cases.push({ ...caseInfo(id), skip, run: thisRun });
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
      run: thisRun,
    });
    save(false);
    continue;
  }
  const seconds = (performance.now() - t0) / 1000;
  cases.push({ ...c, seconds: Math.round(seconds), run: thisRun });
  const f = (x) => x.toFixed(1).padStart(8);
  console.log(
    `${id.padEnd(40)} cold ${f(c.cold.wall.median)} ms (cpu ${f(c.cold.cpu.median)})  warm ${f(c.warm.wall.median)} ms (cpu ${f(c.warm.cpu.median)})  heap +${(c.heap.peakGrowth / 2 ** 20).toFixed(0)} MiB  [${seconds.toFixed(0)} s]`,
  );
  // After every case, so that an interrupted run keeps what it measured.
  save(false);
}

// Two cases in turn, each round in fresh processes (a then b, then b then a, …): the medians of
// two cases measured minutes apart on a machine whose speed drifts by a third move their
// quotient as much as the code does; here each round's quotient is taken at once.
for (const alt of ALTERNATIONS) {
  if (!wantExtra(alt.id) || (values.resume && earlierAlternations.some((a) => a.id === alt.id))) continue;
  const skip = skipReason(lib, alt.a) ?? skipReason(lib, alt.b);
  if (skip !== null) {
    console.log(`skip  ${alt.id}: ${skip}`);
    alternations.push({ ...alt, skip, run: thisRun });
    continue;
  }
  const huge = [alt.a, alt.b].some((id) => caseInfo(id).services >= 50000);
  const rounds = huge ? HUGE_ALT_ROUNDS : ALT_ROUNDS;
  const t0 = performance.now();
  const runs = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const round = {};
      for (const side of i % 2 === 0 ? ["a", "b"] : ["b", "a"]) {
        const r = child("cold.mjs", [alt[side]], [], alt.same ? { BENCH_DIGEST: "1" } : {}).result;
        round[side] = {
          wall: r.ms,
          cpu: r.cpuMs,
          bytes: r.bytes,
          ...(r.digest === undefined ? {} : { digest: r.digest }),
        };
      }
      if (alt.same && round.a.digest !== round.b.digest)
        throw new Error(
          `${alt.a} and ${alt.b} printed different bytes (${round.a.bytes} / ${round.b.bytes})`,
        );
      runs.push(round);
      console.log(
        `${alt.id} round ${i + 1}: a ${round.a.cpu.toFixed(0)} ms CPU, b ${round.b.cpu.toFixed(0)} ms CPU, a/b ${(round.a.cpu / round.b.cpu).toFixed(2)}`,
      );
    }
  } catch (error) {
    console.log(`error ${alt.id}: ${String(error.message).slice(0, 300)}`);
    alternations.push({
      ...alt,
      skip: `failed: ${String(error.message).split("\n")[0].slice(0, 200)}`,
      error: true,
      run: thisRun,
    });
    save(false);
    continue;
  }
  const seconds = Math.round((performance.now() - t0) / 1000);
  alternations.push({ ...alt, runs, seconds, run: thisRun });
  save(false);
}

// The CLI as a process beside its floor (a process that only reads and JSON.parses the file),
// run in turn: bench/cli-floor.mjs writes bench/cli-floor.json.
if (wantExtra("cli-floor")) {
  const t0 = performance.now();
  execFileSync(process.execPath, [join(BENCH_DIR, "cli-floor.mjs"), "--runs", String(CLI_FLOOR_RUNS)], {
    cwd: ROOT,
    env,
    stdio: "inherit",
  });
  const seconds = Math.round((performance.now() - t0) / 1000);
  cliFloor = {
    ...JSON.parse(readFileSync(join(BENCH_DIR, "cli-floor.json"), "utf8")),
    seconds,
    run: thisRun,
  };
  cliFloorNow = true;
}
save(true);
console.log(
  `wrote bench/results.json, bench/scaling.svg, bench/RESULTS.md (${((Date.now() - started.getTime()) / 60000).toFixed(1)} min)`,
);
