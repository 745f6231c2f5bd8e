// The README's quick start works as written: its library example and its CLI lines are taken
// from README.md (not copied here), and run against the built package (dist/, resolved through
// package.json's exports as an installed package is) on kubectl output, the `cluster.json` the
// README has the user write. Doc tests keep the npm page true.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The fenced code blocks of `lang` in the README section headed `heading`, in order. */
function blocksOf(heading: string, lang: string): string[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = README.indexOf("\n## ", start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1] ?? "");
}

function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

const built = existsSync(join(ROOT, "dist", "index.js"));
let work = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "kube-iptables-readme-"));
  // What `kubectl get svc,endpointslices -A -o json > cluster.json` wrote on a small cluster.
  copyFileSync(join(ROOT, "examples", "kubectl-list.json"), join(work, "cluster.json"));
  mkdirSync(join(work, "node_modules"));
  symlinkSync(ROOT, join(work, "node_modules", "kube-iptables"), "dir");
  writeFileSync(
    join(work, "package.json"),
    JSON.stringify({ name: "readme-app", private: true, type: "module" }),
  );
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!built)("README quick start (against dist/)", () => {
  it("has one library example and one CLI block", () => {
    expect(blocksOf("Quick start", "js")).toHaveLength(1);
    expect(blocksOf("Quick start", "sh")).toHaveLength(1);
  });

  it("the library example prints the restore payload the CLI prints for the same node", () => {
    writeFileSync(join(work, "example.mjs"), blocksOf("Quick start", "js")[0] ?? "");
    const lib = run("node", ["example.mjs"], work);
    expect(lib.status, lib.stderr).toBe(0);
    expect(lib.stdout).toMatch(/^\*filter\n/);
    // An endpoint of kube-dns in the kubectl output, behind its Service's chain.
    expect(lib.stdout).toContain("-j DNAT --to-destination 10.244.0.5:53");
    // The node settings of the example are the CLI example's flags.
    const cli = run(
      "node",
      [join(ROOT, "bin", "kube-iptables.js"), "generate", "cluster.json", "--hostname", "node-a"].concat([
        "--cluster-cidr",
        "10.244.0.0/16",
        "--format",
        "restore",
      ]),
      work,
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(lib.stdout).toBe(cli.stdout);
  });

  it("every CLI line runs as written and prints what the README says", () => {
    const lines = (blocksOf("Quick start", "sh")[0] ?? "")
      .split("\n")
      .filter((l) => l.startsWith("npx kube-iptables "));
    expect(lines.length).toBeGreaterThan(0);
    const outputs = lines.map((line) => {
      const args = line
        .replace(/^npx kube-iptables /, "")
        .split(/\s+/)
        .filter(Boolean);
      const r = run("node", [join(ROOT, "bin", "kube-iptables.js"), ...args], work);
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      return r.stdout;
    });
    const generate = outputs[lines.findIndex((l) => l.includes(" generate "))] ?? "";
    expect(generate).toMatch(/^\*filter\n:INPUT ACCEPT \[0:0\]/); // iptables-save text
    const trace = outputs[lines.findIndex((l) => l.includes(" trace "))] ?? "";
    expect(trace).toContain("kube-system/kube-dns:dns → 10.244.0.5:53  p=0.500000000");
    expect(trace).toContain("kube-system/kube-dns:dns → 10.244.2.21:53  p=0.500000000");
  });
});

describe("README TypeScript examples", () => {
  it("type-check against the library's sources under the strictest settings", () => {
    // Every ```ts block of the README, as a module of its own; the objects the text says the
    // reader already has are declared.
    const blocks = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(blocks.length).toBeGreaterThan(0);
    const prelude = [
      'import type { EndpointSlice as ReadmeSlice, Service as ReadmeService } from "kube-iptables";',
      "declare const services: ReadmeService[], services2: ReadmeService[];",
      "declare const endpointSlices: ReadmeSlice[], endpointSlices2: ReadmeSlice[];",
      "declare const yamlOrJsonText: string, text: string;",
      "",
    ].join("\n");
    const dir = mkdtempSync(join(tmpdir(), "kube-iptables-readme-ts-"));
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const files = blocks.map((block, i) => {
        const file = join(dir, `block-${i}.ts`);
        writeFileSync(file, `${prelude}${block}\nexport {};\n`);
        return file;
      });
      const program = ts.createProgram(files, {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ["lib.es2022.d.ts"],
        types: [],
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
        noEmit: true,
        paths: {
          "kube-iptables": [join(ROOT, "src", "index.ts")],
          "kube-iptables/*": [join(ROOT, "src", "*.ts")],
        },
      });
      const errors = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file === undefined || d.file.fileName.startsWith(dir))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
