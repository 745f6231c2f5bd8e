// The injection fuzzer (test/fuzz/injection.ts) on the sources, as part of `npm test`: hostile
// text in every field either gets refused or prints rules that parse back to exactly what was
// generated. `npm run fuzz` runs the same property a million times against dist/.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { formatProblem } from "../src/errors.js";
import { formatRestore, quoteArgument } from "../src/format/restore.js";
import { formatSave } from "../src/format/save.js";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { generateRules, generateState } from "../src/iptables/output/rules.js";
import { generateSaveText } from "../src/iptables/output/save-text.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import {
  argvArbitrary,
  buildInjected,
  checkInjection,
  checkQuoting,
  injectionCaseArbitrary,
  type Library,
  type Outcome,
} from "./fuzz/injection.js";

const SEED = 8_0808;
const lib: Library = {
  prepareCluster,
  generateRules,
  generateState,
  formatRestore,
  formatSave,
  formatProblem,
  quoteArgument,
  generateRestoreText,
  generateSaveText,
};

describe("injection", () => {
  test("hostile text in any field is refused or prints exactly the intended rules", () => {
    const outcomes: Record<Outcome, number> = { refused: 0, "partly-left-out": 0, accepted: 0 };
    fc.assert(
      fc.property(injectionCaseArbitrary, (c) => {
        outcomes[checkInjection(lib, buildInjected(c))]++;
      }),
      { seed: SEED, numRuns: 2000 },
    );
    // Each branch of the property is exercised (a fuzzer that only sees refusals proves little).
    expect(outcomes.refused).toBeGreaterThan(100);
    expect(outcomes["partly-left-out"]).toBeGreaterThan(100);
    expect(outcomes.accepted).toBeGreaterThan(100);
  });

  test("quoteArgument and the restore tokenizer round-trip any argv", () => {
    fc.assert(
      fc.property(argvArbitrary, (argv) => checkQuoting(lib, argv)),
      { seed: SEED, numRuns: 5000 },
    );
  });

  test("the checks can fail: an injected line is caught", () => {
    // A library whose restore emitter forgets to quote a comment, as a careless one would.
    const careless: Library = {
      ...lib,
      formatRestore: (rs) => formatRestore(rs).replace(/--comment "([^"]*)"/, "--comment $1"),
    };
    const input = buildInjected({
      base: 0,
      edits: [{ slot: 0, twins: false, with: { kind: "splice", fragment: "", at: 0 } }],
    });
    expect(checkInjection(lib, input)).not.toBe("refused");
    expect(() => checkInjection(careless, input)).toThrow(/restore text/);
    expect(() => checkQuoting({ ...lib, quoteArgument: (a) => a }, ["a b"])).toThrow(/came back/);
  });
});
