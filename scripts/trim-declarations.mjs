// After `tsup`: drops the source files' module comments (`/** … @module */`) from dist/*.d.ts.
// The declaration bundler carries each source file's leading comment into whichever chunk its
// declarations land in, where it describes a file the package does not ship and sits before an
// unrelated declaration; they were a tenth of the packed package. Declarations' own comments stay.
//   node scripts/trim-declarations.mjs [DIST]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dist = process.argv[2] ?? join(import.meta.dirname, "..", "dist");
// A doc comment with no `*/` inside it whose last tag is @module, and the blank lines after it.
const MODULE_COMMENT = /\/\*\*(?:(?!\*\/)[\s\S])*?@module\s*\*\/[ \t]*\n(?:[ \t]*\n)*/g;

let removed = 0;
for (const name of readdirSync(dist)) {
  if (!name.endsWith(".d.ts")) continue;
  const file = join(dist, name);
  const text = readFileSync(file, "utf8");
  const trimmed = text.replace(MODULE_COMMENT, () => {
    removed++;
    return "";
  });
  if (trimmed !== text) writeFileSync(file, trimmed);
}
console.log(`trim-declarations: ${removed} module comments removed from ${dist}`);
