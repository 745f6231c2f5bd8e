// Cluster text → input for the CLI. JSON is read without the YAML parser, which is loaded only
// for YAML input: it is about a third of the CLI's start-up (50-70 ms here).
import { type ReadResult, readClusterJson } from "../kube/read-value.js";

/** Reads a cluster file's text (JSON or YAML), as `readClusterText` does. */
export async function readCluster(text: string): Promise<ReadResult> {
  const json = readClusterJson(text);
  if (json !== null) return json;
  const { readClusterYaml } = await import("../kube/read-input.js");
  return readClusterYaml(text);
}
