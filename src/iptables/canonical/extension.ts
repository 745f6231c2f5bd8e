/**
 * The plumbing shared by match and target extensions: how an extension declares its options,
 * the raw options the canonicalizer collects for it, and the context it checks them against.
 *
 * @module
 */

import type { Backend, CanonicalOption, ProtocolMatch } from "../../ir/canonical-types.js";
import type { IPFamily } from "../../ir/types.js";
import { RuleSpecError } from "./values.js";

/** How one option spelling is read: its canonical name, how many values, whether `!` is allowed. */
export interface OptionSpec {
  /** The canonical long option the spelling stands for. */
  readonly canon: string;
  /** How many following arguments it takes. */
  readonly arity: number;
  /** Whether `! --option` is accepted. */
  readonly invert: boolean;
}

/** One option as written in the rule, attributed to an extension. */
export interface RawOption {
  /** The canonical option name (the spelling for pass-through extensions). */
  readonly name: string;
  /** `!` before it. */
  readonly negated: boolean;
  /** Its values, unquoted. */
  readonly values: readonly string[];
  /** Its index in the rule's argv, for error columns. */
  readonly argIndex: number;
  /** The `-p` protocol number known when it was read (-1 when none), for parse-time checks. */
  readonly protocolSoFar: number;
  /** The same, with or without `!` before `-p` (a NAT target's port check ignores it). */
  readonly protocolGiven: number;
}

/** What an extension's `finish` may consult. */
export interface ExtensionContext {
  /** The rule's family. */
  readonly family: IPFamily;
  /** The backend to imitate. */
  readonly backend: Backend;
  /** The rule's final `-p`, or null. */
  readonly protocol: ProtocolMatch | null;
}

/** Builds an option table from `[spellings, canon, arity, invert]` rows. */
export function optionTable(
  rows: readonly (readonly [readonly string[], number, boolean])[],
): ReadonlyMap<string, OptionSpec> {
  const map = new Map<string, OptionSpec>();
  for (const [spellings, arity, invert] of rows) {
    const canon = spellings[0] ?? "";
    for (const s of spellings) map.set(s, { canon, arity, invert });
  }
  return map;
}

/** Builds a printed option. */
export function option(name: string, negated: boolean, values: readonly string[]): CanonicalOption {
  return { name, negated, values };
}

/** Throws when the option at `index` of `raw` was already given in the same extension. */
export function rejectRepeat(raw: readonly RawOption[], index: number, owner: string): void {
  const r = raw[index] as RawOption;
  for (let k = 0; k < index; k++) {
    if ((raw[k] as RawOption).name === r.name) {
      throw new RuleSpecError(`${owner}: option "${r.name}" can only be used once`, r.argIndex);
    }
  }
}

/**
 * Builds the table of options iptables takes at most once in one extension: each row is the
 * canonical options that exclude each other and the message iptables gives for the second one.
 */
export function onceTable(
  rows: readonly (readonly [readonly string[], string])[],
): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const [names, message] of rows) for (const n of names) map.set(n, message);
  return map;
}

/**
 * The message iptables gives when option `canon` joins the options already given to one
 * extension (`raw`) and one of them is the same option or excludes it; null when none does.
 * Checked as each option is read, as iptables does, so that the first offender is named.
 */
export function repeatedOption(
  once: ReadonlyMap<string, string> | undefined,
  raw: readonly RawOption[],
  canon: string,
): string | null {
  const message = once?.get(canon);
  if (message === undefined) return null;
  for (const r of raw) if (once?.get(r.name) === message) return message;
  return null;
}

/** The first value of an option (the table guarantees its arity). */
export function firstValue(raw: RawOption): string {
  return raw.values[0] ?? "";
}

/** An extension known by its option table only: its options are checked, kept as given. */
export interface TableExtension {
  /** Option spellings it owns. */
  readonly options: ReadonlyMap<string, OptionSpec>;
  /** Options iptables takes once (the guided parser's rule for options without XTOPT_MULTI). */
  readonly once: ReadonlyMap<string, string>;
  /** Options iptables requires (XTOPT_MAND). */
  readonly mandatory: readonly string[];
}

/**
 * Reads a compact option table (iptables' option entries of the extension's newest revision):
 * space-separated names, each followed by one `=` per value it takes, `!` when it may be
 * inverted, `*` when it is mandatory, `+` when it may be repeated.
 *
 * @example
 * tableExtension("limit", "limit= limit-burst=").options.get("--limit") // { canon: "--limit", arity: 1, invert: false }
 */
export function tableExtension(owner: string, table: string): TableExtension {
  const options = new Map<string, OptionSpec>();
  const once = new Map<string, string>();
  const mandatory: string[] = [];
  for (const word of table.split(" ")) {
    if (word.length === 0) continue;
    let end = word.length;
    while ("=!*+".includes(word[end - 1] as string)) end--;
    const canon = `--${word.slice(0, end)}`;
    const marks = word.slice(end);
    let arity = 0;
    for (const c of marks) if (c === "=") arity++;
    options.set(canon, { canon, arity, invert: marks.includes("!") });
    if (!marks.includes("+")) once.set(canon, `${owner}: option "${canon}" can only be used once`);
    if (marks.includes("*")) mandatory.push(canon);
  }
  return { options, once, mandatory };
}

/**
 * The options given to a table extension, as given, once its mandatory ones are checked (else
 * throws iptables' `must be specified`).
 */
export function keptOptions(
  owner: string,
  ext: TableExtension,
  raw: readonly RawOption[],
  argIndex: number,
): CanonicalOption[] {
  for (const m of ext.mandatory) {
    if (!raw.some((r) => r.name === m)) {
      throw new RuleSpecError(`${owner}: option "${m}" must be specified`, argIndex);
    }
  }
  return raw.map((r) => option(r.name, r.negated, r.values));
}

/** Extensions read from compact option tables, by name and family (see {@link familyExtensions}). */
export interface FamilyExtensions<E> {
  /** Every name, in either family. */
  readonly names: ReadonlySet<string>;
  /** The extension of `name` in `family` (built once), or null when that family has none. */
  get(name: string, family: "IPv4" | "IPv6"): E | null;
}

/**
 * Reads `|`-separated rows `NAME TABLE` (`NAME/4`, `NAME/6`: one family's only; TABLE as
 * {@link tableExtension} reads it) into extensions built by `make` when first asked for.
 */
export function familyExtensions<E>(rows: string, make: (ext: TableExtension) => E): FamilyExtensions<E> {
  const tables = new Map<string, string>();
  for (const row of rows.split("|")) {
    const space = row.indexOf(" ");
    tables.set(space < 0 ? row : row.slice(0, space), space < 0 ? "" : row.slice(space + 1));
  }
  const built = new Map<string, E | null>();
  return {
    names: new Set([...tables.keys()].map((k) => k.replace(/\/[46]$/, ""))),
    get(name, family) {
      const key = `${name}/${family === "IPv4" ? 4 : 6}`;
      let ext = built.get(key);
      if (ext === undefined) {
        const table = tables.get(key) ?? tables.get(name);
        ext = table === undefined ? null : make(tableExtension(name, table));
        built.set(key, ext);
      }
      return ext;
    },
  };
}
