// Invariants every generated rule set keeps, over random clusters (test/support/random-cluster.ts)
// driven by fast-check: shuffle invariance, closed jump graph, reachable service chains, equal
// endpoint shares, lossless text round trips, and per-object isolation of invalid input.
// Seeded (SEED below), so a failure reproduces; fast-check prints the seed and the shrunk case.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseRules } from "../src/format/parse.js";
import { formatRestore } from "../src/format/restore.js";
import { formatSave } from "../src/format/save.js";
import { generateRules, generateState } from "../src/iptables/output/rules.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import type { ClusterModel } from "../src/model/types.js";
import {
  canonicalView,
  danglingTargets,
  endpointPicks,
  ruleCounts,
  SERVICE_CHAIN,
  unreachableServiceChains,
} from "./fuzz/rule-checks.js";
import { clusterArbitrary, type RandomCluster, seededRng } from "./support/random-cluster.js";
import type { EndpointSlice, Service } from "./support/stored-types.js";

const SEED = 20_250_808;
/** Large (1000+ endpoint) services are rare and slow; the share property asks for them itself. */
const clusters = clusterArbitrary({ maxServices: 8, largeRate: 0.01 });

function run<T>(arb: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => void): void {
  fc.assert(fc.property(arb, predicate), { seed: SEED, numRuns });
}

/** The model of a clean cluster (the generator only makes valid input; anything else is a bug here). */
function modelOf(cluster: RandomCluster): ClusterModel {
  const { model, problems } = prepareCluster(cluster);
  const errors = problems.filter((p) => p.severity === "error");
  if (model === null || errors.length > 0)
    throw new Error(`random cluster is invalid: ${JSON.stringify(errors)}`);
  return model;
}

function outputs(model: ClusterModel): { restore: string; save: string } {
  return { restore: formatRestore(generateRules(model)), save: formatSave(generateState(model)) };
}

function shuffled<T>(items: readonly T[], rng: ReturnType<typeof seededRng>): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe("properties of generated rules", () => {
  test("shuffling services, slices, endpoints and slice ports changes no byte of either output", () => {
    run(fc.tuple(clusters, fc.nat()), 150, ([cluster, seed]) => {
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
      expect(outputs(modelOf(shuffledCluster))).toEqual(outputs(modelOf(cluster)));
    });
  });

  test("every -j/-g target is declared, and every KUBE-SVC/SVL/EXT/FW/SEP chain is reachable", () => {
    let serviceChains = 0;
    run(clusters, 250, (cluster) => {
      const model = modelOf(cluster);
      const state = generateState(model);
      expect(danglingTargets(generateRules(model))).toEqual([]);
      expect(danglingTargets(state)).toEqual([]);
      // kube-proxy jumps to KUBE-NODEPORTS only for --nodeport-addresses that select a usable
      // node address (none: no jump, as in kube-proxy); with the default (all) it must reach it.
      const explicitAddresses = (cluster.config.nodePortAddresses ?? []).length > 0;
      expect(unreachableServiceChains(state, explicitAddresses ? ["KUBE-NODEPORTS"] : [])).toEqual([]);
      for (const t of state.tables)
        serviceChains += t.chains.filter((c) => SERVICE_CHAIN.test(c.name)).length;
    });
    // Not vacuous: the random clusters do make service chains.
    expect(serviceChains).toBeGreaterThan(500);
  });

  test("the statistic rules of each KUBE-SVC/SVL chain give every endpoint an equal share", () => {
    const UNIT = 2 ** 31;
    let checked = 0;
    // Large services are what stress the rounding, so ask for them more often here.
    run(clusterArbitrary({ maxServices: 6, largeRate: 0.15 }), 150, (cluster) => {
      const state = generateState(modelOf(cluster));
      const nat = state.tables.find((t) => t.name === "nat");
      for (const chain of nat?.chains ?? []) {
        if (!/^KUBE-(SVC|SVL)-/.test(chain.name)) continue;
        const picks = endpointPicks(state, "nat", chain.name);
        const n = picks.length;
        if (n === 0) continue;
        expect(new Set(picks.map((p) => p.sep)).size).toBe(n);
        expect(picks[n - 1]?.k).toBe(UNIT); // the last pick is unconditional
        // The chance to reach rule i is the product of (2^31 − k_j)/2^31 over the rules before it.
        let reach = 1;
        picks.forEach(({ k }, i) => {
          const share = reach * (k / UNIT);
          reach *= (UNIT - k) / UNIT;
          // Each rule's k is rounded once (±0.5) from a 10-digit probability (±0.05 more).
          expect(Math.abs(share - 1 / n) * UNIT, `${chain.name} rule ${i} of ${n}`).toBeLessThanOrEqual(
            i + 1,
          );
        });
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(75);
  });

  test("parseRules gives back the payload (restore form) and the state (save form)", () => {
    run(clusters, 150, (cluster) => {
      const model = modelOf(cluster);
      const payload = generateRules(model);
      const fromRestore = parseRules(formatRestore(payload), { family: payload.family });
      expect(fromRestore.problems).toEqual([]);
      // The restore form keeps kube-proxy's argv, so it must come back argument for argument.
      expect(fromRestore.ruleSet.tables.map((t) => [t.name, t.chains, t.entries])).toEqual(
        payload.tables.map((t) => [t.name, t.chains, t.entries]),
      );
      const state = generateState(model);
      const fromSave = parseRules(formatSave(state), { family: state.family });
      expect(fromSave.problems).toEqual([]);
      expect(canonicalView(fromSave.ruleSet)).toEqual(canonicalView(state));
      expect(ruleCounts(fromSave.ruleSet)).toEqual(ruleCounts(state));
    });
  });
});

// ---- isolation ------------------------------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: Mutable<T[K]> };
const clone = <T>(value: T): Mutable<T> => structuredClone(value) as Mutable<T>;

/** Ways to break a Service that the API server rejects (each an error, never a warning). */
const BREAK_SERVICE: readonly ((s: Mutable<Service>) => void)[] = [
  (s) => {
    const port = s.spec.ports?.[0];
    if (port !== undefined) port.port = 70_000;
    else s.spec.ports = [{ port: 0 }];
  },
  (s) => {
    s.spec.clusterIP = "10.96.0.256";
    s.spec.clusterIPs = ["10.96.0.256"];
  },
  (s) => {
    s.spec.type = "Weird" as "ClusterIP";
  },
  (s) => {
    s.spec.sessionAffinity = "Sometimes" as "None";
  },
  (s) => {
    const port = s.spec.ports?.[0];
    if (port !== undefined) port.protocol = "ICMP" as "TCP";
    else s.spec.ports = [{ port: 80, protocol: "ICMP" as "TCP" }];
  },
  (s) => {
    s.metadata.namespace = 'prod"\n-A KUBE-SERVICES -j ACCEPT';
  },
];

/** Ways to break an EndpointSlice. */
const BREAK_SLICE: readonly ((s: Mutable<EndpointSlice>) => void)[] = [
  (s) => {
    s.endpoints = [{ addresses: ["10.244.0.999"] }, ...(s.endpoints ?? [])];
  },
  (s) => {
    s.ports = [{ name: "http", port: 70_000, protocol: "TCP" }];
  },
  (s) => {
    s.addressType = "IPv5" as "IPv4";
  },
  (s) => {
    s.ports = [{ name: "Not A Port Name", port: 80, protocol: "TCP" }];
  },
  (s) => {
    s.endpoints = [{ addresses: ["10.244.9.9"], nodeName: "node\n-A" }];
  },
];

const breakage = fc.record({
  which: fc.constantFrom("service", "slice"),
  how: fc.nat(),
  at: fc.nat(),
  from: fc.nat(),
});

describe("isolation of invalid objects", () => {
  test("one bad Service or EndpointSlice changes nothing but its own absence", () => {
    let seen = 0;
    run(fc.tuple(clusterArbitrary({ maxServices: 8, largeRate: 0 }), breakage), 300, ([cluster, b]) => {
      const base = outputs(modelOf(cluster));
      // A broken copy of an existing object under a fresh name, so it is new to the input and
      // the name clashes with nothing; placed anywhere in the list.
      let broken: RandomCluster;
      if (b.which === "service") {
        const source = cluster.services[b.from % cluster.services.length];
        if (source === undefined) return;
        const bad = clone(source);
        bad.metadata.name = `broken-${b.from}`;
        (BREAK_SERVICE[b.how % BREAK_SERVICE.length] as (s: Mutable<Service>) => void)(bad);
        const services = [...cluster.services];
        services.splice(b.at % (services.length + 1), 0, bad as Service);
        broken = { ...cluster, services };
      } else {
        const source = cluster.endpointSlices[b.from % Math.max(1, cluster.endpointSlices.length)];
        if (source === undefined) return;
        const bad = clone(source);
        bad.metadata.name = `broken-${b.from}`;
        (BREAK_SLICE[b.how % BREAK_SLICE.length] as (s: Mutable<EndpointSlice>) => void)(bad);
        const endpointSlices = [...cluster.endpointSlices];
        endpointSlices.splice(b.at % (endpointSlices.length + 1), 0, bad as EndpointSlice);
        broken = { ...cluster, endpointSlices };
      }
      const strict = prepareCluster(broken, { strict: true });
      expect(strict.model).toBeNull();
      const lenient = prepareCluster(broken);
      const errors = lenient.problems.filter((p) => p.severity === "error");
      expect(errors.length).toBeGreaterThan(0);
      // Every error points into the broken object and nowhere else.
      const list = b.which === "service" ? "services" : "endpointSlices";
      const index = (
        b.at %
        ((b.which === "service" ? cluster.services : cluster.endpointSlices).length + 1)
      ).toString();
      for (const e of errors) expect(e.path.startsWith(`${list}[${index}]`), e.path).toBe(true);
      expect(lenient.model).not.toBeNull();
      expect(outputs(lenient.model as ClusterModel)).toEqual(base);
      seen++;
    });
    expect(seen).toBeGreaterThan(250);
  });
});
