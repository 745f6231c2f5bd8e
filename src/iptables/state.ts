/**
 * What the kernel holds after `iptables-restore [--noflush]`: applies a payload RuleSet onto a
 * state RuleSet, command by command, with iptables' checks (chains must exist, jumps must point
 * at declared chains, `-X` refuses referenced or non-empty chains, …). Rules are grouped by
 * chain in Maps, so a 300k-rule restore is linear.
 *
 * @module
 */

import { KubeIptablesError, type Problem } from "../errors.js";
import type { Backend, CanonicalRule } from "../ir/canonical-types.js";
import { sortChainNames } from "../ir/chain-sort.js";
import {
  BUILTIN_CHAINS,
  type ChainDeclaration,
  type Counters,
  type Entry,
  type IPFamily,
  type Rule,
  type RuleSet,
  type Table,
} from "../ir/types.js";
import {
  type CanonicalizeResult,
  canonicalizeRuleCached,
  expandAddressLists,
  formatCanonicalRule,
  NAT_ONLY_TARGETS,
  tryCanonicalizeRule,
} from "./canonical/canonicalize.js";

/**
 * Options of {@link applyRestore}.
 *
 * @example
 * // A delta applied as `iptables-restore --noflush` applies it:
 * const after = applyRestore(state, parseRulesOrThrow(deltaText), { noflush: true });
 */
export interface ApplyRestoreOptions {
  /** `iptables-restore --noflush`: keep what the kernel holds; otherwise each table is replaced. */
  readonly noflush: boolean;
  /** Backend to imitate where nft and legacy differ (spec §12); default `"nft"`. */
  readonly backend?: Backend;
}

/** The result of {@link tryApplyRestore}. */
export interface ApplyRestoreResult {
  /** The resulting state (commands that failed are skipped). */
  readonly ruleSet: RuleSet;
  /** Every problem; iptables-restore would refuse the whole payload if there is one. */
  readonly problems: Problem[];
}

/** Source lines of one table block, recorded by the parser so state problems can name a line. */
export interface TableSourceLines {
  /** 1-based line of each chain declaration, by index in `Table.chains`. */
  readonly chains: readonly number[];
  /** 1-based line of each entry, by index in `Table.entries`. */
  readonly entries: readonly number[];
}

const sourceLines = new WeakMap<Table, TableSourceLines>();

/**
 * Records where a parsed table's declarations and entries came from (called by the parser), so
 * that {@link applyRestore}'s problems carry line numbers.
 *
 * @example
 * recordSourceLines(table, { chains: [2], entries: [3, 4] });
 */
export function recordSourceLines(table: Table, lines: TableSourceLines): void {
  sourceLines.set(table, lines);
}

/**
 * The source lines the parser recorded for a table (see {@link recordSourceLines}), if any.
 *
 * @example
 * sourceLinesOf(parseRulesOrThrow(text).tables[0])?.entries[0] // 3: the line of its first entry
 */
export function sourceLinesOf(table: Table): TableSourceLines | undefined {
  return sourceLines.get(table);
}

/** Built-in chain policy and counters. */
interface Policy {
  policy: string;
  counters: Counters | undefined;
}

/** One table while commands are applied. */
interface WorkTable {
  readonly name: string;
  readonly policies: Map<string, Policy>;
  /** Every chain (built-ins included) → its rules, in kernel order. */
  readonly chains: Map<string, Rule[]>;
  /** Chain → number of rules jumping or going to it. */
  readonly references: Map<string, number>;
}

const ZERO: Counters = { packets: 0n, bytes: 0n };

/** The chain a canonical rule jumps or goes to, if it is a user chain. */
function jumpTarget(rule: CanonicalRule): string | null {
  return rule.target !== null && rule.target.kind === "chain" ? rule.target.name : null;
}

class Simulator {
  readonly problems: Problem[] = [];
  readonly tables = new Map<string, WorkTable>();
  readonly family: IPFamily;
  readonly backend: Backend;
  readonly options: { readonly backend: Backend };

  constructor(family: IPFamily, backend: Backend) {
    this.family = family;
    this.backend = backend;
    this.options = { backend };
  }

  report(
    table: Table,
    tableIndex: number,
    where: "chains" | "entries",
    index: number,
    message: string,
  ): void {
    const lines = sourceLines.get(table);
    const line = lines?.[where][index];
    const p: Problem =
      line === undefined
        ? { code: "PARSE", path: `tables[${tableIndex}].${where}[${index}]`, message, severity: "error" }
        : { code: "PARSE", path: "", message, severity: "error", line, column: 1 };
    this.problems.push(p);
  }

  freshTable(name: string, previous: WorkTable | undefined): WorkTable {
    const w: WorkTable = { name, policies: new Map(), chains: new Map(), references: new Map() };
    for (const chain of BUILTIN_CHAINS[name] ?? []) {
      // A replaced table keeps the policies the kernel had, unless they are declared again.
      const old = previous?.policies.get(chain);
      w.policies.set(chain, old === undefined ? { policy: "ACCEPT", counters: undefined } : { ...old });
      w.chains.set(chain, []);
    }
    return w;
  }

  canonical(rule: Rule): CanonicalizeResult {
    return canonicalizeRuleCached(rule, this.family, this.options);
  }

  addReference(w: WorkTable, rule: Rule, delta: number): void {
    const c = this.canonical(rule);
    if (!c.ok) return;
    const to = jumpTarget(c.rule);
    if (to !== null) w.references.set(to, (w.references.get(to) ?? 0) + delta);
  }

  /** Loads an existing state table (assumed valid: declarations and `-A` rules). */
  load(table: Table): void {
    const w = this.freshTable(table.name, undefined);
    for (const d of table.chains) {
      const p = w.policies.get(d.name);
      if (p !== undefined) {
        if (d.policy !== null) p.policy = d.policy;
        p.counters = d.counters;
      } else if (!w.chains.has(d.name)) w.chains.set(d.name, []);
    }
    for (const e of table.entries) {
      if (e.kind !== "rule" || e.op !== "-A") continue;
      let rules = w.chains.get(e.chain);
      if (rules === undefined) {
        rules = [];
        w.chains.set(e.chain, rules);
      }
      rules.push(e);
      this.addReference(w, e, 1);
    }
    this.tables.set(table.name, w);
  }

  flushChain(w: WorkTable, chain: string): void {
    const rules = w.chains.get(chain);
    if (rules === undefined) return;
    for (const r of rules) this.addReference(w, r, -1);
    rules.length = 0;
  }

  declare(
    w: WorkTable,
    table: Table,
    ti: number,
    index: number,
    d: ChainDeclaration,
    noflush: boolean,
  ): void {
    const policy = w.policies.get(d.name);
    if (policy !== undefined) {
      if (d.policy !== null && d.policy !== "-") {
        if (d.policy !== "ACCEPT" && d.policy !== "DROP") {
          this.report(
            table,
            ti,
            "chains",
            index,
            `Can't set policy \`${d.policy}' on \`${d.name}': Bad policy name`,
          );
          return;
        }
        policy.policy = d.policy;
        policy.counters = d.counters;
      }
      return;
    }
    if (d.policy !== null && d.policy !== "-" && this.backend === "legacy") {
      this.report(
        table,
        ti,
        "chains",
        index,
        `Can't set policy \`${d.policy}' on \`${d.name}': Bad built-in chain name`,
      );
      return;
    }
    if (w.chains.has(d.name)) {
      if (noflush) this.flushChain(w, d.name);
      // iptables-nft flushes a chain declared again there (the parser records that as a -F
      // entry where the declaration stands); legacy refuses it.
      else if (this.backend === "legacy")
        this.report(table, ti, "chains", index, `error creating chain '${d.name}': File exists`);
      return;
    }
    w.chains.set(d.name, []);
  }

  /** The kernel rules of a rule command: one, or several for `-s`/`-d` comma lists. */
  expand(
    rule: Rule,
    table: Table,
    ti: number,
    index: number,
  ): { rule: Rule; canonical: CanonicalRule }[] | null {
    const c = this.canonical(rule);
    if (c.ok) return [{ rule, canonical: c.rule }];
    if (!c.addressList) {
      this.report(table, ti, "entries", index, c.message);
      return null;
    }
    const out: { rule: Rule; canonical: CanonicalRule }[] = [];
    for (const args of expandAddressLists(rule.args, this.family) ?? []) {
      const one = tryCanonicalizeRule(args, this.family, this.options);
      if (!one.ok) {
        this.report(table, ti, "entries", index, one.message);
        return null;
      }
      out.push({ rule: asAppend(rule.chain, args, rule.counters), canonical: one.rule });
    }
    return out;
  }

  checkTarget(w: WorkTable, canonical: CanonicalRule, table: Table, ti: number, index: number): boolean {
    const t = canonical.target;
    if (t === null) return true;
    if (t.kind === "chain") {
      if (!w.chains.has(t.name) || w.policies.has(t.name)) {
        this.report(
          table,
          ti,
          "entries",
          index,
          `Couldn't load target \`${t.name}': no such chain or target`,
        );
        return false;
      }
    } else if (NAT_ONLY_TARGETS.has(t.name) && w.name !== "nat") {
      this.report(table, ti, "entries", index, `target ${t.name} is only valid in the nat table`);
      return false;
    }
    return true;
  }

  applyRule(w: WorkTable, e: Rule, table: Table, ti: number, index: number): void {
    const rules = w.chains.get(e.chain);
    if (rules === undefined) {
      this.report(table, ti, "entries", index, `chain ${e.chain} does not exist in table ${w.name}`);
      return;
    }
    if (e.op === "-D" && e.args.length === 0) {
      const at = (e.index ?? 0) - 1;
      const removed = at >= 0 && at < rules.length ? rules.splice(at, 1)[0] : undefined;
      if (removed === undefined) this.report(table, ti, "entries", index, "Index of deletion too big");
      else this.addReference(w, removed, -1);
      return;
    }
    if (e.op === "-A" && e.index === undefined) {
      // Fast path: a plain append of one kernel rule.
      const c = this.canonical(e);
      if (c.ok) {
        if (!this.checkTarget(w, c.rule, table, ti, index)) return;
        rules.push(e);
        const to = jumpTarget(c.rule);
        if (to !== null) w.references.set(to, (w.references.get(to) ?? 0) + 1);
        return;
      }
    }
    const expanded = this.expand(e, table, ti, index);
    if (expanded === null) return;
    if (e.op === "-D") {
      for (const { canonical } of expanded) {
        const wanted = formatCanonicalRule("", canonical);
        const at = rules.findIndex((r) => {
          const c = this.canonical(r);
          return c.ok && formatCanonicalRule("", c.rule) === wanted;
        });
        if (at < 0) {
          this.report(table, ti, "entries", index, "Bad rule (does a matching rule exist in that chain?)");
          return;
        }
        const [removed] = rules.splice(at, 1);
        if (removed !== undefined) this.addReference(w, removed, -1);
      }
      return;
    }
    for (const { canonical } of expanded) if (!this.checkTarget(w, canonical, table, ti, index)) return;
    const kernelRules = expanded.map((x) =>
      x.rule.op === "-A" && x.rule.index === undefined
        ? x.rule
        : asAppend(e.chain, x.rule.args, x.rule.counters),
    );
    if (e.op === "-A") {
      for (const r of kernelRules) rules.push(r);
    } else if (e.op === "-I") {
      const at = (e.index ?? 1) - 1;
      if (at < 0 || at > rules.length) {
        this.report(table, ti, "entries", index, "Index of insertion too big");
        return;
      }
      rules.splice(at, 0, ...kernelRules);
    } else {
      // -R
      if (this.backend === "nft") {
        this.report(
          table,
          ti,
          "entries",
          index,
          "-R inside a restore file crashes iptables-nft-restore 1.8.9",
        );
        return;
      }
      const at = (e.index ?? 0) - 1;
      const old = rules[at];
      if (old === undefined || kernelRules.length !== 1) {
        this.report(table, ti, "entries", index, "Index of replacement too big");
        return;
      }
      this.addReference(w, old, -1);
      rules[at] = kernelRules[0] as Rule;
    }
    for (const r of kernelRules) this.addReference(w, r, 1);
  }

  applyChainCommand(w: WorkTable, e: Entry, table: Table, ti: number, index: number): void {
    if (e.kind === "rule") return;
    if (e.kind === "policy") {
      const p = w.policies.get(e.chain);
      if (p === undefined || (e.policy !== "ACCEPT" && e.policy !== "DROP")) {
        this.report(table, ti, "entries", index, `Can't set policy \`${e.policy}' on \`${e.chain}'`);
      } else p.policy = e.policy;
      return;
    }
    const all = e.chain === "";
    if (!all && e.op !== "-N" && !w.chains.has(e.chain)) {
      this.report(table, ti, "entries", index, `chain ${e.chain} does not exist in table ${w.name}`);
      return;
    }
    switch (e.op) {
      case "-N":
        if (all || w.chains.has(e.chain))
          this.report(table, ti, "entries", index, `Chain already exists: ${e.chain}`);
        else w.chains.set(e.chain, []);
        return;
      case "-F":
        for (const name of all ? [...w.chains.keys()] : [e.chain]) this.flushChain(w, name);
        return;
      case "-Z":
        for (const name of all ? [...w.chains.keys()] : [e.chain]) {
          const rules = w.chains.get(name) ?? [];
          for (let k = 0; k < rules.length; k++) {
            const r = rules[k] as Rule;
            if (r.counters !== undefined) rules[k] = asAppend(r.chain, r.args, ZERO);
          }
          const p = w.policies.get(name);
          if (p !== undefined && p.counters !== undefined) p.counters = ZERO;
        }
        return;
      default: {
        // -X
        const names = all ? [...w.chains.keys()].filter((c) => !w.policies.has(c)) : [e.chain];
        for (const name of names) {
          if (w.policies.has(name)) {
            this.report(table, ti, "entries", index, `Can't delete built-in chain ${name}`);
          } else if ((w.references.get(name) ?? 0) > 0) {
            this.report(
              table,
              ti,
              "entries",
              index,
              `Can't delete chain ${name}: it is still referenced (Too many links)`,
            );
          } else if ((w.chains.get(name)?.length ?? 0) > 0) {
            this.report(table, ti, "entries", index, `Can't delete chain ${name}: Directory not empty`);
          } else {
            w.chains.delete(name);
          }
        }
      }
    }
  }

  applyTable(table: Table, ti: number, noflush: boolean): void {
    if (BUILTIN_CHAINS[table.name] === undefined) {
      this.problems.push({
        code: "PARSE",
        path: `tables[${ti}]`,
        message: `unable to initialize table '${table.name}'`,
        severity: "error",
      });
      return;
    }
    const previous = this.tables.get(table.name);
    const w = noflush && previous !== undefined ? previous : this.freshTable(table.name, previous);
    this.tables.delete(table.name);
    this.tables.set(table.name, w);
    if (previous !== undefined && w !== previous) {
      // Keep the table's position among the state's tables.
      this.tables.set(table.name, w);
    }
    for (let i = 0; i < table.chains.length; i++) {
      this.declare(w, table, ti, i, table.chains[i] as ChainDeclaration, noflush);
    }
    const entries = table.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as Entry;
      if (e.kind === "rule") this.applyRule(w, e, table, ti, i);
      else this.applyChainCommand(w, e, table, ti, i);
    }
  }

  result(order: readonly string[]): RuleSet {
    const tables: Table[] = [];
    for (const name of order) {
      const w = this.tables.get(name);
      if (w !== undefined) tables.push(toTable(w));
    }
    return { family: this.family, tables };
  }
}

function asAppend(chain: string, args: readonly string[], counters: Counters | undefined): Rule {
  return counters === undefined
    ? { kind: "rule", op: "-A", chain, args }
    : { kind: "rule", op: "-A", chain, args, counters };
}

function toTable(w: WorkTable): Table {
  const builtins = BUILTIN_CHAINS[w.name] ?? [];
  const chains: ChainDeclaration[] = [];
  for (const name of builtins) {
    const p = w.policies.get(name) as Policy;
    chains.push(
      p.counters === undefined
        ? { name, policy: p.policy }
        : { name, policy: p.policy, counters: p.counters },
    );
  }
  const user = sortChainNames([...w.chains.keys()].filter((c) => !w.policies.has(c)));
  for (const name of user) chains.push({ name, policy: null });
  const entries: Rule[] = [];
  for (const d of chains) for (const r of w.chains.get(d.name) ?? []) entries.push(r);
  return { name: w.name, chains, entries };
}

/**
 * Simulates `iptables-restore [--noflush]` of `payload` onto `state`, collecting problems.
 *
 * @param state - What the kernel holds (undefined: an empty kernel).
 * @param payload - The restore input.
 * @param options - `noflush`, and the backend to imitate.
 * @returns The resulting state and every problem.
 * @example
 * const { problems } = tryApplyRestore(undefined, parseRules("*filter\n-A NOPE -j ACCEPT\nCOMMIT\n").ruleSet, { noflush: false });
 * problems[0]?.message // "chain NOPE does not exist in table filter"
 */
export function tryApplyRestore(
  state: RuleSet | undefined,
  payload: RuleSet,
  options: ApplyRestoreOptions,
): ApplyRestoreResult {
  const family = state?.family ?? payload.family;
  const sim = new Simulator(family, options.backend ?? "nft");
  const order: string[] = [];
  if (state !== undefined) {
    if (state.family !== payload.family) {
      sim.problems.push({
        code: "PARSE",
        path: "",
        message: "state and payload have different IP families",
        severity: "error",
      });
    }
    for (const t of state.tables) {
      sim.load(t);
      order.push(t.name);
    }
  }
  payload.tables.forEach((t, ti) => {
    sim.applyTable(t, ti, options.noflush);
    if (!order.includes(t.name)) order.push(t.name);
  });
  return { ruleSet: sim.result(order), problems: sim.problems };
}

/**
 * What the kernel holds after `iptables-restore [--noflush]` of `payload` onto `state`: every
 * table of either, each with all its built-in chains (hook order) and user chains (sorted),
 * and only `-A` rules.
 *
 * @param state - What the kernel holds (undefined: an empty kernel).
 * @param payload - The restore input (as parsed, or as generated).
 * @param options - `noflush`, and the backend to imitate (default nft).
 * @returns The new state.
 * @throws KubeIptablesError listing every problem when iptables-restore would refuse the payload.
 * @example
 * const state = applyRestore(undefined, parseRulesOrThrow("*nat\n:KUBE-X - [0:0]\n-A KUBE-X -j RETURN\nCOMMIT\n"), { noflush: false });
 * formatSave(state) // "*nat\n:PREROUTING ACCEPT [0:0]\n…\n:KUBE-X - [0:0]\n-A KUBE-X -j RETURN\nCOMMIT\n"
 */
export function applyRestore(
  state: RuleSet | undefined,
  payload: RuleSet,
  options: ApplyRestoreOptions,
): RuleSet {
  const { ruleSet, problems } = tryApplyRestore(state, payload, options);
  if (problems.length > 0) throw new KubeIptablesError(problems);
  return ruleSet;
}
