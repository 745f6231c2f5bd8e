// `kube-iptables generate --mode nftables`: cluster file → kube-proxy's nftables table, as the
// transaction kube-proxy passes to `nft -f -`, as `nft list table` prints it, as knftables'
// Fake.Dump() prints it (kube-proxy's golden tests), or as JSON.
import { parseArgs } from "node:util";
import { formatProblem, KubeIptablesError } from "../errors.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ClusterInput } from "../kube/types.js";
import { parseCidr } from "../model/ip.js";
import {
  formatNftDump,
  formatNftRuleset,
  formatNftTransaction,
  generateNftables,
} from "../nftables/index.js";
import type { NftTable } from "../nftables/types.js";
import { expandInputs, writeErr, writeOut } from "./io.js";
import { applyNodeOptions, checkNodeOptions, familiesOf, NODE_OPTIONS } from "./node-options.js";
import { readClusterFiles } from "./read-cluster.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const FORMATS = new Set(["transaction", "ruleset", "dump", "json"]);

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        ...NODE_OPTIONS,
        format: { type: "string" },
        strict: { type: "boolean" },
        mode: { type: "string" },
        "service-cidr": { type: "string", multiple: true },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The JSON path of a service port in the input (`services[3].spec.ports[1]`), for problems; the
 * Service's place when the port is not found, `""` when neither is.
 */
function servicePortPathIn(
  input: ClusterInput,
): (namespace: string, name: string, portName: string) => string {
  return (namespace, name, portName) => {
    const services = Array.isArray(input.services) ? input.services : [];
    const i = services.findIndex(
      (s) => (s.metadata?.namespace ?? "default") === namespace && s.metadata?.name === name,
    );
    if (i < 0) return "";
    const ports = services[i]?.spec?.ports;
    const j = Array.isArray(ports) ? ports.findIndex((p) => (p.name ?? "") === portName) : -1;
    return j < 0 ? `services[${i}]` : `services[${i}].spec.ports[${j}]`;
  };
}

function print(table: NftTable, format: string): string {
  if (format === "ruleset") return formatNftRuleset(table);
  if (format === "dump") return formatNftDump(table);
  if (format === "json")
    return `${JSON.stringify({ family: table.family, name: table.name, commands: table.commands }, null, 2)}\n`;
  return formatNftTransaction(table);
}

/** Runs `generate --mode nftables` and returns the exit code. */
export async function runGenerateNft(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.mode !== "nftables")
    throw new UsageError(`--mode ${values.mode}: expected iptables or nftables`);
  if (positionals.length === 0) throw new UsageError("generate takes a FILE (or - for stdin)");
  if (positionals.filter((file) => file === "-").length > 1)
    throw new UsageError("standard input (-) can be read once");
  const format = values.format ?? "transaction";
  if (!FORMATS.has(format))
    throw new UsageError(
      `--format ${format}: expected transaction, ruleset, dump or json with --mode nftables`,
    );
  checkNodeOptions(values);
  // The cluster's service CIDRs (kube-proxy ≥ 1.33 reads ServiceCIDR objects): comma lists too.
  const serviceCIDRs = (values["service-cidr"] ?? []).flatMap((v) => v.split(","));
  for (const cidr of serviceCIDRs)
    if (parseCidr(cidr) === null) throw new UsageError(`--service-cidr ${cidr}: not a CIDR`);
  const files = expandInputs(positionals);
  if (files === null) return EXIT_INPUT;
  const read = await readClusterFiles(files);
  if (read === null) return EXIT_INPUT;
  if (read.input === null || read.problems.length > 0) {
    for (const p of read.problems) writeErr(formatProblem(p));
    return EXIT_INPUT;
  }
  const config = applyNodeOptions(read.input.config, values);
  const input = { ...read.input, config };
  const families = familiesOf(values.family, config);
  const outputs: string[] = [];
  const printed = new Set<string>();
  for (const family of families) {
    const prepared = prepareCluster(input, { family, strict: values.strict === true, origins: read.origins });
    const table = prepared.model === null ? null : tableOf(prepared.model, input, serviceCIDRs);
    const problems = [
      ...prepared.problems,
      ...(table instanceof KubeIptablesError ? table.problems : (table?.problems ?? [])),
    ];
    for (const p of problems) {
      const line = formatProblem(p);
      if (!printed.has(line)) writeErr(line);
      printed.add(line);
    }
    if (table === null || table instanceof KubeIptablesError) return EXIT_INPUT;
    // kube-proxy runs one proxier (one table, one transaction) per family.
    const header =
      families.length > 1 && format !== "json" ? `# ${family} (table ${table.family} kube-proxy)\n` : "";
    outputs.push(header + print(table, format));
  }
  const json = format === "json" && families.length > 1;
  writeOut(json ? `[\n${outputs.map((o) => o.trimEnd()).join(",\n")}\n]\n` : outputs.join(""));
  return EXIT_OK;
}

function tableOf(
  model: Parameters<typeof generateNftables>[0],
  input: ClusterInput,
  serviceCIDRs: readonly string[],
): NftTable | KubeIptablesError {
  try {
    return generateNftables(model, { servicePortPath: servicePortPathIn(input), serviceCIDRs });
  } catch (e) {
    if (e instanceof KubeIptablesError) return e;
    throw e;
  }
}
