// What the playground computes, without the page: the input read (a cluster, Kubernetes
// objects, or a rules text), the node options applied, the rules in both text forms, the kernel
// state, and traces and pictures of it. Everything through the library's public entry.
import {
  buildServiceGraph,
  type ClusterInput,
  detectTextForm,
  drawGraph,
  formatProblem,
  formatRestore,
  formatSave,
  generateRules,
  generateState,
  listServicePorts,
  overlayTrace,
  type Packet,
  type Problem,
  type ProxyConfigInput,
  parseRules,
  prepareCluster,
  type RuleSet,
  type TraceResult,
  traceRules,
} from "../../src/index.js";
import { readClusterText } from "../../src/yaml.js";

/** The node options a user may set; empty ones leave the input's config as it is. */
export interface NodeOptions {
  readonly hostname: string;
  /** Comma- or space-separated. */
  readonly nodeIPs: string;
  /** Comma- or space-separated CIDRs (local traffic detected by source CIDR). */
  readonly clusterCIDR: string;
  readonly profile: "" | "v1.30" | "v1.32" | "latest" | "v1.22";
  readonly family: "" | "IPv4" | "IPv6";
}

/** What the page shows for one input. */
export interface Computed {
  /** `cluster`, `save` or `restore`: what the input was read as. */
  readonly form: string;
  /** The problems, each as `path: message` or `input:LINE:COLUMN: message`, with the line when known. */
  readonly problems: readonly Shown[];
  /** The iptables-restore input kube-proxy writes (for a rules text: the text as restore input). */
  readonly restore: string;
  /** What iptables-save prints once the rules are loaded. */
  readonly save: string;
  /** The kernel state to draw and trace, or null when the input gives none. */
  readonly state: RuleSet | null;
  /** The node's addresses (for traces). */
  readonly nodeIPs: readonly string[];
  /** The service ports the state has rules for. */
  readonly servicePorts: readonly string[];
}

/** A problem as the page lists it. */
export interface Shown {
  /** One line: `path: message`, or `input:LINE:COLUMN: message` for a rules text or unreadable YAML. */
  readonly text: string;
  /** The 1-based line it is on, or null. */
  readonly line: number | null;
}

function shown(p: Problem): Shown {
  // formatProblem prints a text problem as `LINE:COLUMN: message`: name the text it is in.
  return { text: `${p.line === undefined ? "" : "input:"}${formatProblem(p)}`, line: p.line ?? null };
}

function words(text: string): string[] {
  return text.split(/[\s,]+/).filter((w) => w !== "");
}

function overrides(base: ProxyConfigInput | undefined, o: NodeOptions): ProxyConfigInput {
  const config: Record<string, unknown> = { ...(base ?? {}) };
  if (o.hostname.trim() !== "") config.hostname = o.hostname.trim();
  if (words(o.nodeIPs).length > 0) config.nodeIPs = words(o.nodeIPs);
  if (words(o.clusterCIDR).length > 0) config.detectLocal = { mode: "ClusterCIDR", cidrs: words(o.clusterCIDR) };
  if (o.profile !== "") config.profile = o.profile;
  if (o.family !== "") config.ipFamily = o.family;
  return config as ProxyConfigInput;
}

function failed(form: string, problems: readonly Problem[]): Computed {
  return {
    form,
    problems: problems.map(shown),
    restore: "",
    save: "",
    state: null,
    nodeIPs: [],
    servicePorts: [],
  };
}

/**
 * Reads the input and computes everything the page shows.
 *
 * @example
 * compute(exampleYaml, { hostname: "", nodeIPs: "", clusterCIDR: "", profile: "", family: "" }).servicePorts
 * // ["default/kubernetes:https", …]
 */
export function compute(text: string, options: NodeOptions): Computed {
  const form = detectTextForm(text);
  if (form !== "cluster") {
    // A dump is one family's: the one chosen, else IPv4, else IPv6 (an ip6tables-save dump).
    let parsed = parseRules(text, { family: options.family === "IPv6" ? "IPv6" : "IPv4" });
    if (parsed.problems.length > 0 && options.family === "") {
      const v6 = parseRules(text, { family: "IPv6" });
      if (v6.problems.length === 0) parsed = v6;
    }
    const { ruleSet, problems } = parsed;
    if (problems.length > 0) return failed(form, problems);
    return {
      form,
      problems: [],
      restore: formatRestore(ruleSet),
      save: formatSave(ruleSet),
      state: ruleSet,
      nodeIPs: words(options.nodeIPs),
      servicePorts: listServicePorts(ruleSet),
    };
  }
  const read = readClusterText(text);
  if (read.input === null || read.problems.length > 0) return failed(form, read.problems);
  const config = overrides(read.input.config, options);
  const input: ClusterInput = { ...read.input, config };
  const prepared = prepareCluster(input, { family: config.ipFamily ?? "IPv4", origins: read.origins });
  const notes = [...read.problems, ...prepared.problems].map(shown);
  if (prepared.model === null) return { ...failed(form, []), problems: notes };
  const state = generateState(prepared.model);
  return {
    form,
    problems: notes,
    restore: formatRestore(generateRules(prepared.model)),
    save: formatSave(state),
    state,
    nodeIPs: config.nodeIPs ?? [],
    servicePorts: listServicePorts(state),
  };
}

/** The picture of service ports, optionally with a trace on it. */
export async function picture(state: RuleSet, ports: readonly string[], trace: TraceResult | null): Promise<string> {
  if (trace === null) return drawGraph(buildServiceGraph(state, ports), "svg");
  const traced = new Set<string>();
  for (const o of trace.outcomes) if (o.servicePort !== null) traced.add(o.servicePort);
  const graph = buildServiceGraph(state, traced.size > 0 ? [...traced] : ports);
  return drawGraph(overlayTrace(graph, trace), "svg");
}

/** A packet from the trace form: `IP[:PORT]` source, `IP:PORT` (or `[IPv6]:PORT`) destination. */
export function packetOf(source: string, destination: string, protocol: string, from: string): Packet {
  const split = (text: string): [string, number | null] => {
    const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text.trim());
    if (bracket !== null) return [bracket[1] as string, bracket[2] === undefined ? null : Number(bracket[2])];
    const t = text.trim();
    const colon = t.indexOf(":");
    if (colon >= 0 && colon === t.lastIndexOf(":")) return [t.slice(0, colon), Number(t.slice(colon + 1))];
    return [t, null];
  };
  const [src, sport] = split(source);
  const [dst, dport] = split(destination);
  if (dport === null || !Number.isInteger(dport)) throw new Error(`destination ${destination}: expected IP:PORT`);
  const origin = from === "node" || from === "external" ? from : "pod";
  const packet: Packet = {
    source: src,
    sourcePort: sport ?? 40000,
    destination: dst,
    destinationPort: dport,
    protocol: protocol === "udp" || protocol === "sctp" ? protocol : "tcp",
    from: origin,
    ...(origin === "node" ? {} : { inInterface: origin === "pod" ? "cbr0" : "eth0" }),
  };
  return packet;
}

/** Traces a packet through the state. */
export function trace(state: RuleSet, packet: Packet, nodeIPs: readonly string[]): TraceResult {
  return traceRules(state, packet, { nodeAddresses: nodeIPs });
}

/** A cluster IP and port the picture's service port is reached at, for the trace form. */
export function frontendOf(state: RuleSet, port: string): { destination: string; protocol: string } | null {
  const graph = buildServiceGraph(state, [port]);
  for (const e of graph.edges) {
    if (e.from !== "nat KUBE-SERVICES") continue;
    const d = /-d (\S+)\/(32|128)/.exec(e.condition);
    const p = /-p (tcp|udp|sctp)/.exec(e.condition);
    const n = /--dport (\d+)/.exec(e.condition);
    if (d === null || p === null || n === null) continue;
    const address = d[1] as string;
    return {
      destination: address.includes(":") ? `[${address}]:${n[1]}` : `${address}:${n[1]}`,
      protocol: p[1] as string,
    };
  }
  return null;
}
