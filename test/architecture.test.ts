// The house matches DESIGN.md's architecture table: every import between folders of src/ runs
// down the table, other stages reach the iptables stage through its index.ts only, and nothing
// outside cli/ imports a Node built-in (the core runs in the browser).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** DESIGN.md's table: which folders each folder may import. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  model: [],
  kube: ["model"],
  naming: ["model"],
  plan: ["model", "naming"],
  ir: [],
  iptables: ["model", "naming", "plan", "ir"],
  nftables: ["model", "naming", "plan"],
  diff: ["ir", "iptables", "naming"],
  sync: ["kube", "plan", "iptables", "diff", "ir", "model", "naming"],
  trace: ["ir"],
  graph: ["ir", "trace"],
};

/**
 * Arrows DESIGN.md's table does not draw, kept on purpose; CONTRIBUTING's Layout section says why.
 * Each is `from` (a folder or a file under src/) → a folder.
 */
const DOCUMENTED_EXCEPTIONS: readonly (readonly [from: string, to: string, why: string])[] = [
  [
    "trace",
    "iptables",
    "the tracer matches canonical rules: it runs the one canonicalizer (through iptables/index.ts)",
  ],
  ["graph", "iptables", "the graph labels edges with the canonical rule text (formatCanonicalRule)"],
  ["trace", "naming", "which chains kube-proxy owns (an endpoint's KUBE-SEP- chain) lives in naming/ only"],
  [
    "graph",
    "naming",
    "which chains kube-proxy owns (the roles of its per-service chains) lives in naming/ only",
  ],
  ["ir", "model", "one IPFamily type for the whole library, the model's (a type-only import)"],
  ["diff", "model", "diffing a dump against a cluster takes the cluster's model (a type-only import)"],
];

/** Arrows that still run against DESIGN.md (none: each line here must name a file that has one). */
const PENDING: readonly (readonly [from: string, to: string])[] = [];

/** Folders that count as part of a stage (none any more: the writers live in iptables/). */
const STAGE_ALIASES: Readonly<Record<string, string>> = {};

/** Files at the top of src/ every stage may import (they import nothing below them). */
const SHARED_ROOT_FILES = new Set(["errors.ts", "one-line.ts"]);
/** The package entries: they compose the stages and no stage imports them. */
const ENTRY_FILES = new Set(["index.ts", "util.ts", "yaml.ts"]);

/** One import of one file: the importing file and the specifier, both relative to src/. */
interface ImportEdge {
  readonly file: string;
  readonly specifier: string;
}

const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^;'"]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every import and re-export specifier of a module's text (comments are skipped). */
function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT)].map((m) => (m[1] ?? m[2]) as string);
}

/** The stage (top folder) a src/-relative path belongs to, aliases applied; null for root files. */
function stageOf(path: string): string | null {
  const slash = path.indexOf("/");
  if (slash < 0) return null;
  const top = path.slice(0, slash);
  return STAGE_ALIASES[top] ?? top;
}

function excepted(
  file: string,
  to: string,
  list: readonly (readonly [string, string, ...unknown[]])[],
): boolean {
  return list.some(([from, target]) => target === to && (file === from || file.startsWith(`${from}/`)));
}

/** The arrows among `edges` that DESIGN.md forbids, one readable line each. */
function forbiddenImports(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const { file, specifier } of edges) {
    const from = stageOf(file);
    if (specifier.startsWith("node:")) {
      if (from !== "cli") out.push(`${file} imports ${specifier}: no Node built-ins outside cli/`);
      continue;
    }
    if (!specifier.startsWith(".")) continue; // a package dependency
    const target = posix.normalize(posix.join(posix.dirname(file), specifier));
    if (target.startsWith("..")) {
      out.push(`${file} imports ${specifier}, outside src/`);
      continue;
    }
    const to = stageOf(target);
    if (from === to) continue;
    if (to === null) {
      const root = target.replace(/\.js$/, ".ts");
      if (ENTRY_FILES.has(root) && from !== null && from !== "cli")
        out.push(`${file} imports the entry ${root}`);
      if (from === null && SHARED_ROOT_FILES.has(file) && !SHARED_ROOT_FILES.has(root))
        out.push(`${file} imports ${root}: the shared root files import nothing below them`);
      continue;
    }
    if (from === null) {
      if (SHARED_ROOT_FILES.has(file))
        out.push(`${file} imports ${target}: the shared root files import nothing below them`);
      continue; // the entries compose every stage
    }
    if (from === "cli") continue;
    const allowed =
      (MAY_IMPORT[from] ?? []).includes(to) ||
      excepted(file, to, DOCUMENTED_EXCEPTIONS) ||
      excepted(file, to, PENDING);
    if (!allowed) {
      out.push(`${file} imports ${target}: ${from}/ may not import ${to}/`);
      continue;
    }
    // The iptables stage is reached through its API.
    if (
      to === "iptables" &&
      target.startsWith("iptables/") &&
      target !== "iptables/index.js" &&
      !excepted(file, to, PENDING)
    )
      out.push(`${file} imports ${target}: other stages import the iptables stage through iptables/index.ts`);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function srcEdges(): ImportEdge[] {
  return sourceFiles(SRC).flatMap((path) => {
    const file = relative(SRC, path).split("\\").join("/");
    return specifiersOf(readFileSync(path, "utf8")).map((specifier) => ({ file, specifier }));
  });
}

describe("architecture (DESIGN.md's table)", () => {
  const edges = srcEdges();

  it("reads the imports of every module of src/", () => {
    // A sanity floor: the reader found the imports (an empty list would pass everything).
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual({ file: "errors.ts", specifier: "./one-line.js" });
  });

  it("has no import that runs against the table", () => {
    expect(forbiddenImports(edges)).toEqual([]);
  });

  it("keeps no exception that nothing needs any more", () => {
    const needed = (from: string, to: string): boolean =>
      edges.some(({ file, specifier }) => {
        if (!(file === from || file.startsWith(`${from}/`)) || !specifier.startsWith(".")) return false;
        return stageOf(posix.normalize(posix.join(posix.dirname(file), specifier))) === to;
      });
    const stale = [...DOCUMENTED_EXCEPTIONS, ...PENDING].filter(([from, to]) => !needed(from, to));
    expect(stale.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
  });

  it("is the list README's Layout section gives: every folder of src/, each below what it imports", () => {
    const readme = readFileSync(join(SRC, "..", "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("### Layout"),
      readme.indexOf("\n## ", readme.indexOf("### Layout")),
    );
    const listed = [...section.matchAll(/^\| `([a-z]+)\/` \|/gm)].map((m) => m[1] as string);
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect([...listed].sort()).toEqual([...folders].sort());
    // Each folder's imports (the table's and the documented exceptions) are listed above it.
    const above = (from: string, to: string) => listed.indexOf(to) < listed.indexOf(from);
    const arrows = [
      ...Object.entries(MAY_IMPORT).flatMap(([from, tos]) => tos.map((to) => [from, to] as const)),
      ...DOCUMENTED_EXCEPTIONS.map(([from, to]) => [from.split("/")[0] as string, to] as const),
    ];
    expect(arrows.filter(([from, to]) => !above(from, to)).map(([from, to]) => `${from} → ${to}`)).toEqual(
      [],
    );
    // cli/ may import anything: it comes last.
    expect(listed.at(-1)).toBe("cli");
  });

  describe("the checker", () => {
    it("refuses an arrow up the table", () => {
      expect(forbiddenImports([{ file: "kube/validate.ts", specifier: "../plan/index.js" }])).toEqual([
        "kube/validate.ts imports plan/index.js: kube/ may not import plan/",
      ]);
      expect(forbiddenImports([{ file: "plan/index.ts", specifier: "../iptables/index.js" }])).toHaveLength(
        1,
      );
      expect(
        forbiddenImports([{ file: "nftables/layout.ts", specifier: "../iptables/context.js" }]),
      ).toHaveLength(1);
    });

    it("refuses a stage importing the iptables stage's internals", () => {
      expect(
        forbiddenImports([{ file: "diff/summary.ts", specifier: "../iptables/canonical/canonicalize.js" }]),
      ).toEqual([
        "diff/summary.ts imports iptables/canonical/canonicalize.js: other stages import the iptables stage through iptables/index.ts",
      ]);
      expect(forbiddenImports([{ file: "diff/summary.ts", specifier: "../iptables/index.js" }])).toEqual([]);
    });

    it("refuses Node built-ins outside cli/, and the entries or stages below errors.ts", () => {
      expect(forbiddenImports([{ file: "trace/trace.ts", specifier: "node:fs" }])).toHaveLength(1);
      expect(forbiddenImports([{ file: "cli/io.ts", specifier: "node:fs" }])).toEqual([]);
      expect(forbiddenImports([{ file: "errors.ts", specifier: "./iptables/index.js" }])).toHaveLength(1);
      expect(forbiddenImports([{ file: "kube/list.ts", specifier: "../index.js" }])).toHaveLength(1);
    });

    it("reads every form of import and re-export, and skips comments", () => {
      const text = [
        'import { a } from "./a.js";',
        'import type { B } from "../b.js";',
        'export { c } from "./c.js";',
        'export type * from "./d.js";',
        'import "./e.js";',
        'const f = await import("./f.js");',
        "import {\n  g,\n  type H,\n} from './g.js';",
        '// import { x } from "../x.js";',
        '/** @example\n * import { y } from "../y.js";\n */',
      ].join("\n");
      expect(specifiersOf(text)).toEqual([
        "./a.js",
        "../b.js",
        "./c.js",
        "./d.js",
        "./e.js",
        "./f.js",
        "./g.js",
      ]);
    });
  });
});
