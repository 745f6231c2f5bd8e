/**
 * The tracer's inputs and outputs: a packet, the node facts the rules consult, and every
 * outcome with its exact probability and the rules it passed.
 *
 * @module
 */
import type { PortRange } from "../ir/canonical-types.js";
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
  /**
   * The input interface (`-i`), for `pod` and `external`. Without it, a rule that tests `-i`
   * splits the path on an `in-interface` condition.
   */
  readonly inInterface?: string;
  /**
   * The interface the route to the (translated) destination leaves by, for `-o` in FORWARD,
   * OUTPUT and POSTROUTING, whatever the destination. Without it, a rule that tests `-o` splits
   * the path on an `out-interface` condition about the route to the address the packet has
   * then. A packet for a node address leaves by `lo` (from the node) or by none (INPUT).
   */
  readonly outInterface?: string;
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
  /**
   * The node's routes, for `-o`: the interface the route to an address leaves by, the longest
   * matching prefix winning (`{ destination: "10.244.1.0/24", interface: "cni0" }`). A packet's
   * {@link Packet.outInterface} wins over them; an address no route covers makes `-o` a condition.
   */
  readonly routes?: readonly TraceRoute[];
  /**
   * Chains the input lacks, empty in the state (an `iptables-save | grep` extract's jump
   * targets): {@link TraceResult.absentChains} names those a path entered.
   */
  readonly absentChains?: readonly ChainRef[];
}

/**
 * A chain of a table.
 *
 * @example
 * traceRules(state, packet, { absentChains: [{ table: "nat", chain: "KUBE-SEP-X" }] });
 */
export interface ChainRef {
  /** The table (`nat`, `filter`, …). */
  readonly table: string;
  /** The chain. */
  readonly chain: string;
}

/**
 * A route: packets to `destination` (an address or CIDR of the traced family) leave by `interface`.
 *
 * @example
 * // Routes for -o matches: the longest prefix decides the packet's out-interface.
 * traceRules(state, packet, { routes: [{ destination: "10.244.0.0/24", interface: "cbr0" }, { destination: "0.0.0.0/0", interface: "eth0" }] });
 */
export interface TraceRoute {
  /** The destination prefix (`10.244.1.0/24`, `fd00::/64`, or one address). */
  readonly destination: string;
  /** The output interface. */
  readonly interface: string;
}

/**
 * What a condition is about: `out-interface` (the route to `subject` leaves by interface `test`),
 * `in-interface` (the packet arrives on `test`), `local-address` (`subject` is an address of the
 * node: the node's addresses were not given), `interface-address` (interface `subject` has an
 * address, which a REDIRECT of an arriving packet needs), `match` (an iptables match the tracer
 * cannot evaluate, `test`, holds for the packet `subject`: ipset contents, physdev, rpfilter,
 * owner of a local socket, rate limits…).
 *
 * @example
 * const kind: ConditionKind = "out-interface"; // the path depends on the packet's route
 */
export type ConditionKind =
  | "out-interface"
  | "in-interface"
  | "local-address"
  | "interface-address"
  | "match";

/**
 * A fact an outcome depends on. In JSON:
 * `{"kind":"out-interface","subject":"10.244.2.21","test":"docker0","holds":false,"text":"the route to 10.244.2.21 does not leave by docker0"}`.
 *
 * @example
 * // A path that depends on something the rules cannot decide (here, which interface the route takes):
 * const outcome = traceRules(state, packet).outcomes.find((o) => o.conditions.length > 0);
 * outcome?.conditions[0] // { kind: "out-interface", … }
 */
export interface TraceCondition {
  /** What the fact is about. */
  readonly kind: ConditionKind;
  /**
   * The address the route is for (`out-interface`), the address (`local-address`), the packet as
   * `src:sport → dst:dport` at the rule (`match`), `""` (`in-interface`), the input interface
   * whose first address a REDIRECT takes (`interface-address`).
   */
  readonly subject: string;
  /** The interface name or pattern (`docker0`, `cali+`), the match as iptables-save prints it, or `""`. */
  readonly test: string;
  /** Whether the outcome assumes the fact true or false. */
  readonly holds: boolean;
  /** The condition in words. */
  readonly text: string;
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
 * What `-j SNAT --to-source` rewrites the source to, as the rule gives it.
 *
 * @example
 * traceRules(state, packet).outcomes[0]?.snat // { address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null }
 */
export interface SourceNat {
  /** The address (the first of a range); `""` when only ports are given. */
  readonly address: string;
  /** The last address of the range (`address` for one). */
  readonly lastAddress: string;
  /** The source ports, or null (the port is kept unless it clashes). */
  readonly ports: PortRange | null;
}

/**
 * One way the packet can go, with its probability. In JSON (`traceToJson`):
 *
 * ```json
 * {"verdict":"accepted","unknownReason":null,"route":"forward",
 *  "dnat":{"address":"10.244.2.21","port":8080},"masquerade":false,"snat":null,"mark":0,
 *  "endpointChain":"KUBE-SEP-…","servicePort":"default/web:http","recentSet":[],
 *  "conditions":[{"kind":"out-interface","subject":"10.244.2.21","test":"docker0","holds":true,
 *                 "text":"the route to 10.244.2.21 leaves by docker0"}],
 *  "probability":{"numerator":"1","denominator":"2","decimal":"0.500000000"},
 *  "steps":[…],"summary":"default/web:http → 10.244.2.21:8080  p=0.500000000  no masquerade  if …"}
 * ```
 *
 * `probability` is the path's probability given its `conditions`: outcomes whose conditions
 * contradict each other are alternatives, not shares, and for any one truth of the facts the
 * outcomes that hold sum to 1.
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
  /** MASQUERADE rewrote the source (an SNAT is {@link snat}). */
  readonly masquerade: boolean;
  /** What `-j SNAT` rewrote the source to, or null. */
  readonly snat: SourceNat | null;
  /** The packet mark when the path ended. */
  readonly mark: number;
  /** The KUBE-SEP (or other endpoint) chain the path went through last, or null. */
  readonly endpointChain: string | null;
  /** The service port (`ns/name:port`) named by the rules on the path, or null. */
  readonly servicePort: string | null;
  /** The `recent` lists this packet sets (session affinity records it makes). */
  readonly recentSet: readonly string[];
  /** The facts this path assumes, in the order the rules tested them; empty when it depends on none. */
  readonly conditions: readonly TraceCondition[];
  /** The exact probability of this path (given its conditions). */
  readonly probability: Fraction;
  /** The rules the path matched, in order. */
  readonly steps: readonly TraceStep[];
  /**
   * One line in Kubernetes terms: `default/web:http → 10.244.1.2:8080  p=0.333333333  masquerade`
   * (or `SNAT to ADDRESS`), the DNAT destination named whatever the verdict
   * (`… → 10.244.1.2:8080  DROPPED  p=…`), the conditions last
   * (`  if the route to 10.244.1.2 leaves by docker0`).
   */
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
  /**
   * The outcomes' probabilities summed within one truth of the conditions (the least such sum):
   * exactly 1, a check that no share was lost.
   */
  readonly total: Fraction;
  /**
   * The addresses whose being a node address decides an outcome (`local-address` conditions):
   * non-empty only when the node's addresses were not given.
   */
  readonly needsNodeAddress: readonly string[];
  /**
   * The {@link TraceOptions.absentChains} a path entered, in order: the outcomes take them as
   * empty, which the input does not say.
   */
  readonly absentChains: readonly ChainRef[];
}
