// The v1.22 writers (src/iptables/writers/legacy/) against the builder they replace
// (src/generate/service-port-xlb.ts): for every service port of every v1.22 vector and of random
// v1.22 models, the rules written through the shapes are the builder's rules, rule for rule
// (section, chain, arguments, in order) with the same chain declarations, and each shape's
// restore line is the builder's rule as the restore printer prints it.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { formatEntry } from "../src/format/restore.js";
import { createContext, type GenerationContext } from "../src/generate/context.js";
import { buildXlbServicePortRules } from "../src/generate/service-port-xlb.js";
import { restoreLine, shapeArgs } from "../src/iptables/shape/print.js";
import type { PortRuleSink } from "../src/iptables/shape/sink.js";
import type { RuleShape } from "../src/iptables/shape/types.js";
import { writeLegacyServicePort } from "../src/iptables/writers/legacy/index.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import type { ProfileTraits } from "../src/model/profiles.js";
import type { ClusterModel } from "../src/model/types.js";
import { planNode, planServicePort } from "../src/plan/index.js";
import { listVectors, loadVector, readJson, type Vector } from "./support/fixtures.js";
import { clusterArbitrary } from "./support/random-cluster.js";

const SEED = 20_261_124;

/** One written rule: where it went, and the shape and values it was written with. */
interface Written {
  readonly section: "filter" | "nat shared" | "nat chain";
  readonly chain: string;
  readonly shape: RuleShape;
  readonly values: readonly string[];
}

/** A sink that keeps every call, in order. */
function recordingSink(): { sink: PortRuleSink; rules: Written[]; chains: string[] } {
  const rules: Written[] = [];
  const chains: string[] = [];
  const keep =
    (section: Written["section"]) =>
    (shape: RuleShape, chain: string, values: readonly string[]): void => {
      rules.push({ section, chain, shape, values: [...values] });
    };
  const sink: PortRuleSink = {
    filter: keep("filter"),
    jump: keep("nat shared"),
    chain: (name) => chains.push(name),
    rule: keep("nat chain"),
  };
  return { sink, rules, chains };
}

/** Every service port of a model written both ways; returns how many rules were compared. */
function compareModel(model: ClusterModel, overrides?: Partial<ProfileTraits>): number {
  const ctx: GenerationContext = createContext(model, overrides);
  const node = planNode(model, overrides);
  let compared = 0;
  for (const port of model.servicePorts) {
    const old = buildXlbServicePortRules(port, ctx);
    const { sink, rules, chains } = recordingSink();
    writeLegacyServicePort(planServicePort(port, node, model.config), ctx, sink);

    const expected = [
      ...old.filter.map((r) => ({ section: "filter", rule: r })),
      ...old.natShared.map((r) => ({ section: "nat shared", rule: r })),
      ...old.natChainRules.map((r) => ({ section: "nat chain", rule: r })),
    ];
    const actual = [
      ...rules.filter((w) => w.section === "filter"),
      ...rules.filter((w) => w.section === "nat shared"),
      ...rules.filter((w) => w.section === "nat chain"),
    ];
    expect(chains).toEqual(old.natChains);
    expect(actual.map((w) => [w.section, w.chain, shapeArgs(w.shape, w.values)])).toEqual(
      expected.map((e) => [e.section, e.rule.chain, e.rule.args]),
    );
    for (let i = 0; i < actual.length; i++) {
      const w = actual[i] as Written;
      expect(w.values.length, w.shape.name).toBe(w.shape.slots);
      expect(restoreLine(w.shape, w.chain, w.values)).toBe(
        formatEntry((expected[i] as (typeof expected)[0]).rule),
      );
    }
    compared += actual.length;
  }
  return compared;
}

describe("v1.22 writers against the v1.22 vectors", () => {
  const vectors = listVectors("kube-proxy-v1.22");
  test.each(vectors)("$name", ({ path }) => {
    const v = readJson<Vector>(path);
    const model = modelFromInput(v as unknown as ClusterInput, { config: { profile: "v1.22" } });
    compareModel(model);
  });

  test("a node inside a load-balancer source range lets the LB IP in too", () => {
    const v = loadVector("kube-proxy-v1.22", "feature-lb-source-ranges");
    const input = { ...v, config: { ...v.config, nodeIPs: ["198.51.100.7"], profile: "v1.22" } };
    const model = modelFromInput(input as unknown as ClusterInput);
    expect(compareModel(model)).toBeGreaterThan(0);
    const { sink, rules } = recordingSink();
    const port = model.servicePorts.find((p) => p.loadBalancerSourceRanges.length > 0);
    if (port === undefined) throw new Error("vector has no source ranges");
    writeLegacyServicePort(planServicePort(port, planNode(model), model.config), createContext(model), sink);
    const lbIP = `${port.loadBalancerVIPs[0]}/32`;
    expect(rules.some((w) => w.chain.startsWith("KUBE-FW-") && w.values[1] === lbIP)).toBe(true);
  });
});

describe("v1.22 writers against random v1.22 models", () => {
  test("rule for rule the builder's output, with the profile's traits and with interface detectors on", () => {
    let total = 0;
    fc.assert(
      fc.property(clusterArbitrary({ maxServices: 8, largeRate: 0.05 }), fc.boolean(), (cluster, iface) => {
        const input = { ...cluster, config: { ...cluster.config, profile: "v1.22" as const } };
        const { model } = prepareCluster(input);
        if (model === null) throw new Error("random cluster is invalid");
        total += compareModel(model, iface ? { interfaceDetectors: true } : undefined);
      }),
      { seed: SEED, numRuns: 150 },
    );
    // The property compared real rules, not empty ports.
    expect(total).toBeGreaterThan(1000);
  });

  test("a plan made for a current profile is refused", () => {
    const model = modelFromInput(readJson<ClusterInput>(listVectors("kube-proxy-v1.22")[0]?.path ?? ""));
    const port = model.servicePorts[0];
    if (port === undefined) throw new Error("vector has no service port");
    const plan = planServicePort(port, planNode(model), model.config);
    expect(() => writeLegacyServicePort(plan, createContext(model), recordingSink().sink)).toThrow(
      /xlb plan/,
    );
  });
});
