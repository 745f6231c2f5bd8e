// Cluster text → input for the CLI. JSON is read without the YAML parser, which is loaded only
// for YAML input: it is about a third of the CLI's start-up (50-70 ms here).
import { detectTextForm } from "../format/detect.js";
import { mergeClusterReads, type NamedRead } from "../kube/merge-input.js";
import { type ReadResult, readClusterJson } from "../kube/read-value.js";
import { readInput, writeErr } from "./io.js";

/** Reads a cluster file's text (JSON or YAML), as `readClusterText` does. */
export async function readCluster(text: string): Promise<ReadResult> {
  const json = readClusterJson(text);
  if (json !== null) return json;
  const { readClusterYaml } = await import("../kube/read-input.js");
  return readClusterYaml(text);
}

/**
 * Reads the cluster from one file, or from several put together (their objects one after
 * another, problems naming their file); `null` after saying on stderr why a file cannot be read,
 * or that it holds iptables rules rather than a cluster.
 */
export async function readClusterFiles(files: readonly string[]): Promise<ReadResult | null> {
  const reads: NamedRead[] = [];
  for (const file of files) {
    const text = readInput(file);
    if (text === null) return null;
    const source = file; // as the user gave it: stdin is "-"
    if (detectTextForm(text) !== "cluster") {
      // Read as YAML, rules text only makes a puzzling syntax error.
      writeErr(`${source}: iptables rules text, not a cluster file (Services and EndpointSlices)`);
      return null;
    }
    reads.push({ source, read: await readCluster(text) });
  }
  return reads.length === 1 ? (reads[0] as NamedRead).read : mergeClusterReads(reads);
}
