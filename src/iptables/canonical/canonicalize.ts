/**
 * The one canonicalizer: a rule's argv (in any order iptables accepts) → the structure the
 * kernel stores and `iptables-save` prints (spec: shared/spec/iptables-save-format.md), and
 * that structure → the exact iptables-save line. The save emitter, the parser, the diff and the
 * tracer all go through here, so they all see one normalized rule.
 *
 * @module
 */

import { KubeIptablesError, type Problem } from "../../errors.js";
import type {
  AddressMatch,
  Backend,
  CanonicalMatch,
  CanonicalOption,
  CanonicalRule,
  CanonicalTarget,
  FragmentMatch,
  InterfaceMatch,
  ProtocolMatch,
} from "../../ir/canonical-types.js";
import type { Counters, IPFamily, Rule } from "../../ir/types.js";
import { canonicalAddress } from "./address.js";
import { type ExtensionContext, type OptionSpec, type RawOption, repeatedOption } from "./extension.js";
import { implicitMatchName, MATCH_EXTENSIONS, type MatchExtension, passThroughMatch } from "./matches.js";
import { protocolName, protocolNumber } from "./protocols.js";
import {
  PASS_THROUGH_TARGETS,
  passThroughTarget,
  SAVE_STRING_OPTIONS,
  TARGET_EXTENSIONS,
  type TargetExtension,
  VERDICTS,
} from "./targets.js";
import { RuleSpecError, rawOrQuoted, saveString } from "./values.js";

export type * from "../../ir/canonical-types.js";
export { NAT_ONLY_TARGETS } from "./targets.js";
export { probabilityToStored, probabilityToText, saveString } from "./values.js";

/**
 * Options of {@link canonicalizeRule}.
 *
 * @example
 * canonicalizeRule(["-m", "comment", "--comment", "x", "-j", "ACCEPT"], "IPv4", { backend: "legacy" });
 */
export interface CanonicalizeOptions {
  /** The backend to imitate where nft and legacy differ (spec §12); default `"nft"`. */
  readonly backend?: Backend;
  /**
   * The chain the rule is for, when known: iptables refuses `-i` in OUTPUT and POSTROUTING and
   * `-o` in PREROUTING and INPUT (by the chain's name, in any table; user chains are not judged).
   */
  readonly chain?: string;
}

/** The outcome of {@link tryCanonicalizeRule}. */
export type CanonicalizeResult =
  | {
      /** Success. */
      readonly ok: true;
      /** The canonical rule. */
      readonly rule: CanonicalRule;
    }
  | {
      /** Failure. */
      readonly ok: false;
      /** What iptables would complain about. */
      readonly message: string;
      /** Index in argv of the offending argument (-1: the rule as a whole). */
      readonly argIndex: number;
      /** True when the only problem is a comma list in `-s`/`-d`: see {@link expandAddressLists}. */
      readonly addressList: boolean;
    };

/** Thrown internally when `-s`/`-d` hold comma lists (after the rest was checked). */
class AddressListSignal extends RuleSpecError {
  readonly sourceIndex: number;
  readonly destinationIndex: number;
  constructor(sourceIndex: number, destinationIndex: number) {
    super(
      "an address list expands into several kernel rules; expand it with expandAddressLists first",
      sourceIndex >= 0 ? sourceIndex : destinationIndex,
    );
    this.sourceIndex = sourceIndex;
    this.destinationIndex = destinationIndex;
  }
}

/** A `-m` (or implicit) match being collected. */
interface MatchSlot {
  readonly name: string;
  readonly extension: MatchExtension;
  readonly raw: RawOption[];
  readonly argIndex: number;
}

/** The `-j`/`-g` target being collected. */
interface TargetSlot {
  readonly name: string;
  readonly goto: boolean;
  readonly extension: TargetExtension | null;
  readonly raw: RawOption[];
  readonly argIndex: number;
}

const fail = (message: string, argIndex: number): never => {
  throw new RuleSpecError(message, argIndex);
};

/** Reads the value after option `i`, or fails like getopt. */
function valueAfter(args: readonly string[], i: number): string {
  const v = args[i + 1];
  if (v === undefined) fail(`option "${args[i]}" requires an argument`, i);
  return v as string;
}

function readAddress(
  args: readonly string[],
  i: number,
  negated: boolean,
  ctx: { family: IPFamily; backend: Backend },
): AddressMatch | null {
  const text = valueAfter(args, i);
  const a = canonicalAddress(text, ctx.family);
  if (typeof a === "string") return fail(a, i + 1);
  if (a.prefixLength === 0) {
    if (!negated) return null;
    // nf_tables refuses an inverted match-anything address (spec §2.1).
    if (ctx.backend === "nft")
      fail("an inverted /0 address is refused by the nf_tables kernel (EINVAL)", i + 1);
  }
  return {
    negated,
    address: a.address,
    mask: a.mask,
    prefixLength: a.prefixLength,
    bytes: a.bytes,
    maskBytes: a.maskBytes,
  };
}

function readInterface(args: readonly string[], i: number, negated: boolean): InterfaceMatch | null {
  const name = valueAfter(args, i);
  if (name.length > 15) fail(`interface name \`${name}' must be shorter than 16 characters`, i + 1);
  if (name.length === 0) fail("empty interface name", i + 1);
  if (name === "+" && !negated) return null;
  return { negated, name };
}

/** Finds which collected extension owns a long option (target first, then the latest match). */
function findOwner(
  name: string,
  target: TargetSlot | null,
  matches: readonly MatchSlot[],
): { spec: OptionSpec; slot: MatchSlot | TargetSlot } | null {
  if (target?.extension) {
    const spec = target.extension.options.get(name);
    if (spec !== undefined) return { spec, slot: target };
  }
  for (let m = matches.length - 1; m >= 0; m--) {
    const slot = matches[m] as MatchSlot;
    const spec = slot.extension?.options.get(name);
    if (spec !== undefined) return { spec, slot };
  }
  return null;
}

/**
 * iptables' own long options (its `--help` and the binary's getopt answers): the spelling, and
 * the option it stands for (`--src` is `--source`). They take part in getopt_long's prefix
 * matching alongside the options of the extensions loaded so far.
 */
const GLOBAL_LONG_OPTIONS: readonly (readonly [string, string])[] = [
  ["--append", "A"],
  ["--check", "C"],
  ["--delete", "D"],
  ["--insert", "I"],
  ["--replace", "R"],
  ["--list", "L"],
  ["--list-rules", "S"],
  ["--flush", "F"],
  ["--zero", "Z"],
  ["--new-chain", "N"],
  ["--delete-chain", "X"],
  ["--rename-chain", "E"],
  ["--policy", "P"],
  ["--source", "s"],
  ["--src", "s"],
  ["--destination", "d"],
  ["--dst", "d"],
  ["--protocol", "p"],
  ["--in-interface", "i"],
  ["--jump", "j"],
  ["--table", "t"],
  ["--match", "m"],
  ["--numeric", "n"],
  ["--out-interface", "o"],
  ["--verbose", "v"],
  ["--wait", "w"],
  ["--wait-interval", "W"],
  ["--exact", "x"],
  ["--fragments", "f"],
  ["--version", "V"],
  ["--help", "h"],
  ["--line-numbers", "0"],
  ["--modprobe", "M"],
  ["--set-counters", "c"],
  ["--goto", "g"],
  ["--ipv4", "4"],
  ["--ipv6", "6"],
];

/** The short options the rule parser's switch reads (their long spellings too). */
const SWITCH_OPTIONS = "sdpiojgmfv46MwWnx0";

/**
 * The long spelling the switch reads for each option it handles (the first one of
 * {@link GLOBAL_LONG_OPTIONS}): what a unique prefix of any spelling of it is read as.
 */
const GLOBAL_SPELLING: Readonly<Record<string, string>> = Object.fromEntries(
  GLOBAL_LONG_OPTIONS.filter(([, o]) => SWITCH_OPTIONS.includes(o))
    .reverse()
    .map(([spelling, o]) => [o, spelling]),
);

/** The long spellings the switch reads as they are (no prefix lookup). */
const GLOBAL_EXACT: ReadonlySet<string> = new Set(
  GLOBAL_LONG_OPTIONS.filter(([, o]) => SWITCH_OPTIONS.includes(o)).map(([spelling]) => spelling),
);

/** What a long option that is no option's exact name stands for, as getopt_long resolves it. */
type PrefixOwner =
  | { readonly kind: "global"; readonly spelling: string | null }
  | { readonly kind: "extension"; readonly spec: OptionSpec; readonly slot: MatchSlot | TargetSlot }
  | { readonly kind: "ambiguous" }
  | null;

/**
 * getopt_long takes an unambiguous prefix of a long option (`--dport` for multiport's
 * `--dports`): among iptables' own options and those of the extensions loaded so far (the
 * target, the matches, and `implicit` when the protocol's match is being loaded). Spellings
 * of one option (`--sport`, `--source-port`) are one candidate.
 */
function findOwnerByPrefix(
  prefix: string,
  target: TargetSlot | null,
  matches: readonly MatchSlot[],
  implicit: MatchSlot | null,
): PrefixOwner {
  let found: PrefixOwner = null;
  let global: string | null = null;
  for (const [spelling, option] of GLOBAL_LONG_OPTIONS) {
    if (!spelling.startsWith(prefix)) continue;
    if (global !== null && global !== option) return { kind: "ambiguous" };
    global = option;
  }
  if (global !== null) found = { kind: "global", spelling: GLOBAL_SPELLING[global] ?? null };
  const consider = (slot: MatchSlot | TargetSlot): boolean => {
    const options = slot.extension?.options;
    if (options === undefined) return true;
    for (const [spelling, spec] of options) {
      if (!spelling.startsWith(prefix)) continue;
      if (
        found !== null &&
        (found.kind !== "extension" || found.spec.canon !== spec.canon || found.slot !== slot)
      )
        return false;
      found = { kind: "extension", spec, slot };
    }
    return true;
  };
  if (target !== null && !consider(target)) return { kind: "ambiguous" };
  for (let m = matches.length - 1; m >= 0; m--) {
    if (!consider(matches[m] as MatchSlot)) return { kind: "ambiguous" };
  }
  if (implicit !== null && !consider(implicit)) return { kind: "ambiguous" };
  return found;
}

/** The built-in chains packets arrive in (no output interface yet), and those they leave by. */
const INCOMING_CHAINS: ReadonlySet<string> = new Set(["PREROUTING", "INPUT"]);
const OUTGOING_CHAINS: ReadonlySet<string> = new Set(["OUTPUT", "POSTROUTING"]);

/**
 * The built-in chains where iptables refuses `-i` or `-o` by name (see
 * {@link CanonicalizeOptions.chain}): those packets arrive in and those they leave by.
 *
 * @example
 * INTERFACE_LIMITED_CHAINS.has("FORWARD") // false
 */
export const INTERFACE_LIMITED_CHAINS: ReadonlySet<string> = new Set([
  ...INCOMING_CHAINS,
  ...OUTGOING_CHAINS,
]);

function canonicalizeArgs(
  args: readonly string[],
  family: IPFamily,
  backend: Backend,
  chain?: string,
): CanonicalRule {
  let source: AddressMatch | null = null;
  let destination: AddressMatch | null = null;
  let inInterface: InterfaceMatch | null = null;
  let outInterface: InterfaceMatch | null = null;
  let protocol: ProtocolMatch | null = null;
  let fragment: FragmentMatch | null = null;
  // `-p all` and `-i +` match anything and are not kept, but a second -p or -i is still refused.
  let seenProtocol = false;
  // Where -i and -o were given (-1: not).
  let inInterfaceAt = -1;
  let outInterfaceAt = -1;
  let seenSource = false;
  let seenDestination = false;
  let sourceList = -1;
  let destinationList = -1;
  // The first `!` before -s or -d (-1: none), refused with a list in either.
  let addressNegated = -1;
  const slots: MatchSlot[] = [];
  let target: TargetSlot | null = null;
  let negated = false;
  let negationIndex = -1;
  const ctx = { family, backend };
  const n = args.length;
  let i = 0;
  while (i < n) {
    let arg = args[i] as string;
    if (arg === "!") {
      if (negated) fail("multiple `!' flags not allowed", i);
      negated = true;
      negationIndex = i;
      i++;
      continue;
    }
    if (arg.length < 2 || arg.charCodeAt(0) !== 45 /* - */)
      fail(
        // A shell-style comment after a rule (seen in hand-written dumps): iptables-restore
        // skips only lines that start with #.
        arg.startsWith("#")
          ? `Bad argument \`${arg}': iptables-restore takes a # comment only at the start of a line; move it above the rule`
          : `Bad argument \`${arg}'`,
        i,
      );
    // getopt's `--modprobe=PATH` (iptables' only long option that is written so in practice).
    if (arg.startsWith("--modprobe=")) {
      i += 1;
      continue;
    }
    // A long option that is no option's exact name stands for the one it is a unique prefix of.
    let prefixOwner: PrefixOwner = null;
    // (An extension option's exact owner, looked up once here for a long option.)
    let exact: ReturnType<typeof findOwner> | undefined;
    if (arg.charCodeAt(1) === 45 && arg.length > 2 && !GLOBAL_EXACT.has(arg)) {
      exact = findOwner(arg, target, slots);
      if (exact === null) {
        prefixOwner = findOwnerByPrefix(arg, target, slots, null);
        if (prefixOwner?.kind === "global" && prefixOwner.spelling !== null) arg = prefixOwner.spelling;
      }
    }
    switch (arg) {
      case "-s":
      case "--source":
      case "--src":
      case "-d":
      case "--destination":
      case "--dst": {
        const isSource = arg === "-s" || arg === "--source" || arg === "--src";
        if (isSource ? seenSource : seenDestination) {
          fail(`multiple -${isSource ? "s" : "d"} flags not allowed`, i);
        }
        const text = valueAfter(args, i);
        let match: AddressMatch | null = null;
        if (text.indexOf(",") >= 0) {
          // A comma list becomes several kernel rules; check every element now.
          for (const part of text.split(",")) {
            const a = canonicalAddress(part, family);
            if (typeof a === "string") fail(a, i + 1);
          }
          if (isSource) sourceList = i + 1;
          else destinationList = i + 1;
        } else {
          match = readAddress(args, i, negated, ctx);
        }
        if (negated && addressNegated < 0) addressNegated = negationIndex;
        if (isSource) {
          seenSource = true;
          source = match;
        } else {
          seenDestination = true;
          destination = match;
        }
        negated = false;
        i += 2;
        continue;
      }
      case "-i":
      case "--in-interface":
      case "-o":
      case "--out-interface": {
        const isIn = arg === "-i" || arg === "--in-interface";
        if ((isIn ? inInterfaceAt : outInterfaceAt) >= 0) {
          fail(`multiple -${isIn ? "i" : "o"} flags not allowed`, i);
        }
        const match = readInterface(args, i, negated);
        if (isIn) {
          inInterface = match;
          inInterfaceAt = i;
        } else {
          outInterface = match;
          outInterfaceAt = i;
        }
        negated = false;
        i += 2;
        continue;
      }
      case "-p":
      case "--protocol": {
        if (seenProtocol) fail("multiple -p flags not allowed", i);
        seenProtocol = true;
        const text = valueAfter(args, i);
        const num = protocolNumber(text);
        if (num < 0) fail(`unknown protocol "${text}" specified`, i + 1);
        if (num === 0 && negated) fail("rule would never match protocol", i);
        if (num !== 0) protocol = { negated, number: num, name: protocolName(num) };
        negated = false;
        i += 2;
        continue;
      }
      case "-f":
      case "--fragments":
        if (family === "IPv6") fail("-f is not supported by ip6tables; use -m frag instead", i);
        if (fragment !== null) fail("multiple -f flags not allowed", i);
        fragment = { negated };
        negated = false;
        i += 1;
        continue;
      case "-v":
      case "--verbose":
        // Taken and ignored, as are -4 in iptables and -6 in ip6tables, and -M.
        i += 1;
        continue;
      case "-4":
      case "--ipv4":
      case "-6":
      case "--ipv6":
        if ((arg === "-4" || arg === "--ipv4") !== (family === "IPv4")) {
          fail(`${arg}: this is ${family === "IPv4" ? "iptables" : "ip6tables"}, the rule is not loaded`, i);
        }
        i += 1;
        continue;
      case "-M":
      case "--modprobe":
        valueAfter(args, i);
        i += 2;
        continue;
      case "-w":
      case "--wait":
      case "-W":
      case "--wait-interval":
        fail(
          `You cannot use \`${arg.length === 2 ? arg : arg === "--wait" ? "-w" : "-W"}' from iptables-restore`,
          i,
        );
        break;
      case "-n":
      case "--numeric":
      case "-x":
      case "--exact":
      case "--line-numbers":
        fail(
          `Illegal option \`${arg === "--numeric" ? "-n" : arg === "--exact" ? "-x" : arg}' with this command`,
          i,
        );
        break;
      case "-m":
      case "--match": {
        if (negated) fail("unexpected `!' before -m", negationIndex);
        const name = valueAfter(args, i);
        const extension = MATCH_EXTENSIONS.get(name) ?? passThroughMatch(name, family);
        if (extension === null)
          return fail(`Couldn't load match \`${name}':No such file or directory`, i + 1);
        slots.push({ name, extension, raw: [], argIndex: i });
        i += 2;
        continue;
      }
      case "-j":
      case "--jump":
      case "-g":
      case "--goto": {
        if (negated) fail("unexpected `!' before the target", negationIndex);
        if (target !== null) fail("multiple -j flags not allowed", i);
        const name = valueAfter(args, i);
        const goto = arg === "-g" || arg === "--goto";
        if (name.length === 0) fail("empty target name", i + 1);
        if (goto && (VERDICTS.has(name) || TARGET_EXTENSIONS.has(name) || PASS_THROUGH_TARGETS.has(name))) {
          // -g takes a user chain only; the backends word it differently.
          fail(backend === "nft" ? `Chain '${name}' does not exist` : `goto '${name}' is not a chain`, i + 1);
        }
        target = {
          name,
          goto,
          extension: TARGET_EXTENSIONS.get(name) ?? passThroughTarget(name, family),
          raw: [],
          argIndex: i,
        };
        i += 2;
        continue;
      }
      default:
        break;
    }
    // An extension option: its exact name, or a unique prefix, among the extensions loaded.
    let owner = exact === undefined ? findOwner(arg, target, slots) : exact;
    if (owner === null && prefixOwner !== null) {
      if (prefixOwner.kind === "extension") owner = prefixOwner;
      else fail(`unknown option "${arg}"`, i);
    }
    if (owner === null && protocol !== null) {
      // Else iptables loads the protocol's match (where its first option appears, spec §3) and
      // reads the option again, now among that match's options too.
      const implicitName = implicitMatchName(protocol.number, family);
      const implicit = implicitName === null ? undefined : MATCH_EXTENSIONS.get(implicitName);
      if (implicit !== undefined && implicitName !== null) {
        const slot: MatchSlot = { name: implicitName, extension: implicit, raw: [], argIndex: i };
        const spec = implicit.options.get(arg);
        if (spec !== undefined) owner = { spec, slot };
        else if (arg.charCodeAt(1) === 45 && arg.length > 2) {
          const found = findOwnerByPrefix(arg, target, slots, slot);
          if (found?.kind === "extension" && found.slot === slot) owner = found;
          else if (found !== null) fail(`unknown option "${arg}"`, i);
        }
        if (owner !== null) slots.push(slot);
      }
    }
    if (owner !== null) {
      const { spec, slot } = owner;
      if (negated && !spec.invert)
        fail(`${slot.name}: option "${spec.canon}" cannot be inverted`, negationIndex);
      if (spec.arity > 0 && i + spec.arity >= n) {
        fail(`option "${arg}" requires an argument`, i);
      }
      const repeated = repeatedOption(slot.extension?.once, slot.raw, spec.canon);
      if (repeated !== null) fail(repeated, i);
      slot.raw.push({
        name: spec.canon,
        negated,
        values: spec.arity === 0 ? [] : args.slice(i + 1, i + 1 + spec.arity),
        argIndex: i,
        protocolSoFar: protocol === null || protocol.negated ? -1 : protocol.number,
        protocolGiven: protocol === null ? -1 : protocol.number,
      });
      negated = false;
      i += 1 + spec.arity;
      continue;
    }
    fail(`unknown option "${arg}"`, i);
  }
  if (negated) fail("`!' must be followed by an option", negationIndex);
  if (chain !== undefined) {
    if (inInterfaceAt >= 0 && OUTGOING_CHAINS.has(chain)) fail(`Can't use -i with ${chain}`, inInterfaceAt);
    if (outInterfaceAt >= 0 && INCOMING_CHAINS.has(chain)) fail(`Can't use -o with ${chain}`, outInterfaceAt);
  }
  if (sourceList >= 0 || destinationList >= 0) {
    // One kernel rule per address pair: iptables will not negate such a set.
    if (addressNegated >= 0)
      fail("! not allowed with multiple source or destination IP addresses", addressNegated);
    throw new AddressListSignal(sourceList, destinationList);
  }

  const ectx: ExtensionContext = { family, backend, protocol };
  const matches: CanonicalMatch[] = [];
  const merged = backend === "nft" ? mergePortMatches(slots) : slots;
  for (const slot of merged) {
    const m = slot.extension.finish(slot.name, slot.raw, ectx, slot.argIndex);
    if (m !== null) matches.push(m);
  }
  let canonicalTarget: CanonicalTarget | null = null;
  if (target !== null) {
    const t: TargetSlot = target;
    if (t.extension !== null) {
      canonicalTarget = t.extension.finish(t.name, t.goto, t.raw, ectx, t.argIndex);
    } else {
      canonicalTarget = {
        kind: VERDICTS.has(t.name) ? "verdict" : "chain",
        name: t.name,
        goto: t.goto,
        options: [],
      };
    }
  }
  return {
    source,
    destination,
    inInterface,
    outInterface,
    protocol,
    fragment,
    matches,
    target: canonicalTarget,
  };
}

/** nf_tables merges repeated tcp/udp matches into the first one (spec §3, §12 row 3). */
function mergePortMatches(slots: readonly MatchSlot[]): readonly MatchSlot[] {
  let firstTcp = -1;
  let firstUdp = -1;
  let repeated = false;
  for (let k = 0; k < slots.length; k++) {
    const name = (slots[k] as MatchSlot).name;
    if (name === "tcp") {
      if (firstTcp >= 0) repeated = true;
      else firstTcp = k;
    } else if (name === "udp") {
      if (firstUdp >= 0) repeated = true;
      else firstUdp = k;
    }
  }
  if (!repeated) return slots;
  const out: MatchSlot[] = [];
  const heads = new Map<string, MatchSlot>();
  for (const slot of slots) {
    if (slot.name !== "tcp" && slot.name !== "udp") {
      out.push(slot);
      continue;
    }
    const head = heads.get(slot.name);
    if (head === undefined) {
      const copy: MatchSlot = {
        name: slot.name,
        extension: slot.extension,
        raw: slot.raw.slice(),
        argIndex: slot.argIndex,
      };
      heads.set(slot.name, copy);
      out.push(copy);
    } else {
      head.raw.push(...slot.raw);
    }
  }
  return out;
}

/**
 * Canonicalizes a rule's argv without throwing.
 *
 * @param args - The rule specification as in `Rule.args` (unquoted, `!` as its own element).
 * @param family - The rule set's family.
 * @param options - Backend to imitate.
 * @returns The canonical rule, or the problem with the index of the offending argument.
 * @example
 * tryCanonicalizeRule(["-p", "tcp", "--dport", "99999"], "IPv4")
 * // { ok: false, message: "invalid port/service `99999' specified", argIndex: 3, addressList: false }
 */
export function tryCanonicalizeRule(
  args: readonly string[],
  family: IPFamily,
  options?: CanonicalizeOptions,
): CanonicalizeResult {
  try {
    return { ok: true, rule: canonicalizeArgs(args, family, options?.backend ?? "nft", options?.chain) };
  } catch (e) {
    if (e instanceof RuleSpecError) {
      return {
        ok: false,
        message: e.message,
        argIndex: e.argIndex,
        addressList: e instanceof AddressListSignal,
      };
    }
    throw e;
  }
}

/**
 * Canonicalizes a rule's argv into what the kernel stores and iptables-save prints.
 *
 * @param args - The rule specification as in `Rule.args`, in any order iptables accepts.
 * @param family - The rule set's family.
 * @param options - Backend to imitate (default nft).
 * @returns The canonical rule.
 * @throws KubeIptablesError (code `PARSE`) when iptables would refuse the rule.
 * @example
 * const r = canonicalizeRule(["-m", "tcp", "-p", "tcp", "-d", "10.0.0.1", "--dport", "80", "-j", "ACCEPT"], "IPv4");
 * formatCanonicalRule("X", r) // "-A X -d 10.0.0.1/32 -p tcp -m tcp --dport 80 -j ACCEPT"
 */
export function canonicalizeRule(
  args: readonly string[],
  family: IPFamily,
  options?: CanonicalizeOptions,
): CanonicalRule {
  const result = tryCanonicalizeRule(args, family, options);
  if (result.ok) return result.rule;
  throw new KubeIptablesError([ruleProblem(result.message)]);
}

function ruleProblem(message: string): Problem {
  return { code: "PARSE", path: "", message, severity: "error" };
}

/** Memoized results per family and backend (nested, so that a lookup builds no key string). */
const caches: Record<IPFamily, Record<Backend, WeakMap<Rule, CanonicalizeResult>>> = {
  IPv4: { nft: new WeakMap(), legacy: new WeakMap() },
  IPv6: { nft: new WeakMap(), legacy: new WeakMap() },
};

/**
 * {@link tryCanonicalizeRule} of a `Rule`, memoized by the rule object (rules are immutable),
 * so that parser, state simulation and save emitter canonicalize each rule once.
 *
 * @example
 * canonicalizeRuleCached(appendRule("X", ["-j", "DROP"]), "IPv4").ok // true
 */
export function canonicalizeRuleCached(
  rule: Rule,
  family: IPFamily,
  options?: CanonicalizeOptions,
): CanonicalizeResult {
  const cache = caches[family][options?.backend ?? "nft"];
  let result = cache.get(rule);
  if (result === undefined) {
    result = tryCanonicalizeRule(rule.args, family, options);
    cache.set(rule, result);
  }
  return result;
}

/**
 * {@link canonicalizeRuleCached}'s result when it is already memoized, else computed without
 * memoizing it. For one pass over rules that are unlikely to be asked for again (printing a
 * freshly generated state): the memo would keep a canonical object graph per rule alive,
 * which on a 10k-service state costs more in garbage collection than canonicalizing does.
 */
export function canonicalizeRuleOnce(
  rule: Rule,
  family: IPFamily,
  options?: CanonicalizeOptions,
): CanonicalizeResult {
  const cached = caches[family][options?.backend ?? "nft"].get(rule);
  return cached ?? tryCanonicalizeRule(rule.args, family, options);
}

/**
 * Expands comma lists in `-s`/`-d` into the argv of each kernel rule, in iptables' order
 * (s1×d1, s1×d2, s2×d1, s2×d2). Returns null when the rule has no list.
 *
 * @example
 * expandAddressLists(["-s", "10.0.0.1,10.0.0.2", "-j", "ACCEPT"], "IPv4")
 * // [["-s", "10.0.0.1", "-j", "ACCEPT"], ["-s", "10.0.0.2", "-j", "ACCEPT"]]
 */
export function expandAddressLists(args: readonly string[], family: IPFamily): string[][] | null {
  let signal: AddressListSignal;
  try {
    canonicalizeArgs(args, family, "legacy");
    return null;
  } catch (e) {
    if (!(e instanceof AddressListSignal)) return null;
    signal = e;
  }
  const sources = signal.sourceIndex >= 0 ? (args[signal.sourceIndex] ?? "").split(",") : [null];
  const destinations =
    signal.destinationIndex >= 0 ? (args[signal.destinationIndex] ?? "").split(",") : [null];
  const out: string[][] = [];
  for (const s of sources) {
    for (const d of destinations) {
      const copy = args.slice();
      if (s !== null) copy[signal.sourceIndex] = s;
      if (d !== null) copy[signal.destinationIndex] = d;
      out.push(copy);
    }
  }
  return out;
}

function appendAddress(line: string, flag: string, a: AddressMatch): string {
  return `${line}${a.negated ? " ! " : " "}${flag} ${a.address}/${a.mask}`;
}

function appendOptions(line: string, options: readonly CanonicalOption[], generic: boolean): string {
  let out = line;
  for (const o of options) {
    out += o.negated ? " ! " : " ";
    out += o.name;
    if (SAVE_STRING_OPTIONS.has(o.name)) {
      // nfacct prints its own trailing space before the quoted name: two spaces (spec §7.6).
      out += o.name === "--nfacct-name" ? "  " : " ";
      out += saveString(o.values[0] ?? "");
      continue;
    }
    for (const v of o.values) out += ` ${generic ? rawOrQuoted(v) : v}`;
  }
  return out;
}

/**
 * Prints a canonical rule as the exact line iptables-save prints (without a newline).
 *
 * @param chain - The chain the rule is in.
 * @param rule - The canonical rule.
 * @param counters - When given, the `[packets:bytes] ` prefix of `iptables-save -c`.
 * @returns The line, e.g. `-A KUBE-SEP-X -s 10.0.0.1/32 -m comment --comment "ns/svc:p" -j KUBE-MARK-MASQ`.
 * @example
 * formatCanonicalRule("X", canonicalizeRule(["-j", "MARK", "--or-mark", "0x4000"], "IPv4"))
 * // "-A X -j MARK --set-xmark 0x4000/0x4000"
 */
export function formatCanonicalRule(chain: string, rule: CanonicalRule, counters?: Counters): string {
  let line = counters === undefined ? `-A ${chain}` : `[${counters.packets}:${counters.bytes}] -A ${chain}`;
  if (rule.source !== null) line = appendAddress(line, "-s", rule.source);
  if (rule.destination !== null) line = appendAddress(line, "-d", rule.destination);
  if (rule.inInterface !== null)
    line += `${rule.inInterface.negated ? " ! " : " "}-i ${rule.inInterface.name}`;
  if (rule.outInterface !== null)
    line += `${rule.outInterface.negated ? " ! " : " "}-o ${rule.outInterface.name}`;
  if (rule.protocol !== null) line += `${rule.protocol.negated ? " ! " : " "}-p ${rule.protocol.name}`;
  if (rule.fragment !== null) line += rule.fragment.negated ? " ! -f" : " -f";
  for (const m of rule.matches) {
    line += ` -m ${m.name}`;
    line = appendOptions(line, m.options, m.kind === "generic");
  }
  const t = rule.target;
  if (t !== null) {
    line += `${t.goto ? " -g " : " -j "}${t.name}`;
    line = appendOptions(line, t.options, t.kind === "generic");
  }
  return line;
}
