// formatSave places every rule in its chain and every chain in iptables-save's order, whatever
// order a state holds them in: declarations repeated, missing or far from their rules, rules of
// one chain in many runs, built-ins declared twice. A reference printer (one map from chain to
// lines, a plain sort) says what the text must be; the rules are ones the printer's fast layout
// and its canonicalizer path both print.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  type ChainDeclaration,
  formatSave,
  KubeIptablesError,
  type Rule,
  type RuleSet,
} from "../../src/index.js";
import { saveLinesOfRule } from "../../src/iptables/print/save.js";

const BUILTINS = ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"];
const USER = ["KUBE-SERVICES", "KUBE-SVC-A", "KUBE-SEP-B", "KUBE-SEP-C", "KUBE-MARK-MASQ", "X", "X-LONGER"];
const ARGS: readonly (readonly string[])[] = [
  ["-j", "KUBE-MARK-MASQ"],
  ["-s", "10.0.0.1/32", "-m", "comment", "--comment", "ns/web:http", "-j", "KUBE-MARK-MASQ"],
  ["-m", "comment", "--comment", "ns/web:http", "-j", "KUBE-SVC-A"],
  ["-p", "tcp", "-m", "tcp", "--dport", "80", "-j", "ACCEPT"],
  ["-d", "10.96.0.1/32", "-j", "RETURN"],
];

const chainName = fc.constantFrom(...BUILTINS, ...USER);
const state = fc.record({
  declarations: fc.array(
    fc.record({ name: chainName, policy: fc.constantFrom("ACCEPT", "DROP"), packets: fc.nat(9) }),
    { maxLength: 14 },
  ),
  rules: fc.array(fc.record({ chain: chainName, args: fc.nat(ARGS.length - 1) }), { maxLength: 30 }),
});

interface HeldState {
  readonly declarations: readonly {
    readonly name: string;
    readonly policy: string;
    readonly packets: number;
  }[];
  readonly rules: readonly { readonly chain: string; readonly args: number }[];
}

function ruleSetOf(s: HeldState): RuleSet {
  const chains: ChainDeclaration[] = s.declarations.map((d) =>
    BUILTINS.includes(d.name)
      ? { name: d.name, policy: d.policy, counters: { packets: BigInt(d.packets), bytes: 0n } }
      : { name: d.name, policy: null },
  );
  const entries: Rule[] = s.rules.map((r) => ({
    kind: "rule",
    op: "-A",
    chain: r.chain,
    args: ARGS[r.args] as readonly string[],
  }));
  return { family: "IPv4", tables: [{ name: "nat", chains, entries }] };
}

/** What iptables-save prints for the table, the plain way. */
function reference(set: RuleSet): string {
  const table = set.tables[0];
  if (table === undefined) return "";
  const lines = new Map<string, string[]>();
  const policy = new Map<string, string>();
  for (const d of table.chains) {
    if (!lines.has(d.name)) lines.set(d.name, []);
    if (BUILTINS.includes(d.name) && d.policy !== null)
      policy.set(d.name, `${d.policy} [${d.counters?.packets ?? 0n}:${d.counters?.bytes ?? 0n}]`);
  }
  for (const e of table.entries) {
    if (e.kind !== "rule") continue;
    const list = lines.get(e.chain) ?? [];
    lines.set(e.chain, list);
    list.push(...saveLinesOfRule(e.chain, e.args, "IPv4", { backend: "nft" }));
  }
  // The names are ASCII: code-unit order is strcmp's.
  const user = [...lines.keys()]
    .filter((n) => !BUILTINS.includes(n))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let text = "*nat\n";
  for (const b of BUILTINS) text += `:${b} ${policy.get(b) ?? "ACCEPT [0:0]"}\n`;
  for (const u of user) text += `:${u} - [0:0]\n`;
  for (const name of [...BUILTINS, ...user]) for (const l of lines.get(name) ?? []) text += `${l}\n`;
  return `${text}COMMIT\n`;
}

describe("formatSave's chain placement", () => {
  test("equals a plain map-and-sort printer on states held in any order", () => {
    fc.assert(
      fc.property(state, (s) => {
        const set = ruleSetOf(s);
        expect(formatSave(set)).toBe(reference(set));
      }),
      { seed: 20_261_129, numRuns: 600 },
    );
  });

  test("a chain declared twice holds the runs placed at either declaration, in the order held", () => {
    const set: RuleSet = {
      family: "IPv4",
      tables: [
        {
          name: "nat",
          chains: [
            { name: "X", policy: null },
            { name: "Y", policy: null },
            { name: "X", policy: null },
          ],
          entries: [
            { kind: "rule", op: "-A", chain: "Y", args: ["-j", "RETURN"] },
            { kind: "rule", op: "-A", chain: "X", args: ["-j", "ACCEPT"] },
            { kind: "rule", op: "-A", chain: "Y", args: ["-j", "DROP"] },
            { kind: "rule", op: "-A", chain: "X", args: ["-j", "RETURN"] },
          ],
        },
      ],
    };
    expect(formatSave(set).split("\n").slice(5, 10)).toEqual([
      ":X - [0:0]",
      ":Y - [0:0]",
      "-A X -j ACCEPT",
      "-A X -j RETURN",
      "-A Y -j RETURN",
    ]);
  });

  test("the problem thrown is the first bad rule in the printed order, not in the order held", () => {
    const bad = (chain: string, port: string): Rule => ({
      kind: "rule",
      op: "-A",
      chain,
      args: ["-p", "tcp", "--dport", port, "-j", "ACCEPT"],
    });
    const set: RuleSet = {
      family: "IPv4",
      tables: [
        {
          name: "nat",
          chains: [
            { name: "Z", policy: null },
            { name: "A", policy: null },
          ],
          entries: [
            bad("Z", "70000"),
            { kind: "rule", op: "-A", chain: "A", args: ["-j", "RETURN"] },
            bad("A", "x"),
          ],
        },
      ],
    };
    let thrown: unknown;
    try {
      formatSave(set);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KubeIptablesError);
    expect(String((thrown as KubeIptablesError).message)).toMatch(/"x"|\bx\b/);
    expect(String((thrown as KubeIptablesError).message)).not.toMatch(/70000/);
  });
});
