/**
 * `kube-iptables/yaml`: reading cluster files and Kubernetes objects from YAML (or JSON) text.
 * A separate entry so that the main one does not load a YAML parser: a controller that gets its
 * objects from the API, or reads JSON, never needs it.
 *
 * YAML is read as kubectl reads it (YAML 1.1 merge keys); a syntax error is a problem with its
 * line and column, not an exception.
 *
 * @example
 * import { readClusterText } from "kube-iptables/yaml";
 * import { prepareCluster } from "kube-iptables";
 * const read = readClusterText(readFileSync("cluster.yaml", "utf8"));
 * const { model, problems } = prepareCluster(read.input ?? {}, { origins: read.origins });
 *
 * @module kube-iptables/yaml
 */

export { readClusterText, readClusterYaml } from "./kube/read-input.js";
export type { ReadResult } from "./kube/read-value.js";
