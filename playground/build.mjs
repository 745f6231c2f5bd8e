// Builds the playground into playground/dist: the page, its stylesheet, and the script bundled
// by esbuild (ES modules with code splitting, so the layout library is a chunk of its own that
// the page loads when it first draws). Prints each file's size.
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "dist");

/** Builds the playground; returns the output files and their sizes in bytes. */
export async function buildPlayground({ quiet = false } = {}) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: { main: join(here, "src", "main.ts") },
    bundle: true,
    format: "esm",
    splitting: true,
    platform: "browser",
    target: "es2022",
    minify: true,
    outdir: out,
    loader: { ".yaml": "text" },
    metafile: true,
    logLevel: quiet ? "error" : "warning",
  });
  copyFileSync(join(here, "index.html"), join(out, "index.html"));
  copyFileSync(join(here, "style.css"), join(out, "style.css"));
  const sizes = {};
  for (const file of Object.keys(result.metafile.outputs)) sizes[relative(out, file)] = statSync(file).size;
  if (!quiet)
    for (const [file, size] of Object.entries(sizes))
      console.log(`playground/dist/${file}  ${(size / 1024).toFixed(1)} KiB`);
  return sizes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildPlayground();
