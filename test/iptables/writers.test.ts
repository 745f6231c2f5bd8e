// The iptables writers over the plan and the sinks they write to: the restore sink's compiled
// template prints what restoreLine prints for every shape and any values; every sink receives
// the same rule sequence from one writer run (so restore text, rules and save text cannot
// disagree); the writers put each concern's rules where kube-proxy puts them; and a sink reused
// across ports keeps nothing of a port refused half-way.
import fc from "fast-check";
import { describe, expect, it, test } from "vitest";
import { KubeIptablesError } from "../../src/errors.js";
import { createContext } from "../../src/iptables/context.js";
import { createGenerator } from "../../src/iptables/output/generator.js";
import { printRestoreLine } from "../../src/iptables/output/restore-printer.js";
import { RestoreTextSink } from "../../src/iptables/output/restore-sink.js";
import { generateRestoreText } from "../../src/iptables/output/restore-text.js";
import { RuleBlockSink } from "../../src/iptables/output/rules-sink.js";
import { servicePortRules, servicePortText, writePort } from "../../src/iptables/output/write-port.js";
import { formatRestore } from "../../src/iptables/print/restore.js";
import { restoreLine, shapeArgs } from "../../src/iptables/shape/print.js";
import type { PortRuleSink } from "../../src/iptables/shape/sink.js";
import type { RuleShape, SlotKind } from "../../src/iptables/shape/types.js";
import { KUBE_PROXY_SHAPES } from "../../src/iptables/shapes.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import type { ClusterModel, ServicePort } from "../../src/model/types.js";
import { randomCluster } from "../support/random-cluster.js";

const SEED = 20_261_124;

/** Values of a kind: what the writers pass, plus quotes, blanks and empties where a kind is quoted. */
function valueOfKind(kind: SlotKind): fc.Arbitrary<string> {
  const text = fc.string({
    unit: fc.constantFrom("a", "Z", "0", "/", ":", "-", " ", "\t", '"', "\\", "é"),
    maxLength: 12,
  });
  switch (kind) {
    case "chain":
      return fc.constantFrom("KUBE-SVC-ABCDEFGHIJKLMNOP", "KUBE-MARK-MASQ", "DROP", "ACCEPT");
    case "port":
    case "seconds":
      return fc.integer({ min: 1, max: 65535 }).map(String);
    case "probability":
      return fc.constantFrom("0.5000000000", "0.3333333333", "0.0004882812");
    default:
      return text;
  }
}

function valuesOf(shape: RuleShape): fc.Arbitrary<string[]> {
  return fc.tuple(...shape.kinds.map(valueOfKind));
}

describe("the restore sink's compiled template", () => {
  it.each(KUBE_PROXY_SHAPES.map((shape) => [shape.name, shape] as const))(
    "prints %s as restoreLine does",
    (_, shape) => {
      fc.assert(
        fc.property(valuesOf(shape), (values) => {
          expect(printRestoreLine(shape, "KUBE-SEP-X", values)).toBe(
            `${restoreLine(shape, "KUBE-SEP-X", values)}\n`,
          );
        }),
        { seed: SEED, numRuns: 300 },
      );
    },
  );

  test("refuses a line feed in a quoted value, as restoreLine does", () => {
    const shape = KUBE_PROXY_SHAPES.find((s) => s.name === "endpoint hairpin") as RuleShape;
    expect(() => restoreLine(shape, "KUBE-SEP-X", ["a\nb", "10.0.0.1"])).toThrow(KubeIptablesError);
    expect(() => printRestoreLine(shape, "KUBE-SEP-X", ["a\nb", "10.0.0.1"])).toThrow(KubeIptablesError);
  });
});

/** A sink that records every call, for comparing what the writers write. */
class RecordingSink implements PortRuleSink {
  readonly calls: string[] = [];
  filter(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.calls.push(`filter ${chain} ${shape.name} ${JSON.stringify(values)}`);
  }
  jump(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.calls.push(`jump ${chain} ${shape.name} ${JSON.stringify(values)}`);
  }
  chain(name: string): void {
    this.calls.push(`chain ${name}`);
  }
  rule(shape: RuleShape, chain: string, values: readonly string[]): void {
    this.calls.push(`rule ${chain} ${shape.name} ${JSON.stringify(values)}`);
  }
}

const PROFILES = ["v1.30", "v1.32", "latest", "v1.22"] as const;

describe("one writer run, every sink", () => {
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))(
    "seed %i: text and rules are the same rules",
    (seed) => {
      const cluster = randomCluster(seed, { largeRate: seed % 6 === 0 ? 1 : 0.03 });
      for (const profile of PROFILES) {
        const model = modelFromInput(cluster, { config: { profile } });
        const ctx = createContext(model);
        const text = new RestoreTextSink();
        const rules = new RuleBlockSink();
        for (const port of model.servicePorts) {
          const block = servicePortText(port, ctx, text);
          const objects = servicePortRules(port, ctx, rules);
          const lines = (list: readonly { chain: string; args: readonly string[] }[]): string =>
            formatRestore({
              family: model.config.ipFamily,
              tables: [
                { name: "nat", chains: [], entries: list.map((r) => ({ kind: "rule", op: "-A", ...r })) },
              ],
            })
              .split("\n")
              .filter((l) => l.startsWith("-A "))
              .map((l) => `${l}\n`)
              .join("");
          expect(block.filter).toBe(lines(objects.filter));
          expect(block.natShared).toBe(lines(objects.natShared));
          expect(block.natChainRules).toBe(lines(objects.natChainRules));
          expect(block.natChains).toEqual(objects.natChains);
          expect(block.natDeclarations).toBe(objects.natChains.map((c) => `:${c} - [0:0]\n`).join(""));
        }
      }
    },
  );

  test("the rules sink's arguments are the shape's, filled with the values", () => {
    const model = modelFromInput(randomCluster(3, { family: "IPv4" }));
    const ctx = createContext(model);
    const port = model.servicePorts.find((p) => p.endpoints.length > 1) as ServicePort;
    const seen: { shape: RuleShape; values: readonly string[] }[] = [];
    const sink: PortRuleSink = {
      filter: (shape, _chain, values) => seen.push({ shape, values }),
      jump: (shape, _chain, values) => seen.push({ shape, values }),
      chain: () => {},
      rule: (shape, _chain, values) => seen.push({ shape, values }),
    };
    writePort(port, ctx, sink);
    const rules = servicePortRules(port, ctx);
    const all = [...rules.filter, ...rules.natShared, ...rules.natChainRules];
    expect(all.map((r) => r.args)).toEqual(seen.map(({ shape, values }) => shapeArgs(shape, values)));
  });
});

/** The calls one port's writers make, for a model of one Service. */
function callsOf(model: ClusterModel): string[] {
  const sink = new RecordingSink();
  writePort(model.servicePorts[0] as ServicePort, createContext(model), sink);
  return sink.calls;
}

function lbModel(sourceRanges: string[], nodeIP: string, ready = true): ClusterModel {
  return modelFromInput({
    config: {
      hostname: "node-a",
      nodeIPs: [nodeIP],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
    },
    services: [
      {
        metadata: { name: "web", namespace: "ns" },
        spec: {
          type: "LoadBalancer",
          clusterIP: "10.96.0.10",
          ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080, targetPort: 8080 }],
          loadBalancerSourceRanges: sourceRanges,
        },
        status: { loadBalancer: { ingress: [{ ip: "198.18.0.9" }] } },
      },
    ],
    endpointSlices: [
      {
        metadata: { name: "web-1", namespace: "ns", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        endpoints: [{ addresses: ["10.244.1.5"], conditions: { ready }, nodeName: "node-b" }],
      },
    ],
  } as never);
}

describe("the writers, concern by concern", () => {
  test("load-balancer IPs jump to the firewall chain, which lets the source ranges on and drops the rest", () => {
    const calls = callsOf(lbModel(["198.18.1.0/24"], "198.18.0.2"));
    const kinds = calls.map((c) => c.split(" ").slice(0, 2).join(" "));
    // The LB jump goes to KUBE-FW, the firewall drop is in filter, and the FW chain has the
    // range then the closing comment (the node is not in the range: no LB IP source rule).
    expect(calls.find((c) => c.includes("loadbalancer IP") && c.startsWith("jump"))).toMatch(/KUBE-FW-/);
    expect(kinds).toContain("filter KUBE-PROXY-FIREWALL");
    const fw = calls.filter((c) => /^rule KUBE-FW-/.test(c));
    expect(fw.map((c) => c.split(" ")[2])).toEqual(["from", "comment"]);
    expect(fw[0]).toContain("198.18.1.0/24");
    // The chains are declared before any rule of them: EXT, FW, SVC, then the endpoint's.
    const declared = calls.filter((c) => c.startsWith("chain ")).map((c) => c.split("-")[1]);
    expect(declared).toEqual(["EXT", "FW", "SVC", "SEP"]);
  });

  test("a node inside a source range lets the load-balancer IPs through the firewall too", () => {
    const fw = callsOf(lbModel(["198.18.0.0/24"], "198.18.0.2")).filter((c) => /^rule KUBE-FW-/.test(c));
    expect(fw).toHaveLength(3);
    expect(fw[1]).toContain('"198.18.0.9"');
  });

  test("without ready endpoints every address is rejected in filter and no chain is written", () => {
    const calls = callsOf(lbModel(["198.18.1.0/24"], "198.18.0.2", false));
    expect(calls.every((c) => c.startsWith("filter "))).toBe(true);
    expect(calls.map((c) => c.split(" ").slice(1, 3).join(" "))).toEqual([
      "KUBE-SERVICES reject",
      "KUBE-EXTERNAL-SERVICES reject",
      "KUBE-EXTERNAL-SERVICES node",
    ]);
  });
});

describe("sinks reused across ports", () => {
  test("a port refused leaves nothing in a reused sink", () => {
    const model = modelFromInput(randomCluster(7, { family: "IPv4" }));
    const ctx = createContext(model);
    const bad = { ...(model.servicePorts[0] as ServicePort), name: "web\n-A X" };
    const text = new RestoreTextSink();
    const rules = new RuleBlockSink();
    const jump = KUBE_PROXY_SHAPES.find((s) => s.name === "jump") as RuleShape;
    text.rule(jump, "KUBE-EXT-X", ["KUBE-SVC-X"]);
    rules.rule(jump, "KUBE-EXT-X", ["KUBE-SVC-X"]);
    expect(() => servicePortText(bad, ctx, text)).toThrow(KubeIptablesError);
    expect(() => servicePortRules(bad, ctx, rules)).toThrow(KubeIptablesError);
    expect(text.take().natChainRules).toBe("");
    expect(rules.take().natChainRules).toEqual([]);
  });

  test("a generator refused one model prints the next one whole", () => {
    const good = modelFromInput(randomCluster(7, { family: "IPv4" }));
    const generator = createGenerator();
    const expected = generateRestoreText(good);
    const bad: ClusterModel = {
      ...good,
      servicePorts: good.servicePorts.map((p, i) => (i === 0 ? { ...p, clusterIP: "10.0.0.1\n-A X" } : p)),
    };
    expect(() => generator.restoreText(bad)).toThrow(KubeIptablesError);
    expect(generator.restoreText(good)).toBe(expected);
  });
});
