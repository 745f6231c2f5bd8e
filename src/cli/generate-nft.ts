import { formatProblem, KubeIptablesError } from "../errors.js";
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ClusterInput } from "../kube/types.js";
import { parseCidr } from "../model/ip.js";
import { isProfile, PROFILE_NAMES, PROFILES } from "../model/profiles.js";
import {
  formatNftDump,
  formatNftRuleset,
  formatNftTransaction,
  generateNftables,
} from "../nftables/index.js";
import type { NftTable } from "../nftables/types.js";
import { writeOut } from "./io.js";
import { checkNodeOptions, familiesOf, writeClusterProblems } from "./node-options.js";
import { readClusterArgs } from "./read-cluster.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const FORMATS = new Set(["transaction", "ruleset", "dump", "json"]);

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
export async function runGenerateNft(
  values: Record<string, string | boolean | string[] | undefined>,
  positionals: readonly string[],
): Promise<number> {
  if (values.mode !== "nftables")
    throw new UsageError(`--mode ${values.mode}: expected iptables or nftables`);
  const format = (values.format as string | undefined) ?? "transaction";
  if (!FORMATS.has(format))
    throw new UsageError(
      `--format ${format}: expected transaction, ruleset, dump or json with --mode nftables`,
    );
  checkNodeOptions(values);
  // A --profile without an nftables layout is the flag's mistake, not the cluster file's.
  const profile = values.profile as string | undefined;
  if (profile !== undefined && isProfile(profile) && PROFILES[profile].nftablesLayout === null) {
    const written = PROFILE_NAMES.filter((name) => PROFILES[name].nftablesLayout !== null).join(", ");
    throw new UsageError(
      `--profile ${profile}: kube-proxy ${profile} has no nftables mode written here (profiles with one: ${written})`,
    );
  }
  // The cluster's service CIDRs (kube-proxy ≥ 1.33 reads ServiceCIDR objects): comma lists too.
  const serviceCIDRs = ((values["service-cidr"] as string[] | undefined) ?? []).flatMap((v) => v.split(","));
  for (const cidr of serviceCIDRs)
    if (parseCidr(cidr) === null) throw new UsageError(`--service-cidr ${cidr}: not a CIDR`);
  const read = await readClusterArgs(positionals, values);
  if (read === null) return EXIT_INPUT;
  const { input, file } = read;
  const config = input.config;
  const families = familiesOf(values.family as string | undefined, config);
  const outputs: string[] = [];
  const printed = new Set<string>();
  for (const family of families) {
    const prepared = prepareCluster(input, { family, strict: values.strict === true, origins: read.origins });
    const table = prepared.model === null ? null : tableOf(prepared.model, input, serviceCIDRs);
    const problems = [
      ...prepared.problems,
      ...(table instanceof KubeIptablesError ? table.problems : (table?.problems ?? [])),
    ];
    const fresh = problems.filter((p) => !printed.has(formatProblem(p)));
    for (const p of fresh) printed.add(formatProblem(p));
    writeClusterProblems(file, fresh, values);
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
