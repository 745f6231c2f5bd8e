// File and stream access for the CLI: the only place that reads files or stdin, and writes to
// stdout and stderr. Every line on stderr starts with `kube-iptables: `, then the file when there
// is one (`FILE:LINE:COL: …` or `FILE: path: …`, stdin as `-`), as diff(1) and cc(1) print them.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isatty } from "node:tty";
import { formatProblem, type Problem } from "../errors.js";
import { oneLine } from "../one-line.js";
import { decodeInput } from "./decode-input.js";
import { systemErrorText } from "./errno.js";
import { createProgress, type Progress } from "./progress.js";

/** What starts every line on stderr. */
export const PROGRAM = "kube-iptables";

let quiet = false;
let progress: Progress = createProgress(process.stderr, false);
let stdoutClosed = false;
let stderrClosed = false;

/**
 * Sets up the output of one run: `quiet` drops notes and the progress line, which is drawn only
 * when stderr is a terminal. A reader that stops early (`kube-iptables generate big.json | head`)
 * ends the output quietly: the rest is dropped, without an EPIPE trace, and the run keeps its
 * exit code (diff's 1 still says the sides differ).
 *
 * @example
 * configureOutput({ quiet: argv.includes("-q") }); // once, before the command runs
 */
export function configureOutput(options: { readonly quiet: boolean }): void {
  quiet = options.quiet;
  progress = createProgress(process.stderr, !quiet);
  closeQuietly(process.stdout, () => {
    stdoutClosed = true;
  });
  closeQuietly(process.stderr, () => {
    stderrClosed = true;
  });
}

/** On EPIPE (the reader is gone) `onClosed`; any other stream error stays an error. */
function closeQuietly(stream: NodeJS.WriteStream, onClosed: () => void): void {
  if (stream.listenerCount("error") > 0) return; // configured already
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    onClosed();
  });
}

/**
 * Shows a stage of a long run on the progress line (stderr, on a terminal, unless quiet).
 *
 * @example
 * showProgress(`generating IPv4 rules for ${formatCount(ports)} service ports`);
 */
export function showProgress(message: string): void {
  progress.show(message);
}

/** Clears the progress line (done before any other output, and at the end of the run). */
export function clearProgress(): void {
  progress.clear();
}

/**
 * Reads a file, or stdin for `-`, as text (see {@link decodeInput}); when it cannot, says why on
 * stderr (`FILE: no such file or directory`) and returns `null`.
 */
export function readInput(file: string): string | null {
  // Someone typing the input at the terminal needs the line for it.
  if (file !== "-") showProgress(`reading ${file}`);
  // isatty(0), not process.stdin.isTTY: touching process.stdin makes Node set the pipe
  // non-blocking, and readFileSync(0) then fails with EAGAIN when the writer is slower.
  else if (!isatty(0)) showProgress("reading standard input");
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file === "-" ? 0 : file);
  } catch (e) {
    writeErr(`${file}: ${systemErrorText(e)}`);
    return null;
  }
  const decoded = decodeInput(bytes);
  if ("problem" in decoded) {
    writeErr(`${file}: ${decoded.problem}`);
    return null;
  }
  return decoded.text;
}

/** Writes to stdout (nothing once the reader has gone). */
export function writeOut(text: string): void {
  clearProgress();
  if (!stdoutClosed) process.stdout.write(text);
}

/**
 * Writes one diagnostic line to stderr, after `kube-iptables: `. Control characters (in a file's
 * name, a flag's value) are shown escaped: a diagnostic is one line, and nothing in it reaches
 * the terminal as a command.
 */
export function writeErr(line: string): void {
  clearProgress();
  if (!stderrClosed) process.stderr.write(`${PROGRAM}: ${oneLine(line)}\n`);
}

/**
 * Writes a note (`kube-iptables: note: …`): something worth knowing that is not a problem;
 * `--quiet` drops it.
 *
 * @example
 * writeNote("no Service has an IPv4 cluster IP"); // kube-iptables: note: no Service has …
 */
export function writeNote(line: string): void {
  if (!quiet) writeErr(`note: ${line}`);
}

/**
 * Writes problems, each on its line: `FILE:LINE:COL: message` or `FILE: path: message`. A problem
 * that names its own file (read from several) keeps it; `file` names the others (none: stdin's
 * or the command line's problems as they are).
 *
 * @example
 * writeProblems("a.yaml", problems); // kube-iptables: a.yaml: services[1].spec.ports[0].port: …
 */
export function writeProblems(file: string | undefined, problems: readonly Problem[]): void {
  for (const p of problems) {
    const named = p.source === undefined && file !== undefined ? { ...p, source: file } : p;
    writeErr(formatProblem(named));
  }
}

/** How many problems of one rules text are printed; the rest are counted. */
export const RULE_TEXT_PROBLEMS_SHOWN = 20;

/**
 * Prints the problems found in one file of iptables rules, each as `FILE:LINE:COL: message`, at
 * most {@link RULE_TEXT_PROBLEMS_SHOWN} of them and then how many more there were: text that is
 * not rules at all (a cluster file given as a dump) would otherwise give a line per line.
 */
export function writeRuleTextProblems(file: string, problems: readonly Problem[]): void {
  const shown = problems.slice(0, RULE_TEXT_PROBLEMS_SHOWN);
  writeProblems(file, shown);
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
    let entries: Dirent[];
    try {
      entries = readdirSync(arg, { withFileTypes: true });
    } catch (e) {
      writeErr(`${arg}: ${systemErrorText(e)}`);
      return null;
    }
    const inside = entries
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
