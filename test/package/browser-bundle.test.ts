// The core runs in a browser (DESIGN.md: no `node:` imports outside cli/, browser-safe
// dependencies). The library's entries (src/index.ts, src/yaml.ts, src/util.ts) are bundled for
// the browser platform with every dependency inlined,
// and the bundle, run in a fresh V8 context that has none of Node's globals (no process, Buffer,
// require, TextEncoder), must give the same texts as the library does under Node. An import of a
// Node built-in fails here too: the bundler leaves it as a `require` the context does not have.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as main from "../../src/index.js";
import * as util from "../../src/util.js";
import * as yaml from "../../src/yaml.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLE = readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8");

const library = { ...main, ...util, ...yaml };
type Library = typeof library;

let out: string;
let bundled: Library;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "kube-iptables-browser-"));
  // One bundle of the three entries, as a web page importing all of them gets.
  const entry = join(out, "entry.ts");
  writeFileSync(
    entry,
    ["index", "util", "yaml"]
      .map((e) => `export * from ${JSON.stringify(join(ROOT, "src", `${e}.ts`))};\n`)
      .join(""),
  );
  await build({
    config: false,
    entry: { core: entry },
    outDir: out,
    format: ["iife"],
    globalName: "kubeIptables",
    platform: "browser",
    target: "es2022",
    noExternal: [/.*/],
    dts: false,
    sourcemap: false,
    silent: true,
  });
  const code = readFileSync(join(out, "core.global.js"), "utf8");
  // A context of its own has the language's built-ins and nothing of Node's.
  const context: Record<string, unknown> = {};
  runInNewContext(code, context, { filename: "core.global.js" });
  bundled = context.kubeIptables as Library;
}, 120_000);

afterAll(() => {
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

/** The example cluster's model, read (YAML) and validated by `lib`. */
function exampleModel(lib: Library): main.ClusterModel {
  const read = lib.readClusterText(EXAMPLE);
  expect(read.problems).toEqual([]);
  const { model, problems } = lib.prepareCluster(read.input as main.ClusterInput);
  expect(problems).toEqual([]);
  expect(model).not.toBeNull();
  return model as main.ClusterModel;
}

describe("the core bundled for the browser", () => {
  it("reads YAML, validates and generates without Node's globals, as the library does", () => {
    const model = exampleModel(bundled);
    const expected = exampleModel(library);
    expect(model).toEqual(expected);
    const restore = bundled.generateRestoreText(model);
    expect(restore).toContain("-j KUBE-SEP-");
    expect(restore).toBe(library.generateRestoreText(expected));
    expect(bundled.generateSaveText(model)).toBe(library.generateSaveText(expected));
  });

  it("parses rule text and names chains there too", () => {
    const text = library.generateSaveText(exampleModel(library));
    const parsed = bundled.parseRules(text);
    expect(parsed.problems).toEqual([]);
    expect(bundled.formatSave(parsed.ruleSet)).toBe(library.formatSave(library.parseRules(text).ruleSet));
    expect(bundled.chainHash("ns1/svc1:p80tcp")).toBe("XPGD46QRK7WJZT7O");
  });
});
