/**
 * The canonical structure of one rule: what the kernel stores and `iptables-save` prints,
 * typed so that the save emitter, the diff and the packet tracer can read it without parsing
 * text. Values are unquoted. Built by `canonicalizeRule` (`../iptables/canonical/canonicalize.ts`).
 *
 * @module
 */

/**
 * An address with its mask, host bits cleared, as iptables stores and prints it.
 *
 * @example
 * canonicalizeRule(["-s", "10.0.0.0/8", "-j", "ACCEPT"], "IPv4").source
 * // { address: "10.0.0.0", mask: "8", prefixLength: 8, bytes: [10, 0, 0, 0], maskBytes: [255, 0, 0, 0], negated: false }
 */
export interface CanonicalAddress {
  /** The address, host bits cleared, printed as iptables-save prints it (`10.0.0.0`, `fd00::`). */
  readonly address: string;
  /** The mask as printed after `/`: a prefix length (`24`) or, when not contiguous, an address. */
  readonly mask: string;
  /** The prefix length, or -1 when the mask is not contiguous. */
  readonly prefixLength: number;
  /** The address bytes in network order (4 for IPv4, 16 for IPv6), host bits cleared. */
  readonly bytes: readonly number[];
  /** The mask bytes in network order. */
  readonly maskBytes: readonly number[];
}

/**
 * An inclusive port range.
 *
 * @example
 * const m = canonicalizeRule(["-p", "tcp", "-m", "tcp", "--dport", "30000:32767", "-j", "ACCEPT"], "IPv4").matches[0];
 * m?.kind === "ports" ? m.destinationPort : null // { min: 30000, max: 32767, negated: false }
 */
export interface PortRange {
  /** Lowest port. */
  readonly min: number;
  /** Highest port. */
  readonly max: number;
}

/**
 * Which iptables backend to imitate where the two differ (spec §12).
 *
 * @example
 * const backend: Backend = "legacy"; // iptables-legacy; "nft" (the default) for iptables-nft
 * formatSave(state, { backend });
 */
export type Backend = "nft" | "legacy";

/**
 * One printed option of a match or target, in canonical order: `[!] --name value…`.
 *
 * @example
 * // An option the canonicalizer keeps as written, e.g. of a match it does not model:
 * canonicalizeRule(["-m", "limit", "--limit", "5/sec", "-j", "ACCEPT"], "IPv4").matches[0]?.options
 * // [{ name: "--limit", negated: false, values: ["5/sec"] }]
 */
export interface CanonicalOption {
  /** The canonical long option (`--dport`, `--set-xmark`). */
  readonly name: string;
  /** Whether `!` is printed before the option. */
  readonly negated: boolean;
  /** The option's values, unquoted, as iptables-save prints them. */
  readonly values: readonly string[];
}

/**
 * `-s` / `-d`: an address with its mask, and whether the match is negated.
 *
 * @example
 * const rule = canonicalizeRule(["!", "-d", "127.0.0.0/8", "-j", "KUBE-NODEPORTS"], "IPv4");
 * rule.destination?.negated     // true
 * rule.destination?.prefixLength // 8
 */
export interface AddressMatch extends CanonicalAddress {
  /** `!` before the option. */
  readonly negated: boolean;
}

/**
 * `-i` / `-o`: an interface name (a trailing `+` is a wildcard).
 *
 * @example
 * const rule = canonicalizeRule(["-i", "cbr0", "-j", "ACCEPT"], "IPv4");
 * rule.inInterface // { negated: false, name: "cbr0" }
 */
export interface InterfaceMatch {
  /** `!` before the option. */
  readonly negated: boolean;
  /** The name as given, possibly ending in `+`. */
  readonly name: string;
}

/**
 * `-p`: the protocol.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "udp", "-j", "ACCEPT"], "IPv4");
 * rule.protocol // { negated: false, number: 17, name: "udp" }
 */
export interface ProtocolMatch {
  /** `!` before the option. */
  readonly negated: boolean;
  /** The IP protocol number. */
  readonly number: number;
  /** The name iptables-save prints (`tcp`, `ipv6-icmp`, `gre`, or the number). */
  readonly name: string;
}

/**
 * `-f`: the fragment flag (IPv4 only).
 *
 * @example
 * const rule = canonicalizeRule(["-f", "-j", "DROP"], "IPv4");
 * rule.fragment // { negated: false }
 */
export interface FragmentMatch {
  /** `! -f`: only first fragments and unfragmented packets. */
  readonly negated: boolean;
}

/**
 * A negatable port range of the tcp, udp or sctp match.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "tcp", "-m", "tcp", "!", "--dport", "22", "-j", "ACCEPT"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "ports" ? m.destinationPort : null // { min: 22, max: 22, negated: true }
 */
export interface PortCondition extends PortRange {
  /** `!` before the option. */
  readonly negated: boolean;
}

/**
 * A negatable list of type names (addrtype) or states (conntrack).
 *
 * @example
 * const rule = canonicalizeRule(["-m", "addrtype", "--dst-type", "LOCAL", "-j", "KUBE-NODEPORTS"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "addrtype" ? m.destinationTypes : null // { negated: false, names: ["LOCAL"] }
 */
export interface NameList {
  /** `!` before the option. */
  readonly negated: boolean;
  /** Upper-case names in kernel bit order. */
  readonly names: readonly string[];
}

/** Fields every match has. */
interface MatchBase {
  /** The name printed after `-m` (`tcp`, `comment`, `icmp6`, `state`, `set`…). */
  readonly name: string;
  /** The options in canonical order, as printed. */
  readonly options: readonly CanonicalOption[];
}

/**
 * `-m comment`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "comment", "--comment", "default/web:http", "-j", "ACCEPT"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "comment" ? m.comment : null // "default/web:http"
 */
export interface CommentMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "comment";
  /** The stored comment (truncated to 255 bytes). */
  readonly comment: string;
}

/**
 * `-m tcp`, `-m udp`, `-m sctp`.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "tcp", "-m", "tcp", "--dport", "80", "-j", "ACCEPT"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "ports" ? m.destinationPort : null // { min: 80, max: 80, negated: false }
 */
export interface PortMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "ports";
  /** `--sport`, when given (a full 0:65535 range of tcp/udp is dropped, as iptables does). */
  readonly sourcePort: PortCondition | null;
  /** `--dport`, when given. */
  readonly destinationPort: PortCondition | null;
}

/**
 * `-m multiport`.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "tcp", "-m", "multiport", "--dports", "80,443", "-j", "ACCEPT"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "multiport" ? m.ports : null // [{ min: 80, max: 80 }, { min: 443, max: 443 }]
 */
export interface MultiportMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "multiport";
  /** Which port the list applies to: `--sports`, `--dports` or `--ports` (either). */
  readonly direction: "source" | "destination" | "either";
  /** `!` before the option. */
  readonly negated: boolean;
  /** The ports and ranges, in the given order. */
  readonly ports: readonly PortRange[];
}

/**
 * `-m statistic`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "statistic", "--mode", "random", "--probability", "0.5", "-j", "KUBE-SEP-X"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "statistic" ? m.probability : null // 0.5
 */
export interface StatisticMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "statistic";
  /** `random` or `nth`. */
  readonly mode: "random" | "nth";
  /** `!` before `--probability` / `--every`. */
  readonly negated: boolean;
  /** Random mode: the kernel's stored value k; the rule matches with probability k / 2^31. */
  readonly probability: number;
  /** Nth mode: `--every N`. */
  readonly every: number;
  /** Nth mode: `--packet P`. */
  readonly packet: number;
}

/**
 * `-m recent`, with iptables' defaults filled in.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "recent", "--name", "KUBE-SEP-X", "--rcheck", "--seconds", "10800", "--reap", "-j", "KUBE-SEP-X"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "recent" ? [m.command, m.seconds] : null // ["rcheck", 10800]
 */
export interface RecentMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "recent";
  /** `!` before the command. */
  readonly negated: boolean;
  /** The command. */
  readonly command: "set" | "rcheck" | "update" | "remove";
  /** The list name (default `DEFAULT`). */
  readonly listName: string;
  /** `--seconds`, or 0 when not given. */
  readonly seconds: number;
  /** `--reap`. */
  readonly reap: boolean;
  /** `--hitcount`, or 0 when not given. */
  readonly hitCount: number;
  /** `--rttl`. */
  readonly rttl: boolean;
  /** The address mask, printed (default all ones). */
  readonly mask: string;
  /** Which address is recorded: `--rsource` (default) or `--rdest`. */
  readonly side: "source" | "destination";
}

/**
 * `-m mark` and `-m connmark`: `(mark & mask) == value`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "mark", "--mark", "0x4000/0x4000", "-j", "MASQUERADE"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "mark" ? [m.value, m.mask] : null // [16384, 16384]
 */
export interface MarkMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "mark";
  /** `!` before `--mark`. */
  readonly negated: boolean;
  /** The value (not ANDed with the mask). */
  readonly value: number;
  /** The mask (0xffffffff when not given). */
  readonly mask: number;
}

/**
 * `-m addrtype`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "addrtype", "--src-type", "LOCAL", "-j", "KUBE-MARK-MASQ"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "addrtype" ? m.sourceTypes?.names : null // ["LOCAL"]
 */
export interface AddrtypeMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "addrtype";
  /** `--src-type`, when given. */
  readonly sourceTypes: NameList | null;
  /** `--dst-type`, when given. */
  readonly destinationTypes: NameList | null;
  /** `--limit-iface-in`. */
  readonly limitIfaceIn: boolean;
  /** `--limit-iface-out`. */
  readonly limitIfaceOut: boolean;
}

/**
 * `-m conntrack` and `-m state`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "conntrack", "--ctstate", "INVALID", "-j", "DROP"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "conntrack" ? m.states?.names : null // ["INVALID"]
 */
export interface ConntrackMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "conntrack";
  /** `--ctstate` / `--state`, when given. */
  readonly states: NameList | null;
}

/**
 * `-m icmp` / `-m icmp6`.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "icmp", "-m", "icmp", "--icmp-type", "8", "-j", "ACCEPT"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "icmp" ? m.type : null // 8
 */
export interface IcmpMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "icmp";
  /** `!` before the option. */
  readonly negated: boolean;
  /** The ICMP type (255 = any). */
  readonly type: number;
  /** Lowest code matched. */
  readonly codeMin: number;
  /** Highest code matched. */
  readonly codeMax: number;
}

/**
 * `-m nfacct`.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "nfacct", "--nfacct-name", "ct_state_invalid_dropped_pkts", "-j", "DROP"], "IPv4");
 * const m = rule.matches[0];
 * m?.kind === "nfacct" ? m.accountName : null // "ct_state_invalid_dropped_pkts"
 */
export interface NfacctMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "nfacct";
  /** The accounting object's name. */
  readonly accountName: string;
}

/**
 * Any other match (physdev, limit, set, mac, owner…): options only.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "limit", "--limit", "5/sec", "-j", "ACCEPT"], "IPv4");
 * rule.matches[0]?.kind // "generic": kept with its options as written
 */
export interface GenericMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "generic";
}

/**
 * A match of a canonical rule.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "comment", "--comment", "x", "-m", "mark", "--mark", "0x1", "-j", "ACCEPT"], "IPv4");
 * rule.matches.map((m) => m.kind) // ["comment", "mark"]
 */
export type CanonicalMatch =
  | CommentMatch
  | PortMatch
  | MultiportMatch
  | StatisticMatch
  | RecentMatch
  | MarkMatch
  | AddrtypeMatch
  | ConntrackMatch
  | IcmpMatch
  | NfacctMatch
  | GenericMatch;

/** Fields every target has. */
interface TargetBase {
  /** The name after `-j` / `-g`. */
  readonly name: string;
  /** `-g` (goto) rather than `-j`. */
  readonly goto: boolean;
  /** The options in canonical order, as printed. */
  readonly options: readonly CanonicalOption[];
}

/**
 * `ACCEPT`, `DROP`, `RETURN`, `QUEUE`.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "ACCEPT"], "IPv4");
 * rule.target?.kind // "verdict"
 */
export interface VerdictTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "verdict";
}

/**
 * A jump (or goto) to a user chain.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "KUBE-SERVICES"], "IPv4");
 * rule.target // { kind: "chain", name: "KUBE-SERVICES", goto: false, options: [] }
 */
export interface ChainTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "chain";
}

/**
 * `MARK`: `mark = (mark & ~mask) ^ value` (`--set-xmark value/mask`).
 *
 * @example
 * const rule = canonicalizeRule(["-j", "MARK", "--or-mark", "0x4000"], "IPv4");
 * const t = rule.target;
 * t?.kind === "mark" ? [t.value, t.mask] : null // [16384, 16384]
 */
export interface MarkTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "mark";
  /** The XOR value. */
  readonly value: number;
  /** The mask of bits cleared first. */
  readonly mask: number;
}

/**
 * `DNAT` / `SNAT`.
 *
 * @example
 * const rule = canonicalizeRule(["-p", "tcp", "-j", "DNAT", "--to-destination", "10.244.0.5:8080"], "IPv4");
 * const t = rule.target;
 * t?.kind === "nat" ? [t.minAddress, t.ports] : null // ["10.244.0.5", { min: 8080, max: 8080 }]
 */
export interface NatTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "nat";
  /** First address of the range, printed; `""` when only a port is given. */
  readonly minAddress: string;
  /** Last address of the range (equal to `minAddress` for one address). */
  readonly maxAddress: string;
  /** The port range, or null when none is given. */
  readonly ports: PortRange | null;
}

/**
 * `MASQUERADE` / `REDIRECT`.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "MASQUERADE", "--random-fully"], "IPv4");
 * rule.target?.kind // "ports" (MASQUERADE, REDIRECT: an optional port range)
 */
export interface PortsTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "ports";
  /** `--to-ports`, or null. */
  readonly ports: PortRange | null;
}

/**
 * `REJECT`.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "REJECT"], "IPv4");
 * const t = rule.target;
 * t?.kind === "reject" ? t.rejectWith : null // "icmp-port-unreachable"
 */
export interface RejectTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "reject";
  /** The canonical `--reject-with` name (default filled in). */
  readonly rejectWith: string;
}

/**
 * Any other target extension (LOG, NFLOG, CONNMARK, CHECKSUM, CT…): options only.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "LOG", "--log-prefix", "x"], "IPv4");
 * rule.target?.kind // "generic": kept with its options as written
 */
export interface GenericTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "generic";
}

/**
 * The target of a canonical rule.
 *
 * @example
 * const rule = canonicalizeRule(["-j", "KUBE-MARK-MASQ"], "IPv4");
 * rule.target?.kind // "chain"
 */
export type CanonicalTarget =
  | VerdictTarget
  | ChainTarget
  | MarkTarget
  | NatTarget
  | PortsTarget
  | RejectTarget
  | GenericTarget;

/**
 * One rule as the kernel stores it and iptables-save prints it.
 *
 * @example
 * const rule = canonicalizeRule(["-m", "tcp", "-p", "tcp", "-d", "10.96.0.10", "--dport", "80", "-j", "KUBE-SVC-X"], "IPv4");
 * rule.destination?.prefixLength // 32
 * formatCanonicalRule("KUBE-SERVICES", rule) // "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-X"
 */
export interface CanonicalRule {
  /** `-s`, or null when absent (or `/0` without `!`). */
  readonly source: AddressMatch | null;
  /** `-d`, or null. */
  readonly destination: AddressMatch | null;
  /** `-i`, or null (also for `-i +`). */
  readonly inInterface: InterfaceMatch | null;
  /** `-o`, or null. */
  readonly outInterface: InterfaceMatch | null;
  /** `-p`, or null (also for `-p all`). */
  readonly protocol: ProtocolMatch | null;
  /** `-f`, or null. */
  readonly fragment: FragmentMatch | null;
  /** The matches in kernel order. */
  readonly matches: readonly CanonicalMatch[];
  /** The target, or null for a rule without one. */
  readonly target: CanonicalTarget | null;
}
