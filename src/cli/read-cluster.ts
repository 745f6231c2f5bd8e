// Cluster text → input for the CLI. JSON is read without the YAML parser, which is loaded only
// for YAML input: it is about a third of the CLI's start-up (50-70 ms here).
import { formatProblem, type Problem } from "../errors.js";
import { detectTextForm } from "../format/detect.js";
import type { ReadOptions } from "../kube/list.js";
import { mergeClusterReads, type NamedRead } from "../kube/merge-input.js";
import { type ReadResult, readClusterJson } from "../kube/read-value.js";
import { readInput, writeErr } from "./io.js";

/** Reads a cluster file's text (JSON or YAML), as `readClusterText` does. */
export async function readCluster(text: string, options: ReadOptions = {}): Promise<ReadResult> {
  const json = readClusterJson(text, options);
  if (json !== null) return json;
  const { readClusterYaml } = await import("../kube/read-input.js");
  return readClusterYaml(text, options);
}

/**
 * Prints a read input's problems (errors, and notes such as the objects of other kinds that were
 * skipped), each after `where(p)`; whether the input can be used: it cannot when it has errors,
 * or, with `strict`, objects of other kinds.
 */
export function usableRead(
  read: ReadResult,
  strict: boolean,
  where: (p: Problem) => string = () => "",
): boolean {
  for (const p of read.problems) writeErr(`${where(p)}${formatProblem(p)}`);
  if (read.input === null) return false;
  return !read.problems.some((p) => p.severity === "error" || (strict && p.code === "OTHER_KIND"));
}

/**
 * Reads the cluster from one file, or from several put together (their objects one after
 * another, problems naming their file); `null` after saying on stderr why a file cannot be read,
 * or that it holds iptables rules rather than a cluster.
 */
export async function readClusterFiles(
  files: readonly string[],
  options: ReadOptions = {},
): Promise<ReadResult | null> {
  const reads: NamedRead[] = [];
  for (const file of files) {
    const text = readInput(file);
    if (text === null) return null;
    const source = file === "-" ? "standard input" : file;
    if (detectTextForm(text) !== "cluster") {
      // Read as YAML, rules text only makes a puzzling syntax error.
      writeErr(`${source}: iptables rules text, not a cluster file (Services and EndpointSlices)`);
      return null;
    }
    reads.push({ source, read: await readCluster(text, options) });
  }
  return reads.length === 1 ? (reads[0] as NamedRead).read : mergeClusterReads(reads);
}
