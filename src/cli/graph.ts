// `kube-iptables graph`: each selected service port's path through the chains, as a picture.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  buildServiceGraph,
  drawGraph,
  GRAPH_FORMATS,
  type GraphFormat,
  listServicePorts,
  overlayTrace,
} from "../graph/index.js";
import type { IPFamily, RuleSet } from "../ir/types.js";
import type { TraceResult } from "../trace/index.js";
import { writeErr, writeNote, writeOut } from "./io.js";
import { whyNoServicePorts } from "./no-service-ports.js";
import { checkNodeOptions, NODE_OPTIONS } from "./node-options.js";
import { type ReadState, readState } from "./read-state.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const OPTIONS = {
  ...NODE_OPTIONS,
  service: { type: "string", multiple: true },
  format: { type: "string" },
  out: { type: "string" },
  list: { type: "boolean" },
} as const;

/** The flags `graph` takes (its help and completion list them: see help.ts). */
export const GRAPH_FLAGS: readonly string[] = Object.keys(OPTIONS);

type Values = Record<string, string | boolean | string[] | undefined>;

/** Above this many service ports in one SVG, a note suggests drawing them one at a time. */
const MANY_PORTS = 40;

// kube-proxy's service port name: namespace/name, then :port-name for a named port.
const SERVICE_SELECTOR = /^[^\s/:]+\/[^\s/:]+(?::\S+)?$/;

/**
 * Whether a `--format` value is one of the pictures (`svg`, `dot`, `mermaid`).
 *
 * @example
 * isGraphFormat("dot") // true
 */
export function isGraphFormat(format: string): format is GraphFormat {
  return (GRAPH_FORMATS as readonly string[]).includes(format);
}

/**
 * The picture of a trace: the service ports its paths named, drawn with the paths on them (for
 * `trace --format svg|dot|mermaid`). A packet that named no service port draws the chains it
 * passed in kube-proxy's tables as one graph of every service port it met, which may be empty.
 *
 * @example
 * await drawTrace(state, traceRules(state, packet), "svg") // "<?xml …"
 */
export async function drawTrace(state: RuleSet, result: TraceResult, format: GraphFormat): Promise<string> {
  const ports = new Set<string>();
  for (const o of result.outcomes) if (o.servicePort !== null) ports.add(o.servicePort);
  const graph = buildServiceGraph(state, [...ports]);
  const traced = overlayTrace(ports.size === 0 ? { ...graph, nodes: [], edges: [] } : graph, result);
  return drawGraph(traced, format);
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The kernel state to draw: a rules text's (a save dump, or a payload completed), or a cluster's. */
async function stateOf(args: readonly string[], values: Values): Promise<ReadState | null> {
  const flag = values.family as string | undefined;
  if (flag === "both") throw new UsageError("--family both: graph draws one family: give IPv4 or IPv6");
  const family: IPFamily | undefined = flag === "IPv6" || flag === "IPv4" ? flag : undefined;
  return readState(args, values, family);
}

/** "no service port has rules in this input", and why when the input or the rules tell. */
function noServicePorts({ state, hint }: ReadState): string {
  const why = hint ?? whyNoServicePorts(state);
  return `no service port has rules in this input${why === null ? "" : ` (${why})`}`;
}

/** A file name for a service port's picture: `ns_name_port.svg`, with nothing a path would read. */
function fileNameOf(servicePort: string, format: GraphFormat): string {
  const ext = format === "mermaid" ? "mmd" : format;
  return `${servicePort.replace(/[^A-Za-z0-9._-]+/g, "_")}.${ext}`;
}

/**
 * Runs `graph` and returns the exit code: 0 drawn, 2 a usage error, bad input or no such
 * service port.
 *
 * @example
 * runGraph(["cluster.yaml", "--service", "default/web:http", "--format", "dot"]) // 0
 */
export async function runGraph(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length === 0) throw new UsageError("graph takes a FILE (or - for stdin)");
  if (positionals.filter((file) => file === "-").length > 1)
    throw new UsageError("standard input (-) can be read once");
  const format = values.format ?? "svg";
  if (!isGraphFormat(format)) throw new UsageError(`--format ${format}: expected svg, dot or mermaid`);
  const select = values.service ?? [];
  for (const s of select)
    if (!SERVICE_SELECTOR.test(s)) throw new UsageError(`--service ${s}: expected NAMESPACE/NAME[:PORT]`);
  checkNodeOptions(values);
  const read = await stateOf(positionals, values);
  if (read === null) return EXIT_INPUT;
  const state = read.state;
  const all = listServicePorts(state);
  const none = all.length === 0 ? noServicePorts(read) : "";
  if (values.list === true) {
    if (all.length === 0) writeNote(none);
    writeOut(all.length === 0 ? "" : `${all.join("\n")}\n`);
    return EXIT_OK;
  }
  const missing = select.filter((s) => !all.some((p) => p === s || p.startsWith(`${s}:`)));
  if (missing.length > 0) {
    for (const s of missing) writeErr(`--service ${s}: no rule names this service port`);
    writeNote(all.length === 0 ? none : `service ports: ${all.join(", ")}`);
    return EXIT_INPUT;
  }
  if (all.length === 0) {
    writeErr(none);
    return EXIT_INPUT;
  }
  if (values.out === undefined) {
    const drawn = buildServiceGraph(state, select);
    // dagre's layout grows faster than linearly: a whole node's services in one SVG takes long.
    if (drawn.servicePorts.length > MANY_PORTS && format === "svg")
      writeNote(
        `${drawn.servicePorts.length} service ports in one picture; --service NS/NAME or --out DIR draws them one at a time`,
      );
    writeOut(await drawGraph(drawn, format));
    return EXIT_OK;
  }
  // One picture per service port, each in its own file.
  mkdirSync(values.out, { recursive: true });
  for (const port of all.filter(
    (p) => select.length === 0 || select.some((s) => p === s || p.startsWith(`${s}:`)),
  )) {
    const path = join(values.out, fileNameOf(port, format));
    writeFileSync(path, await drawGraph(buildServiceGraph(state, [port]), format));
    writeOut(`${path}\n`);
  }
  return EXIT_OK;
}
