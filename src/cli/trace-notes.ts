// What a trace of a partial text (`iptables-save | grep`, `iptables -t nat -S`) cannot know, said
// in notes: the chains the packet went through that the text does not hold.
import { type HeaderlessRead, NODEPORTS_COMMENT } from "../iptables/index.js";
import { isBuiltinChain, type RuleSet, ruleTarget } from "../ir/types.js";
import type { ChainRef, TraceResult } from "../trace/index.js";

/** How many chains a note names before it counts the rest. */
const NAMED = 4;

/**
 * The chains of `state` that its headerless text did not hold (see `HeaderlessRead.held`): those
 * its rules jump to without lines of their own, and those the completion added (kube-proxy's
 * chains behind its jumps from the built-in chains). The state has them empty, which the text
 * does not say. Built-in chains are not counted: they exist on every node.
 */
export function absentChains(state: RuleSet, held: HeaderlessRead["held"]): ChainRef[] {
  const keys = new Set(held.map((c) => `${c.table} ${c.chain}`));
  const out: ChainRef[] = [];
  for (const table of state.tables)
    for (const d of table.chains)
      if (!isBuiltinChain(table.name, d.name) && !keys.has(`${table.name} ${d.name}`))
        out.push({ table: table.name, chain: d.name });
  return out;
}

/** `a, b, c, d and 5 more`: the first few names and how many others. */
function someOf(names: readonly string[]): string {
  if (names.length <= NAMED) return names.join(", ");
  return `${names.slice(0, NAMED).join(", ")} and ${names.length - NAMED} more`;
}

/**
 * The note for a trace that went through chains its text does not hold (null when it went
 * through none): their names, and that the outcomes take them as empty.
 */
export function absentChainsNote(file: string, result: TraceResult): string | null {
  const entered = result.absentChains;
  if (entered.length === 0) return null;
  const names = someOf(entered.map((c) => `${c.table} ${c.chain}`));
  const chains = entered.length === 1 ? "a chain" : `${entered.length} chains`;
  return `${file}: the paths went through ${chains} the text lacks (${names}), traced as empty; the node's rules there may change the outcomes`;
}

/**
 * The user chains of `state` that hold rules but that no rule of their table jumps to: in a
 * text cut from a node's (a grep extract), the rules that lead there are not in it.
 */
export function unjumpedChains(state: RuleSet): ChainRef[] {
  const out: ChainRef[] = [];
  for (const table of state.tables) {
    const filled = new Set<string>();
    const jumped = new Set<string>();
    for (const e of table.entries) {
      if (e.kind !== "rule" || e.op !== "-A") continue;
      filled.add(e.chain);
      const to = ruleTarget(e.args);
      if (to !== null) jumped.add(to);
    }
    for (const d of table.chains)
      if (filled.has(d.name) && !jumped.has(d.name) && !isBuiltinChain(table.name, d.name))
        out.push({ table: table.name, chain: d.name });
  }
  return out;
}

// kube-proxy's last rule of nat KUBE-SERVICES, by its comment: its matches depend on the flags
// (`-m addrtype --dst-type LOCAL`, or one `-d NODE-IP` rule per --nodeport-addresses address).
const NODEPORTS_TAIL = `-A KUBE-SERVICES -m comment --comment "${NODEPORTS_COMMENT}" … -j KUBE-NODEPORTS`;

/**
 * The note for a trace of a headerless text that no service took, when the text has chains with
 * rules that nothing in it jumps to (null otherwise): the rules leading there were cut (`grep
 * SERVICE` never keeps KUBE-SERVICES' tail rule to KUBE-NODEPORTS). Nothing is added to the
 * text: the tail's form depends on kube-proxy's flags.
 */
export function unjumpedChainsNote(file: string, state: RuleSet, result: TraceResult): string | null {
  if (result.outcomes.some((o) => o.servicePort !== null)) return null;
  const names = unjumpedChains(state).map((c) => `${c.table} ${c.chain}`);
  if (names.length === 0) return null;
  const nodePorts = names.indexOf("nat KUBE-NODEPORTS");
  if (nodePorts > 0) names.unshift(...names.splice(nodePorts, 1));
  const tail =
    nodePorts < 0
      ? ""
      : `; for KUBE-NODEPORTS, that is ${NODEPORTS_TAIL}, which grep leaves out: add the node's to trace a node port`;
  return `${file}: no service took the packet, and nothing in the text jumps to ${someOf(names)} (chains with rules): the rules that lead there are not in it${tail}`;
}

/** A rule's own matches and target, without its `-m comment --comment …`. */
function withoutComment(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-m" && args[i + 1] === "comment") {
      i++;
      continue;
    }
    if (args[i] === "--comment") {
      i++;
      continue;
    }
    out.push(args[i] as string);
  }
  return out;
}

/** The text of a rule's comment, or null. */
function commentOf(args: readonly string[]): string | null {
  const at = args.indexOf("--comment");
  return at < 0 ? null : (args[at + 1] ?? null);
}

const EXTERNAL_CHAIN = /^KUBE-EXT-(\S+)$/;
const JUMP_TO_EXTERNAL = / -[jg] (KUBE-EXT-\S+)/;

/**
 * The note for a trace of a headerless text in which a path went into a service's external
 * chain (`KUBE-EXT-…`) and came out without a DNAT, when that chain lacks the rule kube-proxy
 * always ends it with while the endpoints are there: `-A KUBE-EXT-X -j KUBE-SVL-X`
 * (externalTrafficPolicy Local, the text holding KUBE-SVL-X's rules) or `-A KUBE-EXT-X -j
 * KUBE-SVC-X` (Cluster: its masquerade rule is there). That rule has no comment, so `iptables-save
 * | grep SERVICE` leaves it out and the trace ends where the node would DNAT. Null otherwise
 * (with no local endpoints, a Local chain has no such rule: the packet is dropped in filter).
 */
export function lostExternalTailNote(file: string, state: RuleSet, result: TraceResult): string | null {
  const nat = state.tables.find((t) => t.name === "nat");
  if (nat === undefined) return null;
  const entered = new Set<string>();
  for (const o of result.outcomes) {
    if (o.dnat !== null) continue;
    for (const s of o.steps) {
      if (s.table !== "nat") continue;
      if (EXTERNAL_CHAIN.test(s.chain)) entered.add(s.chain);
      const to = JUMP_TO_EXTERNAL.exec(s.rule)?.[1];
      if (to !== undefined) entered.add(to);
    }
  }
  if (entered.size === 0) return null;
  const rulesOf = new Map<string, (readonly string[])[]>();
  for (const e of nat.entries) {
    if (e.kind !== "rule" || e.op !== "-A") continue;
    const list = rulesOf.get(e.chain);
    if (list === undefined) rulesOf.set(e.chain, [e.args]);
    else list.push(e.args);
  }
  const missing: string[] = [];
  for (const chain of [...entered].sort()) {
    const hash = (EXTERNAL_CHAIN.exec(chain) as RegExpExecArray)[1] as string;
    const own = rulesOf.get(chain) ?? [];
    // A rule that sends every packet on is there (not the masquerade mark, which returns): the
    // path left by another way.
    const endsChain = (args: readonly string[]): boolean => {
      const target = ruleTarget(args);
      return withoutComment(args).length === 2 && target !== null && target !== "KUBE-MARK-MASQ";
    };
    if (own.some(endsChain)) continue;
    const local = `KUBE-SVL-${hash}`;
    const cluster = `KUBE-SVC-${hash}`;
    const masquerades = own.some((args) => commentOf(args)?.startsWith("masquerade traffic for ") === true);
    const target =
      (rulesOf.get(local)?.length ?? 0) > 0
        ? local
        : masquerades && (rulesOf.get(cluster)?.length ?? 0) > 0
          ? cluster
          : null;
    if (target !== null) missing.push(`-A ${chain} -j ${target}`);
  }
  if (missing.length === 0) return null;
  const one = missing.length === 1;
  return `${file}: ${one ? "a path" : "paths"} left a KUBE-EXT chain without a DNAT; the text lacks kube-proxy's last rule there (${someOf(missing)}), which has no comment for grep to keep: add ${one ? "it" : "them"} to trace the node`;
}
