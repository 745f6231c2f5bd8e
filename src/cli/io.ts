// File and stream access for the CLI: the only place that reads files or stdin.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { formatProblem, type Problem } from "../errors.js";
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

/** How many problems of one rules text are printed; the rest are counted. */
export const RULE_TEXT_PROBLEMS_SHOWN = 20;

/**
 * Prints the problems found in one file of iptables rules, each as `FILE: line:col: message`, at
 * most {@link RULE_TEXT_PROBLEMS_SHOWN} of them and then how many more there were: text that is
 * not rules at all (a cluster file given as a dump) would otherwise give a line per line.
 */
export function writeRuleTextProblems(file: string, problems: readonly Problem[]): void {
  const shown = problems.slice(0, RULE_TEXT_PROBLEMS_SHOWN);
  for (const p of shown) writeErr(`${file}: ${formatProblem(p)}`);
  const more = problems.length - shown.length;
  if (more > 0) writeErr(`${file}: … and ${more} more problem${more === 1 ? "" : "s"}`);
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
      .filter((entry) => MANIFEST.test(entry.name) && isManifestEntry(arg, entry))
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

/**
 * Whether a directory entry is read as a manifest: a file, or a symbolic link that is not to a
 * directory (a mounted ConfigMap's files are links). A broken link is kept, so that reading it
 * says why it cannot be read instead of leaving it out without a word.
 */
function isManifestEntry(dir: string, entry: Dirent): boolean {
  if (entry.isFile()) return true;
  return entry.isSymbolicLink() && !isDirectory(join(dir, entry.name));
}

/** Whether `path` is a directory (false when it cannot be read: `readInput` then says why). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // readInput says why it cannot be read
  }
}
