// Invariants of the nftables table over random clusters (test/support/random-cluster.ts), as
// test/iptables/properties.test.ts checks them for iptables: shuffle invariance, a closed graph (every
// goto/jump target is a declared chain, every @set/@map a declared one), and equal endpoint
// shares (each `numgen random mod N vmap` gives each of N distinct endpoints one slot).
// Seeded, so a failure reproduces. Half the runs use layout A (v1.30), half layout B (v1.34).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type ClusterModel, generateNftables, type Profile, prepareCluster } from "../../src/index.js";
import {
  formatNftDump,
  formatNftRuleset,
  formatNftTransaction,
  type NftTable,
} from "../../src/nftables/index.js";
import { clusterArbitrary, type RandomCluster, seededRng } from "../support/random-cluster.js";
import type { EndpointSlice } from "../support/stored-types.js";

const SEED = 20_261_124;
const clusters = fc.tuple(
  clusterArbitrary({ maxServices: 8, largeRate: 0.01 }),
  fc.constantFrom<Profile>("v1.30", "v1.34"),
);

function run<T>(arb: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => void): void {
  fc.assert(fc.property(arb, predicate), { seed: SEED, numRuns });
}

function modelOf(cluster: RandomCluster, profile: Profile): ClusterModel {
  const { model, problems } = prepareCluster({ ...cluster, config: { ...cluster.config, profile } });
  const errors = problems.filter((p) => p.severity === "error");
  if (model === null || errors.length > 0)
    throw new Error(`random cluster is invalid: ${JSON.stringify(errors)}`);
  return model;
}

function shuffled<T>(items: readonly T[], rng: ReturnType<typeof seededRng>): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Every text of a table that can name a chain, set or map: rule texts (both forms) and verdicts. */
function referencingTexts(table: NftTable): string[] {
  const out: string[] = [];
  for (const c of table.commands) {
    if (c.object === "rule") out.push(c.rule.written, c.rule.listed);
    else if (c.object === "element" && c.value !== undefined) out.push(c.value);
  }
  return out;
}

/** The goto/jump targets and @set/@map references that name nothing declared in the table. */
function danglingReferences(table: NftTable): string[] {
  const chains = new Set<string>();
  const containers = new Set<string>();
  for (const c of table.commands) {
    if (c.object === "chain" && c.verb === "add") chains.add(c.name);
    if ((c.object === "set" || c.object === "map") && c.verb === "add") containers.add(c.name);
  }
  const dangling: string[] = [];
  for (const text of referencingTexts(table)) {
    for (const m of text.matchAll(/\b(?:goto|jump) ([^\s,}]+)/g))
      if (!chains.has(m[1] as string)) dangling.push(`chain ${m[1]} in: ${text}`);
    for (const m of text.matchAll(/@([^\s,}]+)/g))
      if (!containers.has(m[1] as string)) dangling.push(`set/map ${m[1]} in: ${text}`);
  }
  return dangling;
}

describe("properties of the generated nftables table", () => {
  test("shuffling services, slices, endpoints and slice ports changes no byte of any printed form", () => {
    run(fc.tuple(clusters, fc.nat()), 100, ([[cluster, profile], seed]) => {
      const rng = seededRng(seed);
      const shuffledCluster: RandomCluster = {
        config: cluster.config,
        services: shuffled(cluster.services, rng),
        endpointSlices: shuffled(cluster.endpointSlices, rng).map(
          (s): EndpointSlice => ({
            ...s,
            endpoints: shuffled(s.endpoints ?? [], rng),
            ports: shuffled(s.ports ?? [], rng),
          }),
        ),
      };
      const printed = (t: NftTable) => [formatNftTransaction(t), formatNftDump(t), formatNftRuleset(t)];
      expect(printed(generateNftables(modelOf(shuffledCluster, profile)))).toEqual(
        printed(generateNftables(modelOf(cluster, profile))),
      );
    });
  });

  test("every goto/jump target is a declared chain and every @set/@map a declared one", () => {
    let references = 0;
    run(clusters, 200, ([cluster, profile]) => {
      const table = generateNftables(modelOf(cluster, profile));
      expect(danglingReferences(table)).toEqual([]);
      references += referencingTexts(table).filter((t) => /goto|jump|@/.test(t)).length;
    });
    // Not vacuous: the random clusters do make service chains and verdict elements.
    expect(references).toBeGreaterThan(1000);
  });

  test("each numgen vmap gives each of its N distinct endpoint chains exactly one of the N slots", () => {
    let checked = 0;
    // Large services stress the vmap, so ask for them more often here.
    const large = fc.tuple(
      clusterArbitrary({ maxServices: 6, largeRate: 0.15 }),
      fc.constantFrom<Profile>("v1.30", "v1.34"),
    );
    run(large, 100, ([cluster, profile]) => {
      for (const c of generateNftables(modelOf(cluster, profile)).commands) {
        if (c.object !== "rule") continue;
        const m = /^numgen random mod (\d+) vmap \{ (.*) \}$/.exec(c.rule.written);
        if (m === null) continue;
        const n = Number(m[1]);
        const slots = (m[2] as string).split(" , ").map((entry) => {
          const e = /^(\d+) : goto (\S+)$/.exec(entry);
          expect(e, entry).not.toBeNull();
          return { slot: Number(e?.[1]), chain: e?.[2] };
        });
        expect(slots.map((s) => s.slot)).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(new Set(slots.map((s) => s.chain)).size).toBe(n);
        for (const s of slots) expect(s.chain).toMatch(/^endpoint-/);
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(100);
  });
});
