// `diff DUMP CLUSTER` prepares the cluster before it parses the dump (the dump is read against
// the cluster's save text), but says what it always said, in the same order: without --family
// the dump's family is the cluster's (a guess from the cluster's config that turns out wrong is
// corrected), and when both sides have problems only the side read first in the old order (the
// dump, or the cluster with --family when it comes first) is reported first, and the run stops
// at the first side that cannot be used.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runDiff } from "../../src/cli/diff.js";
import { runGenerate } from "../../src/cli/generate.js";
import { dualStackCluster } from "../support/dual-stack.js";
import { captureCli as capture } from "../support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "kit-diff-sides-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLUSTER = join(import.meta.dirname, "..", "..", "examples", "cluster.yaml");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** examples/cluster.yaml with a Service on port 70000 (the API server refuses it). */
function badCluster(): string {
  const cluster = parse(readFileSync(CLUSTER, "utf8"));
  cluster.services.splice(1, 0, {
    metadata: { name: "broken", namespace: "default" },
    spec: { clusterIP: "10.96.200.1", ports: [{ name: "http", port: 70000, protocol: "TCP" }] },
  });
  return file("bad-cluster.json", JSON.stringify(cluster));
}

async function generated(...args: string[]): Promise<string> {
  const r = await capture(() => runGenerate(args));
  expect(r.code).toBe(0);
  return r.out;
}

describe("diff DUMP CLUSTER: the family", () => {
  it("compares an IPv6 dump with the IPv6 rules of a cluster whose config says IPv4 first", async () => {
    const cluster = file("dual.json", dualStackCluster());
    const dump = file("v6.save", await generated(cluster, "--family", "IPv6"));
    const same = await capture(() => runDiff([dump, cluster]));
    expect(same.err).toBe("");
    expect(same.code).toBe(0);
    // One endpoint moved: the delta is the one --family IPv6 gives.
    const moved = file("moved.json", dualStackCluster("fd00:10:244::9"));
    const guessed = await capture(() => runDiff([dump, moved, "--format", "restore"]));
    const given = await capture(() => runDiff([dump, moved, "--format", "restore", "--family", "IPv6"]));
    expect(guessed.code).toBe(1);
    expect(guessed.out).toContain("fd00:10:244::9");
    expect(guessed.out).toBe(given.out);
    // And the other way round (CLUSTER DUMP: the dump is still read first).
    const back = await capture(() => runDiff([moved, dump, "--format", "restore"]));
    const backGiven = await capture(() => runDiff([moved, dump, "--format", "restore", "--family", "IPv6"]));
    expect(back.code).toBe(1);
    expect(back.out).toBe(backGiven.out);
  });
});

describe("diff with problems on both sides", () => {
  const dumpProblem = "--dport 99999";

  async function badDump(): Promise<string> {
    const lines = (await generated(CLUSTER)).split("\n");
    const at = lines.findIndex((l) => l.startsWith("-A KUBE-SEP-"));
    const chain = (lines[at] as string).split(" ")[1];
    lines.splice(at + 1, 0, `-A ${chain} -p tcp -m tcp ${dumpProblem} -j RETURN`);
    return file("bad.save", lines.join("\n"));
  }

  it("reports the dump's problems only when the dump comes first (DUMP CLUSTER, CLUSTER DUMP)", async () => {
    const dump = await badDump();
    const cluster = badCluster();
    for (const args of [
      [dump, cluster],
      [cluster, dump],
      [dump, cluster, "--family", "IPv4"],
    ]) {
      const r = await capture(() => runDiff(args));
      expect(r.code).toBe(2);
      expect(r.err).toContain("99999");
      expect(r.err).not.toContain("70000");
    }
  });

  it("reports the cluster's problems first when the cluster comes first (CLUSTER DUMP --family)", async () => {
    const dump = await badDump();
    const r = await capture(() => runDiff([badCluster(), dump, "--family", "IPv4"]));
    expect(r.code).toBe(2);
    // (The Service the API server refuses is left out, and the cluster used without it.)
    expect(r.err.indexOf("70000")).toBeGreaterThanOrEqual(0);
    expect(r.err.indexOf("99999")).toBeGreaterThan(r.err.indexOf("70000"));
  });

  it("reports a good dump's cluster's problems", async () => {
    const dump = file("good.save", await generated(CLUSTER));
    const r = await capture(() => runDiff([dump, badCluster()]));
    expect(r.code).toBe(0);
    expect(r.err).toContain("70000");
    expect(r.out).toBe("no changes\n");
  });
});
