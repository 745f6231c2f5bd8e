// File and stream access for the CLI: the only place that reads files or stdin.
import { readFileSync } from "node:fs";
import { decodeInput } from "./decode-input.js";

/**
 * Reads a file, or stdin for `-`, as text (see {@link decodeInput}); when it cannot, says why on
 * stderr and returns `null`.
 */
export function readInput(file: string): string | null {
  const name = file === "-" ? "standard input" : file;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === "-" ? 0 : file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    writeErr(`cannot read ${name}: ${err.code ?? err.message}`);
    return null;
  }
  const decoded = decodeInput(bytes);
  if ("problem" in decoded) {
    writeErr(`${name}: ${decoded.problem}`);
    return null;
  }
  return decoded.text;
}

/** Writes to stdout. */
export function writeOut(text: string): void {
  process.stdout.write(text);
}

/** Writes one line to stderr. */
export function writeErr(line: string): void {
  process.stderr.write(`${line}\n`);
}
