// The real nft as the judge (DESIGN.md, testing layer 3): our transaction for every vector of
// fixtures/kube-proxy-nft and for random clusters is loaded with `nft -f` into a private network
// namespace (`unshare -n`, made for this file and gone when it ends), and `nft list table` must
// print our ruleset form (elements compared as sets, as the kernel lists them in hash order).
// A transaction nft refuses must be one we reported a problem for, and the other way round.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ClusterInput,
  type ClusterModel,
  generateNftables,
  type NftTable,
  prepareCluster,
} from "../../src/index.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { formatNftRuleset, formatNftTransaction } from "../../src/nftables/index.js";
import { nftVectors } from "../support/corpora.js";
import { sortNftElements } from "../support/nft-elements.js";
import { randomCluster } from "../support/random-cluster.js";

const RANDOM_MODELS = 60;
const BASE_SEED = Number(process.env.KUBE_IPTABLES_SEED ?? 20_261_124);
const ENV = { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin`, LC_ALL: "C" };

function skipReason(): string | null {
  if (process.platform !== "linux") return "needs Linux";
  if (process.getuid?.() !== 0) return "needs root (unshare -n)";
  const r = spawnSync("unshare", ["-n", "sh", "-c", "nft -f - && nft list tables"], {
    env: ENV,
    input: "add table ip probe\n",
    encoding: "utf8",
  });
  if (r.status !== 0) return `cannot run nft in a private network namespace: ${r.stderr.trim()}`;
  return null;
}
const skip = skipReason();
if (skip !== null && process.env.CI !== undefined) throw new Error(`CI is set but: ${skip}`);

/** The ruleset with its set and map elements sorted (and no trailing blank line). */
function sortElements(text: string): string {
  return sortNftElements(text).trimEnd();
}

interface Case {
  readonly name: string;
  readonly table: NftTable;
  /** A bridge the transaction names (`iif NAME`), made in the namespace before loading. */
  readonly bridge: string | null;
}

interface Loaded {
  readonly listed: string | null;
  readonly error: string;
}

const root = mkdtempSync(join(tmpdir(), "nft-kernel-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Loads every case into one private namespace, one after another, flushing in between. */
function loadAll(cases: readonly Case[]): Loaded[] {
  const dir = mkdtempSync(join(root, "batch-"));
  cases.forEach((c, i) => {
    const base = join(dir, String(i).padStart(4, "0"));
    writeFileSync(`${base}.nft`, formatNftTransaction(c.table));
    writeFileSync(`${base}.family`, c.table.family);
    if (c.bridge !== null) writeFileSync(`${base}.bridge`, c.bridge);
  });
  const script = `
for f in "$1"/*.nft; do
  b="\${f%.nft}"
  nft flush ruleset
  if [ -f "$b.bridge" ]; then ip link add "$(cat "$b.bridge")" type bridge; fi
  if nft -f "$f" 2> "$b.err"; then nft list table "$(cat "$b.family")" kube-proxy > "$b.out"; fi
  if [ -f "$b.bridge" ]; then ip link del "$(cat "$b.bridge")"; fi
done`;
  const r = spawnSync("unshare", ["-n", "sh", "-c", script, "sh", dir], { env: ENV, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`the namespace script failed: ${r.stderr}`);
  return cases.map((_, i) => {
    const base = join(dir, String(i).padStart(4, "0"));
    return {
      listed: existsSync(`${base}.out`) ? readFileSync(`${base}.out`, "utf8") : null,
      error: readFileSync(`${base}.err`, "utf8"),
    };
  });
}

function bridgeOf(model: ClusterModel): string | null {
  const d = model.config.detectLocal;
  return d.mode === "BridgeInterface" ? d.interface : null;
}

function vectorCases(): Case[] {
  return nftVectors().map((v) => {
    const model = modelFromInput(v as unknown as ClusterInput);
    return { name: v.id, table: generateNftables(model), bridge: bridgeOf(model) };
  });
}

function randomCases(profile: "v1.30" | "latest", serviceCIDRs: readonly string[] = []): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < RANDOM_MODELS; i++) {
    const seed = BASE_SEED + i;
    const cluster = randomCluster(seed, { largeRate: 0 });
    const input = { ...cluster, config: { ...cluster.config, profile } } as ClusterInput;
    const family = cluster.config.ipFamily ?? "IPv4";
    const prepared = prepareCluster(input, { family });
    if (prepared.model === null) continue;
    cases.push({
      name: `seed ${seed}`,
      table: generateNftables(prepared.model, { serviceCIDRs }),
      bridge: bridgeOf(prepared.model),
    });
  }
  return cases;
}

/**
 * Cases from the spec that no vector covers: nodePortAddresses matching everything (the
 * nodeport-ips set added then deleted, `fib daddr type local` rules), in both families.
 */
function specCases(): Case[] {
  return [
    ["feature-nodeport", "0.0.0.0/0"],
    ["feature-ipv6-clusterip-nodeport", "::/0"],
  ].map(([name, all]) => {
    const v = nftVectors().find((x) => x.id === name) as unknown as ClusterInput;
    const input = { ...v, config: { ...v.config, nodePortAddresses: [all as string] } } as ClusterInput;
    return { name: `${name} with ${all}`, table: generateNftables(modelFromInput(input)), bridge: null };
  });
}

/** Problems that say nft refuses the transaction (the bridge note is about other nodes). */
const refusals = (t: NftTable) => t.problems.filter((p) => p.path !== "config.detectLocal.interface");

describe.skipIf(skip !== null)("nft -f loads our transaction and lists our ruleset", () => {
  for (const [label, make] of [
    ["vectors", vectorCases],
    ["random clusters, layout A (v1.30)", () => randomCases("v1.30")],
    [
      "random clusters, layout B (latest), with service CIDRs",
      () => randomCases("latest", ["10.96.0.0/12", "fd00:10:96::/112"]),
    ],
    ["node ports on every address", specCases],
  ] as const) {
    it(label, () => {
      const cases = make();
      const loaded = loadAll(cases);
      // Most of them load (only the interface-prefix detector and clashing keys are refused).
      expect(loaded.filter((l) => l.listed !== null).length).toBeGreaterThan(cases.length / 2);
      cases.forEach((c, i) => {
        const got = loaded[i] as Loaded;
        if (refusals(c.table).length > 0) {
          expect(got.listed, `${c.name}: nft loaded what we said it refuses`).toBeNull();
          return;
        }
        expect(got.error, `${c.name}: nft refused it`).toBe("");
        expect(sortElements(got.listed ?? ""), c.name).toBe(sortElements(formatNftRuleset(c.table)));
      });
    });
  }
});
