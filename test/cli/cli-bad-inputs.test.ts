import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { BAD_INPUTS_DIR, expected, files } from "../support/bad-inputs.js";
import { runCliAsync, stderrLines } from "../support/run-cli.js";

const DIR = BAD_INPUTS_DIR;
/**
 * The CLI also reads Kubernetes Lists (kubectl's output), which validateClusterInput, reading
 * cluster files only, refuses: this file is good input to the CLI.
 */
const LIST_FILE = "top-kubernetes-list.json";

// Concurrent: each case is a process start, and they are independent.
describe.concurrent("bad-input corpus through the CLI (--strict)", () => {
  test.each(files.filter((f) => f !== LIST_FILE))("%s", async (file) => {
    // The CLI reads an object without a namespace in `default`, as `kubectl apply -f` does; the
    // validator, given objects as the API server stores them, requires one.
    const problems = (expected[file] ?? []).flatMap((p) => {
      if (p.code === "REQUIRED" && p.path.endsWith(".metadata.namespace")) return [];
      // In namespace default, this slice now names a Service, which the input lacks.
      if (file === "slice-metadata.json" && p.path === "endpointSlices[0].addressType")
        return [
          p,
          {
            code: "SKIPPED",
            path: "endpointSlices[0]",
            message: "no Service default/web in the input: its endpoints make no rules",
          },
        ];
      return [p];
    });
    const path = join(DIR, file);
    const r = await runCliAsync(["generate", "--strict", path]);
    // Each problem as `kube-iptables: FILE: path: message` (the file named even when it is the only one).
    expect(stderrLines(r)).toEqual(
      problems.map((p) => `kube-iptables: ${path}: ${p.path === "" ? "" : `${p.path}: `}${p.message}`),
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
