// Where the vendored fixtures are (test/fixtures/, refreshed from ../shared by `npm run fixtures`)
// and how a JSON file of them is read; the conformance corpora are read through ./corpora.ts.
import { readFileSync } from "node:fs";
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
