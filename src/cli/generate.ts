// `kube-iptables generate`: cluster file or Kubernetes objects → rules text.
import { parseArgs } from "node:util";
import type { Problem } from "../errors.js";
import { generateRestoreText } from "../iptables/output/restore-text.js";
import { generateRules } from "../iptables/output/rules.js";
import { generateSaveText } from "../iptables/output/save-text.js";
import { formatJson } from "../iptables/print/json.js";
import type { IPFamily } from "../ir/types.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ClusterModel } from "../model/types.js";
import { runGenerateNft } from "./generate-nft.js";
import { readInput, showProgress, writeNote, writeOut, writeRuleTextProblems } from "./io.js";
import {
  checkNodeOptions,
  familiesOf,
  NODE_OPTIONS,
  showArgument,
  writeClusterProblems,
} from "./node-options.js";
import { otherFamilyHint } from "./other-family.js";
import { formatCount } from "./progress.js";
import { readClusterArgs } from "./read-cluster.js";
import { parseRulesFile } from "./read-rules.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const FORMATS = new Set(["save", "restore", "json"]);

const OPTIONS = {
  ...NODE_OPTIONS,
  format: { type: "string" },
  strict: { type: "boolean" },
  current: { type: "string" },
  mode: { type: "string" },
  "service-cidr": { type: "string", multiple: true },
} as const;

/** The flags `generate` takes (its help and completion list them: see help.ts). */
export const GENERATE_FLAGS: readonly string[] = Object.keys(OPTIONS);

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The nat chains of a node's dump (`--current`), or `null` after printing why it cannot be
 * read. Any problem fails: chains guessed from a half-read dump could delete the wrong ones.
 */
function currentNatChains(file: string, family: IPFamily): string[] | null {
  const text = readInput(file);
  if (text === null) return null;
  const parsed = parseRulesFile(file, text, { family });
  if (parsed === null) return null;
  const { ruleSet, problems } = parsed;
  if (problems.length > 0) {
    writeRuleTextProblems(file, problems);
    return null;
  }
  return ruleSet.tables.find((t) => t.name === "nat")?.chains.map((c) => c.name) ?? [];
}

/** Runs `generate` and returns the exit code. */
export async function runGenerate(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length === 0) throw new UsageError("generate takes a FILE (or - for stdin)");
  if (positionals.filter((file) => file === "-").length > 1)
    throw new UsageError("standard input (-) can be read once");
  // nftables mode has its own formats and options (generate-nft.ts).
  if (values.mode !== undefined && values.mode !== "iptables") {
    if (values.current !== undefined) throw new UsageError("--current is for iptables mode");
    return runGenerateNft(values, positionals);
  }
  if (values["service-cidr"] !== undefined) throw new UsageError("--service-cidr is for --mode nftables");
  const format = values.format ?? "save";
  if (!FORMATS.has(format))
    throw new UsageError(`--format ${showArgument(format)}: expected save, restore or json`);
  checkNodeOptions(values);
  const built = await buildModels(positionals, values);
  if (built === null) return EXIT_INPUT;
  // The cluster's objects are out of reach from here: the generator's garbage is collected in a
  // heap that holds the models, not the parsed file as well.
  const { models, families } = built;
  const options = { existingChains: built.existingChains };
  const outputs: string[] = [];
  for (const { family, model } of models) {
    showProgress(`generating ${family} rules for ${formatCount(model.servicePorts.length)} service ports`);
    const body =
      format === "restore"
        ? generateRestoreText(model, options)
        : format === "json"
          ? formatJson(generateRules(model, options))
          : generateSaveText(model, options);
    const header =
      families.length > 1 ? `# ${family} (${family === "IPv4" ? "iptables" : "ip6tables"})\n` : "";
    outputs.push(format === "json" ? body : header + body);
  }
  // JSON gets no '#' lines: several rule sets (each naming its family) are one array, so that
  // the output stays one JSON document.
  const json = format === "json" && families.length > 1;
  writeOut(json ? `[\n${outputs.map((o) => o.trimEnd()).join(",\n")}\n]\n` : outputs.join(""));
  return EXIT_OK;
}

/** What `generate` builds before it generates: each family's model, and the chains of `--current`. */
interface BuiltModels {
  readonly families: readonly IPFamily[];
  readonly models: readonly { readonly family: IPFamily; readonly model: ClusterModel }[];
  readonly existingChains: string[];
}

/**
 * Reads the cluster (and `--current`), checks it and builds each family's model, printing the
 * problems found; `null` when it cannot be used.
 */
async function buildModels(
  positionals: readonly string[],
  values: ReturnType<typeof parse>["values"],
): Promise<BuiltModels | null> {
  const read = await readClusterArgs(positionals, values);
  if (read === null) return null;
  const { input, file: named } = read;
  const config = input.config;
  const families = familiesOf(values.family, config);
  let existingChains: string[] = [];
  if (values.current !== undefined) {
    // A dump holds one family's tables; its chain names say nothing about the other family.
    if (families.length !== 1)
      throw new UsageError("--current takes one family's dump: give --family IPv4 or IPv6");
    const chains = currentNatChains(values.current, families[0] as IPFamily);
    if (chains === null) return null;
    existingChains = chains;
  }
  const models: { family: IPFamily; model: ClusterModel }[] = [];
  // With --family both, a problem outside the family-specific checks is found twice: print it once.
  const printed = new Set<string>();
  for (const family of families) {
    const { services, endpointSlices } = input;
    showProgress(`checking ${countOf(services)} Services and ${countOf(endpointSlices)} EndpointSlices`);
    const prepared = prepareCluster(input, { family, strict: values.strict === true, origins: read.origins });
    const fresh = prepared.problems.filter((p) => !printed.has(problemKey(p)));
    for (const p of fresh) printed.add(problemKey(p));
    writeClusterProblems(named, fresh, values);
    if (prepared.model === null) return null;
    const model = prepared.model;
    if (values.family === undefined) {
      const hint = otherFamilyHint(model.servicePorts.length, input);
      if (hint !== null) writeNote(hint);
    }
    models.push({ family, model });
  }
  return { families, models, existingChains };
}

/** A problem's identity, to print it once when both families find it. */
function problemKey(p: Problem): string {
  return `${p.source ?? ""}\0${p.path}\0${p.line ?? ""}:${p.column ?? ""}\0${p.message}`;
}

/** How many items a list of the input holds, for a progress message (not checked yet: any value). */
function countOf(list: unknown): string {
  return formatCount(Array.isArray(list) ? list.length : 0);
}
