// File and stream access for the CLI: the only place that reads files or stdin.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
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

/** The files `kubectl apply -f DIR` reads from a directory. */
const MANIFEST = /\.(?:json|ya?ml)$/;

/**
 * The files to read for the arguments: a directory stands for its `.json`, `.yaml` and `.yml`
 * files, sorted by name, as `kubectl apply -f DIR` reads it (not its subdirectories). `null`
 * after saying on stderr why a directory gives nothing.
 */
export function expandInputs(args: readonly string[]): string[] | null {
  const files: string[] = [];
  for (const arg of args) {
    if (arg === "-" || !isDirectory(arg)) {
      files.push(arg);
      continue;
    }
    const inside = readdirSync(arg, { withFileTypes: true })
      .filter((entry) => entry.isFile() && MANIFEST.test(entry.name))
      .map((entry) => entry.name)
      .sort();
    if (inside.length === 0) {
      writeErr(`${arg}: no .json, .yaml or .yml files in this directory`);
      return null;
    }
    for (const name of inside) files.push(join(arg, name));
  }
  return files;
}

/** Whether `path` is a directory (false when it cannot be read: `readInput` then says why). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // readInput says why it cannot be read
  }
}
