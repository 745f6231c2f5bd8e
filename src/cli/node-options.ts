// Command-line flags that describe the node, turned into config overrides.
import type { Problem } from "../errors.js";
import type { ProxyConfigInput } from "../kube/types.js";
import { validateClusterInput } from "../kube/validate.js";
import { isProfile, PROFILE_NAMES } from "../model/profiles.js";
import { oneLine } from "../one-line.js";
import { writeErr, writeProblems } from "./io.js";
import { UsageError } from "./usage.js";

/** parseArgs option definitions for the node flags. */
export const NODE_OPTIONS = {
  hostname: { type: "string" },
  "node-ip": { type: "string", multiple: true },
  "cluster-cidr": { type: "string", multiple: true },
  "node-cidr": { type: "string", multiple: true },
  "bridge-interface": { type: "string" },
  "interface-name-prefix": { type: "string" },
  "no-detect-local": { type: "boolean" },
  "masquerade-bit": { type: "string" },
  "masquerade-all": { type: "boolean" },
  "nodeport-addresses": { type: "string" },
  "no-localhost-nodeports": { type: "boolean" },
  zone: { type: "string" },
  "random-fully": { type: "boolean" },
  "conntrack-tcp-be-liberal": { type: "boolean" },
  "no-external-ips": { type: "boolean" },
  profile: { type: "string" },
  family: { type: "string" },
  namespace: { type: "string", short: "n" },
} as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Applies the node flags on top of a cluster file's config (flags win). */
export function applyNodeOptions(
  base: ProxyConfigInput | undefined,
  values: Record<string, string | boolean | string[] | undefined>,
): ProxyConfigInput {
  // A config that is not an object (an array, a string) is left as it is, for validation to
  // report: spreading it would turn it into a valid-looking {} and hide the mistake. `null` is
  // no config, as JSON's null is an absent field to the API server: the flags still apply.
  if (base !== undefined && base !== null && (typeof base !== "object" || Array.isArray(base))) {
    return base;
  }
  const config: Mutable<ProxyConfigInput> = { ...base };
  const str = (name: string): string | undefined => values[name] as string | undefined;
  const list = (name: string): string[] | undefined => values[name] as string[] | undefined;
  if (str("hostname") !== undefined) config.hostname = str("hostname") as string;
  if (list("node-ip") !== undefined) config.nodeIPs = list("node-ip") as string[];
  const detectFlags = [
    "cluster-cidr",
    "node-cidr",
    "bridge-interface",
    "interface-name-prefix",
    "no-detect-local",
  ].filter((f) => values[f] !== undefined);
  if (detectFlags.length > 1)
    throw new UsageError(`--${detectFlags[0]} and --${detectFlags[1]} cannot be combined`);
  const clusterCidrs = list("cluster-cidr")?.flatMap((v) => v.split(","));
  const nodeCidrs = list("node-cidr")?.flatMap((v) => v.split(","));
  if (clusterCidrs !== undefined) config.detectLocal = { mode: "ClusterCIDR", cidrs: clusterCidrs };
  if (nodeCidrs !== undefined) config.detectLocal = { mode: "NodeCIDR", cidrs: nodeCidrs };
  if (str("bridge-interface") !== undefined) {
    config.detectLocal = { mode: "BridgeInterface", interface: str("bridge-interface") as string };
  }
  if (str("interface-name-prefix") !== undefined) {
    config.detectLocal = { mode: "InterfaceNamePrefix", prefix: str("interface-name-prefix") as string };
  }
  if (values["no-detect-local"] === true) config.detectLocal = { mode: "None" };
  const bit = str("masquerade-bit");
  if (bit !== undefined) {
    if (!/^\d{1,2}$/.test(bit) || Number(bit) > 31)
      throw new UsageError(`--masquerade-bit ${showArgument(bit)}: not a bit number 0-31`);
    config.masqueradeBit = Number(bit);
  }
  if (values["masquerade-all"] === true) config.masqueradeAll = true;
  const npa = str("nodeport-addresses");
  if (npa !== undefined) config.nodePortAddresses = npa === "" ? [] : npa.split(",");
  if (values["no-localhost-nodeports"] === true) config.localhostNodePorts = false;
  if (str("zone") !== undefined) {
    config.nodeLabels = { ...config.nodeLabels, "topology.kubernetes.io/zone": str("zone") as string };
  }
  if (values["random-fully"] === true) config.hasRandomFully = true;
  if (values["conntrack-tcp-be-liberal"] === true) config.conntrackTCPBeLiberal = true;
  if (values["no-external-ips"] === true) config.allowServiceExternalIPs = false;
  const profile = str("profile");
  if (profile !== undefined) {
    if (!isProfile(profile))
      throw new UsageError(`--profile ${showArgument(profile)}: expected ${PROFILE_NAMES.join(", ")}`);
    config.profile = profile;
  }
  return config;
}

/**
 * The families to generate for: from --family, else the config's, else IPv4. The config is the
 * file's, not yet validated (it may be `null` or hold any value): a family it does not spell
 * right is left to validation to report, and IPv4 is taken meanwhile.
 */
export function familiesOf(flag: string | undefined, config: unknown): ("IPv4" | "IPv6")[] {
  if (flag === undefined) {
    const family =
      typeof config === "object" && config !== null ? (config as ProxyConfigInput).ipFamily : undefined;
    return [family === "IPv6" ? "IPv6" : "IPv4"];
  }
  if (flag === "IPv4" || flag === "IPv6") return [flag];
  if (flag === "both") return ["IPv4", "IPv6"];
  throw new UsageError(`--family ${showArgument(flag)}: expected IPv4, IPv6 or both`);
}

/** A namespace name: a DNS-1123 label (API server: ValidateNamespaceName). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * How to read Kubernetes objects: `--namespace` (`-n`) is the namespace of objects that name
 * none (default `default`, as `kubectl apply -f`); an object's own namespace wins.
 *
 * @throws UsageError for a name the API server would refuse.
 */
export function readOptionsOf(values: Record<string, string | boolean | string[] | undefined>): {
  namespace?: string;
} {
  const namespace = values.namespace;
  if (typeof namespace !== "string") return {};
  if (namespace.length > 63 || !NAMESPACE.test(namespace))
    throw new UsageError(`--namespace ${showArgument(namespace)}: not a namespace name (a DNS-1123 label)`);
  return { namespace };
}

/**
 * Checks the node flags without a config, so that a usage error is reported before the input is
 * read, and never hides behind an unreadable file. A flag's value is checked by the rules of the
 * config field it sets (one set of rules: the config validator's) and reported under the flag's
 * name: `--node-ip 300.1.1.1: not a valid IP address`, not `config.nodeIPs[0]: …`.
 *
 * @throws UsageError for a bad or conflicting flag.
 * @example
 * checkNodeOptions({ "node-ip": ["300.1.1.1"] }) // throws UsageError("--node-ip 300.1.1.1: not a valid IP address")
 */
export function checkNodeOptions(values: Record<string, string | boolean | string[] | undefined>): void {
  readOptionsOf(values);
  const config = applyNodeOptions(undefined, values);
  familiesOf(values.family as string | undefined, config);
  const first = validateClusterInput({ config }).find((p) => p.severity === "error");
  if (first !== undefined) throw new UsageError(flagProblem(first, values));
}

/** The flags whose values land in a config field, by the field's path. */
function flagOfPath(path: string, values: Record<string, unknown>): [flag: string, value: unknown] | null {
  const index = Number(/\[(\d+)\]$/.exec(path)?.[1] ?? Number.NaN);
  const item = (flag: string, list: unknown): [string, unknown] =>
    Number.isNaN(index) ? [flag, list] : [flag, (list as string[] | undefined)?.[index]];
  const split = (flag: string) => (values[flag] as string[] | undefined)?.flatMap((v) => v.split(","));
  if (path === "config.hostname") return ["hostname", values.hostname];
  if (path.startsWith("config.nodeIPs")) return item("node-ip", values["node-ip"]);
  if (path === 'config.nodeLabels["topology.kubernetes.io/zone"]') return ["zone", values.zone];
  if (path.startsWith("config.nodePortAddresses")) {
    const list = (values["nodeport-addresses"] as string | undefined)?.split(",");
    return Number.isNaN(index)
      ? ["nodeport-addresses", values["nodeport-addresses"]]
      : item("nodeport-addresses", list);
  }
  if (path.startsWith("config.detectLocal.cidrs")) {
    const flag = values["cluster-cidr"] !== undefined ? "cluster-cidr" : "node-cidr";
    return item(flag, split(flag));
  }
  if (path === "config.detectLocal.interface") return ["bridge-interface", values["bridge-interface"]];
  if (path === "config.detectLocal.prefix") return ["interface-name-prefix", values["interface-name-prefix"]];
  return null;
}

/**
 * Writes the problems found in a cluster's config and objects: one in a config field that a flag
 * set (flags win over the file) is the flag's, `--cluster-cidr 0.0.0.0/0: …`; the others are the
 * file's (see `writeProblems`). Most flag values are checked before the input is read; this
 * names the flag for the checks that need the cluster (a /0 CIDR of the proxier's family).
 *
 * @example
 * writeClusterProblems("a.yaml", prepared.problems, values);
 */
export function writeClusterProblems(
  file: string | undefined,
  problems: readonly Problem[],
  values: Record<string, string | boolean | string[] | undefined>,
): void {
  for (const p of problems) {
    if (flagOfPath(p.path, values)?.[1] !== undefined) writeErr(flagProblem(p, values));
    else writeProblems(file, [p]);
  }
}

/** A problem of the flags' config as the flag's problem: `--FLAG VALUE: message`. */
function flagProblem(p: Problem, values: Record<string, unknown>): string {
  const found = flagOfPath(p.path, values);
  if (found === null) return oneLine(`${p.path}: ${p.message}`);
  const [flag, value] = found;
  // The validator's message starts with the value it quotes; the flag shows it already.
  const message = p.message.replace(/^"(?:[^"\\]|\\.)*"…? (?:is )?/, "");
  return oneLine(`--${flag} ${typeof value === "string" ? showArgument(value) : String(value)}: ${message}`);
}

/**
 * A command-line value as a shell would take it back: as it is when plain, else in single quotes.
 *
 * @example
 * showArgument("10.0.0.0/8") // "10.0.0.0/8"
 * showArgument("a b")        // "'a b'"
 */
export function showArgument(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
