// Cluster text → input for the CLI. JSON is read without the YAML parser, which is loaded only
// for YAML input: it is about a third of the CLI's start-up (50-70 ms here).
import { detectTextForm, pastedTextProblem } from "../iptables/index.js";
import type { ObjectOrigins, ReadOptions } from "../kube/list.js";
import { mergeClusterReads, type NamedRead } from "../kube/merge-input.js";
import { type ReadResult, readClusterJson } from "../kube/read-value.js";
import type { ClusterInput } from "../kube/types.js";
import { expandInputs, readInput, writeErr, writeProblems } from "./io.js";
import { applyNodeOptions, readOptionsOf } from "./node-options.js";

/** Reads a cluster file's text (JSON or YAML), as `readClusterText` does. */
export async function readCluster(text: string, options: ReadOptions = {}): Promise<ReadResult> {
  const json = readClusterJson(text, options);
  if (json !== null) return json;
  const { readClusterYaml } = await import("../kube/read-input.js");
  return readClusterYaml(text, options);
}

/**
 * Prints a read input's problems (errors, and notes such as the objects of other kinds that were
 * skipped), those without a file of their own named as in `file` (see `writeProblems`); whether
 * the input can be used: it cannot when it has errors, or, with `strict`, objects of other kinds.
 */
export function usableRead(read: ReadResult, strict: boolean, file?: string): boolean {
  writeProblems(file, read.problems);
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
    const source = file; // as the user gave it: stdin is "-"
    // A prompt pasted above the file: one message, not a YAML syntax error.
    const pasted = pastedTextProblem(text, false);
    if (pasted !== null) {
      writeProblems(source, [pasted]);
      return null;
    }
    // Text that JSON.parse reads is a cluster file: no rules text is valid JSON. The form is
    // detected only for the rest (detecting splits the text into lines, ≈ 0.3 s for the
    // 37 MB of `kubectl get -o json` of 10,000 Services).
    const json = readClusterJson(text, options);
    if ((json === null || json.input === null) && detectTextForm(text) !== "cluster") {
      // Read as YAML, rules text only makes a puzzling syntax error.
      writeErr(`${source}: iptables rules text, not a cluster file (Services and EndpointSlices)`);
      return null;
    }
    reads.push({ source, read: json ?? (await readCluster(text, options)) });
  }
  return reads.length === 1 ? (reads[0] as NamedRead).read : mergeClusterReads(reads);
}

/** A command's cluster, read from its FILE arguments, with the node flags applied to its config. */
export interface ClusterArgs {
  readonly input: ClusterInput & { readonly config: NonNullable<ClusterInput["config"]> };
  readonly origins: ObjectOrigins;
  /** The one file read, which names its problems; several files name their own. */
  readonly file: string | undefined;
}

/**
 * Reads the cluster of the FILE arguments (files, directories, `-`) and applies the node flags;
 * `null` after saying on stderr why it cannot be used (with `--strict`, objects of other kinds
 * too).
 */
export async function readClusterArgs(
  positionals: readonly string[],
  values: Record<string, string | boolean | string[] | undefined>,
): Promise<ClusterArgs | null> {
  const files = expandInputs(positionals);
  if (files === null) return null;
  const read = await readClusterFiles(files, readOptionsOf(values));
  if (read === null) return null;
  const file = files.length === 1 ? files[0] : undefined;
  if (!usableRead(read, values.strict === true, file) || read.input === null) return null;
  const config = applyNodeOptions(read.input.config, values);
  return { input: { ...read.input, config }, origins: read.origins, file };
}
