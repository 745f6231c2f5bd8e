/**
 * The tracer's inputs and outputs: a packet, the node facts the rules consult, and every
 * outcome with its exact probability and the rules it passed.
 *
 * @module
 */
import type { Fraction } from "./fraction.js";

/** A transport protocol kube-proxy writes rules for. */
export type TraceProtocol = "tcp" | "udp" | "sctp";

/**
 * Where the packet enters the node: `pod` and `external` arrive on an interface and go through
 * PREROUTING; `node` is sent by the node itself and goes through OUTPUT.
 */
export type Origin = "pod" | "external" | "node";

/** The first packet of a new connection. */
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

/** "Client `client` was last sent to endpoint chain `chain` at time `lastSeen`": one `recent` list entry. */
export interface AffinityRecord {
  /** The client address recorded (`--rsource`). */
  readonly client: string;
  /** The list name: kube-proxy names it after the KUBE-SEP chain. */
  readonly chain: string;
  /** When the entry was last set, in seconds on the same clock as {@link TraceOptions.now}. */
  readonly lastSeen: number;
}

/** What the tracer needs to know besides the rules. */
export interface TraceOptions {
  /** The node's own addresses (`addrtype LOCAL`, INPUT versus FORWARD); loopback addresses are always local. */
  readonly nodeAddresses?: readonly string[];
  /** The `recent` lists' entries (session affinity state); none by default. */
  readonly affinity?: readonly AffinityRecord[];
  /** The current time in seconds, for `--seconds` (default: 0). */
  readonly now?: number;
}

/** Where a packet is routed. */
export type Route = "local" | "forward" | "output";

/** How a path ended. */
export type Verdict = "accepted" | "rejected" | "dropped" | "unknown";

/** One rule a path matched. */
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

/** An address and port. */
export interface SocketAddress {
  /** The address. */
  readonly address: string;
  /** The port. */
  readonly port: number;
}

/** One way the packet can go, with its probability. */
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

/** Every outcome of one packet. */
export interface TraceResult {
  /** The packet traced. */
  readonly packet: Packet;
  /** Every path, in the order the rules produce them. */
  readonly outcomes: readonly TraceOutcome[];
  /** The sum of the outcomes' probabilities (exactly 1 unless a rule could not be evaluated). */
  readonly total: Fraction;
}
