/**
 * Target extensions the canonicalizer understands (spec §8): MARK, CONNMARK, MASQUERADE,
 * DNAT/SNAT, REDIRECT, REJECT, LOG, NFLOG. Other targets iptables ships are passed through.
 *
 * @module
 */

import type { CanonicalOption, CanonicalTarget } from "../../ir/canonical-types.js";
import { formatHost, parseHostBytes } from "./address.js";
import {
  type ExtensionContext,
  familyExtensions,
  firstValue,
  keptOptions,
  type OptionSpec,
  onceTable,
  option,
  optionTable,
  type RawOption,
  rejectRepeat,
  type TableExtension,
} from "./extension.js";
import { parseMarkValue } from "./matches.js";
import { hex32, type PortRange, parseCUnsigned, parsePort, RuleSpecError, truncateBytes } from "./values.js";

/** A target extension: its options and how to turn them into a canonical target. */
export interface TargetExtension {
  /** Option spellings it owns. */
  readonly options: ReadonlyMap<string, OptionSpec>;
  /** Options iptables refuses twice after one `-j` (see {@link onceTable}); others check in `finish`. */
  readonly once?: ReadonlyMap<string, string>;
  /** Builds the canonical target from the options given to it, in input order. */
  finish(
    name: string,
    goto: boolean,
    raw: readonly RawOption[],
    ctx: ExtensionContext,
    argIndex: number,
  ): CanonicalTarget;
}

const fail = (message: string, argIndex: number): never => {
  throw new RuleSpecError(message, argIndex);
};

/**
 * Protocols a NAT port range is allowed with (spec §8.4): tcp, udp, sctp, dccp, and icmp (its
 * id is NATed as a port), by the `-p` number given before the option, `!` or not, in both
 * families (checked against iptables 1.8.9: `! -p tcp` and `-p icmp` pass, ipv6-icmp does not).
 */
const PORT_PROTOCOLS = new Set([6, 17, 132, 33, 1]);

function requirePortProtocol(r: RawOption): void {
  if (!PORT_PROTOCOLS.has(r.protocolGiven))
    fail("Need TCP, UDP, SCTP or DCCP with port specification", r.argIndex);
}

/** A NAT port range, with the base port of `P-Q/B` (0: none). */
interface NatPorts extends PortRange {
  readonly base: number;
}

/**
 * Reads the number `text` starts with as `xtables_strtoui(s, &end, …, 0, 65535)` does (C base
 * 0, blanks and `+` leading): the value and where it ends, or null when no number leads or it
 * is out of range.
 */
function leadingPort(text: string): { value: number; end: number } | null {
  let end = 0;
  while (end < text.length && " \t\n\v\f\r".includes(text[end] as string)) end++;
  if (text[end] === "+") end++;
  const start = end;
  const hex =
    text[end] === "0" &&
    (text[end + 1] === "x" || text[end + 1] === "X") &&
    /[0-9a-f]/i.test(text[end + 2] ?? "");
  const digits = hex ? /[0-9a-f]/i : text[end] === "0" ? /[0-7]/ : /[0-9]/;
  if (hex) end += 2;
  while (end < text.length && digits.test(text[end] as string)) end++;
  if (end === start) return null;
  const value = parseCUnsigned(text.slice(0, end), 65535);
  return value < 0 ? null : { value, end };
}

/** Parses `P`, `P-Q` or `P-Q/B` as iptables' NAT targets do (ports in C base 0, or a service). */
function parseNatPorts(text: string, argIndex: number): NatPorts {
  let lo = leadingPort(text);
  if (lo === null) {
    const service = parsePort(text);
    if (service < 0) fail(`Port \`${text}' not valid`, argIndex);
    lo = { value: service, end: text.length };
  }
  const after = text.slice(lo.end);
  if (after.length === 0) return { min: lo.value, max: lo.value, base: 0 };
  if (after[0] === ":") fail("Invalid port:port syntax - use dash", argIndex);
  if (after[0] !== "-") fail(`Garbage after port value: \`${after}'`, argIndex);
  const rest = after.slice(1);
  const hi = leadingPort(rest);
  if (hi === null) return fail(`Port \`${rest}' not valid`, argIndex);
  if (hi.value < lo.value) fail(`Port range \`${rest}' funky`, argIndex);
  const tail = rest.slice(hi.end);
  if (tail.length === 0) return { min: lo.value, max: hi.value, base: 0 };
  if (tail[0] !== "/") fail(`Garbage after port range: \`${tail}'`, argIndex);
  const baseText = tail.slice(1);
  const base = parsePort(baseText);
  if (base < 1) fail(`Port \`${baseText}' not valid`, argIndex);
  return { min: lo.value, max: hi.value, base };
}

function formatNatPorts(p: NatPorts): string {
  const range = p.min === p.max ? String(p.min) : `${p.min}-${p.max}`;
  return p.base === 0 ? range : `${range}/${p.base}`;
}

// ---------------------------------------------------------------------------- MARK / CONNMARK

const MARK_OPS = ["--set-xmark", "--set-mark", "--and-mark", "--or-mark", "--xor-mark"];

/** Turns any MARK-style operation into the `--set-xmark value/mask` the kernel stores (spec §8.2). */
function markOperation(r: RawOption): { value: number; mask: number } {
  const { value, mask, hasMask } = parseMarkValue(firstValue(r), r.argIndex + 1);
  switch (r.name) {
    case "--set-xmark":
      return { value, mask };
    case "--set-mark":
      return { value, mask: hasMask ? (value | mask) >>> 0 : 0xffffffff };
    default:
      if (hasMask) fail(`${r.name} takes no mask`, r.argIndex + 1);
      if (r.name === "--and-mark") return { value: 0, mask: ~value >>> 0 };
      if (r.name === "--or-mark") return { value, mask: value };
      return { value, mask: 0 };
  }
}

const markTarget: TargetExtension = {
  options: optionTable(MARK_OPS.map((n) => [[n], 1, false] as const)),
  finish(name, goto, raw, _ctx, argIndex) {
    const r = raw[raw.length - 1];
    if (r === undefined) return fail("MARK target: Parameter --set-xmark is required", argIndex);
    if (raw.length > 1) fail("MARK target: Can't specify more than one operation", r.argIndex);
    const { value, mask } = markOperation(r);
    return {
      kind: "mark",
      name,
      goto,
      value,
      mask,
      options: [option("--set-xmark", false, [`${hex32(value)}/${hex32(mask)}`])],
    };
  },
};

const connmarkTarget: TargetExtension = {
  options: optionTable([
    ...MARK_OPS.map((n) => [[n], 1, false] as const),
    [["--save-mark"], 0, false],
    [["--restore-mark"], 0, false],
    [["--nfmask"], 1, false],
    [["--ctmask"], 1, false],
    [["--mask"], 1, false],
  ]),
  finish(name, goto, raw, _ctx, argIndex) {
    let op: RawOption | null = null;
    let nfmask = 0xffffffff;
    let ctmask = 0xffffffff;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.name === "--nfmask" || r.name === "--ctmask" || r.name === "--mask") {
        const { value } = parseMarkValue(firstValue(r), r.argIndex + 1);
        if (r.name !== "--ctmask") nfmask = value;
        if (r.name !== "--nfmask") ctmask = value;
      } else {
        if (op !== null) fail("CONNMARK target: Can't specify more than one operation", r.argIndex);
        op = r;
      }
    }
    if (op === null) return fail("CONNMARK target: No operation specified", argIndex);
    let options: CanonicalOption[];
    if (op.name === "--save-mark" || op.name === "--restore-mark") {
      options = [
        option(op.name, false, []),
        option("--nfmask", false, [hex32(nfmask)]),
        option("--ctmask", false, [hex32(ctmask)]),
      ];
    } else {
      const { value, mask } = markOperation(op);
      options = [option("--set-xmark", false, [`${hex32(value)}/${hex32(mask)}`])];
    }
    return { kind: "generic", name, goto, options };
  },
};

// ---------------------------------------------------------------------------- NAT

const masquerade: TargetExtension = {
  options: optionTable([
    [["--to-ports"], 1, false],
    [["--random"], 0, false],
    [["--random-fully"], 0, false],
  ]),
  finish(name, goto, raw) {
    let ports: NatPorts | null = null;
    let random = false;
    let randomFully = false;
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.name === "--to-ports") {
        requirePortProtocol(r);
        ports = parseNatPorts(firstValue(r), r.argIndex + 1);
      } else if (r.name === "--random") random = true;
      else randomFully = true;
    }
    if (name === "REDIRECT" && randomFully) fail(`unknown option "--random-fully"`, 0);
    const options: CanonicalOption[] = [];
    if (ports !== null) options.push(option("--to-ports", false, [formatNatPorts(ports)]));
    if (random) options.push(option("--random", false, []));
    if (randomFully) options.push(option("--random-fully", false, []));
    return { kind: "ports", name, goto, ports, options };
  },
};

/** Parses a DNAT/SNAT range `ADDR[-ADDR][:PORT[-PORT]]` (IPv6 in brackets when a port is given). */
function parseNatRange(
  r: RawOption,
  ctx: ExtensionContext,
): { min: string; max: string; ports: NatPorts | null; printed: string } {
  const text = firstValue(r);
  const at = r.argIndex + 1;
  let addressPart: string;
  let portPart: string | null = null;
  if (ctx.family === "IPv6") {
    if (text.charCodeAt(0) === 91 /* [ */) {
      const close = text.indexOf("]");
      if (close < 0) fail(`Invalid address \`${text}'`, at);
      addressPart = text.slice(1, close);
      const rest = text.slice(close + 1);
      if (rest.length > 0) {
        if (rest.charCodeAt(0) !== 58 /* : */) fail(`Invalid address \`${text}'`, at);
        portPart = rest.slice(1);
      }
    } else {
      // Without brackets the whole value is an address range (spec §8.4 pitfall).
      addressPart = text;
    }
  } else {
    const colon = text.indexOf(":");
    addressPart = colon < 0 ? text : text.slice(0, colon);
    if (colon >= 0) portPart = text.slice(colon + 1);
  }
  let min = "";
  let max = "";
  if (addressPart.length > 0) {
    // IPv6 addresses contain no '-', so the first dash separates the range in both families.
    const dash = addressPart.indexOf("-");
    const lo = parseHostBytes(dash < 0 ? addressPart : addressPart.slice(0, dash), ctx.family);
    const hi = dash < 0 ? lo : parseHostBytes(addressPart.slice(dash + 1), ctx.family);
    if (lo === null || hi === null) return fail(`Bad IP address \`${addressPart}'`, at);
    min = formatHost(lo);
    max = formatHost(hi);
  } else if (portPart === null) {
    fail(`Invalid address \`${text}'`, at);
  }
  let ports: NatPorts | null = null;
  if (portPart !== null) {
    requirePortProtocol(r);
    ports = parseNatPorts(portPart, at);
  }
  let addressText = min === max ? min : `${min}-${max}`;
  let printed: string;
  if (ports === null) printed = addressText;
  else {
    if (ctx.family === "IPv6" && addressText.length > 0) addressText = `[${addressText}]`;
    printed = `${addressText}:${formatNatPorts(ports)}`;
  }
  return { min, max, ports, printed };
}

function makeNat(toOption: string): TargetExtension {
  return {
    options: optionTable([
      [[toOption], 1, false],
      [["--random"], 0, false],
      [["--random-fully"], 0, false],
      [["--persistent"], 0, false],
    ]),
    finish(name, goto, raw, ctx, argIndex) {
      let range: ReturnType<typeof parseNatRange> | null = null;
      let random = false;
      let randomFully = false;
      let persistent = false;
      for (let at = 0; at < raw.length; at++) {
        const r = raw[at] as RawOption;
        rejectRepeat(raw, at, name);
        if (r.name === toOption) range = parseNatRange(r, ctx);
        else if (r.name === "--random") random = true;
        else if (r.name === "--random-fully") randomFully = true;
        else persistent = true;
      }
      if (range === null) return fail(`${name}: option "${toOption}" must be specified`, argIndex);
      const options: CanonicalOption[] = [option(toOption, false, [range.printed])];
      if (random) options.push(option("--random", false, []));
      if (randomFully) options.push(option("--random-fully", false, []));
      if (persistent) options.push(option("--persistent", false, []));
      return {
        kind: "nat",
        name,
        goto,
        minAddress: range.min,
        maxAddress: range.max,
        ports: range.ports,
        options,
      };
    },
  };
}

// ---------------------------------------------------------------------------- REJECT

/** [canonical name, alias] in iptables' table order; the first prefix match wins (spec §8.5). */
const REJECT4: readonly (readonly [string, string])[] = [
  ["icmp-net-unreachable", "net-unreach"],
  ["icmp-host-unreachable", "host-unreach"],
  ["icmp-proto-unreachable", "proto-unreach"],
  ["icmp-port-unreachable", "port-unreach"],
  ["icmp-net-prohibited", "net-prohib"],
  ["icmp-host-prohibited", "host-prohib"],
  ["tcp-reset", "tcp-rst"],
  ["icmp-admin-prohibited", "admin-prohib"],
];

const REJECT6: readonly (readonly [string, string])[] = [
  ["icmp6-no-route", "no-route"],
  ["icmp6-adm-prohibited", "adm-prohibited"],
  ["icmp6-addr-unreachable", "addr-unreach"],
  ["icmp6-port-unreachable", "port-unreach"],
  ["icmp6-policy-fail", "policy-fail"],
  ["icmp6-reject-route", "reject-route"],
  ["tcp-reset", "tcp-reset"],
];

const reject: TargetExtension = {
  options: optionTable([[["--reject-with"], 1, false]]),
  once: onceTable([[["--reject-with"], 'REJECT: option "--reject-with" can only be used once']]),
  finish(name, goto, raw, ctx) {
    const table = ctx.family === "IPv4" ? REJECT4 : REJECT6;
    let rejectWith = ctx.family === "IPv4" ? "icmp-port-unreachable" : "icmp6-port-unreachable";
    const r = raw[raw.length - 1];
    if (r !== undefined) {
      const given = firstValue(r).toLowerCase();
      const hit = table.find(([n, alias]) => n.startsWith(given) || alias.startsWith(given));
      if (hit === undefined || given.length === 0)
        return fail(`unknown reject type "${firstValue(r)}"`, r.argIndex + 1);
      rejectWith = hit[0];
      // The kernel refuses a TCP reset for anything but `-p tcp` (spec §8.5).
      if (
        rejectWith === "tcp-reset" &&
        (ctx.protocol === null || ctx.protocol.number !== 6 || ctx.protocol.negated)
      ) {
        fail("REJECT: tcp-reset is only valid with -p tcp", r.argIndex + 1);
      }
    }
    return {
      kind: "reject",
      name,
      goto,
      rejectWith,
      options: [option("--reject-with", false, [rejectWith])],
    };
  },
};

// ---------------------------------------------------------------------------- LOG / NFLOG

/** A string option's value, which iptables' guided parser wants at least one character long. */
function nonEmpty(r: RawOption): string {
  const v = firstValue(r);
  if (v.length === 0) fail("Argument must have a minimum length of 1 characters", r.argIndex + 1);
  return v;
}

/** The level names iptables 1.8.9 takes, as written (not `err` or `warn`, not upper case). */
const LOG_LEVELS: ReadonlyMap<string, number> = new Map([
  ["emerg", 0],
  ["panic", 0],
  ["alert", 1],
  ["crit", 2],
  ["error", 3],
  ["warning", 4],
  ["notice", 5],
  ["info", 6],
  ["debug", 7],
]);
const LOG_FLAGS = [
  "--log-tcp-sequence",
  "--log-tcp-options",
  "--log-ip-options",
  "--log-uid",
  "--log-macdecode",
];

const log: TargetExtension = {
  options: optionTable([
    [["--log-prefix"], 1, false],
    [["--log-level"], 1, false],
    ...LOG_FLAGS.map((f) => [[f], 0, false] as const),
  ]),
  finish(name, goto, raw) {
    let prefix: string | null = null;
    let level = 4;
    const flags = new Set<string>();
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      if (r.name === "--log-prefix") prefix = truncateBytes(nonEmpty(r), 29);
      else if (r.name === "--log-level") {
        const v = firstValue(r);
        level = LOG_LEVELS.get(v) ?? parseCUnsigned(v, 7);
        if (level < 0) fail(`log level "${v}" unknown`, r.argIndex + 1);
      } else flags.add(r.name);
    }
    const options: CanonicalOption[] = [];
    if (prefix !== null) options.push(option("--log-prefix", false, [prefix]));
    if (level !== 4) options.push(option("--log-level", false, [String(level)]));
    for (const f of LOG_FLAGS) if (flags.has(f)) options.push(option(f, false, []));
    return { kind: "generic", name, goto, options };
  },
};

const nflog: TargetExtension = {
  options: optionTable([
    [["--nflog-group"], 1, false],
    [["--nflog-prefix"], 1, false],
    [["--nflog-range"], 1, false],
    [["--nflog-size"], 1, false],
    [["--nflog-threshold"], 1, false],
  ]),
  finish(name, goto, raw, ctx) {
    const values = new Map<string, string>();
    for (let at = 0; at < raw.length; at++) {
      const r = raw[at] as RawOption;
      rejectRepeat(raw, at, name);
      const v = firstValue(r);
      // nft keeps a prefix of 127 bytes (its log expression's), legacy's xt_NFLOG 63.
      if (r.name === "--nflog-prefix")
        values.set(r.name, truncateBytes(nonEmpty(r), ctx.backend === "nft" ? 127 : 63));
      else {
        const max = r.name === "--nflog-group" || r.name === "--nflog-threshold" ? 65535 : 0xffffffff;
        const n = parseCUnsigned(v, max);
        if (n < 0)
          fail(`NFLOG: bad value for option "${r.name}", or out of range (0-${max}).`, r.argIndex + 1);
        values.set(r.name, String(n));
      }
    }
    const options: CanonicalOption[] = [];
    const prefix = values.get("--nflog-prefix");
    if (prefix !== undefined && prefix.length > 0) options.push(option("--nflog-prefix", false, [prefix]));
    const group = values.get("--nflog-group");
    if (group !== undefined && group !== "0") options.push(option("--nflog-group", false, [group]));
    const range = values.get("--nflog-range");
    if (range !== undefined && values.has("--nflog-size")) {
      const at = raw.find((r) => r.name === "--nflog-range")?.argIndex ?? 0;
      fail('NFLOG: option "--nflog-range" cannot be used together with "--nflog-size"', at);
    }
    // nft has no place for the range (it never worked): its save drops it.
    if (range !== undefined && ctx.backend === "legacy")
      options.push(option("--nflog-range", false, [range]));
    const size = values.get("--nflog-size");
    if (size !== undefined) options.push(option("--nflog-size", false, [size]));
    // iptables-save prints the threshold unless it is 0 (what the kernel stores when none is given).
    const threshold = values.get("--nflog-threshold");
    if (threshold !== undefined && threshold !== "0")
      options.push(option("--nflog-threshold", false, [threshold]));
    return { kind: "generic", name, goto, options };
  },
};

// ---------------------------------------------------------------------------- registry

/** The standard verdicts (no options). */
export const VERDICTS: ReadonlySet<string> = new Set(["ACCEPT", "DROP", "RETURN", "QUEUE"]);

/** The target extensions the canonicalizer models, by name. */
export const TARGET_EXTENSIONS: ReadonlyMap<string, TargetExtension> = new Map<string, TargetExtension>([
  ["MARK", markTarget],
  ["CONNMARK", connmarkTarget],
  ["MASQUERADE", masquerade],
  ["REDIRECT", masquerade],
  ["DNAT", makeNat("--to-destination")],
  ["SNAT", makeNat("--to-source")],
  ["REJECT", reject],
  ["LOG", log],
  ["NFLOG", nflog],
]);

/**
 * Other targets iptables 1.8 ships (`name/4`, `name/6`: one family's only): their options as
 * iptables' newest revision declares them (see {@link tableExtension}), checked, kept as given.
 */
const TABLE_TARGETS: string =
  "AUDIT type=*|CHECKSUM checksum-fill*|CLASSIFY set-class=*|CONNSECMARK save restore|" +
  "CT notrack helper= timeout= ctevents= expevents= zone-orig= zone-reply= zone=|" +
  "DNPT/6 src-pfx=* dst-pfx=*|DSCP set-dscp= set-dscp-class=|" +
  "ECN/4 ecn-tcp-remove ecn-tcp-cwr= ecn-tcp-ece= ecn-ip-ect=|HL/6 hl-set= hl-dec= hl-inc=|" +
  "HMARK hmark-tuple= hmark-src-prefix= hmark-dst-prefix= hmark-sport-mask= hmark-dport-mask= hmark-spi-mask= hmark-sport= hmark-dport= hmark-spi= hmark-proto-mask= hmark-rnd= hmark-mod=* hmark-offset=|" +
  "IDLETIMER timeout=* label=* alarm send_nl_msg|LED led-trigger-id=* led-delay= led-always-blink|" +
  "NETMAP to=*|NOTRACK|NFQUEUE queue-num= queue-balance= queue-bypass queue-cpu-fanout|" +
  "RATEEST rateest-name=* rateest-interval=* rateest-ewmalog=*|SECMARK selctx=*|" +
  "SET add-set==!+ del-set==!+ exist!+ timeout=!+ map-set==!+ map-mark!+ map-prio!+ map-queue!+|" +
  "SNPT/6 src-pfx=* dst-pfx=*|SYNPROXY sack-perm timestamp wscale= mss= ecn|" +
  "TCPMSS set-mss= clamp-mss-to-pmtu|TCPOPTSTRIP strip-options=|TEE gateway=* oif=|" +
  "TOS set-tos= and-tos= or-tos= xor-tos=|TPROXY on-port=* on-ip= tproxy-mark=|TRACE|" +
  "TTL/4 ttl-set= ttl-dec= ttl-inc=";

/** The target extensions of {@link TABLE_TARGETS}, by name and family. */
const tableTargets = familyExtensions(TABLE_TARGETS, tableTarget);

/** The names of {@link TABLE_TARGETS}, in either family. */
export const PASS_THROUGH_TARGETS: ReadonlySet<string> = tableTargets.names;

/**
 * The target extension of a pass-through target in `family`, or null when iptables of that
 * family has no such target.
 */
export function passThroughTarget(name: string, family: "IPv4" | "IPv6"): TargetExtension | null {
  return tableTargets.get(name, family);
}

function tableTarget(ext: TableExtension): TargetExtension {
  return {
    options: ext.options,
    once: ext.once,
    finish(name, goto, raw, _ctx, argIndex) {
      return { kind: "generic", name, goto, options: keptOptions(name, ext, raw, argIndex) };
    },
  };
}

/** Targets the kernel accepts only in the nat table. */
export const NAT_ONLY_TARGETS: ReadonlySet<string> = new Set([
  "DNAT",
  "SNAT",
  "MASQUERADE",
  "REDIRECT",
  "NETMAP",
]);

/** Names quoted with iptables' save-string rule when printed (spec §4.1). */
export const SAVE_STRING_OPTIONS: ReadonlySet<string> = new Set([
  "--comment",
  // cgroup's (kept as given, printed as iptables-save prints it)
  "--path",
  "--log-prefix",
  "--nflog-prefix",
  "--nfacct-name",
]);
