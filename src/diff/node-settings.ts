/**
 * The node settings that kube-proxy's rules show (its masquerade mark, how it tells pod traffic,
 * where node ports answer, …), read from two states and compared: a diff of a node's dump
 * against a cluster whose differences come from the node's settings, not from its Services,
 * can then say which flags make the cluster side's rules the node's. Only what both states show
 * is compared: a setting one of them does not show (no Service, no such chain) says nothing.
 *
 * @module
 */

import { isDeferredTable, parsedChainOf } from "../iptables/index.js";
import { type Rule, type RuleSet, ruleTarget, type Table } from "../ir/types.js";
import type { ClusterModel } from "../model/types.js";
import { CHAIN_PREFIX, isEndpointChain } from "../naming/kube-chains.js";

/**
 * One node setting whose evidence differs between a node's rules and a cluster side's.
 *
 * @example
 * const d: SettingDifference = {
 *   setting: "masquerade mark",
 *   node: "bit 15",
 *   cluster: "bit 14",
 *   chain: "nat KUBE-MARK-MASQ",
 *   flags: ["--masquerade-bit", "15"],
 * };
 */
export interface SettingDifference {
  /** What the setting is, in words. */
  readonly setting: string;
  /** What the node's rules show of it. */
  readonly node: string;
  /** What the cluster side's rules show of it. */
  readonly cluster: string;
  /** Where the node's rules show it: `TABLE CHAIN`. */
  readonly chain: string;
  /** The CLI arguments that make the cluster side show what the node shows (none when unknown). */
  readonly flags: readonly string[];
}

/** How a service chain's cluster-IP masquerade rule tells the traffic it masquerades. */
type PodTraffic =
  | { readonly kind: "source"; readonly cidr: string }
  | { readonly kind: "interface"; readonly name: string }
  | { readonly kind: "all" }
  | { readonly kind: "none" };

/** Per table that the parser did not defer: its rules by chain, declared chains included. */
const RULES_BY_CHAIN = new WeakMap<Table, Map<string, Rule[]>>();

/** A table's rules by chain, made once (a diff asks about thousands of chains). */
function rulesByChain(table: Table): Map<string, Rule[]> {
  let index = RULES_BY_CHAIN.get(table);
  if (index === undefined) {
    index = new Map();
    for (const { name } of table.chains) index.set(name, []);
    for (const e of table.entries) {
      if (e.kind !== "rule" || e.op !== "-A") continue;
      const rules = index.get(e.chain);
      if (rules === undefined) index.set(e.chain, [e]);
      else rules.push(e);
    }
    RULES_BY_CHAIN.set(table, index);
  }
  return index;
}

/** The rules of one chain of a table (a parsed table builds only that chain's). */
function chainRules(table: Table | undefined, chain: string): readonly Rule[] {
  if (table === undefined) return [];
  if (isDeferredTable(table)) return parsedChainOf(table, chain)?.rules ?? [];
  return rulesByChain(table).get(chain) ?? [];
}

/** Whether a table declares the chain or appends to it. */
function hasChain(table: Table | undefined, chain: string): boolean {
  if (table === undefined) return false;
  if (isDeferredTable(table)) return parsedChainOf(table, chain) !== undefined;
  return rulesByChain(table).has(chain);
}

function tableOf(state: RuleSet, name: string): Table | undefined {
  return state.tables.find((t) => t.name === name);
}

/** The value after `option` in a rule's argv (the first one), if it has it. */
function optionValue(args: readonly string[], ...options: string[]): string | undefined {
  for (let i = 0; i < args.length - 1; i++) if (options.includes(args[i] as string)) return args[i + 1];
  return undefined;
}

/** The value of a negated `option` (`! -s X`), if the rule has one. */
function negatedValue(args: readonly string[], ...options: string[]): string | undefined {
  for (let i = 0; i < args.length - 2; i++)
    if (args[i] === "!" && options.includes(args[i + 1] as string)) return args[i + 2];
  return undefined;
}

/** The masquerade mark's bit, from KUBE-MARK-MASQ's rule (`--or-mark 0x4000`, `--set-xmark 0x4000/0x4000`). */
function masqueradeBit(nat: Table | undefined): number | undefined {
  for (const rule of chainRules(nat, "KUBE-MARK-MASQ")) {
    const value = optionValue(rule.args, "--or-mark", "--set-xmark", "--set-mark")?.split("/")[0];
    if (value === undefined || !/^0x[0-9a-f]+$/i.test(value)) continue;
    const bit = Math.log2(Number.parseInt(value.slice(2), 16));
    if (Number.isInteger(bit)) return bit;
  }
  return undefined;
}

/** How one service chain's cluster-IP masquerade rule tells the traffic it masquerades. */
function podTrafficOf(rules: readonly Rule[]): PodTraffic {
  for (const rule of rules) {
    if (ruleTarget(rule.args) !== "KUBE-MARK-MASQ") continue;
    if (!optionValue(rule.args, "--comment")?.endsWith(" cluster IP")) continue;
    const cidr = negatedValue(rule.args, "-s", "--source", "--src");
    if (cidr !== undefined) return { kind: "source", cidr };
    const name = negatedValue(rule.args, "-i", "--in-interface");
    if (name !== undefined) return { kind: "interface", name };
    return { kind: "all" };
  }
  return { kind: "none" };
}

function describePodTraffic(t: PodTraffic): string {
  switch (t.kind) {
    case "source":
      return `told by source ${t.cidr}`;
    case "interface":
      return `told by input interface ${t.name}`;
    case "all":
      return "not told (every packet to a cluster IP masqueraded)";
    case "none":
      return "not told apart";
  }
}

function podTrafficFlags(t: PodTraffic): string[] {
  switch (t.kind) {
    case "source":
      return ["--cluster-cidr", t.cidr];
    case "interface":
      return t.name.endsWith("+")
        ? ["--interface-name-prefix", t.name.slice(0, -1)]
        : ["--bridge-interface", t.name];
    case "all":
      return ["--masquerade-all"];
    case "none":
      return ["--no-detect-local"];
  }
}

/** How many service chains both sides hold are looked at for the pod-traffic rule. */
const SERVICE_CHAINS_TRIED = 50;

/**
 * The pod-traffic setting of both sides, read from the first service chain both hold (the same
 * Service port on both sides, so that only the node's setting can make its rule differ).
 */
function podTrafficDifference(node: Table | undefined, cluster: Table | undefined): SettingDifference[] {
  if (node === undefined || cluster === undefined) return [];
  let tried = 0;
  for (const { name } of cluster.chains) {
    if (!name.startsWith(CHAIN_PREFIX.service) || !hasChain(node, name)) continue;
    const ours = podTrafficOf(chainRules(cluster, name));
    const theirs = podTrafficOf(chainRules(node, name));
    if (JSON.stringify(ours) !== JSON.stringify(theirs))
      return [
        {
          setting: "pod traffic",
          node: describePodTraffic(theirs),
          cluster: describePodTraffic(ours),
          chain: `nat ${name}`,
          flags: podTrafficFlags(theirs),
        },
      ];
    if (++tried === SERVICE_CHAINS_TRIED) break;
  }
  return [];
}

/** Whether KUBE-POSTROUTING's MASQUERADE rule has `--random-fully` (undefined: no such rule). */
function randomFully(nat: Table | undefined): boolean | undefined {
  for (const rule of chainRules(nat, "KUBE-POSTROUTING"))
    if (ruleTarget(rule.args) === "MASQUERADE") return rule.args.includes("--random-fully");
  return undefined;
}

/** Whether KUBE-FORWARD drops conntrack-INVALID packets (undefined: the chain has no rules). */
function invalidDrop(filter: Table | undefined): boolean | undefined {
  const rules = chainRules(filter, "KUBE-FORWARD");
  if (rules.length === 0) return undefined;
  return rules.some((r) => ruleTarget(r.args) === "DROP" && optionValue(r.args, "--ctstate") === "INVALID");
}

/** A setting that one value of one chain shows: how to read it and show it, and its flags. */
interface ChainSetting<T> {
  readonly setting: string;
  readonly table: "filter" | "nat";
  readonly chain: string;
  /** The value the table shows (undefined: it shows none). */
  readonly read: (table: Table | undefined) => T | undefined;
  readonly show: (value: T) => string;
  /** The flags that give the cluster side the node's value. */
  readonly flags: (node: T) => string[];
}

const MASQUERADE_MARK: ChainSetting<number> = {
  setting: "masquerade mark",
  table: "nat",
  chain: "KUBE-MARK-MASQ",
  read: masqueradeBit,
  show: (bit) => `bit ${bit}`,
  flags: (bit) => ["--masquerade-bit", String(bit)],
};

const RANDOM_FULLY: ChainSetting<boolean> = {
  setting: "masquerading source ports",
  table: "nat",
  chain: "KUBE-POSTROUTING",
  read: randomFully,
  show: (on) => (on ? "--random-fully" : "no --random-fully"),
  flags: (on) => (on ? ["--random-fully"] : []),
};

const INVALID_DROP: ChainSetting<boolean> = {
  setting: "conntrack INVALID drop",
  table: "filter",
  chain: "KUBE-FORWARD",
  read: invalidDrop,
  show: (drops) => (drops ? "present" : "absent"),
  // Without the drop the node has nf_conntrack_tcp_be_liberal set; with it, the default.
  flags: (drops) => (drops ? [] : ["--conntrack-tcp-be-liberal"]),
};

function chainSettingDifference<T>(s: ChainSetting<T>, node: RuleSet, cluster: RuleSet): SettingDifference[] {
  const theirs = s.read(tableOf(node, s.table));
  const ours = s.read(tableOf(cluster, s.table));
  if (theirs === undefined || ours === undefined || theirs === ours) return [];
  return [
    {
      setting: s.setting,
      node: s.show(theirs),
      cluster: s.show(ours),
      chain: `${s.table} ${s.chain}`,
      flags: s.flags(theirs),
    },
  ];
}

/**
 * KUBE-SERVICES' jumps to KUBE-NODEPORTS, each as what it matches (the same in restore and save
 * argument order): where node ports answer. Undefined when the chain has no rules.
 */
function nodePortJumps(nat: Table | undefined): string[] | undefined {
  const rules = chainRules(nat, "KUBE-SERVICES");
  if (rules.length === 0) return undefined;
  const jumps: string[] = [];
  for (const { args } of rules) {
    if (ruleTarget(args) !== "KUBE-NODEPORTS") continue;
    const local = optionValue(args, "--dst-type") === "LOCAL";
    const to = negatedValue(args, "-d", "--destination", "--dst");
    const only = to === undefined ? optionValue(args, "-d", "--destination", "--dst") : undefined;
    jumps.push(
      only !== undefined
        ? only
        : `${local ? "local addresses" : "every address"}${to === undefined ? "" : ` but ${to}`}`,
    );
  }
  return jumps.sort();
}

function nodePortDifference(node: Table | undefined, cluster: Table | undefined): SettingDifference[] {
  const theirs = nodePortJumps(node);
  const ours = nodePortJumps(cluster);
  if (theirs === undefined || ours === undefined || theirs.join("\n") === ours.join("\n")) return [];
  const flags: string[] = [];
  if (theirs.length > 0 && theirs.every((j) => !j.includes(" "))) {
    // One rule per node address inside --nodeport-addresses: the addresses say both flags.
    flags.push("--nodeport-addresses", theirs.join(","));
    for (const cidr of theirs) flags.push("--node-ip", cidr.replace(/\/(32|128)$/, ""));
  } else if (
    theirs.some((j) => j.endsWith(" but 127.0.0.0/8")) &&
    !ours.some((j) => j.endsWith(" but 127.0.0.0/8"))
  )
    flags.push("--no-localhost-nodeports");
  const show = (jumps: readonly string[]): string => (jumps.length === 0 ? "none" : jumps.join(", "));
  return [
    {
      setting: "node-port destinations",
      node: show(theirs),
      cluster: show(ours),
      chain: "nat KUBE-SERVICES",
      flags,
    },
  ];
}

/** What a state's chain names and counters tell of the kube-proxy release that wrote it. */
function layoutMarks(state: RuleSet): { xlb: boolean; ext: boolean; nfacct: boolean | undefined } {
  const nat = tableOf(state, "nat");
  let xlb = false;
  let ext = false;
  for (const { name } of nat?.chains ?? []) {
    if (name.startsWith(CHAIN_PREFIX.xlb)) xlb = true;
    else if (name.startsWith(CHAIN_PREFIX.external) || name.startsWith(CHAIN_PREFIX.local)) ext = true;
  }
  const forward = chainRules(tableOf(state, "filter"), "KUBE-FORWARD");
  const nfacct = forward.length === 0 ? undefined : forward.some((r) => r.args.includes("--nfacct-name"));
  return { xlb, ext, nfacct };
}

function releaseDifference(node: RuleSet, cluster: RuleSet): SettingDifference[] {
  const theirs = layoutMarks(node);
  const ours = layoutMarks(cluster);
  const differ = (shown: string, ourShown: string, chain: string, flags: string[]): SettingDifference[] => [
    { setting: "kube-proxy release", node: shown, cluster: ourShown, chain, flags },
  ];
  const ext = "KUBE-EXT-/KUBE-SVL- chains";
  if (theirs.xlb && !ours.xlb && ours.ext)
    return differ("KUBE-XLB- chains (kube-proxy 1.23 or older)", ext, "nat", ["--profile", "v1.22"]);
  if (theirs.ext && !theirs.xlb && ours.xlb)
    return differ(`${ext} (kube-proxy 1.24 or newer)`, "KUBE-XLB- chains", "nat", ["--profile", "v1.30"]);
  if (theirs.nfacct === undefined || ours.nfacct === undefined || theirs.nfacct === ours.nfacct) return [];
  // (A 1.31+ node whose kernel lacks nfacct writes none: then nothing tells the release.)
  return differ(
    theirs.nfacct ? "nfacct counters (kube-proxy 1.31 or newer)" : "no nfacct counters",
    ours.nfacct ? "nfacct counters" : "no nfacct counters",
    "filter KUBE-FORWARD",
    theirs.nfacct ? ["--profile", "v1.32"] : [],
  );
}

/** The per-port local-policy chains' prefixes (v1.24+'s and v1.22's), and the hash's length. */
const LOCAL_CHAINS = [CHAIN_PREFIX.local, CHAIN_PREFIX.xlb];
const HASH_LENGTH = 16;

/**
 * The endpoints (`ip:port`, as DNAT writes them) that a state's rules treat as local, by the
 * hash of their service port: those its local-policy chains (`KUBE-SVL-`, v1.22's `KUBE-XLB-`)
 * send packets to. A port with no local endpoint has no such chain in v1.24+.
 */
function localEndpointsByPort(nat: Table | undefined): Map<string, Set<string>> {
  const byPort = new Map<string, Set<string>>();
  for (const { name } of nat?.chains ?? []) {
    const prefix = LOCAL_CHAINS.find((p) => name.startsWith(p));
    if (prefix === undefined) continue;
    const found = new Set<string>();
    byPort.set(name.slice(prefix.length), found);
    for (const rule of chainRules(nat, name)) {
      const sep = ruleTarget(rule.args);
      if (sep === null || !isEndpointChain(sep)) continue;
      for (const r of chainRules(nat, sep)) {
        const to = optionValue(r.args, "--to-destination");
        if (to !== undefined) found.add(to);
      }
    }
  }
  return byPort;
}

/** Whether a state holds any chain of the service port with this hash. */
function hasServicePort(nat: Table | undefined, hash: string): boolean {
  return [CHAIN_PREFIX.service, CHAIN_PREFIX.external, ...LOCAL_CHAINS].some((p) =>
    hasChain(nat, `${p}${hash}`),
  );
}

/**
 * The node name, when the two sides treat other endpoints as local: the node's local endpoints
 * name the node they run on (the model's slices say which), and `--hostname` that name makes
 * them the cluster side's local ones too.
 */
function nodeNameDifference(
  node: Table | undefined,
  cluster: Table | undefined,
  model: ClusterModel | undefined,
): SettingDifference[] {
  // Only the ports both sides hold are compared: a Service of one side only says nothing.
  const nodePorts = localEndpointsByPort(node);
  const clusterPorts = localEndpointsByPort(cluster);
  const theirs = new Set<string>();
  const ours = new Set<string>();
  for (const hash of new Set([...nodePorts.keys(), ...clusterPorts.keys()])) {
    if (hash.length !== HASH_LENGTH || !hasServicePort(node, hash) || !hasServicePort(cluster, hash))
      continue;
    for (const e of nodePorts.get(hash) ?? []) theirs.add(e);
    for (const e of clusterPorts.get(hash) ?? []) ours.add(e);
  }
  if (theirs.size === ours.size && [...theirs].every((e) => ours.has(e))) return [];
  const names = new Set<string>();
  for (const port of model?.servicePorts ?? [])
    for (const e of port.endpoints)
      if (e.nodeName !== undefined && theirs.has(e.endpoint)) names.add(e.nodeName);
  const name = names.size === 1 ? ([...names][0] as string) : undefined;
  const show = (local: ReadonlySet<string>, node: string | undefined): string =>
    local.size === 0
      ? "no endpoint local"
      : `${local.size} endpoint${local.size === 1 ? "" : "s"} local${node === undefined ? "" : ` (those of node ${node})`}`;
  const configured = model?.config.hostname;
  return [
    {
      setting: "node name",
      node: show(theirs, name),
      cluster: show(ours, configured === "" ? undefined : configured),
      chain: "nat KUBE-SVL-…",
      flags: name !== undefined && name !== configured ? ["--hostname", name] : [],
    },
  ];
}

/**
 * The node settings whose evidence differs between a node's rules (a dump) and a cluster side's
 * (rules generated for a model): the masquerade mark, how pod traffic is told (detect-local,
 * masquerade-all), `--random-fully`, the conntrack INVALID drop, where node ports answer, and
 * the release's layout, and the node name (which endpoints are local; with `model`, whose
 * slices name each endpoint's node). Each names the CLI flags that give the cluster side the
 * node's setting, when the rules tell them.
 *
 * @param node - The node's state (its kube-proxy chains are read; others are ignored).
 * @param cluster - The cluster side's state, as generated.
 * @param model - The model the cluster side was generated from, if known.
 * @returns The differing settings, in the order above; empty when none differs or neither side
 *   shows them.
 * @example
 * settingDifferences(parseRules(dump).ruleSet, generateState(model))
 * // [{ setting: "pod traffic", node: "told by source 10.244.0.0/16", …,
 * //    flags: ["--cluster-cidr", "10.244.0.0/16"] }]
 */
export function settingDifferences(
  node: RuleSet,
  cluster: RuleSet,
  model?: ClusterModel,
): SettingDifference[] {
  const [nodeNat, clusterNat] = [tableOf(node, "nat"), tableOf(cluster, "nat")];
  return [
    ...releaseDifference(node, cluster),
    ...chainSettingDifference(MASQUERADE_MARK, node, cluster),
    ...podTrafficDifference(nodeNat, clusterNat),
    ...chainSettingDifference(RANDOM_FULLY, node, cluster),
    ...chainSettingDifference(INVALID_DROP, node, cluster),
    ...nodePortDifference(nodeNat, clusterNat),
    ...nodeNameDifference(nodeNat, clusterNat, model),
  ];
}
