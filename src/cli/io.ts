// File and stream access for the CLI: the only place that reads files or stdin.
import { readFileSync } from "node:fs";

/** Reads a file, or stdin for `-`; when it cannot, says why on stderr and returns `null`. */
export function readInput(file: string): string | null {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    writeErr(`cannot read ${file === "-" ? "standard input" : file}: ${err.code ?? err.message}`);
    return null;
  }
}

/** Writes to stdout. */
export function writeOut(text: string): void {
  process.stdout.write(text);
}

/** Writes one line to stderr. */
export function writeErr(line: string): void {
  process.stderr.write(`${line}\n`);
}
