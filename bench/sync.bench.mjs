// Incremental sync on the 10,000-service ClusterIP model: one endpoint change and one service
// add/delete per update, timed around `update()` only (the caller's list copy is outside).
// Runs against dist/ when it exports createSync, else bundles src/sync with esbuild first.
//   node bench/sync.bench.mjs [model.json.gz] [iterations]
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

async function loadLibrary() {
  const dist = join(root, "dist", "index.js");
  if (existsSync(dist)) {
    const lib = await import(pathToFileURL(dist).href);
    if (typeof lib.createSync === "function") return { lib, source: "dist/" };
  }
  const { build } = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-bench-"));
  const out = join(dir, "sync.mjs");
  await build({
    entryPoints: [join(root, "src", "sync", "index.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "error",
  });
  const lib = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  return { lib, source: "esbuild bundle of src/sync" };
}

const file = process.argv[2] ?? join(root, "test", "fixtures", "bench", "bench-clusterip-10000.json.gz");
const iterations = Number(process.argv[3] ?? 300);
const model = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8"));
const { lib, source } = await loadLibrary();

function stats(times) {
  const s = [...times].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p90: at(0.9), max: s[s.length - 1] };
}
const ms = (x) => `${x.toFixed(3)} ms`;

const services = model.services;
let slices = model.endpointSlices;
const sync = lib.createSync(model.config);
let t0 = performance.now();
const first = sync.update(services, slices);
const firstMs = performance.now() - t0;
console.log(`${source}; ${file.split("/").pop()}: ${services.length} services, ${slices.length} slices`);
console.log(
  `first update (full payload): ${ms(firstMs)}, ${first.deltaText.length} bytes, large-cluster mode ${first.stats.largeClusterMode}`,
);

// 1. One endpoint change: endpoint 3 of one service's slice gets a new address (then back).
{
  const times = [];
  const bytes = [];
  for (let i = 0; i < iterations; i++) {
    const k = (i * 7919) % slices.length;
    const slice = slices[k];
    const endpoints = slice.endpoints.map((ep, j) =>
      j === 3
        ? {
            ...ep,
            addresses: [
              ep.addresses[0].endsWith(".250")
                ? `10.63.${i % 250}.1`
                : `${ep.addresses[0].split(".").slice(0, 3).join(".")}.250`,
            ],
          }
        : ep,
    );
    const next = slices.slice();
    next[k] = { ...slice, endpoints };
    t0 = performance.now();
    const r = sync.update(services, next);
    times.push(performance.now() - t0);
    bytes.push(r.deltaText.length);
    slices = next;
  }
  const t = stats(times);
  const b = stats(bytes);
  console.log(
    `one endpoint change: median ${ms(t.median)}, p90 ${ms(t.p90)}, max ${ms(t.max)}; delta median ${b.median} bytes, max ${b.max}`,
  );
}

// 1b. One endpoint turns not ready (removed from the rotation), then ready again.
{
  const times = [];
  const bytes = [];
  for (let i = 0; i < iterations; i++) {
    const k = (i * 104729) % slices.length;
    const slice = slices[k];
    const endpoints = slice.endpoints.map((ep, j) =>
      j === 5 ? { ...ep, conditions: { ...ep.conditions, ready: !(ep.conditions?.ready ?? true) } } : ep,
    );
    const next = slices.slice();
    next[k] = { ...slice, endpoints };
    t0 = performance.now();
    const r = sync.update(services, next);
    times.push(performance.now() - t0);
    bytes.push(r.deltaText.length);
    slices = next;
  }
  const t = stats(times);
  const b = stats(bytes);
  console.log(
    `one endpoint readiness flip: median ${ms(t.median)}, p90 ${ms(t.p90)}, max ${ms(t.max)}; delta median ${b.median} bytes, max ${b.max}`,
  );
}

// 2. One service added (appended, with its slice), and 3. deleted again.
{
  const add = [];
  const del = [];
  const addBytes = [];
  const delBytes = [];
  const template = model.services[0];
  const templateSlice = model.endpointSlices[0];
  for (let i = 0; i < iterations; i++) {
    const name = `bench-new-${i}`;
    const ip = `10.97.${(i >> 8) & 255}.${i & 255}`;
    const svc = {
      ...template,
      metadata: { name, namespace: "bench" },
      spec: { ...template.spec, clusterIP: ip, clusterIPs: [ip] },
    };
    const slice = {
      ...templateSlice,
      metadata: {
        ...templateSlice.metadata,
        name: `${name}-x`,
        namespace: "bench",
        labels: { "kubernetes.io/service-name": name },
      },
    };
    const withServices = [...services, svc];
    const withSlices = [...slices, slice];
    t0 = performance.now();
    const r = sync.update(withServices, withSlices);
    add.push(performance.now() - t0);
    addBytes.push(r.deltaText.length);
    t0 = performance.now();
    const d = sync.update(services, slices);
    del.push(performance.now() - t0);
    delBytes.push(d.deltaText.length);
  }
  const a = stats(add);
  const d = stats(del);
  console.log(
    `one service add: median ${ms(a.median)}, p90 ${ms(a.p90)}, max ${ms(a.max)}; delta median ${stats(addBytes).median} bytes`,
  );
  console.log(
    `one service delete: median ${ms(d.median)}, p90 ${ms(d.p90)}, max ${ms(d.max)}; delta median ${stats(delBytes).median} bytes`,
  );
}

// 4. Nothing changed.
{
  const times = [];
  for (let i = 0; i < iterations; i++) {
    t0 = performance.now();
    sync.update(services, slices);
    times.push(performance.now() - t0);
  }
  console.log(`no change: median ${ms(stats(times).median)}`);
}

// 5. The full state on demand (lazy), once.
t0 = performance.now();
const last = sync.update(services, slices.slice(0, -1));
const state = last.state;
console.log(
  `state of a 10k cluster on demand: ${ms(performance.now() - t0)} (${state.tables.reduce((n, t) => n + t.entries.length, 0)} rules)`,
);
