// The save text two ways, through built libraries: `generateSaveText(m)` (straight from the
// generator's text) against `formatSave(generateState(m))` (the design's path: rule objects, then
// every rule printed from its shape's derived save layout), `formatSave(state)` and `generateState(m)`
// alone. Each
// measurement is a fresh process (cold: nothing compiled yet, as the CLI runs it), followed by
// warm repeats in the same process; CPU time (user + system) from process.cpuUsage. Builds and
// cases alternate, so that the shared machine's load falls on all of them alike.
//   node bench/shapes-save.mjs [--dist dist,OTHER_DIST] [--rounds 5] [--model bench-clusterip-10000]
// A second dist (e.g. a build of an older commit, whose bare imports resolve) is measured beside.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = ["generateSaveText", "formatSave(generateState)", "formatSave(state)", "generateState"];
const WARM = 4;

if (process.argv[2] === "--child") {
  // One case in this fresh process: the cold run, then WARM warm runs (their median).
  const [, , , dist, model, name] = process.argv;
  const { readClusterInput } = await import("./load.mjs");
  const lib = await import(pathToFileURL(join(dist, "index.js")).href);
  const util = await import(pathToFileURL(join(dist, "util.js")).href);
  const input = readClusterInput(model);
  const m = util.buildModel(input.services, input.endpointSlices, util.resolveConfig(input.config));
  const state = name === "formatSave(state)" ? lib.generateState(m) : null;
  const run = {
    generateSaveText: () => lib.generateSaveText(m),
    "formatSave(generateState)": () => lib.formatSave(lib.generateState(m)),
    "formatSave(state)": () => lib.formatSave(state),
    generateState: () => ({ length: lib.generateState(m).tables.length }),
  }[name];
  const times = [];
  let bytes = 0;
  for (let i = 0; i <= WARM; i++) {
    globalThis.gc?.();
    const c0 = process.cpuUsage();
    bytes = run().length;
    const c = process.cpuUsage(c0);
    times.push((c.user + c.system) / 1000);
  }
  const warm = times.slice(1).sort((a, b) => a - b);
  process.stdout.write(
    `@@RESULT ${JSON.stringify({ cold: times[0], warm: warm[warm.length >> 1], bytes })}\n`,
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    rounds: { type: "string", default: "5" },
    model: { type: "string", default: "bench-clusterip-10000" },
  },
});
const dists = values.dist.split(",").map((d) => resolve(d));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const results = new Map();
for (let round = 0; round < Number(values.rounds); round++) {
  const order = [];
  for (const dist of dists) for (const name of CASES) order.push([dist, name]);
  if (round % 2 === 1) order.reverse();
  for (const [dist, name] of order) {
    const r = spawnSync(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), "--child", dist, values.model, name],
      { encoding: "utf8", cwd: HERE, maxBuffer: 64 * 1024 * 1024 },
    );
    const line = r.stdout.split("\n").find((l) => l.startsWith("@@RESULT "));
    if (line === undefined) throw new Error(`${name} on ${dist} failed: ${r.stderr}`);
    const key = `${dist}\t${name}`;
    if (!results.has(key)) results.set(key, []);
    results.get(key).push(JSON.parse(line.slice(9)));
  }
}

console.log(
  `model ${values.model}, ${values.rounds} rounds, CPU ms (user+sys), medians; warm: median of ${WARM}`,
);
for (const dist of dists) {
  console.log(`\n${dist}`);
  const base = results.get(`${dist}\tgenerateSaveText`);
  const baseCold = median(base.map((r) => r.cold));
  const baseWarm = median(base.map((r) => r.warm));
  for (const name of CASES) {
    const rs = results.get(`${dist}\t${name}`);
    const cold = median(rs.map((r) => r.cold));
    const warm = median(rs.map((r) => r.warm));
    console.log(
      `  ${name.padEnd(28)} cold ${cold.toFixed(0).padStart(6)} (${(cold / baseCold).toFixed(2)}×)  warm ${warm
        .toFixed(0)
        .padStart(6)} (${(warm / baseWarm).toFixed(2)}×)  ${rs[0].bytes} chars`,
    );
  }
}
