// The bad-input corpus: every file in test/bad-inputs/ (JSON or YAML) and the problems
// validateClusterInput must report for it, in order, as listed in test/bad-inputs/expected.json.
// Severity is not listed: code SKIPPED is always a warning, every other code an error.
// To add a case: add the file, add its entry to expected.json by hand, and check the messages.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { validateClusterInput } from "../../src/index.js";
import { BAD_INPUTS_DIR, expected, files } from "../support/bad-inputs.js";

const DIR = BAD_INPUTS_DIR;

function load(file: string): unknown {
  const text = readFileSync(join(DIR, file), "utf8");
  return file.endsWith(".yaml") ? parse(text) : JSON.parse(text);
}

describe("bad-input corpus", () => {
  test("has at least 30 files, each with an entry in expected.json, and no stale entries", () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(Object.keys(expected).sort()).toEqual(files);
  });

  test.each(files)("%s", (file) => {
    const problems = validateClusterInput(load(file));
    expect(problems.map(({ code, path, message }) => ({ code, path, message }))).toEqual(expected[file]);
    for (const p of problems) expect(p.severity).toBe(p.code === "SKIPPED" ? "warning" : "error");
  });

  test("every file except the warning-only ones has at least one error", () => {
    const warningOnly = files.filter((f) => expected[f]?.every((p) => p.code === "SKIPPED"));
    expect(warningOnly.sort()).toEqual([
      "service-skipped.yaml",
      "slice-skipped.yaml",
      "unwatched-labels.json",
    ]);
  });
});
