import { defineConfig } from "tsup";

/** The published entries: the library, its lower-level pieces, its YAML reader, and the CLI. */
const LIBRARY = { index: "src/index.ts", util: "src/util.ts", yaml: "src/yaml.ts" };

export default defineConfig({
  entry: { ...LIBRARY, cli: "src/cli/main.ts" },
  format: ["esm"],
  platform: "neutral",
  target: "es2022",
  // Members marked @internal (parser and diff plumbing on public types) stay out of the types.
  dts: { entry: LIBRARY, compilerOptions: { stripInternal: true } },
  clean: true,
  // No source maps in the published build: they were two thirds of the unpacked package. Build
  // with `npx tsup --sourcemap` for profiling (bench/profile.mjs maps dist back to src/ with them).
  sourcemap: false,
  // Minified, with every function and class keeping its name (`keepNames` sets each one's
  // `name`, which V8 prints in stack traces): a trace still names the functions it went through
  // (at chunk-….js:LINE:COLUMN instead of a readable line). Without identifier minification the
  // package passed its 200 kB budget once the rule shapes and the two writer sets were in.
  // `npx tsup --sourcemap` maps it back to src/ for profiling.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  keepNames: true,
  splitting: true,
  treeshake: true,
  // The CLI imports `node:fs`; keep the prefix (tsup would strip it, and `fs` is a bare name a
  // bundler may try to resolve as a package).
  removeNodeProtocol: false,
  external: [/^node:/],
  // The small runtime dependencies are bundled in: Node loads each package as a module of its
  // own (ipaddr.js, CommonJS, also through its export scanner), which was half of the CLI's
  // module loading (≈ 60 → 32 ms CPU). yaml stays outside: only YAML input loads it. So does
  // js-sha256: its pure-JS build is one ES module, which Node loads for no measurable time
  // (alternated CLI runs on the example, 0.43 against 0.45 s CPU), and bundled it was 3.4 kB
  // of the packed package's 200 kB budget.
  noExternal: ["ipaddr.js", "base32-encode", "to-data-view"],
});
