// The kernel state a command reads from its FILE arguments (trace and graph): one rules text (a
// save dump, or a restore payload completed with the built-in chains and kube-proxy's jumps), or
// the generated state of the cluster of one or more files and directories.

import type { HeaderlessRead } from "../iptables/index.js";
import { generateState, stateAfterFullSync } from "../iptables/output/rules.js";
import { detectTextForm, pastedTextProblem } from "../iptables/parse/detect.js";
import type { IPFamily, RuleSet } from "../ir/types.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ReadResult } from "../kube/read-value.js";
import { expandInputs, readInput, writeProblems, writeRuleTextProblems } from "./io.js";
import { applyNodeOptions, readOptionsOf, writeClusterProblems } from "./node-options.js";
import { otherFamilyHint } from "./other-family.js";
import { readCluster, readClusterFiles, usableRead } from "./read-cluster.js";
import { parseRulesFile } from "./read-rules.js";

/** Flag values as parseArgs gives them. */
type Values = Record<string, string | boolean | string[] | undefined>;

/** A state read from the arguments, with the node IPs its input names (none for rules text). */
export interface ReadState {
  readonly state: RuleSet;
  readonly nodeIPs: readonly string[];
  /** Why a cluster read in the default family has no service port, when another family tells. */
  readonly hint: string | null;
  /**
   * For rule lines read without their tables (a grep extract, `iptables -S`), the chains the
   * text holds; null for a whole text or a cluster.
   */
  readonly held: HeaderlessRead["held"] | null;
}

/**
 * Reads the state from the arguments; `null` after saying on stderr why it cannot. `family` is
 * the family to read; `undefined` reads a rules text as IPv4, else IPv6 (whichever parses), and
 * a cluster in its config's family (else IPv4).
 */
export async function readState(
  args: readonly string[],
  values: Values,
  family: IPFamily | undefined,
): Promise<ReadState | null> {
  const files = expandInputs(args);
  if (files === null) return null;
  if (files.length > 1) {
    const read = await readClusterFiles(files, readOptionsOf(values));
    return read === null ? null : stateOfCluster(read, values, family, undefined);
  }
  const file = files[0] as string;
  const text = readInput(file);
  if (text === null) return null;
  const form = detectTextForm(text);
  if (form === "cluster") {
    // A prompt pasted above the file: one message, not a YAML one (as for several files).
    const pasted = pastedTextProblem(text, false);
    if (pasted !== null) {
      writeProblems(file, [pasted]);
      return null;
    }
    return stateOfCluster(await readCluster(text, readOptionsOf(values)), values, family, file);
  }
  // A payload is kube-proxy's, for iptables-restore --noflush: it may jump to chains it does not declare.
  let first: readonly Parameters<typeof writeRuleTextProblems>[1][number][] | null = null;
  for (const each of family === undefined ? (["IPv4", "IPv6"] as const) : [family]) {
    // A trace reads a few chains: their rules are built when it enters them.
    const parsed = parseRulesFile(file, text, { family: each, noflush: form === "restore", deferred: true });
    if (parsed === null) return null;
    if (parsed.problems.length === 0) {
      // A payload holds kube-proxy's chains only: add the built-in chains and kube-proxy's jumps.
      const state = form === "save" ? parsed.ruleSet : stateAfterFullSync(parsed.ruleSet);
      return { state, nodeIPs: [], hint: null, held: parsed.held };
    }
    first ??= parsed.problems;
  }
  writeRuleTextProblems(file, first ?? []);
  return null;
}

/** A cluster's generated state, with the node IPs its config names; `file` names its problems. */
function stateOfCluster(
  read: ReadResult,
  values: Values,
  family: IPFamily | undefined,
  file: string | undefined,
): ReadState | null {
  if (!usableRead(read, false, file) || read.input === null) return null;
  const config = applyNodeOptions(read.input.config, values);
  const chosen = family ?? config.ipFamily ?? "IPv4";
  const prepared = prepareCluster({ ...read.input, config }, { family: chosen, origins: read.origins });
  writeClusterProblems(file, prepared.problems, values);
  if (prepared.model === null) return null;
  const ports = prepared.model.servicePorts.length;
  const hint = family === undefined ? otherFamilyHint(ports, { ...read.input, config }) : null;
  return {
    state: generateState(prepared.model),
    nodeIPs: read.input.config?.nodeIPs ?? [],
    hint,
    held: null,
  };
}
