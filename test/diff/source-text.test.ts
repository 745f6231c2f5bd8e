// `diff DUMP CLUSTER` finds most chains equal by the bytes of the dump's lines (see
// src/diff/saved-state.ts, withSourceText). These dumps hold the same rules as the cluster's but
// spelled or placed otherwise, so the byte comparison fails and the rule-by-rule one must still
// find them equal; and a dump one rule apart must still differ, in that chain only.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runDiff } from "../../src/cli/diff.js";
import { runGenerate } from "../../src/cli/generate.js";
import { captureCli as capture } from "../support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "kit-diff-source-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLUSTER = join(import.meta.dirname, "..", "..", "examples", "cluster.yaml");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The node's own dump of the example cluster (what kube-proxy's first sync leaves). */
async function nodeDump(): Promise<string[]> {
  const r = await capture(() => runGenerate([CLUSTER]));
  expect(r.code).toBe(0);
  return r.out.split("\n");
}

/** The first line of a chain's rules, and how many it has. */
function runOf(lines: readonly string[], prefix: string): { at: number; count: number; chain: string } {
  const at = lines.findIndex((l) => l.startsWith(`-A ${prefix}`));
  expect(at).toBeGreaterThan(0);
  const chain = (lines[at] as string).split(" ")[1] as string;
  let count = 0;
  while (lines[at + count]?.startsWith(`-A ${chain} `)) count++;
  return { at, count, chain };
}

async function diff(name: string, lines: readonly string[], ...flags: string[]) {
  return capture(() => runDiff([file(name, lines.join("\n")), CLUSTER, ...flags]));
}

describe("diff DUMP CLUSTER: chains compared by their bytes, else rule by rule", () => {
  it("finds the node's own dump equal", async () => {
    const r = await diff("same.save", await nodeDump());
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });

  it("finds a rule spelled with another blank equal", async () => {
    const lines = await nodeDump();
    const { at } = runOf(lines, "KUBE-SEP-");
    lines[at] = (lines[at] as string).replace(" -j ", "  -j ");
    const r = await diff("blank.save", lines);
    expect(r.code).toBe(0);
  });

  it("finds a rule with counters (iptables-save -c) equal", async () => {
    const lines = await nodeDump();
    const { at } = runOf(lines, "KUBE-SVC-");
    lines[at] = `[7:420] ${lines[at]}`;
    const r = await diff("counters.save", lines);
    expect(r.code).toBe(0);
  });

  it("finds a chain whose rules are two runs apart, in the same order, equal", async () => {
    const lines = await nodeDump();
    const { at, count } = runOf(lines, "KUBE-SEP-");
    expect(count).toBe(2);
    // Its last rule moves down to the end of the nat table: order within the chain is kept.
    const [last] = lines.splice(at + 1, 1);
    const commit = lines.indexOf("COMMIT", at);
    lines.splice(commit, 0, last as string);
    const r = await diff("split.save", lines);
    expect(r.code).toBe(0);
  });

  it("finds a chain one rule apart changed, and only that chain", async () => {
    const lines = await nodeDump();
    const { at, chain } = runOf(lines, "KUBE-SEP-");
    const dnat = lines.findIndex((l, i) => i >= at && l.startsWith(`-A ${chain} `) && l.includes("DNAT"));
    lines[dnat] = (lines[dnat] as string).replace(/:(\d+)$/, ":9");
    const r = await diff("changed.save", lines, "--format", "restore");
    expect(r.code).toBe(1);
    const changed = r.out.split("\n").filter((l) => /^-[ADIR] /.test(l));
    expect(changed.length).toBeGreaterThan(0);
    for (const l of changed) expect(l.split(" ")[1]).toBe(chain);
  });
});
