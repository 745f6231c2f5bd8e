// The CLI as a user runs it, against the floor under it: `kube-iptables generate FILE` of the
// 10k × 10 model as a fresh `node` process (start-up, module loading, read, parse, validation,
// model, generation, write to a pipe), beside a process that only reads the same file and
// JSON.parses it. The three are run in turn (floor, restore, save, floor, …), so that a shared
// machine's drift falls on all of them alike; CPU time (user + system, start-up included) is
// the figure compared, wall time is shown beside it. Writes bench/cli-floor.json.
//   node bench/cli-floor.mjs [--runs N] [--model NAME]
// Also run as a child of itself: `--child floor|cli FILE [CLI ARGS…]`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { libraryPath, ROOT } from "./load.mjs";
import { summarize } from "./stats.mjs";

const SELF = fileURLToPath(import.meta.url);
const CPU_MARK = "@@CPU ";

if (process.argv[2] === "--child") {
  // The process's own CPU time since it started, written once it is done (stdout may be a pipe
  // still draining: the figure goes to stderr on exit).
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    process.stderr.write(`${CPU_MARK}${(user + system) / 1000}\n`);
  });
  const [, , , what, ...args] = process.argv;
  if (what === "floor") {
    JSON.parse(readFileSync(args[0], "utf8"));
  } else {
    const { main } = await import(pathToFileURL(join(dirname(libraryPath()), "cli.js")).href);
    process.exitCode = await main(args);
  }
} else {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      model: { type: "string", default: "bench-clusterip-10000" },
    },
  });
  const runs = Number(values.runs);
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-cli-floor-"));
  const file = join(dir, `${values.model}.json`);
  writeFileSync(
    file,
    gunzipSync(readFileSync(join(ROOT, "test", "fixtures", "bench", `${values.model}.json.gz`))),
  );
  const kinds = {
    floor: ["floor", file],
    restore: ["cli", "generate", file, "--format", "restore"],
    save: ["cli", "generate", file],
  };
  const samples = { floor: [], restore: [], save: [] };
  const load = [loadavg()[0]];
  try {
    for (let i = 0; i < runs; i++) {
      for (const [kind, args] of Object.entries(kinds)) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, [SELF, "--child", ...args], {
          cwd: ROOT,
          encoding: "utf8",
          maxBuffer: 256 * 1024 * 1024,
        });
        const wall = performance.now() - t0;
        const line = r.stderr.split("\n").find((l) => l.startsWith(CPU_MARK));
        if (r.status !== 0 || line === undefined)
          throw new Error(`${kind} failed (${r.status}): ${r.stderr}`);
        samples[kind].push({ cpu: Number(line.slice(CPU_MARK.length)), wall, bytes: r.stdout.length });
      }
      load.push(loadavg()[0]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = summarize(samples.floor.map((s) => s.cpu)).median;
  const result = { model: values.model, runs, date: new Date().toISOString(), loadAverage: load, cases: {} };
  for (const [kind, list] of Object.entries(samples)) {
    const cpus = list.map((s) => s.cpu);
    const cpu = { ...summarize(cpus), min: Math.min(...cpus), max: Math.max(...cpus) };
    const wall = summarize(list.map((s) => s.wall));
    result.cases[kind] = { cpu, wall, ratio: cpu.median / floor };
    console.log(
      `${kind.padEnd(8)} cpu ${cpu.median.toFixed(0).padStart(5)} ms (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)})` +
        `  wall ${wall.median.toFixed(0).padStart(5)} ms  ${(cpu.median / floor).toFixed(2)}× the floor`,
    );
  }
  writeFileSync(join(ROOT, "bench", "cli-floor.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log("wrote bench/cli-floor.json");
}
