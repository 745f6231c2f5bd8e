// The notes `diff` prints when a node's dump and a cluster differ in a node setting (the
// masquerade mark, detect-local, where node ports answer, …) and not only in Services: which
// setting, what each side's rules show, and the flags that compare like with like.
import type { SettingDifference } from "../diff/node-settings.js";
import { oneLine } from "../one-line.js";
import { showArgument } from "./node-options.js";

/**
 * The note lines for `differences` between the node's rules (`nodeFile`) and a cluster's
 * (`clusterFile`): one per setting, then one with every flag that gives the cluster side the
 * node's settings (when the rules tell any).
 *
 * @example
 * settingNotes(differences, "node.save", "cluster.yaml")
 * // ["masquerade mark: bit 15 in node.save (nat KUBE-MARK-MASQ), bit 14 in cluster.yaml's rules",
 * //  "to compare with node.save's node settings, add: --masquerade-bit 15"]
 */
export function settingNotes(
  differences: readonly SettingDifference[],
  nodeFile: string,
  clusterFile: string,
): string[] {
  const notes = differences.map((d) =>
    oneLine(
      `${d.setting}: ${d.node} in ${shown(nodeFile)} (${d.chain}), ${d.cluster} in ${shown(clusterFile)}'s rules`,
    ),
  );
  const flags = differences.flatMap((d) => d.flags);
  if (flags.length > 0)
    notes.push(
      oneLine(
        `to compare with ${shown(nodeFile)}'s node settings, add: ${flags.map(showArgument).join(" ")}`,
      ),
    );
  return notes;
}

function shown(file: string): string {
  return file === "-" ? "standard input" : file;
}
