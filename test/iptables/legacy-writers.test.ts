// The v1.22 writers (src/iptables/writers/legacy/) on their own, away from the generator's
// assembly: against every v1.22 vector, the rules they write for the cluster's service ports are
// exactly the vector's per-port rules, in kube-proxy's order, with its chains; over random v1.22
// models, every value fits its slot's kind (what the save printer relies on), the restore line
// of a shape is the rule object's, and every jump lands on a chain the port declared or a chain
// kube-proxy owns.
//
// Before the builder they replace (src/generate/service-port-xlb.ts) was deleted, this file
// compared them rule for rule with it over the same vectors and random models (commit 12be0f1).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createContext } from "../../src/iptables/context.js";
import { formatEntry } from "../../src/iptables/print/restore.js";
import { restoreLine, shapeArgs } from "../../src/iptables/shape/print.js";
import type { PortRuleSink } from "../../src/iptables/shape/sink.js";
import type { RuleShape, SlotKind } from "../../src/iptables/shape/types.js";
import { FROM_SOURCE } from "../../src/iptables/shapes.js";
import { writeLegacyServicePort } from "../../src/iptables/writers/legacy/index.js";
import { appendRule } from "../../src/ir/types.js";
import { prepareCluster } from "../../src/kube/from-kubernetes.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import type { ClusterInput } from "../../src/kube/types.js";
import { canonicalIP, parseCidr } from "../../src/model/ip.js";
import type { ProfileTraits } from "../../src/model/profiles.js";
import type { ClusterModel } from "../../src/model/types.js";
import { planCluster, planNode, planServicePort } from "../../src/plan/index.js";
import { kubeProxyVector, kubeProxyVectors } from "../support/corpora.js";
import { clusterArbitrary } from "../support/random-cluster.js";

const SEED = 20_261_124;

/** One written rule: where it went, and the shape and values it was written with. */
interface Written {
  readonly section: "filter" | "nat shared" | "nat chain";
  readonly chain: string;
  readonly shape: RuleShape;
  readonly values: readonly string[];
}

/** What a sink received, in order: rules, and chain declarations per port. */
interface Recorded {
  readonly rules: Written[];
  readonly chains: string[];
}

/** A sink that keeps every call. */
function recordingSink(into: Recorded = { rules: [], chains: [] }): { sink: PortRuleSink } & Recorded {
  const keep =
    (section: Written["section"]) =>
    (shape: RuleShape, chain: string, values: readonly string[]): void => {
      into.rules.push({ section, chain, shape, values: [...values] });
    };
  const sink: PortRuleSink = {
    filter: keep("filter"),
    jump: keep("nat shared"),
    chain: (name) => into.chains.push(name),
    rule: keep("nat chain"),
  };
  return { sink, ...into };
}

/** Every service port of a model written, in kube-proxy's port order, into one recording. */
function writeModel(model: ClusterModel, overrides?: Partial<ProfileTraits>): Recorded {
  const ctx = createContext(model, overrides);
  const recorded: Recorded = { rules: [], chains: [] };
  const { sink } = recordingSink(recorded);
  for (const plan of planCluster(model, overrides).servicePorts) writeLegacyServicePort(plan, ctx, sink);
  return recorded;
}

/** The `-A` lines and declared chains of one table of a restore text. */
function tableOf(restore: string, table: string): { rules: string[]; chains: string[] } {
  const lines = restore.split("\n");
  const start = lines.indexOf(`*${table}`);
  const rules: string[] = [];
  const chains: string[] = [];
  for (let i = start + 1; start >= 0 && i < lines.length && lines[i] !== "COMMIT"; i++) {
    const line = lines[i] as string;
    if (line.startsWith("-A ")) rules.push(line);
    else if (line.startsWith(":")) chains.push(line.slice(1, line.indexOf(" ")));
  }
  return { rules, chains };
}

/** Whether `run` occurs in `lines` as one contiguous block (an empty run always does). */
function containsRun(lines: readonly string[], run: readonly string[]): boolean {
  if (run.length === 0) return true;
  for (let i = 0; i + run.length <= lines.length; i++) {
    let j = 0;
    while (j < run.length && lines[i + j] === run[j]) j++;
    if (j === run.length) return true;
  }
  return false;
}

const PORT_CHAIN = /^KUBE-(SVC|SEP|XLB|FW)-[A-Z2-7]{16}$/;

describe("v1.22 writers against the v1.22 vectors", () => {
  const vectors = kubeProxyVectors("kube-proxy-v1.22");
  test.each(vectors)("$name", (v) => {
    const model = modelFromInput(v as unknown as ClusterInput, { config: { profile: "v1.22" } });
    const { rules, chains } = writeModel(model);
    const lines = (section: Written["section"]): string[] =>
      rules.filter((w) => w.section === section).map((w) => restoreLine(w.shape, w.chain, w.values));
    const filter = tableOf(v.expected.restore, "filter");
    const nat = tableOf(v.expected.restore, "nat");
    // kube-proxy ≤ 1.23 wrote each port's rules in one stream per table, port after port.
    expect(lines("nat shared")).toEqual([]);
    expect(containsRun(filter.rules, lines("filter"))).toBe(true);
    expect(containsRun(nat.rules, lines("nat chain"))).toBe(true);
    // ... and nothing of a port's own chains is missing.
    const own = (line: string): boolean => PORT_CHAIN.test(line.split(" ")[1] ?? "");
    expect(lines("nat chain").filter(own)).toEqual(nat.rules.filter(own));
    expect(new Set(chains)).toEqual(new Set(nat.chains.filter((c) => PORT_CHAIN.test(c))));
  });

  test("a node inside a load-balancer source range lets the LB IP in too, before the drop", () => {
    const v = kubeProxyVector("kube-proxy-v1.22", "feature-lb-source-ranges");
    const input = { ...v, config: { ...v.config, nodeIPs: ["198.51.100.7"], profile: "v1.22" } };
    const model = modelFromInput(input as unknown as ClusterInput);
    const port = model.servicePorts.find((p) => p.loadBalancerSourceRanges.length > 0);
    if (port === undefined) throw new Error("vector has no source ranges");
    const fw = writeModel(model).rules.filter((w) => w.chain.startsWith("KUBE-FW-"));
    const sources = fw.filter((w) => w.shape === FROM_SOURCE).map((w) => w.values[1]);
    expect(sources).toEqual([...port.loadBalancerSourceRanges, `${port.loadBalancerVIPs[0]}/32`]);
    expect(fw.at(-1)?.values[1]).toBe("KUBE-MARK-DROP");
  });

  test("a plan made for a current profile is refused", () => {
    const model = modelFromInput(kubeProxyVectors("kube-proxy-v1.22")[0] as unknown as ClusterInput);
    const port = model.servicePorts[0];
    if (port === undefined) throw new Error("vector has no service port");
    const plan = planServicePort(port, planNode(model), model.config);
    expect(() => writeLegacyServicePort(plan, createContext(model), recordingSink().sink)).toThrow(
      /xlb plan/,
    );
  });
});

/** Whether a value is what its slot kind promises (the save printer's derived layout relies on it). */
function fitsKind(kind: SlotKind, value: string): boolean {
  switch (kind) {
    case "chain":
      return /^[A-Z][A-Z0-9-]{0,27}$/.test(value);
    case "comment":
      return value.length <= 255 && !/[\n\r\0]/.test(value);
    case "protocol":
      return value === "tcp" || value === "udp" || value === "sctp";
    case "address":
      return canonicalIP(value) === value;
    case "cidr":
      return value.includes("/") && parseCidr(value) !== null;
    case "port": {
      const n = Number(value);
      return /^[1-9][0-9]*$/.test(value) && n <= 65535;
    }
    case "probability":
      return /^0\.[0-9]{10}$/.test(value);
    case "seconds":
      return /^[1-9][0-9]*$/.test(value);
    case "destination": {
      const colon = value.lastIndexOf(":");
      const host = value.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
      return colon > 0 && canonicalIP(host) === host && /^[1-9][0-9]*$/.test(value.slice(colon + 1));
    }
    case "interface":
      return /^[^\s/]{1,15}$/.test(value);
    case "word":
      return value.length > 0;
  }
}

const OWNED_TARGETS = new Set(["KUBE-MARK-MASQ", "KUBE-MARK-DROP", "ACCEPT", "REJECT", "DNAT"]);
const SHARED_CHAINS = new Set(["KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-EXTERNAL-SERVICES"]);

describe("v1.22 writers over random v1.22 models", () => {
  test("values fit their slots, both printers agree, every jump lands on a declared or owned chain", () => {
    let total = 0;
    fc.assert(
      fc.property(clusterArbitrary({ maxServices: 8, largeRate: 0.05 }), fc.boolean(), (cluster, iface) => {
        const input = { ...cluster, config: { ...cluster.config, profile: "v1.22" as const } };
        const { model } = prepareCluster(input);
        if (model === null) throw new Error("random cluster is invalid");
        // Interface detectors came with 1.23; turned on, they reach the interface shapes.
        const { rules, chains } = writeModel(model, iface ? { interfaceDetectors: true } : undefined);
        const declared = new Set(chains);
        for (const w of rules) {
          expect(w.values.length, w.shape.name).toBe(w.shape.slots);
          for (const arg of w.shape.args) {
            if (typeof arg === "string") continue;
            const value = w.values[arg.slot] as string;
            expect(fitsKind(arg.kind, value), `${w.shape.name}: ${arg.kind} ${value}`).toBe(true);
          }
          const args = shapeArgs(w.shape, w.values);
          expect(restoreLine(w.shape, w.chain, w.values)).toBe(formatEntry(appendRule(w.chain, args)));
          expect(SHARED_CHAINS.has(w.chain) || declared.has(w.chain), w.chain).toBe(true);
          const target = args[args.indexOf("-j") + 1] as string;
          expect(OWNED_TARGETS.has(target) || declared.has(target), target).toBe(true);
        }
        total += rules.length;
      }),
      { seed: SEED, numRuns: 150 },
    );
    // The property looked at real rules, not empty ports.
    expect(total).toBeGreaterThan(1000);
  });
});
