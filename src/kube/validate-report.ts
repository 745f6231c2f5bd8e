/**
 * The problem collector the validators share. It keeps the current JSON path as a stack of keys
 * and turns it into a string only when a problem is reported, so valid input builds no paths.
 *
 * @module
 */
import { type ErrorCode, type Problem, problem, warning } from "../errors.js";
import { DEFAULT_PROFILE, PROFILES, type ProfileTraits } from "../model/profiles.js";
import { oneLine } from "../one-line.js";
import { PATH_IDENTIFIER } from "./patterns.js";
import type { NameRule } from "./validate-names.js";

/** One step of a JSON path: an object key or an array index. */
export type PathKey = string | number;

/**
 * A plain JSON object.
 *
 * @example
 * const value: JsonObject = JSON.parse('{"kind": "Endpoints"}');
 */
export type JsonObject = Readonly<Record<string, unknown>>;

/**
 * Collects problems; `enter`/`leave` move the current path down and up one step. It also
 * remembers which strings already passed which name rule, for the length of one validation:
 * node, zone, namespace, port and label names repeat across thousands of objects.
 */
export class Report {
  /** Every problem so far, in the order found. */
  readonly problems: Problem[] = [];
  /** How many of {@link Report.problems} are errors. */
  errorCount = 0;
  /**
   * How many valid endpoint addresses were not written in canonical form (IPv6 with upper-case
   * digits, leading zeros or an uncompressed zero run): a slice without any needs no rewriting.
   */
  nonCanonicalIPs = 0;
  private readonly stack: PathKey[] = [];
  /** The rules each string passed: one rule (nearly always), or several. */
  private readonly passed = new Map<string, NameRule | NameRule[]>();

  /**
   * @param traits - the release the objects are read for: whether kube-proxy reads `ipMode`
   *   (1.29+; v1.22 makes rules for a `Proxy` ingress IP like any other), and which traffic
   *   distributions its API server takes
   */
  constructor(readonly traits: ProfileTraits = PROFILES[DEFAULT_PROFILE]) {}

  /** Whether `text` already passed `rule` (see {@link Report.pass}). */
  hasPassed(rule: NameRule, text: string): boolean {
    const rules = this.passed.get(text);
    return rules === rule || (Array.isArray(rules) && rules.includes(rule));
  }

  /** Remembers that `text` passed `rule` (a name rule, with text safety). */
  pass(rule: NameRule, text: string): void {
    const rules = this.passed.get(text);
    if (rules === undefined) this.passed.set(text, rule);
    else if (!Array.isArray(rules)) this.passed.set(text, [rules, rule]);
    else rules.push(rule);
  }

  /** Moves the current path down one step. */
  enter(key: PathKey): void {
    this.stack.push(key);
  }

  /** Moves the current path up one step. */
  leave(): void {
    this.stack.pop();
  }

  /** Reports an error at the current path, or at its child `key`. */
  error(code: ErrorCode, key: PathKey | undefined, message: string): void {
    this.errorCount++;
    this.problems.push(problem(code, this.path(key), message));
  }

  /**
   * Reports an error at the current path (or its child `key`), placed at `index` among the
   * problems so far: a hint that explains problems already reported goes in front of them.
   */
  errorBefore(index: number, code: ErrorCode, key: PathKey | undefined, message: string): void {
    this.errorCount++;
    this.problems.splice(index, 0, problem(code, this.path(key), message));
  }

  /** Reports a warning at the current path, or at its child `key`. */
  warn(code: ErrorCode, key: PathKey | undefined, message: string): void {
    this.problems.push(warning(code, this.path(key), message));
  }

  /** The current path (plus `key`) as a string: `services[3].spec.ports[0].port`. */
  path(key?: PathKey): string {
    let out = "";
    for (const step of this.stack) out = appendKey(out, step);
    return key === undefined ? out : appendKey(out, key);
  }
}

/**
 * Appends one step to a JSON path string.
 *
 * @example
 * appendKey("services[0]", "spec")                        // "services[0].spec"
 * appendKey("metadata.labels", "kubernetes.io/service-name") // 'metadata.labels["kubernetes.io/service-name"]'
 */
export function appendKey(path: string, key: PathKey): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (PATH_IDENTIFIER.test(key)) return path === "" ? key : `${path}.${key}`;
  // JSON.stringify leaves C1 controls and U+2028/U+2029 raw; a key holding one would break the
  // one-line `path: message` the CLI prints, so they are escaped as in messages.
  return `${path}[${oneLine(JSON.stringify(key))}]`;
}

/** Whether a value is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const MAX_SHOWN = 80;

/**
 * A value as a message shows it: strings quoted and escaped (so a message stays one line),
 * long strings cut, numbers and booleans as written.
 *
 * @example
 * show("a\nb") // '"a\\nb"'
 * show(70000)  // "70000"
 */
export function show(value: unknown): string {
  if (typeof value === "string") {
    const cut = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return oneLine(JSON.stringify(cut));
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return describe(value);
}

/**
 * A value's JSON type with the value, for type errors: `the number 5`, `null`, `an array`.
 *
 * @example
 * describe([1]) // "an array"
 * describe("x") // 'the string "x"'
 */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${show(value)}`;
    case "number":
      return `the number ${String(value)}`;
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/**
 * Lists items for a message: `TCP, UDP or SCTP` (or with `and`).
 *
 * @example
 * choices(["a", "b", "c"])        // "a, b or c"
 * choices(["a", "b", "c"], "and") // "a, b and c"
 */
export function choices(items: readonly string[], conjunction: "or" | "and" = "or"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1] ?? ""}`;
}

/**
 * The first few of a long list of names, for a message that also gives the count.
 *
 * @example
 * firstNames(["a/x", "a/y", "b/z", "c/w"]) // "a/x, a/y, b/z, …"
 */
export function firstNames(names: readonly string[], shown = 3): string {
  return names.length > shown ? `${names.slice(0, shown).join(", ")}, …` : names.join(", ");
}

/**
 * A two-level map from namespace and name, so that lookups build no `namespace/name` strings.
 * A namespace's first name is kept beside it, and a Map of the others made only when a second
 * name comes: a namespace often holds one Service (and its slices), and a Map apiece cost more
 * than the lookups.
 */
export class NamespacedIndex<T> {
  private readonly byNamespace = new Map<string, Names<T>>();

  /** The value stored for `namespace/name`. */
  get(namespace: string, name: string): T | undefined {
    const names = this.byNamespace.get(namespace);
    if (names === undefined) return undefined;
    return names.name === name ? names.value : names.more?.get(name);
  }

  /** Stores `value` unless the key is taken; returns the value already stored, if any. */
  add(namespace: string, name: string, value: T): T | undefined {
    const names = this.byNamespace.get(namespace);
    if (names === undefined) {
      this.byNamespace.set(namespace, { name, value, more: undefined });
      return undefined;
    }
    if (names.name === name) return names.value;
    if (names.more === undefined) names.more = new Map();
    const existing = names.more.get(name);
    if (existing !== undefined) return existing;
    names.more.set(name, value);
    return undefined;
  }
}

/** The names of one namespace in a {@link NamespacedIndex}: the first, then a Map of the others. */
interface Names<T> {
  readonly name: string;
  readonly value: T;
  more: Map<string, T> | undefined;
}
