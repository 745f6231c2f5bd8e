// The incremental engine against kube-proxy's own sequences and against full regeneration over
// random change sequences: after every step our state equals the truth (shared chains as sets),
// our delta applied to the previous state gives exactly our state, and it is never larger than
// what kube-proxy wrote.
import { describe, expect, it } from "vitest";
import { formatRestore } from "../src/format/restore.js";
import { formatSave } from "../src/format/save.js";
import { generateState } from "../src/iptables/output/rules.js";
import { applyRestore } from "../src/ir/state.js";
import type { RuleSet } from "../src/ir/types.js";
import { modelFromInput } from "../src/kube/to-model.js";
import { createSync } from "../src/sync/index.js";
import { listVectors, readJson } from "./support/fixtures.js";
import { type Rng, randomCluster, seededRng } from "./support/random-cluster.js";
import type { ClusterInput, EndpointSlice, ProxyConfigInput, Service } from "./support/stored-types.js";

interface Sequence {
  name: string;
  config: ProxyConfigInput;
  steps: {
    services: Service[];
    endpointSlices: EndpointSlice[];
    expected: { restore: string; save: string };
  }[];
}

const ORDER_FREE = new Set([
  "KUBE-SERVICES",
  "KUBE-NODEPORTS",
  "KUBE-EXTERNAL-SERVICES",
  "KUBE-PROXY-FIREWALL",
]);
const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP)-/;

/** A save text as `table → chain → rule lines` (declared chains present with their rules). */
function chainsOfSave(text: string): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let table: Map<string, string[]> | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("*")) {
      table = new Map();
      out.set(line.slice(1), table);
    } else if (line.startsWith(":") && table !== undefined) {
      table.set(line.slice(1, line.indexOf(" ")), []);
    } else if (line.startsWith("-A ") && table !== undefined) {
      const chain = line.slice(3, line.indexOf(" ", 3));
      table.get(chain)?.push(line);
    }
  }
  return out;
}

const COMMENT = / -m comment --comment (?:"(?:[^"\\]|\\.)*"|\S+)/g;

/**
 * Differences between our save text and the truth, as readable lines (empty: equal).
 *
 * @param allowOrphans - per-service chains of the truth that nothing jumps to may be missing in
 *   ours (kube-proxy leaves a deleted service's chains around in large-cluster mode).
 * @param ignoreServiceComments - compare per-service chains without their comments: on a
 *   large-cluster mode flip kube-proxy rewrites only the services that changed, leaving the
 *   others in the old form until its next full sync; we rewrite them at once.
 */
function compareSaves(
  ours: string,
  truth: string,
  allowOrphans: boolean,
  ignoreServiceComments = false,
): string[] {
  const a = chainsOfSave(ours);
  const b = chainsOfSave(truth);
  const problems: string[] = [];
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const ta = a.get(name) ?? new Map<string, string[]>();
    const tb = b.get(name) ?? new Map<string, string[]>();
    const jumped = new Set<string>();
    for (const rules of tb.values())
      for (const r of rules) for (const m of r.matchAll(/-[jg] (\S+)/g)) jumped.add(m[1] as string);
    for (const chain of new Set([...ta.keys(), ...tb.keys()])) {
      const ra = ta.get(chain);
      const rb = tb.get(chain);
      if (
        ra === undefined &&
        rb !== undefined &&
        allowOrphans &&
        SERVICE_CHAIN.test(chain) &&
        !jumped.has(chain)
      )
        continue;
      if (ra === undefined || rb === undefined) {
        problems.push(`${name}/${chain}: ${ra === undefined ? "missing" : "extra"}`);
        continue;
      }
      const strip = ignoreServiceComments && SERVICE_CHAIN.test(chain);
      const ca = strip ? ra.map((r) => r.replace(COMMENT, "")) : ra;
      const cb = strip ? rb.map((r) => r.replace(COMMENT, "")) : rb;
      const x = ORDER_FREE.has(chain) ? [...ca].sort() : ca;
      const y = ORDER_FREE.has(chain) ? [...cb].sort() : cb;
      if (x.join("\n") !== y.join("\n"))
        problems.push(`${name}/${chain}:\n  ours  ${x.join("\n        ")}\n  truth ${y.join("\n        ")}`);
    }
  }
  return problems;
}

/** A delta as the engine's `deltaText` prints it. */
function textOf(delta: RuleSet): string {
  return delta.tables.length === 0 ? "" : formatRestore(delta);
}

/** Checks that the delta applied to `prev` gives exactly `state`. */
function expectDeltaGives(prev: RuleSet, delta: RuleSet, state: RuleSet): void {
  const applied = applyRestore(prev, delta, { noflush: true });
  expect(formatSave(applied)).toBe(formatSave(state));
}

const sequences = listVectors("kube-proxy-sequences").map((v) => readJson<Sequence>(v.path));

describe("sync against kube-proxy's sequences", () => {
  for (const seq of sequences) {
    it(seq.name, () => {
      const sync = createSync(seq.config);
      let prev = sync.state;
      seq.steps.forEach((step, i) => {
        const result = sync.update(step.services, step.endpointSlices);
        const problems = compareSaves(
          formatSave(result.state),
          step.expected.save,
          true,
          result.stats.modeChanged,
        );
        expect(problems, `step ${i}`).toEqual([]);
        expectDeltaGives(prev, result.delta, result.state);
        // The first delta is joined from text, the rest printed from rules: the same either way.
        expect(result.deltaText, `step ${i} text`).toBe(textOf(result.delta));
        expect(result.deltaText.length, `step ${i} delta size`).toBeLessThanOrEqual(
          step.expected.restore.length,
        );
        prev = result.state;
      });
    });
  }

  it("writes nothing when nothing changed, and only the change otherwise", () => {
    const seq = sequences.find((s) => s.name === "seq-add-remove-endpoint") ?? (sequences[0] as Sequence);
    const sync = createSync(seq.config);
    const first = seq.steps[0] as Sequence["steps"][number];
    sync.update(first.services, first.endpointSlices);
    const again = sync.update(first.services, first.endpointSlices);
    expect(again.deltaText).toBe("");
    expect(again.stats.blocksBuilt).toBe(0);
    // New objects with the same content: examined, but kube-proxy's rule says nothing changed.
    const copy = structuredClone(first);
    const same = sync.update(copy.services, copy.endpointSlices);
    expect(same.deltaText).toBe("");
    expect(same.stats.servicesExamined).toBeGreaterThan(0);
    expect(same.stats.blocksBuilt).toBe(0);
  });
});

// ---- random change sequences ----------------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: Mutable<T[K]> };

function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[rng.int(0, list.length - 1)] as T;
}

function sliceOwner(slice: EndpointSlice): string {
  return `${slice.metadata.namespace ?? ""}/${slice.metadata.labels?.["kubernetes.io/service-name"] ?? ""}`;
}

/**
 * One random change, informer style: unchanged objects keep their identity, a changed object is
 * a changed copy. Draws from the same generator as the conformance-like random clusters.
 */
function mutate(rng: Rng, cluster: ClusterInput, seed: number): ClusterInput {
  const services = [...(cluster.services ?? [])];
  const slices = [...(cluster.endpointSlices ?? [])];
  const donor = randomCluster(seed, {
    family: cluster.config?.ipFamily ?? "IPv4",
    minServices: 1,
    maxServices: 3,
  });
  const kind = rng.int(0, 9);
  if (kind === 0 || services.length === 0) {
    // Add a service (renamed so it does not clash) with its slices.
    const from = donor.services[0] as Service;
    const name = `${from.metadata.name ?? "svc"}-n${seed % 100000}`;
    const ns = from.metadata.namespace ?? "default";
    services.splice(rng.int(0, services.length), 0, { ...from, metadata: { ...from.metadata, name } });
    for (const s of donor.endpointSlices) {
      if (sliceOwner(s) !== `${ns}/${from.metadata.name}`) continue;
      slices.push({
        ...s,
        metadata: {
          ...s.metadata,
          name: `${name}-${s.metadata.name}`,
          labels: { ...s.metadata.labels, "kubernetes.io/service-name": name },
        },
      });
    }
  } else if (kind === 1) {
    // Remove a service (its slices stay or go).
    const at = rng.int(0, services.length - 1);
    const [gone] = services.splice(at, 1);
    if (gone !== undefined && rng.int(0, 1) === 0) {
      const key = `${gone.metadata.namespace}/${gone.metadata.name}`;
      for (let i = slices.length - 1; i >= 0; i--)
        if (sliceOwner(slices[i] as EndpointSlice) === key) slices.splice(i, 1);
    }
  } else if (kind <= 5 && slices.length > 0) {
    // Change one slice's endpoints: drop one, flip conditions, move node, add a copy of another.
    const at = rng.int(0, slices.length - 1);
    const slice = structuredClone(slices[at] as EndpointSlice) as Mutable<EndpointSlice>;
    const eps = (slice.endpoints ?? []) as Mutable<NonNullable<EndpointSlice["endpoints"]>>;
    const op = rng.int(0, 4);
    if (op === 0 && eps.length > 0) eps.splice(rng.int(0, eps.length - 1), 1);
    else if (op === 1 && eps.length > 0) {
      const ep = pick(rng, eps);
      ep.conditions = {
        ready: rng.int(0, 1) === 1,
        serving: rng.int(0, 1) === 1,
        terminating: rng.int(0, 1) === 1,
      };
    } else if (op === 2 && eps.length > 0) {
      pick(rng, eps).nodeName = pick(rng, ["node-a", "node-b", "node-c"]);
    } else if (op === 3) {
      const other = donor.endpointSlices.find(
        (s) => s.addressType === slice.addressType && (s.endpoints?.length ?? 0) > 0,
      );
      for (const ep of other?.endpoints ?? []) eps.push(structuredClone(ep) as (typeof eps)[number]);
    } else if (op === 4) {
      slice.endpoints = [];
    }
    slice.endpoints = eps;
    slices[at] = slice as EndpointSlice;
  } else if (kind <= 8) {
    // Change one service's spec: type, policies, affinity, ports, external IPs.
    const at = rng.int(0, services.length - 1);
    const svc = structuredClone(services[at] as Service) as Mutable<Service>;
    const spec = svc.spec;
    const op = rng.int(0, 6);
    if (op === 0) {
      spec.sessionAffinity = spec.sessionAffinity === "ClientIP" ? "None" : "ClientIP";
      if (spec.sessionAffinity === "ClientIP" && rng.int(0, 1) === 1)
        spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: rng.int(1, 86400) } };
    } else if (op === 1) {
      spec.internalTrafficPolicy = spec.internalTrafficPolicy === "Local" ? "Cluster" : "Local";
    } else if (op === 2 && (spec.type === "NodePort" || spec.type === "LoadBalancer")) {
      spec.externalTrafficPolicy = spec.externalTrafficPolicy === "Local" ? "Cluster" : "Local";
      if (spec.type === "LoadBalancer" && spec.externalTrafficPolicy === "Local")
        spec.healthCheckNodePort = 32000 + rng.int(0, 700);
      else delete spec.healthCheckNodePort;
    } else if (op === 3 && (spec.ports?.length ?? 0) > 1) {
      spec.ports = (spec.ports ?? []).slice(0, -1);
    } else if (op === 4 && spec.ports !== undefined && spec.ports.length > 0) {
      const p = spec.ports[0] as Mutable<NonNullable<Service["spec"]["ports"]>[number]>;
      p.port = p.port === 65535 ? 1 : p.port + 1;
    } else if (op === 5) {
      // Swap in the donor's spec wholesale (type, IPs, ports…), keeping our name and cluster IP.
      const from = donor.services[0] as Service;
      const keep = {
        clusterIP: spec.clusterIP,
        clusterIPs: spec.clusterIPs,
        ipFamilies: spec.ipFamilies,
        ipFamilyPolicy: spec.ipFamilyPolicy,
      };
      svc.spec = { ...(structuredClone(from.spec) as Mutable<Service["spec"]>), ...keep } as Mutable<
        Service["spec"]
      >;
      if (from.status !== undefined)
        svc.status = structuredClone(from.status) as NonNullable<Mutable<Service>["status"]>;
    } else {
      // A change kube-proxy does not look at: the view is the same, nothing may be written.
      svc.metadata.labels = { ...svc.metadata.labels, touched: String(seed) };
    }
    services[at] = svc as Service;
  } else {
    // Many at once: a whole new cluster reusing some of the old objects.
    const fresh = randomCluster(seed, { family: cluster.config?.ipFamily ?? "IPv4", largeRate: 0.1 });
    const suffix = `-g${seed % 100000}`;
    return {
      ...cluster,
      services: [
        ...services.filter((_, i) => i % 2 === 0),
        ...fresh.services.map((s) => ({
          ...s,
          metadata: { ...s.metadata, name: `${s.metadata.name}${suffix}` },
        })),
      ],
      endpointSlices: [
        ...slices.filter((_, i) => i % 3 !== 0),
        ...fresh.endpointSlices.map((s) => ({
          ...s,
          metadata: {
            ...s.metadata,
            name: `${s.metadata.name}${suffix}`,
            labels: {
              ...s.metadata.labels,
              "kubernetes.io/service-name": `${s.metadata.labels?.["kubernetes.io/service-name"]}${suffix}`,
            },
          },
        })),
      ],
    };
  }
  return { ...cluster, services, endpointSlices: slices };
}

describe("sync against full regeneration, random change sequences", () => {
  const SEQUENCES = Number(process.env.SYNC_SEQUENCES ?? 200);
  const STEPS = 8;
  it(`${SEQUENCES} seeded sequences of ${STEPS} changes`, () => {
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const rng = seededRng(seed * 7919);
      let cluster: ClusterInput = randomCluster(seed, { largeRate: seed % 25 === 0 ? 1 : 0.02 });
      const sync = createSync(cluster.config);
      let prev = sync.state;
      for (let step = 0; step < STEPS; step++) {
        if (step > 0) cluster = mutate(rng, cluster, seed * 1000 + step);
        const result = sync.update(cluster.services ?? [], cluster.endpointSlices ?? []);
        const truth = formatSave(generateState(modelFromInput(cluster)));
        const ours = formatSave(result.state);
        const where = `seed ${seed} step ${step}`;
        expect(compareSaves(ours, truth, false), where).toEqual([]);
        const applied = formatSave(applyRestore(prev, result.delta, { noflush: true }));
        expect(applied, where).toBe(ours);
        expect(result.deltaText, where).toBe(textOf(result.delta));
        prev = result.state;
      }
    }
  });

  it("crosses the large-cluster threshold both ways", () => {
    const seq = sequences.find((s) => s.name === "seq-large-cluster-transition") as Sequence;
    const sync = createSync(seq.config);
    const modes = seq.steps.map((step) => sync.update(step.services, step.endpointSlices).stats);
    expect(modes.map((m) => [m.largeClusterMode, m.modeChanged])).toEqual([
      [false, false],
      [true, true],
      [false, true],
    ]);
  });
});
