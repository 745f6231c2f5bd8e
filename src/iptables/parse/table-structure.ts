/**
 * The checks of a parsed table that need the whole block: iptables-restore refuses a rule that
 * appends to, or jumps to, a chain not declared above it in its table; a bad policy; a user
 * chain declared twice (legacy); and a target the kernel does not allow in that table or at the
 * hooks its chain is reached from (REJECT only in filter, MASQUERADE only in nat POSTROUTING …).
 * Every rule was already checked on its own; this module looks at how they fit together.
 *
 * @module
 */

import type { Backend } from "../../ir/canonical-types.js";
import { BUILTIN_CHAINS, type ChainDeclaration, type Entry, type Rule, type Table } from "../../ir/types.js";

/** Where a target may be used: tables (null: any) and hooks (bits of {@link HOOK_BITS}). */
interface TargetPlace {
  readonly tables: readonly string[] | null;
  readonly hooks: number;
}

/** The netfilter hook of each built-in chain, as a bit. */
const HOOK_BITS: Readonly<Record<string, number>> = {
  PREROUTING: 1,
  INPUT: 2,
  FORWARD: 4,
  OUTPUT: 8,
  POSTROUTING: 16,
};
const ANY_HOOK = 31;

/**
 * The targets whose kernel module is restricted to tables or hooks (the `table` and `hooks` of
 * each xt target in the kernel's net/netfilter and net/ipv4/netfilter sources), checked against
 * the real kernel (test/kernel/restore-strictness.test.ts). Targets that need objects outside
 * the rules (SECMARK, SET, HMARK) are not judged here.
 */
const TARGET_PLACES: ReadonlyMap<string, TargetPlace> = new Map<string, TargetPlace>([
  // xt_REJECT (ipt_REJECT / ip6t_REJECT): table "filter".
  ["REJECT", { tables: ["filter"], hooks: ANY_HOOK }],
  // nf_nat: DNAT and REDIRECT rewrite the destination before routing (PREROUTING, OUTPUT) …
  ["DNAT", { tables: ["nat"], hooks: 1 | 8 }],
  ["REDIRECT", { tables: ["nat"], hooks: 1 | 8 }],
  // … SNAT the source after it (POSTROUTING, INPUT); MASQUERADE only on the way out.
  ["SNAT", { tables: ["nat"], hooks: 16 | 2 }],
  ["MASQUERADE", { tables: ["nat"], hooks: 16 }],
  ["NETMAP", { tables: ["nat"], hooks: ANY_HOOK }],
  ["CT", { tables: ["raw"], hooks: ANY_HOOK }],
  ["NOTRACK", { tables: ["raw"], hooks: ANY_HOOK }],
  ["TRACE", { tables: ["raw"], hooks: ANY_HOOK }],
  ["TPROXY", { tables: ["mangle"], hooks: 1 }],
  ["CHECKSUM", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["DSCP", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TOS", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TTL", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["HL", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["ECN", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["TCPOPTSTRIP", { tables: ["mangle"], hooks: ANY_HOOK }],
  ["CONNSECMARK", { tables: ["mangle", "security"], hooks: ANY_HOOK }],
  ["TCPMSS", { tables: null, hooks: 4 | 8 | 16 }],
  ["CLASSIFY", { tables: null, hooks: 4 | 8 | 16 }],
  ["SYNPROXY", { tables: null, hooks: 2 | 4 }],
]);

const HOOK_NAMES = ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"] as const;

function hookNames(bits: number): string {
  return HOOK_NAMES.filter((_, k) => (bits & (1 << k)) !== 0).join(", ");
}

/** A rule's target as the structure check needs it: a chain it jumps to, or a target name. */
export interface RuleTarget {
  /** The name after `-j` / `-g`. */
  readonly name: string;
  /** Whether it names a chain (not a verdict or a target extension). */
  readonly isChain: boolean;
}

/** What the structure check reports: a line, which token of it, and the message. */
export interface StructureProblem {
  /** 1-based line. */
  readonly line: number;
  /** Which token of the line the problem is at (see {@link ProblemToken}). */
  readonly token: ProblemToken;
  /** The message. */
  readonly message: string;
}

/**
 * The token a problem points at: the chain a command names, the target after `-j`/`-g`, or
 * argument `k` of a `:` declaration.
 */
export type ProblemToken =
  | { readonly kind: "chain" }
  | { readonly kind: "target"; readonly name: string }
  | { readonly kind: "declaration"; readonly index: number };

/** Inputs of {@link checkTableStructure}. */
export interface StructureInput {
  readonly table: Table;
  /** Line of each declaration and entry (as the parser recorded them, in line order). */
  readonly chainLines: readonly number[];
  readonly entryLines: readonly number[];
  readonly backend: Backend;
  /** `--noflush`: chains may already exist in the kernel, so undeclared names are not refused. */
  readonly noflush: boolean;
  /** The target of a rule; null for none (or a rule to skip: it already has a problem). */
  readonly targetOf: (rule: Rule) => RuleTarget | null | undefined;
}

interface RestrictedUse {
  readonly chain: string;
  readonly chainId: number;
  readonly line: number;
  readonly name: string;
  readonly place: TargetPlace;
}

/**
 * Checks one table block as iptables-restore would load it, declarations and commands in line
 * order, and returns what it would refuse.
 *
 * @example
 * checkTableStructure({ table: { name: "filter", chains: [], entries: [{ kind: "rule", op: "-A", chain: "X", args: [] }] },
 *   chainLines: [], entryLines: [2], backend: "nft", noflush: false, targetOf: () => null })
 * // [{ line: 2, token: { kind: "chain" }, message: "chain `X' does not exist in table filter (no `:X' line above)" }]
 */
export function checkTableStructure(input: StructureInput): StructureProblem[] {
  const { table, chainLines, entryLines, backend, noflush, targetOf } = input;
  const problems: StructureProblem[] = [];
  const builtins = BUILTIN_CHAINS[table.name] ?? [];
  // A node's table holds ~110,000 chains and ~330,000 jumps: every name gets a number once (the
  // built-in chains first), so that the jumps and the hooks that reach each chain are arrays.
  const ids = new Map<string, number>();
  for (const b of builtins) ids.set(b, ids.size);
  /** Per id: whether the chain is declared now (`user` of iptables-restore's view). */
  const user: number[] = builtins.map(() => 0);
  const idOf = (chain: string): number => {
    let id = ids.get(chain);
    if (id === undefined) {
      id = ids.size;
      ids.set(chain, id);
      user.push(0);
    }
    return id;
  };
  // A chain's rules come in a run, and the parser shares a repeated word: the last name looked up
  // is tried first, by identity, before the map (one probe per run, not per rule).
  let lastChain: string | null = null;
  let lastChainId = -1;
  let lastTarget: string | null = null;
  let lastTargetId = -1;
  const chainId = (name: string): number | undefined => {
    if (name === lastChain) return lastChainId;
    const id = ids.get(name);
    if (id !== undefined) {
      lastChain = name;
      lastChainId = id;
    }
    return id;
  };
  const targetId = (name: string): number | undefined => {
    if (name === lastTarget) return lastTargetId;
    const id = ids.get(name);
    if (id !== undefined) {
      lastTarget = name;
      lastTargetId = id;
    }
    return id;
  };
  const isBuiltin = (id: number | undefined): boolean => id !== undefined && id < builtins.length;
  const isUser = (id: number | undefined): boolean => id !== undefined && user[id] === 1;
  /** The jumps, as pairs of ids (a chain to the chain a rule of it jumps to). */
  const jumpFrom: number[] = [];
  const jumpTo: number[] = [];
  const restricted: RestrictedUse[] = [];
  let c = 0;
  let e = 0;
  const chains = table.chains;
  const entries = table.entries;
  while (c < chains.length || e < entries.length) {
    const chainLine = chainLines[c] ?? Number.POSITIVE_INFINITY;
    const entryLine = entryLines[e] ?? Number.POSITIVE_INFINITY;
    if (c < chains.length && chainLine <= entryLine) {
      declare(chains[c] as ChainDeclaration, chainLine);
      c++;
    } else {
      apply(entries[e] as Entry, entryLine);
      e++;
    }
  }
  checkPlaces();
  return problems;

  function declare(d: ChainDeclaration, line: number): void {
    const id = idOf(d.name);
    if (isBuiltin(id)) {
      // `-` keeps the policy; anything else must be a verdict a base chain can end in.
      if (d.policy !== null && d.policy !== "ACCEPT" && d.policy !== "DROP")
        problems.push({
          line,
          token: { kind: "declaration", index: 1 },
          message: `Can't set policy \`${d.policy}' on \`${d.name}': Bad policy name`,
        });
      return;
    }
    // iptables-nft ignores a user chain's policy and a second declaration; legacy's libiptc
    // refuses both (iptc_set_policy on a non-built-in chain, iptc_create_chain on an existing one).
    if (backend === "legacy") {
      if (d.policy !== null) {
        problems.push({
          line,
          token: { kind: "declaration", index: 1 },
          message: `Can't set policy \`${d.policy}' on \`${d.name}': Bad built-in chain name`,
        });
        return;
      }
      if (isUser(id)) {
        problems.push({
          line,
          token: { kind: "declaration", index: 0 },
          message: `error creating chain '${d.name}': File exists`,
        });
        return;
      }
    }
    user[id] = 1;
  }

  function apply(entry: Entry, line: number): void {
    if (entry.kind === "chain") {
      if (entry.op === "-N") user[idOf(entry.chain)] = 1;
      else if (entry.op === "-X") {
        if (entry.chain === "") user.fill(0);
        else user[idOf(entry.chain)] = 0;
      }
      return;
    }
    if (entry.kind === "policy") return;
    const target = targetOf(entry);
    if (target === undefined) return; // the rule has a problem already
    const from = chainId(entry.chain);
    if (!noflush && !isUser(from) && !isBuiltin(from)) {
      problems.push({
        line,
        token: { kind: "chain" },
        message: `chain \`${entry.chain}' does not exist in table ${table.name} (no \`:${entry.chain}' line above)`,
      });
      return;
    }
    if (target === null) return;
    if (target.isChain) {
      const to = targetId(target.name);
      if (isBuiltin(to) || (!noflush && !isUser(to))) {
        problems.push({
          line,
          token: { kind: "target", name: target.name },
          message: isBuiltin(to)
            ? `Couldn't load target \`${target.name}': a built-in chain cannot be a jump target`
            : `Couldn't load target \`${target.name}': no chain of that name is declared above in table ${table.name}`,
        });
        return;
      }
      jumpFrom.push(from ?? idOf(entry.chain));
      jumpTo.push(to ?? idOf(target.name));
      return;
    }
    const place = TARGET_PLACES.get(target.name);
    if (place === undefined) return;
    if (place.tables !== null && !place.tables.includes(table.name)) {
      problems.push({
        line,
        token: { kind: "target", name: target.name },
        message: `target ${target.name} is only valid in the ${place.tables.join(" or ")} table${place.tables.length > 1 ? "s" : ""}, not in ${table.name}`,
      });
      return;
    }
    if (place.hooks !== ANY_HOOK)
      restricted.push({
        chain: entry.chain,
        chainId: from ?? idOf(entry.chain),
        line,
        name: target.name,
        place,
      });
  }

  /** The hooks each restricted rule's chain is reached from, against those its target allows. */
  function checkPlaces(): void {
    if (restricted.length === 0) return;
    // The jumps of each chain, in one array (`first[id]` to `first[id + 1]`).
    const n = ids.size;
    const first = new Int32Array(n + 1);
    for (const from of jumpFrom) first[from + 1] = (first[from + 1] as number) + 1;
    for (let id = 0; id < n; id++) first[id + 1] = (first[id + 1] as number) + (first[id] as number);
    const targets = new Int32Array(jumpTo.length);
    const filled = first.slice(0, n);
    for (let k = 0; k < jumpFrom.length; k++) {
      const from = jumpFrom[k] as number;
      const at = filled[from] as number;
      filled[from] = at + 1;
      targets[at] = jumpTo[k] as number;
    }
    const reached = new Uint8Array(n);
    const stack = new Int32Array(n);
    for (let b = 0; b < builtins.length; b++) {
      const bit = HOOK_BITS[builtins[b] as string] ?? 0;
      if (bit === 0 || ((reached[b] as number) & bit) !== 0) continue;
      // Each chain is pushed once per hook: when the hook's bit is first set on it.
      reached[b] = (reached[b] as number) | bit;
      stack[0] = b;
      let top = 1;
      while (top > 0) {
        const chain = stack[--top] as number;
        for (let k = first[chain] as number, end = first[chain + 1] as number; k < end; k++) {
          const to = targets[k] as number;
          const had = reached[to] as number;
          if ((had & bit) !== 0) continue;
          reached[to] = had | bit;
          stack[top++] = to;
        }
      }
    }
    for (const use of restricted) {
      const bad = (reached[use.chainId] as number) & ~use.place.hooks;
      if (bad === 0) continue;
      problems.push({
        line: use.line,
        token: { kind: "target", name: use.name },
        message: `target ${use.name} is only valid in ${hookNames(use.place.hooks)}; chain ${use.chain} is reached from ${hookNames(bad)}`,
      });
    }
    problems.sort((a, b) => a.line - b.line);
  }
}
