// Text a user may paste, broken in every way a few edits can break it: the reader and the model
// builder answer with problems, never with an exception, and never print to the process's
// stderr. The edits insert YAML and JSON syntax (anchors, aliases, tags, directives, quotes,
// brackets, NUL, a byte order mark), delete spans and copy spans elsewhere, starting from the
// example cluster file and the example kubectl List. Seeded, so a failure reproduces.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { prepareCluster } from "../../src/index.js";
import { readClusterText } from "../../src/kube/read-input.js";
import { ROOT } from "../support/run-cli.js";

const SEED = 20261122;
const LIST = readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8");
const TEXTS = [
  readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8"),
  LIST,
  // The same JSON read as YAML (a comment first): flow mappings, where an inserted `[x]: y, `
  // is a collection key.
  `# kubectl get svc,endpointslices -A -o json\n${LIST}`,
];
const PIECES = [
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
  '"',
  "'",
  "- ",
  " ",
  "\n",
  "\t",
  "&a ",
  "*a",
  "!!binary ",
  "!!str ",
  "---\n",
  "...\n",
  "# ",
  "|",
  ">",
  "\\",
  "\u0000",
  "\ufeff",
  "null",
  "~",
  "1e999",
  "0x",
  "? ",
  "%YAML 1.1\n",
  "<<: *a",
  "kind: List\n",
  '{"kind": "Service"}',
  "? [a, b]\n: c\n",
  "{[x]: y}",
  '[x]: "y", ',
];

type Edit =
  | { at: number; kind: "insert"; piece: string }
  | { at: number; kind: "delete" | "copy"; from: number; length: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ at: fc.nat(), kind: fc.constant("insert" as const), piece: fc.constantFrom(...PIECES) }),
  fc.record({
    at: fc.nat(),
    kind: fc.constantFrom("delete" as const, "copy" as const),
    from: fc.nat(),
    length: fc.integer({ min: 1, max: 40 }),
  }),
);

function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of edits) {
    const at = e.at % (out.length + 1);
    if (e.kind === "insert") out = out.slice(0, at) + e.piece + out.slice(at);
    else if (e.kind === "delete") out = out.slice(0, at) + out.slice(at + e.length);
    else {
      const from = e.from % (out.length + 1);
      out = out.slice(0, at) + out.slice(from, from + e.length) + out.slice(at);
    }
  }
  return out;
}

describe("readClusterText on broken text", () => {
  let warnings: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    warnings = vi.spyOn(process, "emitWarning");
  });
  afterEach(() => warnings.mockRestore());

  test("problems, never exceptions or process warnings, through to the model", () => {
    const cases = fc.tuple(fc.nat(TEXTS.length - 1), fc.array(edit, { minLength: 1, maxLength: 6 }));
    fc.assert(
      fc.property(cases, ([which, edits]) => {
        const read = readClusterText(applyEdits(TEXTS[which] as string, edits));
        for (const p of read.problems) expect(p.message).not.toBe("");
        if (read.input === null || read.problems.length > 0) return;
        for (const family of ["IPv4", "IPv6"] as const) {
          const { problems } = prepareCluster(read.input, { family, origins: read.origins });
          for (const p of problems) expect(typeof p.path).toBe("string");
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
    expect(warnings).not.toHaveBeenCalled();
  });
});
