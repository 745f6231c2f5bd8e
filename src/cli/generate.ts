// `kube-iptables generate`: cluster file or Kubernetes objects → rules text.
import { parseArgs } from "node:util";
import { formatProblem } from "../errors.js";
import { formatJson } from "../format/json.js";
import { formatSave } from "../format/save.js";
import { generateRestoreText } from "../generate/restore-text.js";
import { generateRules, generateState } from "../generate/rules.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import { readClusterText } from "../kube/read-input.js";
import { readInput, writeErr, writeOut } from "./io.js";
import { applyNodeOptions, checkNodeOptions, familiesOf, NODE_OPTIONS } from "./node-options.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const FORMATS = new Set(["save", "restore", "json"]);

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { ...NODE_OPTIONS, format: { type: "string" }, strict: { type: "boolean" } },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Runs `generate` and returns the exit code. */
export function runGenerate(argv: readonly string[]): number {
  const { values, positionals } = parse(argv);
  if (positionals.length !== 1) throw new UsageError("generate takes one FILE (or - for stdin)");
  const format = values.format ?? "save";
  if (!FORMATS.has(format)) throw new UsageError(`--format ${format}: expected save, restore or json`);
  checkNodeOptions(values);
  const text = (() => {
    try {
      return readInput(positionals[0] as string);
    } catch (e) {
      writeErr((e as Error).message);
      return null;
    }
  })();
  if (text === null) return EXIT_INPUT;
  const read = readClusterText(text);
  if (read.input === null || read.problems.length > 0) {
    for (const p of read.problems) writeErr(formatProblem(p));
    return EXIT_INPUT;
  }
  const config = applyNodeOptions(read.input.config, values);
  const families = familiesOf(values.family, config);
  const outputs: string[] = [];
  // With --family both, a problem outside the family-specific checks is found twice: print it once.
  const printed = new Set<string>();
  for (const family of families) {
    const prepared = prepareCluster(
      { ...read.input, config },
      { family, strict: values.strict === true, origins: read.origins },
    );
    for (const p of prepared.problems) {
      const line = formatProblem(p);
      if (!printed.has(line)) writeErr(line);
      printed.add(line);
    }
    if (prepared.model === null) return EXIT_INPUT;
    const model = prepared.model;
    const body =
      format === "restore"
        ? generateRestoreText(model)
        : format === "json"
          ? formatJson(generateRules(model))
          : formatSave(generateState(model));
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
