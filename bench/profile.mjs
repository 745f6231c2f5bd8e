// Where the time goes: runs one case (default restore of the 10k model) under V8's sampling
// profiler, only around the timed calls, and prints the top self-time functions with their
// src/*.ts file:line (via dist's source maps: build with `npx tsup --sourcemap` first; the
// published build has none, and without them dist's lines are shown). Also writes the raw .cpuprofile (open it in
// Chrome DevTools or speedscope) to the system temp folder.
// --warmup runs the case untimed first, so the profile shows the steady state; --warmup 0
// --runs 1 shows a cold run.
//   node bench/profile.mjs [CASE] [--warmup N] [--runs N] [--top N]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { setupCase } from "./cases.mjs";
import { loadLibrary, ROOT } from "./load.mjs";
import { loadSourceMap } from "./sourcemap.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    warmup: { type: "string", default: "1" },
    runs: { type: "string", default: "3" },
    top: { type: "string", default: "30" },
    "prepare-only": { type: "boolean", default: false },
  },
});
const id = positionals[0] ?? "restore:bench-clusterip-10000";
// The CLI cases write their input files (a node's dump: the library's own output) when they
// first need them. Written in this process, they would leave the library's chain-name memo
// full, and a "cold" profile would show no hashing: a child process writes them first, as
// run.mjs's first process of a run does for the ones after it.
if (process.env.BENCH_FILES_DIR === undefined) {
  const files = mkdtempSync(join(tmpdir(), "kube-iptables-profile-files-"));
  process.env.BENCH_FILES_DIR = files;
  process.on("exit", () => rmSync(files, { recursive: true, force: true }));
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), id, "--prepare-only"], {
    stdio: "inherit",
  });
}
const lib = await loadLibrary();
const bench = setupCase(lib, id);
const state = await bench.prepare();
if (values["prepare-only"]) process.exit(0);
// Cases with a `reset` (the incremental ones) must be reset after every run, or every run
// after the first would time an update that changes nothing. The reset is a one-object change
// back, the same kind of work, so it stays in the profile.
const runOnce = async () => {
  await bench.run(state);
  bench.reset?.(state);
};
for (let i = 0; i < Number(values.warmup); i++) await runOnce();

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const t0 = performance.now();
for (let i = 0; i < Number(values.runs); i++) await runOnce();
const wall = performance.now() - t0;
const { profile } = await session.post("Profiler.stop");
session.disconnect();
const file = join(tmpdir(), `kube-iptables-${id.replace(/[^\w-]/g, "_")}.cpuprofile`);
writeFileSync(file, JSON.stringify(profile));

const maps = new Map();
function where(frame) {
  if (!frame.url.startsWith("file://")) return frame.url === "" ? "(native)" : frame.url;
  const path = fileURLToPath(frame.url);
  if (!maps.has(path)) {
    try {
      maps.set(path, loadSourceMap(path));
    } catch {
      maps.set(path, null);
    }
  }
  const lookup = maps.get(path);
  const hit = lookup?.(frame.lineNumber, frame.columnNumber);
  if (hit) return `${relative(ROOT, hit.source)}:${hit.line}`;
  return `${relative(ROOT, path)}:${frame.lineNumber + 1}`;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Profiler.stop serializes the profile inside `session.post` ("dispatch"): not our time.
function isProfiler(id) {
  for (let x = id; x !== undefined; x = parent.get(x))
    if (byId.get(x).callFrame.url === "node:inspector") return true;
  return false;
}
const self = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  if (isProfiler(node.id)) continue;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const key = `${node.callFrame.functionName || "(anonymous)"}\t${where(node.callFrame)}`;
  self.set(key, (self.get(key) ?? 0) + dt);
}
const bySource = new Map();
for (const [key, us] of self) {
  const file = key.split("\t")[1].replace(/:\d+$/, "");
  bySource.set(file, (bySource.get(file) ?? 0) + us);
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(
  `${id}: ${values.runs} runs, ${wall.toFixed(0)} ms wall, ${(total / 1000).toFixed(0)} ms sampled; profile: ${file}\n`,
);
console.log("self time by function");
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  const [fn, loc] = key.split("\t");
  console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(6)} ms  ${fn.padEnd(32)} ${loc}`);
}
console.log("\nself time by file");
for (const [f, us] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
  console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(6)} ms  ${f}`);
}
