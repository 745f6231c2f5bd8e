import { defineConfig } from "tsup";

/** The published entries: the library, its lower-level pieces, its YAML reader, and the CLI. */
const LIBRARY = { index: "src/index.ts", util: "src/util.ts", yaml: "src/yaml.ts" };

export default defineConfig({
  entry: { ...LIBRARY, cli: "src/cli/main.ts" },
  format: ["esm"],
  platform: "neutral",
  target: "es2022",
  dts: { entry: LIBRARY },
  clean: true,
  // No source maps in the published build: they were two thirds of the unpacked package. Build
  // with `npx tsup --sourcemap` for profiling (bench/profile.mjs maps dist back to src/ with them).
  sourcemap: false,
  // Whitespace only: the published JS loses its indentation and line breaks (≈ 20 kB of the
  // packed 214 kB once nftables mode and the graph were in), while every identifier keeps its
  // name, so a stack trace still names the functions it went through (at chunk-….js:LINE:COLUMN
  // instead of a readable line). Syntax minification (shorter forms, no renaming) saves ≈ 2 kB
  // more, which the README's growth needed; identifiers are never minified.
  // `npx tsup --sourcemap` maps it back to src/ for profiling.
  minifyWhitespace: true,
  minifySyntax: true,
  splitting: true,
  treeshake: true,
  // The CLI imports `node:fs`; keep the prefix (tsup would strip it, and `fs` is a bare name a
  // bundler may try to resolve as a package).
  removeNodeProtocol: false,
  external: [/^node:/],
  // The small runtime dependencies are bundled in: Node loads each package as a module of its
  // own (ipaddr.js, CommonJS, also through its export scanner), which was half of the CLI's
  // module loading (≈ 60 → 32 ms CPU). yaml stays outside: only YAML input loads it.
  noExternal: ["ipaddr.js", "base32-encode", "to-data-view", "js-sha256"],
});
