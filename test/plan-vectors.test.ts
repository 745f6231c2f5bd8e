// The plan against the real kube-proxy: for every iptables vector, the chains and endpoint
// lists the plan decides are exactly the chains and jumps the iptables generator wrote (which
// is byte for byte what kube-proxy wrote, see conformance.test.ts).
import { describe, expect, it } from "vitest";
import { generateRules } from "../src/iptables/output/rules.js";
import type { Rule, RuleSet } from "../src/ir/types.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";
import type { Endpoint } from "../src/model/types.js";
import { chainHash, endpointChain, servicePortChains } from "../src/naming/chain-names.js";
import { planCluster, type ServicePortPlan } from "../src/plan/index.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";

/** The nat chains declared and, per chain, the targets of its jumps. */
function natOf(rules: RuleSet): { chains: Set<string>; targets: Map<string, Set<string>> } {
  const nat = rules.tables.find((t) => t.name === "nat");
  const chains = new Set(nat?.chains.map((c) => c.name) ?? []);
  const targets = new Map<string, Set<string>>();
  for (const entry of nat?.entries ?? []) {
    if (entry.kind !== "rule") continue;
    const rule = entry as Rule;
    const j = rule.args.indexOf("-j");
    const target = j >= 0 ? rule.args[j + 1] : undefined;
    if (target === undefined) continue;
    let set = targets.get(rule.chain);
    if (set === undefined) {
      set = new Set();
      targets.set(rule.chain, set);
    }
    set.add(target);
  }
  return { chains, targets };
}

const seps = (p: ServicePortPlan, eps: readonly Endpoint[]): string[] =>
  eps.map((ep) => endpointChain(p.servicePortName, p.port.protocol, ep.endpoint)).sort();
const sepTargets = (targets: Map<string, Set<string>>, chain: string): string[] =>
  [...(targets.get(chain) ?? [])].filter((t) => t.startsWith("KUBE-SEP-")).sort();
const filterComments = (rules: RuleSet, target: string): Set<string> => {
  const out = new Set<string>();
  for (const entry of rules.tables.find((t) => t.name === "filter")?.entries ?? []) {
    if (entry.kind !== "rule" || entry.args.at(-1) !== target) continue;
    const c = entry.args.indexOf("--comment");
    if (c >= 0) out.add(entry.args[c + 1] as string);
  }
  return out;
};

function checkCurrent(plan: ServicePortPlan, rules: RuleSet, nat: ReturnType<typeof natOf>): void {
  const chains = servicePortChains(plan.servicePortName, plan.port.protocol);
  const label = plan.servicePortName;
  expect(nat.chains.has(chains.svc), `${label} SVC`).toBe(plan.usesClusterPolicyChain);
  expect(nat.chains.has(chains.svl), `${label} SVL`).toBe(plan.usesLocalPolicyChain);
  expect(nat.chains.has(chains.ext), `${label} EXT`).toBe(plan.usesExternalChain);
  expect(nat.chains.has(chains.fw), `${label} FW`).toBe(plan.firewall !== null && plan.hasEndpoints);
  const declared = [...nat.chains].filter((c) => c.startsWith("KUBE-SEP-"));
  for (const sep of seps(plan, plan.reachableEndpoints)) expect(declared, label).toContain(sep);
  if (plan.usesClusterPolicyChain)
    expect(sepTargets(nat.targets, chains.svc), `${label} SVC → SEP`).toEqual(
      seps(plan, plan.clusterEndpoints),
    );
  if (plan.usesLocalPolicyChain)
    expect(sepTargets(nat.targets, chains.svl), `${label} SVL → SEP`).toEqual(
      seps(plan, plan.localEndpoints),
    );
  const rejected = filterComments(rules, "REJECT").has(`${label} has no endpoints`);
  expect(rejected, `${label} REJECT`).toBe(plan.internalNoEndpoints === "reject");
  const dropped = filterComments(rules, "DROP").has(`${label} has no local endpoints`);
  expect(dropped, `${label} DROP`).toBe(
    plan.internalNoEndpoints === "drop" || plan.externalNoEndpoints === "drop",
  );
}

function checkLegacy(plan: ServicePortPlan, nat: ReturnType<typeof natOf>): void {
  const legacy = plan.legacy;
  if (legacy === null) throw new Error("a v1.22 plan has its legacy lists");
  const hash = chainHash(plan.servicePortName + plan.port.protocol);
  const label = plan.servicePortName;
  expect(nat.chains.has(`KUBE-SVC-${hash}`), `${label} SVC`).toBe(legacy.endpoints.length > 0);
  const declared = [...nat.chains].filter((c) => c.startsWith("KUBE-SEP-"));
  for (const sep of seps(plan, legacy.endpoints)) expect(declared, label).toContain(sep);
  if (legacy.endpoints.length > 0)
    expect(sepTargets(nat.targets, `KUBE-SVC-${hash}`), `${label} SVC → SEP`).toEqual(
      seps(plan, legacy.ready),
    );
  if (plan.port.externalPolicyLocal && legacy.endpoints.length > 0)
    expect(sepTargets(nat.targets, `KUBE-XLB-${hash}`), `${label} XLB → SEP`).toEqual(
      seps(plan, legacy.localReady),
    );
}

for (const folder of ["kube-proxy", "kube-proxy-v1.22"]) {
  describe(`plan agrees with the iptables vectors of ${folder}`, () => {
    it.each(listVectors(folder))("$name", ({ path }) => {
      const v = readJson<Vector>(path);
      const model = modelFromInput(v as unknown as ClusterInput);
      const rules = generateRules(model);
      const nat = natOf(rules);
      const plan = planCluster(model);
      expect(plan.servicePorts.length).toBe(model.servicePorts.length);
      // Every SEP chain the generator declared belongs to some plan's endpoint list.
      const planned = new Set<string>();
      for (const p of plan.servicePorts) {
        if (p.legacy !== null) {
          checkLegacy(p, nat);
          for (const s of seps(p, p.legacy.endpoints)) planned.add(s);
        } else {
          checkCurrent(p, rules, nat);
          for (const s of seps(p, p.reachableEndpoints)) planned.add(s);
        }
      }
      expect([...nat.chains].filter((c) => c.startsWith("KUBE-SEP-")).sort()).toEqual([...planned].sort());
    });
  });
}
