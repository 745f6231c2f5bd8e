// Loading for every bench script: the built library (dist/, or KI_DIST for a build elsewhere),
// the committed benchmark models, and which optional features the build exports.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { GENERATED, generateCluster } from "./generate.mjs";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(BENCH_DIR, "..");
const FIXTURES = join(ROOT, "test", "fixtures", "bench");

/** Path of the library entry the bench measures: dist/index.js unless KI_DIST names another build. */
export function libraryPath() {
  return resolve(process.env.KI_DIST ?? join(ROOT, "dist", "index.js"));
}

/** Imports the built library: its main entry and, beside it, `util.js` (buildModel, resolveConfig, …). */
export async function loadLibrary() {
  const main = await import(pathToFileURL(libraryPath()).href);
  const util = await import(pathToFileURL(join(dirname(libraryPath()), "util.js")).href).catch(() => ({}));
  return { ...util, ...main };
}

/**
 * The cluster input (config, services, endpointSlices) of a model: a committed fixture
 * `test/fixtures/bench/<name>.json.gz`, or a seeded generator of bench/generate.mjs.
 */
export function readClusterInput(name) {
  if (GENERATED[name] !== undefined) return generateCluster(GENERATED[name]);
  const raw = gunzipSync(readFileSync(join(FIXTURES, `${name}.json.gz`)));
  return JSON.parse(raw.toString("utf8"));
}

/** Which features the build exports; cases that need a missing one are skipped with this note. */
export function detectFeatures(lib) {
  const has = (name) => typeof lib[name] === "function";
  return {
    save: has("formatSave") && has("generateState"),
    checked: has("prepareCluster"),
    sync: has("createSync"),
    generator: has("createGenerator"),
    parse: has("parseRules"),
    trace: has("traceRules"),
    nftables: has("generateNftables") && has("formatNftTransaction"),
  };
}
