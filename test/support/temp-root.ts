// Vitest global setup: every temporary file of a test run goes under one directory of its own,
// removed when the run ends, so tests (and the CLI processes they start, which inherit TMPDIR)
// leave nothing behind in the system's temporary directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "kube-iptables-test-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
