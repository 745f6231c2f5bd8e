// The API reference stays complete: TypeDoc converts the three entries (typedoc.json, warnings
// as errors) with zero warnings — every type a public signature names is exported, every
// exported field documented, every link resolves — and every export sits in a pipeline stage
// and carries an `@example`.
import { fileURLToPath } from "node:url";
import {
  Application,
  type Comment,
  type DeclarationReflection,
  type ProjectReflection,
  ReflectionKind,
} from "typedoc";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let project: ProjectReflection | undefined;
const messages: string[] = [];

beforeAll(async () => {
  const cwd = process.cwd();
  process.chdir(ROOT); // typedoc.json's paths (and its plugin's) are relative to the repository
  try {
    const app = await Application.bootstrapWithPlugins({ options: "typedoc.json" });
    const log = app.logger.log.bind(app.logger);
    app.logger.log = (message, level) => {
      // Warnings and errors (levels 2 and 3) are what treatWarningsAsErrors refuses.
      if (level >= 2) messages.push(String(message));
      log(message, level);
    };
    project = await app.convert();
    if (project !== undefined) app.validate(project);
  } finally {
    process.chdir(cwd);
  }
}, 300_000);

/** The top-level exports of every entry: modules' children that are declarations, not re-export references. */
function exportsOf(p: ProjectReflection): { module: string; decl: DeclarationReflection }[] {
  return p
    .getReflectionsByKind(ReflectionKind.Module)
    .flatMap((m) =>
      ((m as DeclarationReflection).children ?? [])
        .filter((c) => !c.kindOf(ReflectionKind.Reference))
        .map((decl) => ({ module: m.name, decl })),
    );
}

/** The comments TypeDoc keeps for a declaration: its own, its signatures', a function type's. */
function commentsOf(decl: DeclarationReflection): Comment[] {
  const typeDecl = decl.type?.type === "reflection" ? decl.type.declaration : undefined;
  return [
    decl.comment,
    ...(decl.signatures ?? []).map((s) => s.comment),
    typeDecl?.comment,
    ...(typeDecl?.signatures ?? []).map((s) => s.comment),
  ].filter((c): c is Comment => c !== undefined);
}

describe("the API reference (typedoc)", () => {
  it("converts with zero warnings and errors", () => {
    expect(project).toBeDefined();
    expect(messages).toEqual([]);
  });

  it("has the three entries, each export in a pipeline stage", () => {
    const p = project as ProjectReflection;
    const modules = p.getReflectionsByKind(ReflectionKind.Module).map((m) => m.name);
    expect(modules.sort()).toEqual(["kube-iptables", "kube-iptables/util", "kube-iptables/yaml"]);
    const stages = new Set([
      "Read",
      "Validate",
      "Generate",
      "Rules",
      "Format",
      "Parse",
      "Diff",
      "Sync",
      "Trace",
      "Graph",
      "Nftables",
      "Naming",
      "Errors",
    ]);
    const misplaced: string[] = [];
    for (const m of p.getReflectionsByKind(ReflectionKind.Module) as DeclarationReflection[]) {
      for (const category of m.categories ?? []) {
        if (!stages.has(category.title))
          misplaced.push(...category.children.map((c) => `${m.name}: ${c.name} (${category.title})`));
      }
    }
    expect(misplaced).toEqual([]);
    // The main entry is grouped in every stage of the pipeline.
    const main = p.getChildByName("kube-iptables") as DeclarationReflection;
    expect(new Set((main.categories ?? []).map((c) => c.title))).toEqual(stages);
  });

  it("gives every export an @example", () => {
    const missing = exportsOf(project as ProjectReflection)
      .filter(({ decl }) => !commentsOf(decl).some((c) => c.blockTags.some((t) => t.tag === "@example")))
      .map(({ module, decl }) => `${module}: ${decl.name}`);
    expect(missing).toEqual([]);
  });
});
