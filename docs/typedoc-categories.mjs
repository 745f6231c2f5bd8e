// A TypeDoc plugin: every export of the API reference gets the `@category` of its pipeline
// stage, read from the folder (or file) it is defined in, so that the reference is grouped as
// the pipeline runs (Read → Validate → Generate → Format; Parse, Diff, Sync, Trace; nftables
// mode and the graph beside them) and an export added later lands in its stage without a tag
// to remember. An explicit `@category` in a doc comment wins.
import { Comment, CommentTag, Converter, ReflectionKind } from "typedoc";
import ts from "typescript";

/** Source path prefixes (under src/), most specific first, and their stage. */
const STAGES = [
  ["kube/list.ts#validateKubernetesList", "Validate"],
  ["kube/list.ts#validateObjectKinds", "Validate"],
  ["kube/types.ts", "Read"],
  ["kube/read-", "Read"],
  ["kube/list.ts", "Read"],
  ["kube/merge-input.ts", "Read"],
  ["kube/endpoints-mirror.ts", "Read"],
  ["kube/validate-report.ts", "Read"],
  ["kube/", "Validate"],
  ["model/", "Validate"],
  ["generate/", "Generate"],
  ["iptables/output/", "Generate"],
  ["plan/", "Generate"],
  ["nftables/", "Nftables"],
  ["graph/", "Graph"],
  ["ir/", "Rules"],
  ["iptables/parse/", "Parse"],
  ["iptables/canonical/", "Rules"],
  ["iptables/state.ts", "Rules"],
  ["iptables/", "Format"],
  ["diff/", "Diff"],
  ["sync/", "Sync"],
  ["trace/", "Trace"],
  ["naming/", "Naming"],
  ["errors.ts", "Errors"],
];

/** The stage of a declaration defined in `file` (a path containing `src/`), or undefined. */
export function stageOf(file, name) {
  const at = file.lastIndexOf("src/");
  if (at < 0) return undefined;
  const path = file.slice(at + 4);
  for (const [prefix, stage] of STAGES) {
    const [p, only] = prefix.split("#");
    if (path.startsWith(p) && (only === undefined || only === name)) return stage;
  }
  return undefined;
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  /** Where each top-level declaration is declared: a re-export's own source is the entry file. */
  const declaredIn = new Map();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (reflection.parent?.kind !== ReflectionKind.Module) return;
    let symbol = context.getSymbolFromReflection(reflection);
    if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) {
      symbol = context.checker.getAliasedSymbol(symbol);
    }
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName;
    if (file !== undefined) declaredIn.set(reflection, file);
  });
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
        for (const child of module.children ?? []) {
          const file = declaredIn.get(child) ?? child.sources?.[0]?.fullFileName;
          const stage = file === undefined ? undefined : stageOf(file, child.name);
          if (stage === undefined) continue;
          // Functions carry their doc comment on the signature.
          const holder = child.signatures?.[0] ?? child;
          holder.comment ??= new Comment();
          const tags = [holder.comment, child.comment].flatMap((c) => c?.blockTags ?? []);
          if (tags.some((t) => t.tag === "@category")) continue;
          holder.comment.blockTags.push(new CommentTag("@category", [{ kind: "text", text: stage }]));
        }
      }
    },
    100,
  );
}
