// `kube-iptables trace`: one packet through the rules of a cluster file or an iptables text.
import { parseArgs } from "node:util";
import { canonicalIP } from "../model/ip.js";
import {
  formatTraceText,
  type Origin,
  type Packet,
  TraceInputError,
  type TraceRoute,
  traceRules,
  traceToJson,
} from "../trace/index.js";
import { drawTrace, isGraphFormat } from "./graph.js";
import { writeErr, writeNote, writeOut } from "./io.js";
import { checkNodeOptions, NODE_OPTIONS, readOptionsOf } from "./node-options.js";
import { readState } from "./read-state.js";
import { absentChains, absentChainsNote, lostExternalTailNote, unjumpedChainsNote } from "./trace-notes.js";
import { EXIT_INPUT, EXIT_OK, UsageError } from "./usage.js";

const OPTIONS = {
  ...NODE_OPTIONS,
  src: { type: "string" },
  dst: { type: "string" },
  proto: { type: "string" },
  from: { type: "string" },
  "in-interface": { type: "string" },
  "out-interface": { type: "string" },
  route: { type: "string", multiple: true },
  format: { type: "string" },
  brief: { type: "boolean" },
} as const;

/** The flags `trace` takes (its help and completion list them: see help.ts). */
export const TRACE_FLAGS: readonly string[] = Object.keys(OPTIONS);

const ORIGINS = new Set<Origin>(["pod", "node", "external"]);
const PROTOCOLS = new Set(["tcp", "udp", "sctp"]);

/** Splits `IP`, `IP:PORT` or `[IPv6]:PORT`; a bare IPv6 address has no port. */
function splitSocket(
  text: string,
  what: string,
  needPort: boolean,
): { address: string; port: number | null } {
  let address = text;
  let port: string | null = null;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket !== null) {
    address = bracket[1] as string;
    port = bracket[2] ?? null;
  } else if (text.indexOf(":") === text.lastIndexOf(":") && text.indexOf(":") >= 0) {
    address = text.slice(0, text.indexOf(":"));
    port = text.slice(text.indexOf(":") + 1);
  }
  // Port 0 is no connection's port: the kernel never sees a packet to or from it.
  if (port !== null && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    throw new UsageError(`--${what} ${text}: the port must be 1-65535`);
  if (needPort && port === null) throw new UsageError(`--${what} ${text}: expected IP:PORT (or [IPv6]:PORT)`);
  if (canonicalIP(address) === null) throw new UsageError(`--${what} ${text}: not an IP address`);
  return { address, port: port === null ? null : Number(port) };
}

/** `--route CIDR=IF`: the interface the route to CIDR leaves by (checked by the tracer). */
function parseRoute(text: string): TraceRoute {
  const at = text.lastIndexOf("=");
  if (at <= 0 || at === text.length - 1)
    throw new UsageError(`--route ${text}: expected CIDR=INTERFACE (e.g. 10.244.1.0/24=cni0)`);
  return { destination: text.slice(0, at), interface: text.slice(at + 1) };
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * Runs `trace` and returns the exit code: 0 traced, 2 a usage error, bad input, or a trace whose
 * outcome depends on whether an address is the node's when no node address is known (the
 * outcomes are printed, with a note to give `--node-ip`).
 *
 * @example
 * runTrace(["cluster.yaml", "--src", "10.244.0.5", "--dst", "10.96.0.10:80", "--proto", "tcp"]) // 0
 */
export async function runTrace(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  checkNodeOptions(values);
  if (positionals.length === 0) throw new UsageError("trace takes a FILE (or - for stdin)");
  if (positionals.filter((file) => file === "-").length > 1)
    throw new UsageError("standard input (-) can be read once");
  if (values.src === undefined || values.dst === undefined)
    throw new UsageError("trace needs --src IP[:PORT] and --dst IP:PORT");
  // Kubernetes objects spell protocols in upper case (TCP), iptables in lower case: either is read.
  const proto = (values.proto ?? "tcp").toLowerCase();
  if (!PROTOCOLS.has(proto)) throw new UsageError(`--proto ${proto}: expected tcp, udp or sctp`);
  const from = (values.from ?? "pod") as Origin;
  if (!ORIGINS.has(from)) throw new UsageError(`--from ${from}: expected pod, node or external`);
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json" && !isGraphFormat(format))
    throw new UsageError(`--format ${format}: expected text, json, svg, dot or mermaid`);
  const src = splitSocket(values.src, "src", false);
  const dst = splitSocket(values.dst, "dst", true);
  const family = dst.address.indexOf(":") >= 0 ? "IPv6" : "IPv4";
  if ((src.address.indexOf(":") >= 0 ? "IPv6" : "IPv4") !== family)
    throw new UsageError(`--src ${values.src}: not an ${family} address, as --dst is`);
  readOptionsOf(values);
  const traced = await readState(positionals, values, family);
  if (traced === null) return EXIT_INPUT;
  // A text without *table lines (grep, iptables -S) may lack chains its rules jump to.
  const held = traced.held;
  const inInterface =
    values["in-interface"] ?? (from === "node" ? undefined : from === "pod" ? "cbr0" : "eth0");
  const packet: Packet = {
    source: src.address,
    sourcePort: src.port ?? 40000,
    destination: dst.address,
    destinationPort: dst.port ?? 0,
    protocol: proto as Packet["protocol"],
    from,
    ...(inInterface === undefined ? {} : { inInterface }),
    ...(values["out-interface"] === undefined ? {} : { outInterface: values["out-interface"] }),
  };
  try {
    const result = traceRules(traced.state, packet, {
      nodeAddresses: values["node-ip"] ?? [...traced.nodeIPs],
      routes: (values.route ?? []).map(parseRoute),
      ...(held === null ? {} : { absentChains: absentChains(traced.state, held) }),
    });
    if (isGraphFormat(format)) writeOut(await drawTrace(traced.state, result, format));
    else
      writeOut(
        format === "json"
          ? `${JSON.stringify(traceToJson(result), null, 2)}\n`
          : formatTraceText(result, values.brief !== true),
      );
    // A partial text: say what the outcomes could not see.
    const file = positionals[0] as string;
    const absent = absentChainsNote(file, result);
    if (absent !== null) writeNote(absent);
    const unjumped = held === null ? null : unjumpedChainsNote(file, traced.state, result);
    if (unjumped !== null) writeNote(unjumped);
    const lostTail = held === null ? null : lostExternalTailNote(file, traced.state, result);
    if (lostTail !== null) writeNote(lostTail);
    // Whether an address is the node's decides the outcome and the node's addresses were not
    // given: the trace is incomplete input, not a result to act on (exit 2, both sides printed).
    if (result.needsNodeAddress.length > 0) {
      const which = result.needsNodeAddress.join(", ");
      writeErr(
        `the outcome depends on whether ${which} ${result.needsNodeAddress.length > 1 ? "are addresses" : "is an address"} of this node; give the node's addresses with --node-ip`,
      );
      return EXIT_INPUT;
    }
  } catch (e) {
    if (e instanceof TraceInputError) {
      writeErr(e.message);
      return EXIT_INPUT;
    }
    throw e;
  }
  return EXIT_OK;
}
