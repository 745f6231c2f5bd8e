/**
 * The tracer's inputs and outputs: a packet, the node facts the rules consult, and every
 * outcome with its exact probability and the rules it passed.
 *
 * @module
 */
import type { Fraction } from "./fraction.js";

/**
 * A transport protocol kube-proxy writes rules for.
 *
 * @example
 * const protocol: TraceProtocol = "sctp";
 */
export type TraceProtocol = "tcp" | "udp" | "sctp";

/**
 * Where the packet enters the node: `pod` and `external` arrive on an interface and go through
 * PREROUTING; `node` is sent by the node itself and goes through OUTPUT.
 *
 * @example
 * const from: Origin = "external"; // enters through nat PREROUTING from outside the cluster
 */
export type Origin = "pod" | "external" | "node";

/**
 * The first packet of a new connection.
 *
 * @example
 * const packet: Packet = {
 *   source: "10.244.1.5", sourcePort: 40000, destination: "10.96.0.10", destinationPort: 53,
 *   protocol: "udp", from: "pod", inInterface: "cbr0",
 * };
 * traceRules(generateState(model), packet);
 */
export interface Packet {
  /** Source address. */
  readonly source: string;
  /** Source port (any port when not given). */
  readonly sourcePort: number;
  /** Destination address. */
  readonly destination: string;
  /** Destination port. */
  readonly destinationPort: number;
  /** Transport protocol. */
  readonly protocol: TraceProtocol;
  /** Where the packet enters. */
  readonly from: Origin;
  /** The input interface (`-i`), for `pod` and `external`; rules that test it are unknown without it. */
  readonly inInterface?: string;
}

/**
 * "Client `client` was last sent to endpoint chain `chain` at time `lastSeen`": one `recent` list entry.
 *
 * @example
 * // A client already pinned to an endpoint 60 seconds ago (session affinity):
 * const affinity: AffinityRecord[] = [{ client: "10.244.1.5", chain: "KUBE-SEP-…", lastSeen: 0 }];
 * traceRules(state, packet, { affinity, now: 60 });
 */
export interface AffinityRecord {
  /** The client address recorded (`--rsource`). */
  readonly client: string;
  /** The list name: kube-proxy names it after the KUBE-SEP chain. */
  readonly chain: string;
  /** When the entry was last set, in seconds on the same clock as {@link TraceOptions.now}. */
  readonly lastSeen: number;
}

/**
 * What the tracer needs to know besides the rules.
 *
 * @example
 * traceRules(generateState(model), packet, { nodeAddresses: ["192.168.0.2"] });
 */
export interface TraceOptions {
  /** The node's own addresses (`addrtype LOCAL`, INPUT versus FORWARD); loopback addresses are always local. */
  readonly nodeAddresses?: readonly string[];
  /** The `recent` lists' entries (session affinity state); none by default. */
  readonly affinity?: readonly AffinityRecord[];
  /** The current time in seconds, for `--seconds` (default: 0). */
  readonly now?: number;
}

/**
 * Where a packet is routed.
 *
 * @example
 * traceRules(state, packet).outcomes[0]?.route // "forward": routed on to a pod on another node
 */
export type Route = "local" | "forward" | "output";

/**
 * How a path ended.
 *
 * @example
 * traceRules(state, packet).outcomes.map((o) => o.verdict) // ["accepted", "accepted"]
 */
export type Verdict = "accepted" | "rejected" | "dropped" | "unknown";

/**
 * One rule a path matched.
 *
 * @example
 * const step = traceRules(state, packet).outcomes[0]?.steps[0];
 * step?.chain // "PREROUTING"
 * step?.rule  // "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
 */
export interface TraceStep {
  /** The table. */
  readonly table: string;
  /** The chain. */
  readonly chain: string;
  /** The rule's 1-based position in its chain (as `iptables -L --line-numbers` counts). */
  readonly index: number;
  /** The rule as iptables-save prints it. */
  readonly rule: string;
  /** The rule's comment, or null. */
  readonly comment: string | null;
  /** False for a statistic rule the path passed without matching (its complement share is in `share`). */
  readonly matched: boolean;
  /** For a statistic split: the share of the path that went this way here; else null. */
  readonly share: Fraction | null;
}

/**
 * An address and port.
 *
 * @example
 * traceRules(state, packet).outcomes[0]?.dnat // { address: "10.244.0.5", port: 53 }
 */
export interface SocketAddress {
  /** The address. */
  readonly address: string;
  /** The port. */
  readonly port: number;
}

/**
 * One way the packet can go, with its probability.
 *
 * @example
 * const outcome = traceRules(state, packet).outcomes[0];
 * outcome?.summary // "kube-system/kube-dns:dns → 10.244.0.5:53  p=0.500000000  no masquerade"
 */
export interface TraceOutcome {
  /** Accepted (delivered or forwarded), rejected, dropped, or unknown (a rule the tracer does not model). */
  readonly verdict: Verdict;
  /** Why the verdict is unknown, or null. */
  readonly unknownReason: string | null;
  /**
   * Where the packet went: `local` (INPUT, a node address), `forward` (FORWARD), `output` (sent
   * by the node to another host); null when it ended before routing.
   */
  readonly route: Route | null;
  /** The DNAT destination, or null when not translated. */
  readonly dnat: SocketAddress | null;
  /** The source is rewritten to the node's address (MASQUERADE or SNAT). */
  readonly masquerade: boolean;
  /** The packet mark when the path ended. */
  readonly mark: number;
  /** The KUBE-SEP (or other endpoint) chain the path went through last, or null. */
  readonly endpointChain: string | null;
  /** The service port (`ns/name:port`) named by the rules on the path, or null. */
  readonly servicePort: string | null;
  /** The `recent` lists this packet sets (session affinity records it makes). */
  readonly recentSet: readonly string[];
  /** The exact probability of this path. */
  readonly probability: Fraction;
  /** The rules the path matched, in order. */
  readonly steps: readonly TraceStep[];
  /** One line in Kubernetes terms: `default/web:http → 10.244.1.2:8080  p=0.333333333  masquerade`. */
  readonly summary: string;
}

/**
 * Every outcome of one packet.
 *
 * @example
 * const result: TraceResult = traceRules(generateState(model), packet);
 * result.outcomes.length // one per path the packet can take
 * formatTraceText(result);
 */
export interface TraceResult {
  /** The packet traced. */
  readonly packet: Packet;
  /** Every path, in the order the rules produce them. */
  readonly outcomes: readonly TraceOutcome[];
  /** The sum of the outcomes' probabilities (exactly 1 unless a rule could not be evaluated). */
  readonly total: Fraction;
}
