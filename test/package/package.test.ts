// Smoke test of what `npm publish` would ship: build, pack, install the tarball into a fresh
// project, then import *and* require it in child processes (the checkers alone miss run-time
// interop bugs, e.g. an ESM-only dependency in a CJS build), and lint the result with publint.
//
// The build runs in a copy of the package sources, not in the working tree: `tsup` cleans
// `dist/` first, and other test files running in parallel may be using that `dist/`.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  dependencies?: Record<string, string>;
};
/** What the build needs from the working tree (anything else, like tests, stays out). */
const SOURCES = [
  "package.json",
  "README.md",
  "LICENSE",
  "bin",
  "src",
  "tsconfig.json",
  "tsconfig.cli.json",
  "tsup.config.ts",
  "scripts/trim-declarations.mjs",
];

/** A tiny cluster: one ClusterIP service, one ready endpoint. */
const CLUSTER = {
  config: { ipFamily: "IPv4", hostname: "node-a", nodeIPs: ["198.18.0.2"] },
  services: [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
      },
    },
  ],
  endpointSlices: [
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      endpoints: [
        {
          addresses: ["10.244.1.5"],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: "node-b",
        },
      ],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    },
  ],
};

/** Child-process body shared by import and require: prints one JSON line of what it found. */
const PROBE = `
const names = ["modelFromKubernetes", "generateRules", "generateState", "formatRestore", "formatSave"];
const missing = names.filter((n) => typeof m[n] !== "function");
const cluster = ${JSON.stringify(CLUSTER)};
const restore = missing.length ? "" : m.formatRestore(m.generateRules(m.modelFromKubernetes(cluster)));
console.log(JSON.stringify({ missing, restore }));
`;

function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 180_000,
  });
  return {
    status: r.status,
    stdout: r.stdout ?? "",
    stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}`,
  };
}

function mustRun(cmd: string, args: readonly string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** Parses the probe's JSON line (the last stdout line; warnings go to stderr). */
function probeResult(stdout: string): { missing: string[]; restore: string } {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as { missing: string[]; restore: string };
}

// Until the lead's entry point exists there is nothing to pack: todo, not a red herring failure.
const ready = existsSync(join(ROOT, "src", "index.ts"));

describe.skipIf(!ready)("the packed tarball", () => {
  let work = "";
  let app = "";
  let installedDir = "";
  let tarball = "";
  let packedSize = 0;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "kube-iptables-pack-"));
    const pkg = join(work, "pkg");
    mkdirSync(pkg);
    for (const name of SOURCES) {
      if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(pkg, name), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"), "dir");
    // `npm run build`'s two steps, run here without npm.
    mustRun(join(ROOT, "node_modules", ".bin", "tsup"), [], pkg);
    mustRun(process.execPath, [join("scripts", "trim-declarations.mjs")], pkg);
    // --ignore-scripts: `prepare` would run the build again; it just ran.
    const packed = JSON.parse(
      mustRun("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], pkg),
    ) as {
      filename: string;
      size: number;
    }[];
    const pack = packed[0] as { filename: string; size: number };
    tarball = join(work, pack.filename);
    packedSize = pack.size;

    app = join(work, "app");
    mkdirSync(app);
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "smoke-app", private: true, type: "module" }),
    );
    // The dependencies are in the npm cache after `npm ci`, so no network is needed.
    const install = run(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball],
      app,
    );
    installedDir = join(app, "node_modules", PKG.name);
    if (install.status !== 0) {
      // Fallback when the cache lacks something: unpack by hand, borrow our own node_modules.
      console.warn(`npm install --offline failed, unpacking by hand:\n${install.stderr}`);
      rmSync(join(app, "node_modules"), { recursive: true, force: true });
      mkdirSync(join(app, "node_modules"), { recursive: true });
      mustRun("tar", ["-xzf", tarball, "-C", work], work);
      cpSync(join(work, "package"), installedDir, { recursive: true });
      for (const dep of Object.keys(PKG.dependencies ?? {})) {
        const target = join(app, "node_modules", dep);
        mkdirSync(join(target, ".."), { recursive: true });
        symlinkSync(join(ROOT, "node_modules", dep), target, "dir");
      }
    }
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("contains the build, the CLI, the license and readme, and no sources, tests, maps or changelog", () => {
    const list = mustRun("tar", ["-tzf", tarball], work).split("\n").filter(Boolean);
    for (const file of ["package.json", "LICENSE", "README.md", "bin/kube-iptables.js", "dist/cli.js"]) {
      expect(list).toContain(`package/${file}`);
    }
    for (const entry of ["index", "util", "yaml"]) {
      expect(list).toContain(`package/dist/${entry}.js`);
      expect(list).toContain(`package/dist/${entry}.d.ts`);
    }
    expect(list.filter((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toEqual([]);
    expect(list.filter((f) => f.endsWith(".map"))).toEqual([]);
    // The changelog stays in the repository (the README links it): the tarball's budget.
    expect(list).not.toContain("package/CHANGELOG.md");
    // The declarations keep their own comments, not the source files' module comments.
    const declarations = readdirSync(join(installedDir, "dist")).filter((f) => f.endsWith(".d.ts"));
    for (const f of declarations) {
      const text = readFileSync(join(installedDir, "dist", f), "utf8");
      expect(text, f).not.toContain("@module");
    }
    expect(readFileSync(join(installedDir, "dist", "index.d.ts"), "utf8")).toContain(
      "Traces the first packet of a new connection",
    );
    expect(readFileSync(join(installedDir, "LICENSE"), "utf8")).toContain(
      "Apache License\n                           Version 2.0",
    );
  });

  it("is at most 200 kB packed", () => {
    expect(packedSize).toBeGreaterThan(0);
    expect(packedSize).toBeLessThanOrEqual(200_000);
  });

  it("has its subpath entries: kube-iptables/yaml reads YAML, kube-iptables/util has the lower-level pieces", () => {
    const probe = `
      const yaml = await import("kube-iptables/yaml");
      const util = await import("kube-iptables/util");
      const main = await import("kube-iptables");
      const read = yaml.readClusterText("services: []\\nendpointSlices: []\\n");
      console.log(JSON.stringify({
        shape: read.shape,
        util: ["buildModel", "resolveConfig", "mergeClusterReads", "applyRestore", "quoteArgument"].filter((n) => typeof util[n] !== "function"),
        internal: ["relocateProblems", "remapListPaths", "mergeClusterReads", "applyRestore", "quoteArgument", "readClusterText"].filter((n) => n in main),
      }));`;
    const r = run("node", ["--input-type=module", "-e", probe], app);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "")).toEqual({
      shape: "cluster",
      util: [],
      internal: [],
    });
  });

  it("does not load the YAML parser when the main entry is imported (a loader hook refuses it)", () => {
    // A resolve hook that fails the import of the yaml package; the import of kube-iptables/yaml
    // under the same hook shows that the hook does see it.
    writeFileSync(
      join(app, "no-yaml-hooks.mjs"),
      `export async function resolve(specifier, context, next) {
        const r = await next(specifier, context);
        if (/[\\/]node_modules[\\/]yaml[\\/]/.test(r.url)) throw new Error("the yaml package was loaded");
        return r;
      }\n`,
    );
    writeFileSync(
      join(app, "no-yaml.mjs"),
      `import { register } from "node:module";\nregister("./no-yaml-hooks.mjs", import.meta.url);\n`,
    );
    const importing = (specifier: string) =>
      run(
        "node",
        [
          "--import",
          "./no-yaml.mjs",
          "--input-type=module",
          "-e",
          `await import(${JSON.stringify(specifier)});`,
        ],
        app,
      );
    const main = importing("kube-iptables");
    expect(main.status, main.stderr).toBe(0);
    const util = importing("kube-iptables/util");
    expect(util.status, util.stderr).toBe(0);
    const yaml = importing("kube-iptables/yaml");
    expect(yaml.status).not.toBe(0);
    expect(yaml.stderr).toContain("the yaml package was loaded");
  });

  it("can be imported (ESM) and produces restore text", () => {
    const r = run(
      "node",
      ["--input-type=module", "-e", `const m = await import(${JSON.stringify(PKG.name)});${PROBE}`],
      app,
    );
    expect(r.status, r.stderr).toBe(0);
    const { missing, restore } = probeResult(r.stdout);
    expect(missing).toEqual([]);
    expect(restore).toMatch(/^\*filter\n/);
    expect(restore).toContain("*nat\n");
    expect(restore).toContain("-d 10.96.0.10");
  });

  it("can be required (CJS, Node >= 20.19 loads our ESM) and produces the same text", () => {
    const esm = probeResult(
      run(
        "node",
        ["--input-type=module", "-e", `const m = await import(${JSON.stringify(PKG.name)});${PROBE}`],
        app,
      ).stdout,
    );
    const r = run(
      "node",
      ["--input-type=commonjs", "-e", `const m = require(${JSON.stringify(PKG.name)});${PROBE}`],
      app,
    );
    expect(r.status, r.stderr).toBe(0);
    const cjs = probeResult(r.stdout);
    expect(cjs.missing).toEqual([]);
    expect(cjs.restore).toBe(esm.restore);
  });

  /** Writes `text` as `file` in the app and runs the installed CLI's `generate --format restore` on it. */
  function generateWithInstalledCli(file: string, text: string): void {
    writeFileSync(join(app, file), text);
    const r = run(
      "node",
      [join(installedDir, "bin", "kube-iptables.js"), "generate", file, "--format", "restore"],
      app,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("*nat\n");
  }

  it("ships a working CLI", () => {
    generateWithInstalledCli("cluster.json", JSON.stringify(CLUSTER));
  });

  it("loads the YAML parser only when the CLI meets YAML (it is a third of the CLI's start-up)", () => {
    // The bare modules a built file imports statically, following its chunks.
    const staticImports = (file: string, seen = new Set<string>()): Set<string> => {
      const bare = new Set<string>();
      if (seen.has(file)) return bare;
      seen.add(file);
      const text = readFileSync(join(installedDir, "dist", file), "utf8");
      for (const [, spec] of text.matchAll(/^(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/gm)) {
        if (spec === undefined) continue;
        if (spec.startsWith("./")) for (const b of staticImports(spec.slice(2), seen)) bare.add(b);
        else bare.add(spec);
      }
      return bare;
    };
    expect(staticImports("index.js")).not.toContain("yaml");
    expect(staticImports("yaml.js")).toContain("yaml");
    const cli = staticImports("cli.js");
    // The small runtime dependencies are bundled into the build: loading each package as a
    // module of its own was half of the CLI's module loading.
    expect(cli).not.toContain("ipaddr.js");
    expect(cli).not.toContain("base32-encode");
    expect(cli).not.toContain("yaml");
    // And YAML still reads, through the parser loaded on demand.
    generateWithInstalledCli("cluster.yaml", `# YAML\n${JSON.stringify(CLUSTER)}\n`);
  });

  it("passes publint (warnings count as errors)", async () => {
    const { publint } = await import("publint");
    const { formatMessage } = await import("publint/utils");
    // pack: false lints the installed files as they are, i.e. exactly the tarball's content.
    const result = await publint({ pkgDir: installedDir, pack: false, strict: true, level: "warning" });
    const messages = result.messages.map(
      (m) => `${m.type}: ${formatMessage(m, result.pkg, { color: false }) ?? m.code}`,
    );
    expect(messages).toEqual([]);
  });
});

if (!ready) {
  describe("the packed tarball (waiting for src/index.ts)", () => {
    it.todo("packs, installs, imports, requires and passes publint");
  });
}
