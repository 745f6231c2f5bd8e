/**
 * kube-proxy's nftables mode from the same model and plans as the iptables mode: the table one
 * full sync writes ({@link generateNftables}), printed as the transaction kube-proxy passes to
 * `nft -f -` ({@link formatNftTransaction}) or as `nft list table` shows it afterwards
 * ({@link formatNftRuleset}).
 *
 * @module
 */
import { KubeIptablesError, type Problem, problem, warning } from "../errors.js";
import { parseCidr } from "../model/ip.js";
import { expandNodePortKeywords } from "../model/node-port-keywords.js";
import { PROFILE_NAMES, PROFILES, type ProfileTraits } from "../model/profiles.js";
import type { ClusterModel } from "../model/types.js";
import { planCluster } from "../plan/index.js";
import type { ServicePortPlan } from "../plan/types.js";
import { LayoutWriter } from "./layout.js";
import { nftNodePorts } from "./node-ports.js";
import type { NftCommand, NftTable } from "./types.js";

export { formatNftDump } from "./dump.js";
export { formatIntervalSet } from "./intervals.js";
export { type NftNodePorts, nftNodePorts } from "./node-ports.js";
export { formatNftRuleset, listedPriority, listedTimeout } from "./ruleset.js";
export { formatNftTransaction, nftCommandLine, quoteNft } from "./transaction.js";
export type { NftCommand, NftFamily, NftHook, NftRule, NftTable } from "./types.js";

/**
 * Options of {@link generateNftables}.
 *
 * @example
 * formatNftTransaction(generateNftables(model, { serviceCIDRs: ["10.96.0.0/12"] }))
 * // …, 'add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/12 } drop comment "Drop traffic to unallocated ClusterIPs"', …
 */
export interface NftablesOptions {
  /** Profile traits to override. */
  readonly traits?: Partial<ProfileTraits>;
  /**
   * The JSON path of a service port in the caller's input (`services[3].spec.ports[1]`), for
   * problems; without it problems name the Service in their message and have an empty path.
   */
  readonly servicePortPath?: (namespace: string, name: string, portName: string) => string;
  /**
   * The cluster's service CIDRs (ServiceCIDR objects, or `--service-cluster-ip-range`). Known
   * to kube-proxy from 1.33 (MultiCIDRServiceAllocator GA, earlier behind its gate); then
   * `cluster-ips-check` drops traffic to unallocated cluster IPs. CIDRs of the other family are
   * left out.
   */
  readonly serviceCIDRs?: readonly string[];
}

/**
 * The table kube-proxy's nftables mode writes on a full sync for the model's family, with the
 * problems that would make the real nft refuse the transaction (as warnings: the output is still
 * exactly what kube-proxy writes).
 *
 * @throws {KubeIptablesError} when the profile has no nftables layout this library writes.
 * @example
 * const table = generateNftables(model);
 * formatNftTransaction(table).startsWith("add table ip kube-proxy") // true
 */
export function generateNftables(model: ClusterModel, options: NftablesOptions = {}): NftTable {
  const plan = planCluster(model, options.traits);
  const layout = plan.node.traits.nftablesLayout;
  if (layout === null) {
    const written = PROFILE_NAMES.filter((name) => PROFILES[name].nftablesLayout !== null).join(", ");
    const why = `kube-proxy ${model.config.profile} has no nftables mode written here (profiles with one: ${written})`;
    throw new KubeIptablesError([problem("INVALID_VALUE", "config.profile", why)]);
  }
  const keywords = plan.node.traits.nodePortAddressKeywords;
  const entries = expandNodePortKeywords(model.config.nodePortAddresses, plan.node.family, keywords);
  const nodePorts = nftNodePorts(entries, plan.node.nodeIPs, plan.node.family);
  const serviceCIDRs: string[] = [];
  for (const text of options.serviceCIDRs ?? []) {
    const cidr = parseCidr(text);
    if (cidr !== null && cidr.family === plan.node.family) serviceCIDRs.push(cidr.text);
  }
  const writer = new LayoutWriter(plan.node, nodePorts, layout, serviceCIDRs);
  writer.writeBase();
  const owners: { start: number; plan: ServicePortPlan }[] = [];
  for (const p of plan.servicePorts) {
    owners.push({ start: writer.commands.length, plan: p });
    writer.writeServicePort(p);
  }
  const family = plan.node.family === "IPv4" ? "ip" : "ip6";
  const commands = writer.commands;
  const pathOf = (p: ServicePortPlan): string =>
    options.servicePortPath?.(p.port.namespace, p.port.name, p.port.portName) ?? "";
  return {
    family,
    name: "kube-proxy",
    commands,
    problems: [
      ...(layout === "A" ? detectorProblems(model, commands) : []),
      ...clashProblems(commands, owners, pathOf),
    ],
  };
}

/** The interface detectors: 1.30 writes `iif`, which nft resolves to an index when it loads. */
function detectorProblems(model: ClusterModel, commands: readonly NftCommand[]): Problem[] {
  const d = model.config.detectLocal;
  if (d.mode !== "InterfaceNamePrefix" && d.mode !== "BridgeInterface") return [];
  const used = commands.some((c) => c.object === "rule" && c.rule.written.includes("iif "));
  if (!used) return [];
  if (d.mode === "InterfaceNamePrefix") {
    return [
      warning(
        "INVALID_VALUE",
        "config.detectLocal.prefix",
        `kube-proxy 1.30 writes "iif != ${d.prefix}*", which nft cannot load ("Interface does not exist"): nft refuses the whole transaction (1.34.x/1.35 write iifname)`,
      ),
    ];
  }
  return [
    warning(
      "INVALID_VALUE",
      "config.detectLocal.interface",
      `kube-proxy 1.30 writes "iif ${d.interface}", which nft resolves when it loads: the transaction loads only on a node where ${d.interface} exists`,
    ),
  ];
}

/**
 * Map elements with one key and two verdicts (two service ports claiming one address, protocol
 * and port): nft answers "File exists" and refuses the whole transaction.
 */
function clashProblems(
  commands: readonly NftCommand[],
  owners: readonly { start: number; plan: ServicePortPlan }[],
  pathOf: (p: ServicePortPlan) => string,
): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, { value: string; owner: ServicePortPlan | undefined }>();
  let o = -1;
  for (let i = 0; i < commands.length; i++) {
    while (o + 1 < owners.length && (owners[o + 1] as { start: number }).start <= i) o++;
    const c = commands[i] as NftCommand;
    if (c.object !== "element" || c.container !== "map") continue;
    const owner = owners[o]?.plan;
    const id = `${c.name} ${c.key.join(" . ")}`;
    const value = c.value ?? "";
    const before = seen.get(id);
    if (before === undefined) {
      seen.set(id, { value, owner });
      continue;
    }
    if (before.value === value) continue;
    const who = owner === undefined ? "" : ` (Service ${owner.port.namespace}/${owner.port.name})`;
    const other = before.owner === undefined ? "another element" : before.owner.servicePortName;
    problems.push(
      warning(
        "DUPLICATE",
        owner === undefined ? "" : pathOf(owner),
        `${c.name} gets two elements with the key ${c.key.join(" . ")}${who}, already "${before.value}" for ${other}: nft refuses the whole transaction ("File exists")`,
      ),
    );
  }
  return problems;
}
