// `kube-iptables diff OLD NEW`: what changes between two rule states, as a summary or as the
// iptables-restore --noflush delta. Each side is a cluster file or a directory of them (rules
// generated as on an empty kernel) or rules text: iptables-save output, or iptables-restore
// input applied to an empty kernel. With rules text on either side only kube-proxy's own chains
// are compared, so that a node's dump (Docker, CNI and kubelet chains included) answers "what
// would kube-proxy change".
import { parseArgs } from "node:util";
import {
  diffRules,
  formatDelta,
  generatedState,
  isKubeProxyChain,
  sparingReferenced,
  summarizeDiff,
} from "../diff/index.js";
import { settingDifferences } from "../diff/node-settings.js";
import { savedTextOf } from "../diff/saved-state.js";
import { detectTextForm, type ExpectedText, tryApplyRestore } from "../iptables/index.js";
import type { IPFamily, RuleSet } from "../ir/types.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ReadResult } from "../kube/read-value.js";
import type { ClusterModel } from "../model/types.js";
import { oneLine } from "../one-line.js";
import {
  expandInputs,
  isDirectory,
  readInput,
  showProgress,
  writeNote,
  writeOut,
  writeProblems,
  writeRuleTextProblems,
} from "./io.js";
import { hasServicePortChains, whyNoServicePorts } from "./no-service-ports.js";
import {
  applyNodeOptions,
  checkNodeOptions,
  familiesOf,
  NODE_OPTIONS,
  readOptionsOf,
  showArgument,
  writeClusterProblems,
} from "./node-options.js";
import { readCluster, readClusterFiles } from "./read-cluster.js";
import { parseRulesFile } from "./read-rules.js";
import { settingNotes } from "./setting-notes.js";
import { EXIT_DIFFER, EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const FORMATS = new Set(["summary", "restore"]);

const OPTIONS = { ...NODE_OPTIONS, format: { type: "string" }, "all-chains": { type: "boolean" } } as const;

/** The flags `diff` takes (its help and completion list them: see help.ts). */
export const DIFF_FLAGS: readonly string[] = Object.keys(OPTIONS);

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

type Values = ReturnType<typeof parse>["values"];

interface Side {
  readonly state: RuleSet;
  readonly isRules: boolean;
  /** For a cluster: the chains its payload makes kube-proxy's. */
  readonly owned?: (table: string, chain: string) => boolean;
  /** For a cluster: its model (what its slices say of each endpoint's node). */
  readonly model?: ClusterModel;
}

/** One side's text and what it holds, before it is read for a family. */
interface Input {
  readonly file: string;
  readonly text: string;
  readonly form: ReturnType<typeof detectTextForm>;
  /** A directory's cluster files, already read as one (their problems name their own file). */
  readonly cluster?: ReadResult;
  /** The file that problems without a file of their own are in (a directory's only file). */
  readonly name: string | undefined;
}

/** Reads one side's text (a directory: its cluster files), or prints why it cannot and returns null. */
async function readText(file: string, values: Values): Promise<Input | null> {
  if (file !== "-" && isDirectory(file)) {
    const files = expandInputs([file]);
    const cluster = files === null ? null : await readClusterFiles(files, readOptionsOf(values));
    const name = files?.length === 1 ? files[0] : undefined;
    return cluster === null ? null : { file, text: "", form: "cluster", cluster, name };
  }
  const text = readInput(file);
  return text === null ? null : { file, text, form: detectTextForm(text), name: file };
}

/**
 * A cluster side read and prepared for a family, nothing printed yet (see {@link reportCluster}).
 * The objects read are not kept: a diff that builds the cluster's rules needs the memory.
 */
interface PreparedCluster {
  /** What reading found, and whether it read anything. */
  readonly problems: ReadResult["problems"];
  readonly read: boolean;
  /** The family it was prepared for, and what that gave (`null`: the read is not usable). */
  readonly family: IPFamily;
  readonly prepared: ReturnType<typeof prepareCluster> | null;
  /** Its state, when it has a model. */
  readonly generated: ReturnType<typeof generatedState> | null;
}

/** Reads and prepares a cluster side for a family (its own config's without one), printing nothing. */
async function prepareQuietly(
  { text, cluster }: Input,
  values: Values,
  family: IPFamily | undefined,
): Promise<PreparedCluster> {
  const read = cluster ?? (await readCluster(text, readOptionsOf(values)));
  const { input, problems } = read;
  const usable = input !== null && !problems.some((p) => p.severity === "error");
  if (!usable || input === null)
    return { problems, read: input !== null, family: family ?? "IPv4", prepared: null, generated: null };
  const config = applyNodeOptions(input.config, values);
  const fam = family ?? (familiesOf(values.family, config)[0] as IPFamily);
  const prepared = prepareCluster({ ...input, config }, { family: fam, origins: read.origins });
  // Printed as save text, built as rules only if a chain differs (see diff/generated-side.ts).
  const generated = prepared.model === null ? null : generatedState(prepared.model);
  return { problems, read: true, family: fam, prepared, generated };
}

/** Prints what reading and preparing a cluster side found, as it is read; its side, or null. */
function reportCluster(
  { file, name }: Input,
  { problems, read, prepared, generated }: PreparedCluster,
  values: Values,
): Side | null {
  // A directory's problems carry the file they are in; a single file's are named here (as
  // usableRead prints them).
  writeProblems(name, problems);
  if (!read || prepared === null) return null;
  writeClusterProblems(name, prepared.problems, values);
  if (generated === null) return null;
  showProgress(`generating the rules of ${file}`);
  const model = prepared.model ?? undefined;
  return { state: generated.state, isRules: false, owned: generated.owned, ...(model && { model }) };
}

/**
 * Reads one side for a family (a rules side detects its own without one), or prints its
 * problems. A rules side is read against `expected`, the other side's save text, when given.
 */
async function readSide(
  input: Input,
  values: Values,
  family: IPFamily | undefined,
  expected?: ExpectedText,
): Promise<Side | null> {
  const { file, text, form } = input;
  if (form === "cluster") return reportCluster(input, await prepareQuietly(input, values, family), values);
  // Rules are built only for the chains the comparison reads (see iptables/parse/deferred.ts),
  // and lines equal to the other side's text are not tokenized (see iptables/parse/parse.ts).
  const options = {
    deferred: true,
    ...(family === undefined ? {} : { family }),
    ...(expected && { expected }),
  };
  const parsed = parseRulesFile(file, text, options);
  if (parsed === null) return null;
  if (parsed.problems.length > 0) {
    writeRuleTextProblems(file, parsed.problems);
    return null;
  }
  if (form === "save") return { state: parsed.ruleSet, isRules: true };
  const applied = tryApplyRestore(undefined, parsed.ruleSet, { noflush: false });
  if (applied.problems.length > 0) {
    writeRuleTextProblems(file, applied.problems);
    return null;
  }
  return { state: applied.ruleSet, isRules: true };
}

/** What a rules side is read against: the cluster side's save text (printed now, if not yet). */
function expectedOf(prepared: PreparedCluster): ExpectedText | undefined {
  if (prepared.generated === null) return undefined;
  try {
    const saved = savedTextOf(prepared.generated.state);
    return saved === undefined ? undefined : { saved, family: prepared.family, backend: "nft" };
  } catch {
    // (A rule that cannot be printed: the diff says so when it prints the text again.)
    return undefined;
  }
}

/**
 * Reads both sides. Without `--family`, a side of rules text is read first and its family (from
 * its addresses) is the cluster side's: a node's IPv6 dump is compared with the cluster's IPv6
 * rules. Two cluster files take the family of the first one's config; two sides of rules text
 * each detect their own.
 *
 * Against a cluster, the rules text is read against the cluster's save text (its lines equal to
 * it are not tokenized), so the cluster is prepared first, for `--family` or its config's
 * family, and its problems printed in the order above (none when the rules text has some).
 */
async function readSides(oldInput: Input, newInput: Input, values: Values, family: IPFamily | undefined) {
  const newFirst = family === undefined && oldInput.form === "cluster" && newInput.form !== "cluster";
  const firstInput = newFirst ? newInput : oldInput;
  const secondInput = newFirst ? oldInput : newInput;
  let first: Side | null;
  let second: Side | null;
  if (firstInput.form === "cluster" && secondInput.form !== "cluster") {
    // (Only with --family: the cluster comes first and is read as before.)
    const cluster = await prepareQuietly(firstInput, values, family);
    first = reportCluster(firstInput, cluster, values);
    if (first === null) return null;
    second = await readSide(secondInput, values, family, expectedOf(cluster));
  } else if (firstInput.form !== "cluster" && secondInput.form === "cluster") {
    const cluster = await prepareQuietly(secondInput, values, family);
    first = await readSide(firstInput, values, family, expectedOf(cluster));
    if (first === null) return null;
    const fam = family ?? first.state.family;
    // The rules text is of another family than the cluster's config: prepared again for it.
    const prepared =
      cluster.prepared === null || cluster.family === fam
        ? cluster
        : await prepareQuietly(secondInput, values, fam);
    second = reportCluster(secondInput, prepared, values);
  } else {
    first = await readSide(firstInput, values, family);
    if (first === null) return null;
    // Two sides of rules text each detect their own family.
    const bothRules = first.isRules && secondInput.form !== "cluster";
    second = await readSide(secondInput, values, family ?? (bothRules ? undefined : first.state.family));
  }
  if (second === null) return null;
  return newFirst ? { oldSide: second, newSide: first } : { oldSide: first, newSide: second };
}

/**
 * Runs `diff` and returns the exit code, as diff(1): 0 no differences, 1 differences (in the
 * chains compared), 2 trouble.
 *
 * @example
 * await runDiff(["old.save", "cluster.yaml", "--format", "restore"]) // 1: kube-proxy would change rules
 */
export async function runDiff(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length !== 2)
    throw new UsageError("diff takes two files or directories: OLD NEW (either may be - for stdin)");
  const format = values.format ?? "summary";
  if (!FORMATS.has(format))
    throw new UsageError(`--format ${showArgument(format)}: expected summary or restore`);
  if (values.family === "both") throw new UsageError("--family both: diff compares one family, IPv4 or IPv6");
  checkNodeOptions(values);
  const family = values.family === undefined ? undefined : (familiesOf(values.family, {})[0] as IPFamily);
  const [oldFile, newFile] = positionals as [string, string];
  if (oldFile === "-" && newFile === "-") throw new UsageError("standard input (-) can be read once");
  const oldInput = await readText(oldFile, values);
  if (oldInput === null) return EXIT_INPUT;
  const newInput = await readText(newFile, values);
  if (newInput === null) return EXIT_INPUT;
  const sides = await readSides(oldInput, newInput, values, family);
  if (sides === null) return EXIT_INPUT;
  const { oldSide, newSide } = sides;
  const ownedOnly = values["all-chains"] !== true && (oldSide.isRules || newSide.isRules);
  // Against a cluster, the chains its payload declares say which fixed chains are kube-proxy's.
  const owned = oldSide.owned ?? newSide.owned ?? isKubeProxyChain;
  // A stale chain another program's rule still jumps to stays (its -X would fail the restore).
  const chains = ownedOnly ? sparingReferenced(oldSide.state, newSide.state, owned) : undefined;
  showProgress("comparing");
  const diff = diffRules(oldSide.state, newSide.state, chains === undefined ? {} : { chains });
  writeOut(format === "restore" ? formatDelta(diff) : summarizeDiff(diff));
  // Two node dumps: say when chains left out of the comparison differ too, so that "no changes"
  // is not read as "the same rules". (Against a cluster they always differ: it has no others.)
  if (chains !== undefined && oldSide.isRules && newSide.isRules) {
    const others = diffRules(oldSide.state, newSide.state, { chains: (t, c) => !owned(t, c) });
    const names = others.tables.flatMap((t) => t.chains.map((c) => `${t.name} ${c.chain}`));
    if (names.length > 0) {
      const shown = names.length > 5 ? [...names.slice(0, 5), "…"] : names;
      const what =
        names.length === 1
          ? "1 chain that kube-proxy does not own differs"
          : `${names.length} chains that kube-proxy does not own differ`;
      writeNote(oneLine(`${what} too (${shown.join(", ")}); --all-chains compares them`));
    }
  }
  // A node's dump against a cluster: differences that come from the node's settings, not its
  // Services, are named with the flags that compare like with like.
  if (diff.tables.length > 0 && oldSide.isRules !== newSide.isRules) {
    const [node, cluster] = oldSide.isRules ? [oldSide, newSide] : [newSide, oldSide];
    const [nodeFile, clusterFile] = oldSide.isRules ? [oldFile, newFile] : [newFile, oldFile];
    // A dump of another mode (IPVS, nftables, a replacement) is not read for settings: its
    // chains are not iptables mode's, and the note says where the services are instead.
    const otherMode = hasServicePortChains(cluster.state) && !hasServicePortChains(node.state);
    const why = otherMode ? whyNoServicePorts(node.state) : null;
    const notes =
      why !== null
        ? [oneLine(`${nodeFile} holds no service port's chains: ${why}`)]
        : settingNotes(settingDifferences(node.state, cluster.state, cluster.model), nodeFile, clusterFile);
    for (const note of notes) writeNote(note);
  }
  return diff.tables.length > 0 ? EXIT_DIFFER : EXIT_OK;
}
