/**
 * Facts the rules test that the tracer cannot know from the rules alone (the interface a route
 * leaves by, whether an address is the node's, an ipset's contents…). A path that meets one
 * splits in two, one assuming the fact and one its contrary, and later tests of the same fact
 * on that path follow the assumption, so every outcome holds under its own consistent set of
 * conditions.
 *
 * @module
 */
import type { ConditionKind, TraceCondition } from "./types.js";

/** What to decide: a fact's kind, what it is about, and the test (see {@link TraceCondition}). */
export interface Fact {
  /** The kind. */
  readonly kind: ConditionKind;
  /** What the fact is about (an address, a packet); `""` for the input interface. */
  readonly subject: string;
  /** The test: an interface name (maybe ending in `+`), or a match as iptables-save prints it. */
  readonly test: string;
}

/** Whether interface `name` matches pattern `pattern` (a trailing `+` is a prefix wildcard). */
function nameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith("+") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** Whether every interface matching `inner` also matches `outer`. */
function covers(outer: string, inner: string): boolean {
  if (!outer.endsWith("+")) return outer === inner;
  const prefix = outer.slice(0, -1);
  return inner.startsWith(prefix);
}

/** Whether no interface matches both patterns. */
function disjoint(a: string, b: string): boolean {
  const pa = a.endsWith("+") ? a.slice(0, -1) : null;
  const pb = b.endsWith("+") ? b.slice(0, -1) : null;
  if (pa === null && pb === null) return a !== b;
  if (pa === null) return !a.startsWith(pb as string);
  if (pb === null) return !b.startsWith(pa);
  return !pa.startsWith(pb) && !pb.startsWith(pa);
}

/**
 * What the path's conditions already say about an interface test: an interface is one name,
 * so `-o docker0` assumed true decides `-o weave` (false) and `-o docker+` (true).
 */
function decideInterface(test: string, known: readonly TraceCondition[]): boolean | null {
  if (test === "+") return true; // iptables: `+` alone matches every interface
  for (const c of known) {
    if (c.holds) {
      if (!c.test.endsWith("+")) return nameMatches(test, c.test);
      if (covers(test, c.test)) return true;
      if (disjoint(test, c.test)) return false;
    } else if (covers(c.test, test)) return false;
  }
  return null;
}

/**
 * The truth of `fact` under the path's conditions, or null when they do not decide it.
 *
 * @example
 * decide({ kind: "out-interface", subject: "10.244.1.5", test: "weave" },
 *   [{ kind: "out-interface", subject: "10.244.1.5", test: "docker0", holds: true, text: "…" }]) // false
 */
export function decide(fact: Fact, conditions: readonly TraceCondition[]): boolean | null {
  const same = conditions.filter((c) => c.kind === fact.kind && c.subject === fact.subject);
  if (same.length === 0) return null;
  if (fact.kind === "out-interface" || fact.kind === "in-interface") return decideInterface(fact.test, same);
  for (const c of same) if (c.test === fact.test) return c.holds;
  return null;
}

function list(names: readonly string[], conjunction: string): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${conjunction} ${names[names.length - 1]}`;
}

/** The interface part of a sentence: `leaves by docker0`, `does not leave by docker0 or weave`. */
function interfaceClause(conds: readonly TraceCondition[], verb: string, negVerb: string): string {
  const yes = conds.filter((c) => c.holds).map((c) => c.test);
  const no = conds.filter((c) => !c.holds).map((c) => c.test);
  const exact = yes.find((n) => !n.endsWith("+"));
  if (exact !== undefined) return `${verb} ${exact}`;
  if (yes.length > 0) {
    const but = no.length > 0 ? ` but not ${list(no, "or")}` : "";
    return `${verb} ${list(yes, "and")}${but}`;
  }
  return `${negVerb} ${list(no, "or")}`;
}

/**
 * One sentence for a list of conditions, grouped per fact:
 * `the route to 10.244.1.5 does not leave by docker0 or weave and 192.168.1.10 is a node address`.
 *
 * @example
 * describeConditions([{ kind: "local-address", subject: "192.168.1.10", test: "", holds: false, text: "" }])
 * // "192.168.1.10 is not a node address"
 */
export function describeConditions(conditions: readonly TraceCondition[]): string {
  const groups = new Map<string, TraceCondition[]>();
  for (const c of conditions) {
    const key = `${c.kind}\u0000${c.subject}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [c]);
    else g.push(c);
  }
  const parts: string[] = [];
  for (const g of groups.values()) {
    const first = g[0] as TraceCondition;
    switch (first.kind) {
      case "out-interface":
        parts.push(`the route to ${first.subject} ${interfaceClause(g, "leaves by", "does not leave by")}`);
        break;
      case "in-interface":
        parts.push(`the packet ${interfaceClause(g, "arrives on", "does not arrive on")}`);
        break;
      case "match": {
        // One packet, several matches: the packet is named once.
        const each = g.map((c) => `\`${c.test}\` ${c.holds ? "matches" : "does not match"}`);
        parts.push(`${list(each, "and")} for ${first.subject}`);
        break;
      }
      default:
        parts.push(conditionText(first));
    }
  }
  return parts.join(" and ");
}

/**
 * The sentence for one condition.
 *
 * @example
 * conditionText({ kind: "out-interface", subject: "10.244.1.5", test: "docker0", holds: true, text: "" })
 * // "the route to 10.244.1.5 leaves by docker0"
 */
export function conditionText(c: Omit<TraceCondition, "text">): string {
  switch (c.kind) {
    case "out-interface":
      return `the route to ${c.subject} ${c.holds ? "leaves" : "does not leave"} by ${c.test}`;
    case "in-interface":
      return `the packet ${c.holds ? "arrives" : "does not arrive"} on ${c.test}`;
    case "local-address":
      return `${c.subject} ${c.holds ? "is" : "is not"} a node address`;
    case "interface-address":
      return `${c.subject} ${c.holds ? "has an address" : "has no address"}`;
    case "match":
      return `\`${c.test}\` ${c.holds ? "matches" : "does not match"} for ${c.subject}`;
  }
}

/**
 * A condition with its sentence.
 *
 * @example
 * condition({ kind: "local-address", subject: "192.168.1.10", test: "" }, true).text
 * // "192.168.1.10 is a node address"
 */
export function condition(fact: Fact, holds: boolean): TraceCondition {
  const c = { kind: fact.kind, subject: fact.subject, test: fact.test, holds };
  return { ...c, text: conditionText(c) };
}
