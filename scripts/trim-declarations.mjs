// After `tsup`: drops the source files' module comments (`/** … @module */`) from dist/*.d.ts,
// and the @example sections of interfaces and type aliases (see below).
// The declaration bundler carries each source file's leading comment into whichever chunk its
// declarations land in, where it describes a file the package does not ship and sits before an
// unrelated declaration; they were a tenth of the packed package. Declarations' own comments stay.
//   node scripts/trim-declarations.mjs [DIST]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dist = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
// A doc comment with no `*/` inside it whose last tag is @module, and the blank lines after it.
const MODULE_COMMENT = /\/\*\*(?:(?!\*\/)[\s\S])*?@module\s*\*\/[ \t]*\n(?:[ \t]*\n)*/g;

// A doc comment (its body), the white space after it and the line it documents.
const DOC_COMMENT = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/(\s*\n\s*)([^\n]*)/g;
// A line that declares an interface or a type alias.
const TYPE_DECLARATION = /^(?:export )?(?:declare )?(?:interface|type) /;
// An @example section: up to the next tag or the end of the comment.
const EXAMPLE = /\n\s*\* @example[\s\S]*?(?=\n\s*\* @|\s*$)/g;

let removed = 0;
let examples = 0;
for (const name of readdirSync(dist)) {
  if (!name.endsWith(".d.ts")) continue;
  const file = join(dist, name);
  const text = readFileSync(file, "utf8");
  const trimmed = text
    .replace(MODULE_COMMENT, () => {
      removed++;
      return "";
    })
    // The @example of an interface or a type alias is an object literal of that type: an editor
    // shows the type itself beside it. Functions and classes keep theirs; the API reference
    // (npm run docs) has them all. They were a seventh of the packed package.
    .replace(DOC_COMMENT, (all, body, gap, line) => {
      if (!TYPE_DECLARATION.test(line)) return all;
      const kept = body
        .replace(EXAMPLE, () => {
          examples++;
          return "";
        })
        // (and the empty lines the example leaves before the comment's end)
        .replace(/(?:\n[ \t]*\*[ \t]*)+(\n[ \t]*)$/, "$1");
      return `/**${kept}*/${gap}${line}`;
    });
  if (trimmed !== text) writeFileSync(file, trimmed);
}
console.log(
  `trim-declarations: ${removed} module comments and ${examples} type examples removed from ${dist}`,
);
