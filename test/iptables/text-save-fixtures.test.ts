import { describe, expect, it } from "vitest";
import type { Problem } from "../../src/errors.js";
import { type Backend, formatSave, parseRules, type RuleSet } from "../../src/index.js";
import { tryApplyRestore } from "../../src/iptables/state.js";
import type { IPFamily } from "../../src/ir/types.js";
import { rejectedSaveFixtures, saveFixtures } from "../support/corpora.js";

const familyOf = (f: "ipv4" | "ipv6"): IPFamily => (f === "ipv4" ? "IPv4" : "IPv6");

/** ip6tables-nft 1.8.9 drops restored rule counters (spec §10): the kernel we imitate keeps them. */
function dropRuleCounters(state: RuleSet): RuleSet {
  return {
    family: state.family,
    tables: state.tables.map((t) => ({
      ...t,
      entries: t.entries.map((e) =>
        e.kind === "rule" && e.counters !== undefined ? { ...e, counters: { packets: 0n, bytes: 0n } } : e,
      ),
    })),
  };
}

function run(input: string, family: IPFamily, backend: Backend): { state: RuleSet; problems: Problem[] } {
  const parsed = parseRules(input, { family, backend });
  const applied = tryApplyRestore(undefined, parsed.ruleSet, { noflush: false, backend });
  return { state: applied.ruleSet, problems: [...parsed.problems, ...applied.problems] };
}

const accepted = saveFixtures();

describe("iptables-save fixtures (accepted inputs)", () => {
  it("has the documented number of files", () => {
    expect(accepted.length).toBe(118);
  });
  for (const fx of accepted) {
    it(fx.file, () => {
      const family = familyOf(fx.family);
      const { state, problems } = run(fx.input, family, fx.backend);
      expect(problems).toEqual([]);
      const counters = fx.saveCommand.includes("-c");
      const printable =
        counters && fx.backend === "nft" && family === "IPv6" ? dropRuleCounters(state) : state;
      for (const [table, expected] of Object.entries(fx.saveByTable)) {
        expect(formatSave(printable, { tables: [table], counters, backend: fx.backend }), table).toBe(
          expected,
        );
      }
    });
  }
});

describe("iptables-save fixtures (rejected inputs)", () => {
  const outcomes: { file: string; exitCode: number; caught: boolean; accepted: boolean }[] = [];
  for (const fx of rejectedSaveFixtures()) {
    const file = fx.file;
    const { problems } = run(fx.input, familyOf(fx.family), fx.backend);
    outcomes.push({ file, exitCode: fx.exitCode, caught: problems.length > 0, accepted: fx.accepted });
    if (fx.accepted) {
      it(`${file} is accepted`, () => {
        expect(problems).toEqual([]);
      });
    } else if (fx.exitCode === 2) {
      it(`${file} (parse error in iptables) gives a problem`, () => {
        expect(problems.length).toBeGreaterThan(0);
      });
    }
  }
  it("reports how many refused inputs are caught", () => {
    const refused = outcomes.filter((o) => !o.accepted);
    const byCode = new Map<number, { total: number; caught: number; missed: string[] }>();
    for (const o of refused) {
      const entry = byCode.get(o.exitCode) ?? { total: 0, caught: 0, missed: [] };
      entry.total++;
      if (o.caught) entry.caught++;
      else entry.missed.push(o.file);
      byCode.set(o.exitCode, entry);
    }
    const summary = [...byCode].map(
      ([code, e]) =>
        `exit ${code}: ${e.caught}/${e.total} caught${e.missed.length ? ` (missed: ${e.missed.join(", ")})` : ""}`,
    );
    console.log(`rejected inputs: ${summary.join("; ")}`);
    expect(byCode.get(2)?.caught).toBe(byCode.get(2)?.total);
  });
});
