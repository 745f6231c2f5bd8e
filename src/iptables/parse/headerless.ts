/**
 * Rule lines without their `*table` and `COMMIT` lines, as `iptables-save | grep KUBE` prints
 * them (the Kubernetes "debug services" guide shows this), or as `iptables -t nat -S` lists one
 * table: kube-proxy's chains say which table each line belongs to, so the text can be read as
 * the tables it came from. The result is ordinary restore text, with a map from each of its lines
 * to the line of the given text it stands for, so that problems keep the user's line numbers.
 *
 * @module
 */

import { BUILTIN_CHAINS } from "../../ir/types.js";
import {
  CANARY_CHAINS,
  isPerServiceChain,
  KUBE_CHAINS_FILTER_ONLY,
  KUBE_CHAINS_NAT_ONLY,
} from "../../naming/kube-chains.js";
import { PASS_THROUGH_TARGETS, TARGET_EXTENSIONS, VERDICTS } from "../canonical/targets.js";
import { tokenizeLine } from "./tokenize.js";

/** Headerless rule lines read as tables. */
export interface HeaderlessRead {
  /** Restore text with a `*table` … `COMMIT` block per table found. */
  readonly text: string;
  /** For each line of {@link text} (0-based), the 1-based line of the input it stands for. */
  readonly lineMap: readonly number[];
  /** How many input lines went to each table, in the order of {@link text}. */
  readonly tables: readonly { readonly name: string; readonly lines: number }[];
  /**
   * The chains the input holds, each in the table it went to: those it declares or has rules
   * for. Any other chain of {@link text} (one a rule jumps to) is declared there, empty: the
   * input does not say what it holds.
   */
  readonly held: readonly { readonly table: string; readonly chain: string }[];
}

/** Tables a headerless text can be sorted into, in the order they are written out. */
const TABLE_ORDER = ["mangle", "filter", "nat"] as const;
type Guess = (typeof TABLE_ORDER)[number];

// kube-proxy's (and kubelet's) chains, by the one table each lives in (naming/kube-chains.ts).
// KUBE-SERVICES and KUBE-NODEPORTS exist in nat and filter, the canaries in mangle, nat and
// filter: they say nothing on their own.
const NAT_CHAINS = new Set([...KUBE_CHAINS_NAT_ONLY, "PREROUTING", "POSTROUTING"]);
const NAT_TARGETS = new Set(["DNAT", "SNAT", "MASQUERADE", "REDIRECT"]);
const FILTER_CHAINS = new Set([...KUBE_CHAINS_FILTER_ONLY, "FORWARD"]);
const FILTER_TARGETS = new Set(["REJECT"]);
const CANARIES = new Set(CANARY_CHAINS);

function chainTable(name: string): Guess | null {
  if (NAT_CHAINS.has(name)) return "nat";
  if (isPerServiceChain(name)) return "nat";
  if (FILTER_CHAINS.has(name)) return "filter";
  return null;
}

/** One line of the input that is a declaration or a command. */
interface Line {
  /** 1-based line in the input. */
  readonly at: number;
  readonly text: string;
  /** A `:` declaration, `-N` or `-P` (they open a table's listing), rather than a rule. */
  readonly declares: boolean;
  /** The chain it declares or appends to, and the chain it jumps to (if any). */
  readonly chain: string;
  readonly target: string | null;
  /** The table its chains or target place it in, if they do. */
  readonly table: Guess | null;
  /** Only canary chains: mangle, when nothing else says otherwise. */
  readonly canary: boolean;
}

function readLine(text: string, at: number): Line | null {
  const words = tokenizeLine(text, 0, text.length, false);
  let k = words[0]?.startsWith("[") === true ? 1 : 0;
  let head = words[k];
  if (head === undefined) return null;
  let chain: string;
  let declares = false;
  if (head.startsWith(":")) {
    chain = head.slice(1);
    declares = true;
  } else {
    if (!/^-[ANPIDR]$/.test(head) && !/^--(?:append|insert|new-chain|policy)$/.test(head)) return null;
    declares = head === "-N" || head === "-P" || head === "--new-chain" || head === "--policy";
    chain = words[++k] ?? "";
    head = chain;
  }
  let target: string | null = null;
  for (let a = words.length - 2; a > k; a--) {
    const w = words[a];
    if (w === "-j" || w === "-g" || w === "--jump" || w === "--goto") {
      target = words[a + 1] as string;
      break;
    }
  }
  let table = chainTable(chain);
  if (target !== null) {
    const byTarget = NAT_TARGETS.has(target)
      ? "nat"
      : FILTER_TARGETS.has(target)
        ? "filter"
        : chainTable(target);
    if (table === null) table = byTarget;
  }
  return { at, text, declares, chain, target, table, canary: CANARIES.has(chain) && target === null };
}

/**
 * Whether `text` is rule lines without a `*table` line: its first line that is not blank or a
 * `#` comment is a chain declaration (`:KUBE-…`) or a command (`-A`, `-N`, `-P`, with or without
 * a `[p:b]` prefix).
 *
 * @example
 * isHeaderlessRules("-A KUBE-SERVICES -d 10.0.0.1/32 -j KUBE-SVC-X\n") // true
 * isHeaderlessRules("*nat\n-A X -j RETURN\nCOMMIT\n") // false
 */
export function isHeaderlessRules(text: string): boolean {
  // Line by line, not text.split: only the first lines are read (a node's dump has 400,000).
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line.length === 0 || line.startsWith("#")) continue;
    return /^(?:\[\d+:\d+\] )?(?::\S|-[ANPI] \S|--(?:append|new-chain|policy|insert) \S)/.test(line);
  }
  return false;
}

/**
 * Reads headerless rule lines (see the module) as the tables kube-proxy's chains place them in:
 * a declaration that follows a rule opens the next table's listing (so `iptables-save | grep`
 * output splits where the tables did), each listing goes to the table its chains name (lines
 * that name a chain of one table go there whatever the listing), and every chain a rule names
 * without a declaration is declared. `null` when no line says which table it is in.
 *
 * @example
 * readHeaderlessRules("-A KUBE-SVC-X -j KUBE-SEP-Y\n")?.text
 * // "*nat\n:KUBE-SEP-Y - [0:0]\n:KUBE-SVC-X - [0:0]\n-A KUBE-SVC-X -j KUBE-SEP-Y\nCOMMIT\n"
 */
export function readHeaderlessRules(text: string): HeaderlessRead | null {
  const lines: Line[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim().length === 0 || raw.startsWith("#")) return;
    const line = readLine(raw, i + 1);
    // Anything else stays in place, for the parser to report in its table.
    lines.push(
      line ?? { at: i + 1, text: raw, declares: false, chain: "", target: null, table: null, canary: false },
    );
  });
  // Listings: a declaration after a rule starts the next one.
  const listings: Line[][] = [];
  let current: Line[] = [];
  let sawRule = false;
  for (const line of lines) {
    if (line.declares && sawRule) {
      listings.push(current);
      current = [];
      sawRule = false;
    }
    if (!line.declares) sawRule = true;
    current.push(line);
  }
  if (current.length > 0) listings.push(current);
  const guesses = listings.map((listing): Guess | null => {
    const votes = { filter: 0, nat: 0 };
    for (const l of listing) if (l.table === "nat" || l.table === "filter") votes[l.table]++;
    if (votes.nat + votes.filter > 0) return votes.nat >= votes.filter ? "nat" : "filter";
    return listing.every((l) => l.canary) ? "mangle" : null;
  });
  if (!lines.some((l) => l.table !== null)) return null;
  // A listing no chain places goes with the one before it (rules whose declarations were cut
  // off), or, first of all, with the next one that is placed.
  for (let i = 1; i < guesses.length; i++) guesses[i] ??= guesses[i - 1] ?? null;
  for (let i = guesses.length - 2; i >= 0; i--) guesses[i] ??= guesses[i + 1] ?? null;
  const assigned = new Map<Guess, Line[]>();
  listings.forEach((listing, i) => {
    for (const l of listing) {
      // A line that names a chain of one table goes there, whatever its listing.
      const where = l.table ?? (guesses[i] as Guess);
      const list = assigned.get(where) ?? [];
      list.push(l);
      assigned.set(where, list);
    }
  });
  const out: string[] = [];
  const lineMap: number[] = [];
  const tables: { name: string; lines: number }[] = [];
  const held: { table: string; chain: string }[] = [];
  for (const name of TABLE_ORDER) {
    const list = assigned.get(name);
    if (list === undefined) continue;
    tables.push({ name, lines: list.length });
    const builtins = BUILTIN_CHAINS[name] ?? [];
    const firstUse = new Map<string, number>();
    const note = (chain: string, at: number) => {
      if (chain !== "" && !builtins.includes(chain) && !firstUse.has(chain)) firstUse.set(chain, at);
    };
    const declared = new Set<string>();
    const holds = new Set<string>();
    for (const l of list) {
      if (l.declares) declared.add(l.chain);
      if (l.chain !== "") holds.add(l.chain);
      note(l.chain, l.at);
      if (l.target !== null && isChainTarget(l.target)) note(l.target, l.at);
    }
    for (const chain of holds) held.push({ table: name, chain });
    out.push(`*${name}`);
    lineMap.push(list[0]?.at ?? 1);
    // Declarations first (as iptables-save prints them), those the text lacks added.
    for (const l of list) {
      if (!l.declares) continue;
      out.push(l.text);
      lineMap.push(l.at);
    }
    for (const [chain, at] of firstUse) {
      if (declared.has(chain)) continue;
      out.push(`:${chain} - [0:0]`);
      lineMap.push(at);
    }
    for (const l of list) {
      if (l.declares) continue;
      out.push(l.text);
      lineMap.push(l.at);
    }
    out.push("COMMIT");
    lineMap.push(list[list.length - 1]?.at ?? 1);
  }
  return { text: `${out.join("\n")}\n`, lineMap, tables, held };
}

function isChainTarget(name: string): boolean {
  return !VERDICTS.has(name) && !TARGET_EXTENSIONS.has(name) && !PASS_THROUGH_TARGETS.has(name);
}
