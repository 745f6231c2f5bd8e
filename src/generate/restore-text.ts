/**
 * Model → `iptables-restore` text in one streaming pass: the same bytes as
 * `formatRestore(generateRules(model))`, without holding the whole RuleSet.
 *
 * @module
 */
import { RestoreLineWriter } from "../format/restore.js";
import type { Rule } from "../ir/types.js";
import type { ClusterModel } from "../model/types.js";
import { createContext } from "./context.js";
import { type GenerateOptions, payloadHead, payloadTail, sortServicePorts } from "./rules.js";
import { buildServicePortRules } from "./service-port.js";

/**
 * The payload kube-proxy writes on a full sync of this model, as `iptables-restore` input: byte
 * for byte `formatRestore(generateRules(model, options))`.
 *
 * Why it exists: generateRules keeps every Rule (and its args array) alive until the whole
 * RuleSet is built and printed, so for large clusters they are promoted to old space and
 * garbage collection becomes a large share of the time. Here each service port's rules are
 * printed as soon as they are built and only text is kept, so the Rule objects die young.
 *
 * @example
 * generateRestoreText(model) === formatRestore(generateRules(model)) // true
 */
export function generateRestoreText(model: ClusterModel, options: GenerateOptions = {}): string {
  const ctx = createContext(model, options.traits);
  const existingChains = options.existingChains ?? [];
  // The payload prints filter before nat and, within nat, every declaration before any rule,
  // while each service port contributes to all three: one writer per section, joined at the end.
  const filterRules = new RestoreLineWriter();
  const natDecls = new RestoreLineWriter();
  const natRules = new RestoreLineWriter();
  // The stale-chain check needs the declared chain names; only kept when it will be asked.
  const active = existingChains.length > 0 ? new Set<string>() : null;

  const head = payloadHead(ctx);
  for (const rule of head.filterRules) filterRules.entry(rule);
  for (const decl of head.natChains) {
    natDecls.declaration(decl);
    active?.add(decl.name);
  }
  for (const rule of head.natRules) natRules.entry(rule);

  // Indexed loops: these run once per rule of the payload (~320,000 for 10k services).
  for (const port of sortServicePorts(model.servicePorts)) {
    const { filter, natShared, natChains, natChainRules } = buildServicePortRules(port, ctx);
    for (let i = 0; i < filter.length; i++) filterRules.entry(filter[i] as Rule);
    for (let i = 0; i < natChains.length; i++) {
      const name = natChains[i] as string;
      natDecls.declaration({ name, policy: null });
      active?.add(name);
    }
    for (let i = 0; i < natShared.length; i++) natRules.entry(natShared[i] as Rule);
    for (let i = 0; i < natChainRules.length; i++) natRules.entry(natChainRules[i] as Rule);
  }

  const tail = payloadTail(ctx, existingChains, (chain) => active?.has(chain) === true);
  for (const rule of tail.filterRules) filterRules.entry(rule);
  for (const decl of tail.natChains) natDecls.declaration(decl);
  for (const entry of tail.natEntries) natRules.entry(entry);

  // The table framing lines go through a writer too, so that every line is printed one way.
  const out = new RestoreLineWriter();
  out.line("*filter");
  for (const decl of head.filterChains) out.declaration(decl);
  const chunks = out.takeChunks();
  pushAll(chunks, filterRules.takeChunks());
  out.line("COMMIT");
  out.line("*nat");
  pushAll(chunks, out.takeChunks());
  pushAll(chunks, natDecls.takeChunks());
  pushAll(chunks, natRules.takeChunks());
  out.line("COMMIT");
  pushAll(chunks, out.takeChunks());
  return chunks.join("");
}

function pushAll(into: string[], items: readonly string[]): void {
  for (const item of items) into.push(item);
}
