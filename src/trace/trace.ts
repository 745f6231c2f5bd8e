/**
 * The offline packet tracer: every way the first packet of a connection can go through the
 * tables kube-proxy programs, with exact probabilities.
 *
 * @module
 */

import { canonicalAddress } from "../iptables/index.js";
import type { CanonicalAddress } from "../ir/canonical-types.js";
import type { IPFamily, RuleSet } from "../ir/types.js";
import { hostBytes, hostText, inside, isLocal, type LocalAddresses } from "./addresses.js";
import { type Branch, splitOn } from "./branch.js";
import { type CompiledRule, type CompiledState, compileState } from "./compile.js";
import { decide } from "./conditions.js";
import { add, type Fraction, ONE, ZERO } from "./fraction.js";
import type { MatchContext } from "./match.js";
import { formatSocket, formatSourceNat, type OutcomeFacts, outcomeSummary } from "./outcome-text.js";
import type {
  ChainRef,
  Packet,
  Route,
  TraceOptions,
  TraceOutcome,
  TraceResult,
  TraceRoute,
  TraceStep,
  Verdict,
} from "./types.js";
import { walkTable } from "./walk.js";

const PROTOCOL_NUMBERS = { tcp: 6, udp: 17, sctp: 132 } as const;

type Hook = readonly (readonly [table: string, chain: string])[];

// Each hook's tables in netfilter priority order (raw < mangle < nat(dst) < filter < security < nat(src)).
const PREROUTING: Hook = [
  ["raw", "PREROUTING"],
  ["mangle", "PREROUTING"],
  ["nat", "PREROUTING"],
];
const INPUT: Hook = [
  ["mangle", "INPUT"],
  ["filter", "INPUT"],
  ["security", "INPUT"],
  ["nat", "INPUT"],
];
// A locally generated packet to a local address was already NATed on the way out: conntrack
// confirmed it in POSTROUTING, so the nat INPUT chain is not consulted again.
const INPUT_LOOPBACK: Hook = INPUT.slice(0, 3);
const FORWARD: Hook = [
  ["mangle", "FORWARD"],
  ["filter", "FORWARD"],
  ["security", "FORWARD"],
];
const OUTPUT: Hook = [
  ["raw", "OUTPUT"],
  ["mangle", "OUTPUT"],
  ["nat", "OUTPUT"],
  ["filter", "OUTPUT"],
  ["security", "OUTPUT"],
];
const POSTROUTING: Hook = [
  ["mangle", "POSTROUTING"],
  ["nat", "POSTROUTING"],
];

/** Thrown for a packet the tracer cannot take (an address of the wrong family, a bad port). */
export class TraceInputError extends Error {
  override name = "TraceInputError";
}

interface Final {
  readonly branch: Branch;
  readonly verdict: Verdict;
  readonly reason: string | null;
  readonly route: Route | null;
}

interface Env {
  readonly state: CompiledState;
  readonly base: Omit<MatchContext, "table" | "inInterface" | "outInterface" | "ctStates">;
  readonly packetInterface: string | null;
  readonly packetOutInterface: string | null;
  /** The ids of the splits on a routing decision (folded when only the route differs). */
  readonly routeSplits: Set<string>;
}

interface CompiledRoute {
  readonly prefix: CanonicalAddress;
  readonly name: string;
}

/** The routes, longest prefix first; a malformed one is a bad input. */
function compileRoutes(routes: readonly TraceRoute[], family: IPFamily): CompiledRoute[] {
  const out: CompiledRoute[] = [];
  for (const r of routes) {
    const prefix = canonicalAddress(r.destination, family);
    if (typeof prefix === "string")
      throw new TraceInputError(`route ${r.destination}: not an ${family} address or prefix (${prefix})`);
    if (r.interface === "" || r.interface.length > 15 || /[\s/]/.test(r.interface))
      throw new TraceInputError(
        `route ${r.destination}: ${JSON.stringify(r.interface)} is not an interface name`,
      );
    // A routing table holds prefixes: `ip route` has no way to write a mask with holes.
    if (prefix.prefixLength < 0)
      throw new TraceInputError(
        `route ${r.destination}: a route's mask is a prefix length, not ${prefix.mask}`,
      );
    out.push({ prefix, name: r.interface });
  }
  return out.sort((a, b) => b.prefix.prefixLength - a.prefix.prefixLength);
}

function ctStates(b: Branch, table: string): ReadonlySet<string> {
  // The raw table runs before connection tracking: no entry yet, so conntrack sees INVALID
  // (or UNTRACKED once a raw rule turned tracking off).
  if (b.untracked) return new Set(["UNTRACKED"]);
  if (table === "raw") return new Set(["INVALID"]);
  const s = new Set(["NEW"]);
  if (b.dnat !== null) s.add("DNAT");
  if (b.masquerade || b.snat !== null) s.add("SNAT");
  return s;
}

/** Where a hook's `-o` looks: no output device before routing and in INPUT, else the route's. */
type OutSide = "none" | "routed";

/** Whether the path takes its (translated) destination for a node address: known, assumed, or not. */
function routesLocally(env: Env, b: Branch): boolean {
  const known = knownLocal(env, b);
  if (known !== null) return known;
  // Within a hook (a node's `-o` test), routing is not split on: the address is taken as
  // another host's, and the route chosen after the hook agrees (routedRemote).
  b.routedRemote.push(b.dstText);
  return false;
}

/** Whether the path's destination is a node address, when the addresses or its conditions say. */
function knownLocal(env: Env, b: Branch): boolean | null {
  if (b.dstAlias !== null) return true; // REDIRECT chose one of the node's own addresses
  const known = isLocal(b.dst, b.dstText, env.base.local);
  if (known !== null) return known;
  const assumed = decide({ kind: "local-address", subject: b.dstText, test: "" }, b.conditions);
  if (assumed !== null) return assumed;
  return b.routedRemote.includes(b.dstText) ? false : null;
}

/** Whether the destination lies in a pod range of kube-proxy's rules (a pod: another host). */
function inPodRange(env: Env, b: Branch): boolean {
  for (const range of podRanges(env.state)) if (inside(b.dst, range)) return true;
  return false;
}

/**
 * Routes each path after a hook: to the node itself (`local`) or away (`remote`). When nothing
 * says whether the (translated) destination is a node address, the path splits on that fact; the
 * sides are folded back when they end alike apart from the route (see `mergeUndecisive`), so
 * only a destination whose route changes the verdict or the translation stays split (a
 * host-network endpoint behind a FORWARD policy of DROP). An address in kube-proxy's pod range
 * is a pod's: routed away without a split (it is not taken as remote for `addrtype` tests: a
 * cluster may give nodes addresses inside the range it names).
 */
function routed(env: Env, paths: Branch[], remote: Route): [Branch, Route][] {
  const out: [Branch, Route][] = [];
  for (const b of paths) {
    const known = knownLocal(env, b);
    if (known !== null || env.base.budget.splits <= 0 || inPodRange(env, b)) {
      out.push([b, known === true ? "local" : remote]);
      if (known === null) b.routedRemote.push(b.dstText);
      continue;
    }
    env.base.budget.splits--;
    const id = env.base.budget.next++;
    env.routeSplits.add(String(id));
    const other = splitOn(b, { kind: "local-address", subject: b.dstText, test: "" }, id);
    out.push([b, "local"], [other, remote]);
  }
  return out;
}

function outInterfaceOf(env: Env, b: Branch, side: OutSide): string | null {
  if (side === "none") return "";
  if (env.base.fromNode && routesLocally(env, b)) return "lo";
  if (env.packetOutInterface !== null) return env.packetOutInterface;
  return env.base.routeOf(b.dst);
}

/** Runs paths through a hook's tables; accepted paths come back, the others go to `finals`. */
function runHook(
  env: Env,
  hook: Hook,
  inInterface: string | null,
  out: OutSide,
  paths: Branch[],
  route: Route | null,
  finals: Final[],
): Branch[] {
  let current = paths;
  for (const [table, chain] of hook) {
    if (!env.state.tables.has(table)) continue;
    const next: Branch[] = [];
    for (const b of current) {
      if (table === "nat" && b.untracked) {
        next.push(b); // NAT needs a conntrack entry
        continue;
      }
      const ctx: MatchContext = {
        ...env.base,
        table,
        inInterface,
        outInterface: outInterfaceOf(env, b, out),
        ctStates: ctStates(b, table),
      };
      for (const end of walkTable(env.state, table, chain, b, ctx)) {
        if (end.end === "accept") next.push(end.branch);
        else {
          const verdict: Verdict =
            end.end === "drop" ? "dropped" : end.end === "reject" ? "rejected" : "unknown";
          finals.push({ branch: end.branch, verdict, reason: end.reason, route });
        }
      }
    }
    current = next;
  }
  return current;
}

function checkPacket(packet: Packet, family: IPFamily): { src: number[]; dst: number[] } {
  const src = hostBytes(packet.source, family);
  const dst = hostBytes(packet.destination, family);
  if (src === null) throw new TraceInputError(`source ${packet.source} is not an ${family} address`);
  if (dst === null)
    throw new TraceInputError(`destination ${packet.destination} is not an ${family} address`);
  for (const [what, port] of [
    ["source", packet.sourcePort],
    ["destination", packet.destinationPort],
  ] as const) {
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new TraceInputError(`${what} port ${port} is not a port`);
  }
  if (!(packet.protocol in PROTOCOL_NUMBERS))
    throw new TraceInputError(`protocol ${String(packet.protocol)} is not tcp, udp or sctp`);
  return { src, dst };
}

const SERVICE_CHAIN = "KUBE-SERVICES";
// kube-proxy's comments on the rules that match a cluster IP (iptables mode never assigns one
// to a node interface): `ns/svc:port cluster IP`, and `… has no endpoints` in filter.
const CLUSTER_IP_COMMENT = / cluster IP$| has no endpoints$/;

const clusterIPCache = new WeakMap<CompiledState, readonly string[]>();

/** Cluster IPs the rules name: not the node's addresses even when those are not given (cached per state). */
function clusterIPs(state: CompiledState): readonly string[] {
  const cached = clusterIPCache.get(state);
  if (cached !== undefined) return cached;
  const out: string[] = [];
  for (const table of ["nat", "filter"]) {
    for (const rule of state.chain(table, SERVICE_CHAIN)?.rules ?? []) {
      const d = rule.canonical?.destination;
      if (d === null || d === undefined || d.negated || rule.comment === null) continue;
      if (!d.maskBytes.every((x) => x === 255) || !CLUSTER_IP_COMMENT.test(rule.comment)) continue;
      out.push(hostText(d.bytes));
    }
  }
  clusterIPCache.set(state, out);
  return out;
}

// How many of KUBE-SERVICES' service chains are read for kube-proxy's pod range: it applies one
// local-traffic setting to every service, so the first chain that has the rule says it.
const SERVICE_CHAINS_READ = 8;
const MARK_MASQ = "KUBE-MARK-MASQ";

const podRangeCache = new WeakMap<CompiledState, readonly CanonicalAddress[]>();

/** Whether a rule is kube-proxy's `! -s <pod range> -d <cluster IP> … -j KUBE-MARK-MASQ`. */
function podRangeOf(rule: CompiledRule): CanonicalAddress | null {
  const c = rule.canonical;
  const source = c?.source;
  if (c === null || source === null || source === undefined || !source.negated) return null;
  if (c.target?.kind !== "chain" || c.target.name !== MARK_MASQ) return null;
  return rule.comment !== null && CLUSTER_IP_COMMENT.test(rule.comment) ? source : null;
}

/**
 * The pod ranges kube-proxy's local-traffic rules name (`--cluster-cidr` or the node's pod
 * CIDR): the source ranges of its "masquerade unless local" rules on cluster IPs, in
 * KUBE-SERVICES (before v1.28) or in the first service chains. A pod's address is not the
 * node's, so a destination in them is routed away without a split. Empty when kube-proxy
 * detects local traffic by interface, or the dump has no such rules. Cached per state.
 */
function podRanges(state: CompiledState): readonly CanonicalAddress[] {
  const cached = podRangeCache.get(state);
  if (cached !== undefined) return cached;
  const out: CanonicalAddress[] = [];
  const seen = new Set<string>();
  const note = (rule: CompiledRule): void => {
    const range = podRangeOf(rule);
    const key = range === null ? "" : `${range.bytes.join(".")}/${range.maskBytes.join(".")}`;
    if (range !== null && !seen.has(key)) {
      seen.add(key);
      out.push(range);
    }
  };
  let read = 0;
  for (const rule of state.chain("nat", SERVICE_CHAIN)?.rules ?? []) {
    note(rule);
    const t = rule.canonical?.target;
    if (out.length > 0 || read >= SERVICE_CHAINS_READ || t?.kind !== "chain") continue;
    if (!t.name.startsWith("KUBE-SVC-")) continue;
    read++;
    for (const inner of state.chain("nat", t.name)?.rules ?? []) note(inner);
  }
  podRangeCache.set(state, out);
  return out;
}

function localAddresses(
  options: TraceOptions,
  packet: Packet,
  family: IPFamily,
  state: CompiledState,
  source: string,
): LocalAddresses {
  const addresses = new Set<string>();
  for (const a of options.nodeAddresses ?? []) {
    const bytes = hostBytes(a, family);
    if (bytes !== null) addresses.add(hostText(bytes));
  }
  const complete = addresses.size > 0;
  // A node's own packet leaves from one of its addresses; a pod's or an outsider's does not.
  if (packet.from === "node") addresses.add(source);
  const remote = new Set<string>(complete ? [] : clusterIPs(state));
  if (packet.from !== "node" && !addresses.has(source)) remote.add(source);
  return { addresses, complete, remote };
}

function recentIndex(options: TraceOptions, family: IPFamily): Map<string, [number[], number][]> {
  const map = new Map<string, [number[], number][]>();
  for (const r of options.affinity ?? []) {
    const bytes = hostBytes(r.client, family);
    if (bytes === null) continue;
    const list = map.get(r.chain);
    if (list === undefined) map.set(r.chain, [[bytes, r.lastSeen]]);
    else list.push([bytes, r.lastSeen]);
  }
  return map;
}

/**
 * Traces the first packet of a new connection through a kernel state (only `-A` rules count):
 * nat PREROUTING or OUTPUT (DNAT), then filter INPUT or FORWARD (by whether the translated
 * destination is a node address) or OUTPUT, then nat POSTROUTING (MASQUERADE, SNAT), with every other
 * table's chains on the way (raw, mangle, security). Returns every path with its exact
 * probability. A rule that tests a fact the rules do not settle (the interface a route leaves
 * by, an ipset, whether an address is the node's), or a route that depends on whether the
 * destination is the node's (kept only where the two routes end differently, and never for an
 * address in kube-proxy's pod range), splits the path into one outcome per truth,
 * each listing its `conditions`; for any one truth of the facts the outcomes that hold sum to 1.
 * A target the tracer cannot follow ends its path as `unknown`. The state's canonical rules and
 * indexes are built on the first trace and reused for the same `state` object.
 *
 * @param state a kernel state: `generateState(model)` or a parsed `iptables-save` dump.
 * @param packet the packet (its `outInterface` decides every `-o`).
 * @param options the node's addresses, its routes, the session-affinity state, and the chains the
 *   input lacks.
 * @returns every outcome.
 * @throws {TraceInputError} when the packet's addresses are not of the state's family, a port is out of range, or a route is malformed.
 *
 * @example
 * traceRules(generateState(model), {
 *   source: "10.244.0.5", sourcePort: 40000, destination: "10.96.0.10", destinationPort: 80,
 *   protocol: "tcp", from: "pod", inInterface: "cbr0",
 * }, { nodeAddresses: ["192.168.0.2"] }).outcomes.map((o) => o.summary)
 * // ["default/web:http → 10.244.1.2:8080  p=0.333333333  no masquerade", …]
 */
export function traceRules(state: RuleSet, packet: Packet, options: TraceOptions = {}): TraceResult {
  const family = state.family;
  const { src, dst } = checkPacket(packet, family);
  const compiled = compileState(state);
  const local = localAddresses(options, packet, family, compiled, hostText(src));
  const routes = compileRoutes(options.routes ?? [], family);
  const env: Env = {
    state: compiled,
    base: {
      family,
      protocolNumber: PROTOCOL_NUMBERS[packet.protocol],
      protocolName: packet.protocol,
      local,
      recent: recentIndex(options, family),
      now: options.now ?? 0,
      fromNode: packet.from === "node",
      routeOf: (bytes) => routes.find((r) => inside(bytes, r.prefix))?.name ?? null,
      budget: { splits: MAX_SPLITS, next: 0 },
      absent: { chains: absentIndex(options), entered: new Set() },
    },
    packetInterface: packet.inInterface ?? (packet.from === "node" ? "" : null),
    packetOutInterface: packet.outInterface ?? null,
    routeSplits: new Set(),
  };
  const start: Branch = {
    src,
    srcText: hostText(src),
    dst,
    dstText: hostText(dst),
    dstAlias: null,
    sport: packet.sourcePort,
    dport: packet.destinationPort,
    mark: 0,
    ctmark: 0,
    untracked: false,
    conditions: [],
    splits: [],
    routedRemote: [],
    probability: ONE,
    steps: [],
    dnat: null,
    masquerade: false,
    snat: null,
    endpointChain: null,
    recentSet: [],
  };
  const finals: Final[] = [];
  if (packet.from === "node") {
    for (const [b, route] of routed(
      env,
      runHook(env, OUTPUT, "", "routed", [start], null, finals),
      "output",
    )) {
      const out = runHook(env, POSTROUTING, "", "routed", [b], route, finals);
      const delivered =
        route === "local" ? runHook(env, INPUT_LOOPBACK, "lo", "none", out, route, finals) : out;
      for (const d of delivered) finals.push({ branch: d, verdict: "accepted", reason: null, route });
    }
  } else {
    const inInterface = env.packetInterface;
    for (const [b, route] of routed(
      env,
      runHook(env, PREROUTING, inInterface, "none", [start], null, finals),
      "forward",
    )) {
      const passed =
        route === "local"
          ? runHook(env, INPUT, inInterface, "none", [b], route, finals)
          : runHook(
              env,
              POSTROUTING,
              inInterface,
              "routed",
              runHook(env, FORWARD, inInterface, "routed", [b], route, finals),
              route,
              finals,
            );
      for (const d of passed) finals.push({ branch: d, verdict: "accepted", reason: null, route });
    }
  }
  mergeUndecisive(finals, env.routeSplits);
  const needs = new Set<string>();
  for (const f of finals)
    for (const c of f.branch.conditions) if (c.kind === "local-address") needs.add(c.subject);
  return {
    packet,
    outcomes: finals.map(toOutcome),
    total: leastTotal(finals, 0),
    needsNodeAddress: [...needs],
    absentChains: [...env.base.absent.entered],
  };
}

/** The chains the options say the input lacks, by `table chain`. */
function absentIndex(options: TraceOptions): Map<string, ChainRef> {
  const index = new Map<string, ChainRef>();
  for (const c of options.absentChains ?? []) index.set(`${c.table} ${c.chain}`, c);
  return index;
}

/**
 * What an outcome comes to, apart from the rules it passed and the facts it assumed. Across a
 * routing split only the verdict counts: the route differs by construction, and with it what
 * POSTROUTING does (masquerade, KUBE-POSTROUTING's mark), which the kept side (forwarded) shows.
 * Splitting on those would make every marked packet to an endpoint outside a known pod range
 * depend on the node's addresses.
 */
function resultKey(f: Final, acrossRoute: boolean): string {
  const b = f.branch;
  const dnat = b.dnat === null ? "-" : `${b.dnat.address} ${b.dnat.port}`;
  const p = `${b.probability.numerator}/${b.probability.denominator}`;
  const snat = b.snat === null ? "-" : formatSourceNat(b.snat);
  const route = acrossRoute ? "" : `${f.route}|${b.mark}|${b.masquerade}|${snat}`;
  return [f.verdict, f.reason, route, dnat, b.endpointChain, b.recentSet, p].join("|");
}

/**
 * Folds the two sides of a split that came to the same result (Docker's `-o docker0 -j DOCKER`
 * returns and the packet is accepted either way): the outcome does not depend on that fact.
 * The folded path keeps the rules of the side where the fact does not hold (across a routing
 * split: the destination is another host's). In place; repeated until no pair is left, so
 * nested splits fold from the innermost out.
 */
function mergeUndecisive(finals: Final[], routeSplits: ReadonlySet<string>): void {
  for (let changed = true; changed; ) {
    changed = false;
    const sides = new Map<string, number>();
    for (let i = 0; i < finals.length; i++) {
      const b = (finals[i] as Final).branch;
      const last = b.splits[b.splits.length - 1];
      if (last === undefined) continue;
      const id = last.slice(0, -1);
      const result = resultKey(finals[i] as Final, routeSplits.has(id));
      const key = `${b.splits.slice(0, -1).join(" ")}\u0000${id}\u0000${result}`;
      const twin = sides.get(`${key}\u0000${last.endsWith("+") ? "-" : "+"}`);
      if (twin === undefined) {
        if (!sides.has(`${key}\u0000${last.slice(-1)}`)) sides.set(`${key}\u0000${last.slice(-1)}`, i);
        continue;
      }
      const keep = last.endsWith("-") ? i : twin;
      const kept = (finals[keep] as Final).branch;
      kept.splits.pop();
      kept.conditions.pop();
      finals[Math.min(i, twin)] = finals[keep] as Final;
      finals.splice(Math.max(i, twin), 1);
      changed = true;
      break;
    }
  }
}

// Far more than real rule sets need (a Docker node's FORWARD splits a path two or three times),
// and a bound on the paths one trace can make.
const MAX_SPLITS = 512;

/**
 * The probability the paths account for in the worst truth of the facts: a split on a fact makes
 * alternatives (the least of the two sides counts), a statistic split makes shares (they add).
 */
function leastTotal(finals: readonly Final[], depth: number): Fraction {
  let total = ZERO;
  const bySplit = new Map<string, { holds: Final[]; not: Final[] }>();
  for (const f of finals) {
    const s = f.branch.splits[depth];
    if (s === undefined) {
      total = add(total, f.branch.probability);
      continue;
    }
    const id = s.slice(0, -1);
    let g = bySplit.get(id);
    if (g === undefined) {
      g = { holds: [], not: [] };
      bySplit.set(id, g);
    }
    (s.endsWith("+") ? g.holds : g.not).push(f);
  }
  for (const g of bySplit.values()) {
    const a = leastTotal(g.holds, depth + 1);
    const b = leastTotal(g.not, depth + 1);
    total = add(total, compare(a, b) <= 0 ? a : b);
  }
  return total;
}

function compare(a: Fraction, b: Fraction): number {
  const d = a.numerator * b.denominator - b.numerator * a.denominator;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

const SERVICE_PORT_NAME = /^[^\s/]+\/[^\s]+$/;

/** The service port a path's rules name: the first word of the last comment that looks like `ns/name[:port]`. */
function servicePortOf(steps: readonly TraceStep[]): string | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    if (s === undefined || !s.matched || s.comment === null) continue;
    const word = s.comment.split(" ", 1)[0] ?? "";
    if (SERVICE_PORT_NAME.test(word)) return word;
  }
  return null;
}

function toOutcome(f: Final): TraceOutcome {
  const b = f.branch;
  const facts: OutcomeFacts = {
    verdict: f.verdict,
    unknownReason: f.reason,
    route: f.route,
    dnat: b.dnat,
    masquerade: b.masquerade,
    snat: b.snat,
    mark: b.mark,
    endpointChain: b.endpointChain,
    servicePort: servicePortOf(b.steps),
    recentSet: b.recentSet,
    conditions: b.conditions,
    probability: b.probability,
    steps: b.steps,
  };
  return { ...facts, summary: outcomeSummary(facts, formatSocket({ address: b.dstText, port: b.dport })) };
}
