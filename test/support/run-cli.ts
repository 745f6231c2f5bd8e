// Runs the built CLI (bin/kube-iptables.js → dist/cli.js; `npm test` builds it first) as a user
// would: a child process, its exit code, stdout and stderr.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { vi } from "vitest";

/** The repository root. */
export const ROOT: string = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "kube-iptables.js");

/** What one CLI run gave. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kube-iptables ...args` in the repository root, with `input` on stdin. */
export function runCli(args: readonly string[], input = ""): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (r.error !== undefined) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** {@link runCli} without blocking, so that independent runs can overlap (`test.concurrent`). */
export function runCliAsync(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The stderr lines (without the final newline). */
export function stderrLines(r: CliResult): string[] {
  return r.stderr === "" ? [] : r.stderr.replace(/\n$/, "").split("\n");
}

/** Runs a CLI command in this process with stdout and stderr captured: its exit code and both texts. */
export async function captureCli(
  run: () => Promise<number>,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => {
    out += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => {
    err += String(s);
    return true;
  });
  try {
    return { code: await run(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}
