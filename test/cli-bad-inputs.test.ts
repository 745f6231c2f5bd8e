// The bad-input corpus (test/bad-inputs/, expected.json) through the built CLI in --strict mode:
// stderr is exactly one `path: message` line per expected problem, in order (a problem of the
// whole input prints its message alone), exit 2, nothing on stdout.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCliAsync, stderrLines } from "./support/run-cli.js";

interface Expected {
  code: string;
  path: string;
  message: string;
}

const DIR = join(import.meta.dirname, "bad-inputs");
const expected = JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8")) as Record<string, Expected[]>;
const files = readdirSync(DIR)
  .filter((f) => /\.(json|yaml)$/.test(f) && f !== "expected.json")
  .sort();
/**
 * The CLI also reads Kubernetes Lists (kubectl's output), which validateClusterInput, reading
 * cluster files only, refuses: this file is good input to the CLI.
 */
const LIST_FILE = "top-kubernetes-list.json";

// Concurrent: each case is a process start, and they are independent.
describe.concurrent("bad-input corpus through the CLI (--strict)", () => {
  test.each(files.filter((f) => f !== LIST_FILE))("%s", async (file) => {
    const problems = expected[file] ?? [];
    const r = await runCliAsync(["generate", "--strict", join(DIR, file)]);
    expect(stderrLines(r)).toEqual(
      problems.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)),
    );
    if (problems.every((p) => p.code === "SKIPPED")) {
      // Warnings alone do not fail --strict: what kube-proxy skips is reported, the rest printed.
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\*filter\n/);
    } else {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
    }
  });

  test(`${LIST_FILE} is a List the CLI reads`, async () => {
    const r = await runCliAsync(["generate", "--strict", join(DIR, LIST_FILE)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\*filter\n/);
  });
});
