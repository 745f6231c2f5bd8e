/**
 * The canonical structure of one rule: what the kernel stores and `iptables-save` prints,
 * typed so that the save emitter, the diff and the packet tracer can read it without parsing
 * text. Values are unquoted. Built by `canonicalizeRule` (`./canonical.ts`).
 *
 * @module
 */

import type { CanonicalAddress } from "./canonical-address.js";
import type { PortRange } from "./canonical-values.js";

export type { CanonicalAddress } from "./canonical-address.js";
export type { PortRange } from "./canonical-values.js";

/** Which iptables backend to imitate where the two differ (spec §12). */
export type Backend = "nft" | "legacy";

/** One printed option of a match or target, in canonical order: `[!] --name value…`. */
export interface CanonicalOption {
  /** The canonical long option (`--dport`, `--set-xmark`). */
  readonly name: string;
  /** Whether `!` is printed before the option. */
  readonly negated: boolean;
  /** The option's values, unquoted, as iptables-save prints them. */
  readonly values: readonly string[];
}

/** `-s` / `-d`: an address with its mask, and whether the match is negated. */
export interface AddressMatch extends CanonicalAddress {
  /** `!` before the option. */
  readonly negated: boolean;
}

/** `-i` / `-o`: an interface name (a trailing `+` is a wildcard). */
export interface InterfaceMatch {
  /** `!` before the option. */
  readonly negated: boolean;
  /** The name as given, possibly ending in `+`. */
  readonly name: string;
}

/** `-p`: the protocol. */
export interface ProtocolMatch {
  /** `!` before the option. */
  readonly negated: boolean;
  /** The IP protocol number. */
  readonly number: number;
  /** The name iptables-save prints (`tcp`, `ipv6-icmp`, `gre`, or the number). */
  readonly name: string;
}

/** `-f`: the fragment flag (IPv4 only). */
export interface FragmentMatch {
  /** `! -f`: only first fragments and unfragmented packets. */
  readonly negated: boolean;
}

/** A negatable port range of the tcp, udp or sctp match. */
export interface PortCondition extends PortRange {
  /** `!` before the option. */
  readonly negated: boolean;
}

/** A negatable list of type names (addrtype) or states (conntrack). */
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

/** `-m comment`. */
export interface CommentMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "comment";
  /** The stored comment (truncated to 255 bytes). */
  readonly comment: string;
}

/** `-m tcp`, `-m udp`, `-m sctp`. */
export interface PortMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "ports";
  /** `--sport`, when given (a full 0:65535 range of tcp/udp is dropped, as iptables does). */
  readonly sourcePort: PortCondition | null;
  /** `--dport`, when given. */
  readonly destinationPort: PortCondition | null;
}

/** `-m multiport`. */
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

/** `-m statistic`. */
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

/** `-m recent`, with iptables' defaults filled in. */
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

/** `-m mark` and `-m connmark`: `(mark & mask) == value`. */
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

/** `-m addrtype`. */
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

/** `-m conntrack` and `-m state`. */
export interface ConntrackMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "conntrack";
  /** `--ctstate` / `--state`, when given. */
  readonly states: NameList | null;
}

/** `-m icmp` / `-m icmp6`. */
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

/** `-m nfacct`. */
export interface NfacctMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "nfacct";
  /** The accounting object's name. */
  readonly accountName: string;
}

/** Any other match (physdev, limit, set, mac, owner…): options only. */
export interface GenericMatch extends MatchBase {
  /** Discriminant. */
  readonly kind: "generic";
}

/** A match of a canonical rule. */
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

/** `ACCEPT`, `DROP`, `RETURN`, `QUEUE`. */
export interface VerdictTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "verdict";
}

/** A jump (or goto) to a user chain. */
export interface ChainTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "chain";
}

/** `MARK`: `mark = (mark & ~mask) ^ value` (`--set-xmark value/mask`). */
export interface MarkTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "mark";
  /** The XOR value. */
  readonly value: number;
  /** The mask of bits cleared first. */
  readonly mask: number;
}

/** `DNAT` / `SNAT`. */
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

/** `MASQUERADE` / `REDIRECT`. */
export interface PortsTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "ports";
  /** `--to-ports`, or null. */
  readonly ports: PortRange | null;
}

/** `REJECT`. */
export interface RejectTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "reject";
  /** The canonical `--reject-with` name (default filled in). */
  readonly rejectWith: string;
}

/** Any other target extension (LOG, NFLOG, CONNMARK, CHECKSUM, CT…): options only. */
export interface GenericTarget extends TargetBase {
  /** Discriminant. */
  readonly kind: "generic";
}

/** The target of a canonical rule. */
export type CanonicalTarget =
  | VerdictTarget
  | ChainTarget
  | MarkTarget
  | NatTarget
  | PortsTarget
  | RejectTarget
  | GenericTarget;

/** One rule as the kernel stores it and iptables-save prints it. */
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
