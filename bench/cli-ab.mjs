// Old and new builds of the CLI, alternating, on the same inputs: `diff DUMP CLUSTER` and
// `trace DUMP` end to end in fresh processes (node start-up included), CPU time (user + system,
// from /usr/bin/time) rather than wall time, which a shared machine moves by a third or more.
//   node bench/cli-ab.mjs --old DIST_DIR --new DIST_DIR [--rounds 3] [--models 10000,50000]
// The builds must sit where their bare imports resolve (e.g. node_modules/.cache/old-dist).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { readClusterInput } from "./load.mjs";

const { values } = parseArgs({
  options: {
    old: { type: "string" },
    new: { type: "string" },
    rounds: { type: "string", default: "3" },
    models: { type: "string", default: "10000,50000" },
  },
});
if (values.old === undefined || values.new === undefined) throw new Error("--old DIR and --new DIR");
const dir = mkdtempSync(join(tmpdir(), "kube-iptables-ab-"));
const builds = { old: resolve(values.old), new: resolve(values.new) };
const entry = {};
for (const [name, dist] of Object.entries(builds)) {
  entry[name] = join(dir, `${name}.mjs`);
  writeFileSync(
    entry[name],
    `import { main } from ${JSON.stringify(pathToFileURL(join(dist, "cli.js")).href)};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
}
// buildModel and resolveConfig live in util.js beside the main entry.
const lib = {
  ...(await import(pathToFileURL(join(builds.new, "util.js")).href).catch(() => ({}))),
  ...(await import(pathToFileURL(join(builds.new, "index.js")).href)),
};

function cpuOf(script, args) {
  const r = spawnSync("/usr/bin/time", ["-f", "@@TIME %U %S %M", process.execPath, script, ...args], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const line = r.stderr.split("\n").find((l) => l.startsWith("@@TIME "));
  if (line === undefined || (r.status !== 0 && r.status !== 2))
    throw new Error(`${args[0]} failed: ${r.stderr}`);
  const [, user, sys, kb] = line.split(" ");
  return { cpu: Number(user) + Number(sys), rssMiB: Number(kb) / 1024, bytes: Buffer.byteLength(r.stdout) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const n of values.models.split(",")) {
  const input = readClusterInput(`bench-clusterip-${n}`);
  const model = lib.buildModel(input.services, input.endpointSlices, lib.resolveConfig(input.config));
  const dump = join(dir, `node-${n}.save`);
  const cluster = join(dir, `cluster-${n}.json`);
  writeFileSync(dump, lib.formatSave(lib.generateState(model)));
  writeFileSync(cluster, JSON.stringify(input));
  let last = model.servicePorts[0];
  for (const p of model.servicePorts)
    if (`${p.namespace}/${p.name}` > `${last.namespace}/${last.name}`) last = p;
  const cases = {
    diff: ["diff", dump, cluster],
    trace: [
      "trace",
      dump,
      "--src",
      "10.64.0.5",
      "--dst",
      `${last.clusterIP}:${last.port}`,
      ...(input.config.nodeIPs ?? []).flatMap((ip) => ["--node-ip", ip]),
    ],
  };
  for (const [name, args] of Object.entries(cases)) {
    const runs = { old: [], new: [] };
    for (let i = 0; i < Number(values.rounds); i++)
      for (const build of i % 2 ? ["new", "old"] : ["old", "new"])
        runs[build].push(cpuOf(entry[build], args));
    const o = median(runs.old.map((r) => r.cpu));
    const w = median(runs.new.map((r) => r.cpu));
    console.log(
      `${name} ${n}: old ${o.toFixed(2)} s, new ${w.toFixed(2)} s CPU (median of ${values.rounds}; new/old ${(w / o).toFixed(2)}; ` +
        `runs old ${runs.old.map((r) => r.cpu.toFixed(2)).join(" ")}, new ${runs.new.map((r) => r.cpu.toFixed(2)).join(" ")}; ` +
        `max RSS ${Math.max(...runs.new.map((r) => r.rssMiB)).toFixed(0)} MiB new)`,
    );
  }
}
