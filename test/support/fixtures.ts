// Reads the vendored fixtures (test/fixtures/, refreshed from ../shared by `npm run fixtures`).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

/** Absolute path of test/fixtures. */
export const FIXTURES: string = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

/** Reads a `.json` or `.json.gz` file. */
export function readJson<T = unknown>(path: string): T {
  const raw = readFileSync(path);
  return JSON.parse((path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8")) as T;
}

/** A conformance vector of fixtures/kube-proxy (and kube-proxy-v1.22). */
export interface Vector {
  name: string;
  description: string;
  config: Record<string, unknown>;
  services: unknown[];
  endpointSlices: unknown[];
  expected: { restore: string; full: string; save: string };
}

/** Lists `{name, path}` of every JSON vector in a fixtures folder, sorted by file name. */
export function listVectors(folder: string): { name: string; path: string }[] {
  const dir = join(FIXTURES, folder);
  return readdirSync(dir)
    .filter((f) => /\.json(\.gz)?$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.json(\.gz)?$/, ""), path: join(dir, f) }));
}

/** Loads one vector by folder and name (without extension). */
export function loadVector(folder: string, name: string): Vector {
  const found = listVectors(folder).find((v) => v.name === name);
  if (!found) throw new Error(`no vector ${folder}/${name}`);
  return readJson<Vector>(found.path);
}
