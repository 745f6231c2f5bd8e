// Where a cold run's CPU goes beyond the work itself: the library's `generateRestoreText` and the
// minimal writer (bench/minimal-writer.mjs) on the 10k × 10 model, each in fresh processes taken
// in turn, measured three ways:
// - cold: the first call in the process (what the issue-21 yardstick compares);
// - warm JIT, cold names: later calls in the same process, each on a copy of the model whose
//   namespaces are renamed, so that every chain name is hashed again (no cache can answer) while
//   the code is already optimized;
// - TurboFan: the time V8's optimizing compiler spent during the cold call (from --trace-opt,
//   "completed compiling … took A, B, C ms", summed). It runs on a background thread, so the
//   process's CPU time (user + system, all threads) includes it and wall time mostly does not.
//   On a busy machine the figure is that thread's wall time, inflated like any wall time.
//   node bench/jit.mjs [--runs N] [--warm N]
// Prints a table; writes nothing.

const MARK = "@@JIT ";

if (process.argv[2] === "--child") await child(process.argv[3], Number(process.argv[4]));
else await parent();

/** CPU ms of `f()`, user + system, all threads of the process. */
function cpuOf(f) {
  const c0 = process.cpuUsage();
  const out = f();
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, out };
}

async function child(kind, warmRuns) {
  const { writeSync } = await import("node:fs");
  const { loadLibrary, readClusterInput } = await import("./load.mjs");
  const { writeMinimalRestoreText } = await import("./minimal-writer.mjs");
  const lib = await loadLibrary();
  const input = readClusterInput("bench-clusterip-10000");
  // Copies of the model with every namespace renamed: the same work, names never seen before.
  const renamed = (k) => ({
    config: input.config,
    services: input.services.map((s) => ({
      ...s,
      metadata: { ...s.metadata, namespace: `${s.metadata.namespace}-${k}` },
    })),
    endpointSlices: input.endpointSlices.map((s) => ({
      ...s,
      metadata: { ...s.metadata, namespace: `${s.metadata.namespace}-${k}` },
    })),
  });
  const models = [];
  for (let k = 0; k <= warmRuns; k++) {
    const i = k === 0 ? input : renamed(k);
    models.push(lib.buildModel(i.services, i.endpointSlices, lib.resolveConfig(i.config)));
  }
  const run = kind === "library" ? (m) => lib.generateRestoreText(m) : (m) => writeMinimalRestoreText(m);
  globalThis.gc?.();
  writeSync(1, "@@BEGIN\n");
  const cold = cpuOf(() => run(models[0]));
  writeSync(1, "@@END\n");
  const warm = [];
  for (let k = 1; k <= warmRuns; k++) warm.push(cpuOf(() => run(models[k])).ms);
  writeSync(1, `${MARK}${JSON.stringify({ cold: cold.ms, warm, bytes: cold.out.length })}\n`);
}

async function parent() {
  const { spawnSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const { parseArgs } = await import("node:util");
  const { loadavg } = await import("node:os");
  const { median } = await import("./stats.mjs");
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "5" }, warm: { type: "string", default: "4" } },
  });
  const self = fileURLToPath(import.meta.url);
  const kinds = ["library", "minimal"];
  const samples = Object.fromEntries(kinds.map((k) => [k, []]));
  const load = [loadavg()[0]];
  for (let i = 0; i < Number(values.runs); i++) {
    for (const kind of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const r = spawnSync(
        process.execPath,
        ["--expose-gc", "--trace-opt", self, "--child", kind, values.warm],
        { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 },
      );
      if (r.status !== 0) throw new Error(`${kind} failed (${r.status}): ${r.stderr}`);
      const lines = r.stdout.split("\n");
      const begin = lines.indexOf("@@BEGIN");
      const end = lines.indexOf("@@END");
      let compile = 0;
      for (const line of lines.slice(begin, end)) {
        const m = /completed compiling .* took ([\d.]+), ([\d.]+), ([\d.]+) ms/.exec(line);
        if (m !== null) compile += Number(m[1]) + Number(m[2]) + Number(m[3]);
      }
      const result = JSON.parse(lines.find((l) => l.startsWith(MARK)).slice(MARK.length));
      samples[kind].push({ cold: result.cold, warm: median(result.warm), compile });
    }
    load.push(loadavg()[0]);
  }
  const med = (kind, key) => median(samples[kind].map((s) => s[key]));
  console.log(`load average (1 min) ${load.map((l) => l.toFixed(1)).join(" ")}`);
  console.log(
    "CPU ms, medians of",
    values.runs,
    "processes each (warm: median of",
    values.warm,
    "calls per process)",
  );
  console.log(`${"".padEnd(34)}${"library".padStart(9)}${"minimal".padStart(9)}${"ratio".padStart(8)}`);
  for (const [key, label] of [
    ["cold", "cold (first call)"],
    ["warm", "warm JIT, names never seen"],
    ["compile", "TurboFan during the cold call"],
  ]) {
    const a = med("library", key);
    const b = med("minimal", key);
    console.log(
      `${label.padEnd(34)}${a.toFixed(0).padStart(9)}${b.toFixed(0).padStart(9)}${(a / b).toFixed(2).padStart(8)}`,
    );
  }
}
