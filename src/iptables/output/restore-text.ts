/**
 * Model → `iptables-restore` text: each service port's writers print into the restore-text sink
 * and the blocks are joined into the payload. The same bytes as
 * `formatRestore(generateRules(model))` (the same writers through the rules sink), without a
 * rule object per rule.
 *
 * @module
 */

import type { ClusterModel } from "../../model/types.js";
import { sortServicePorts } from "../../plan/service-port-order.js";
import { createContext, type GenerationContext } from "../context.js";
import { RestoreLineWriter } from "../print/restore.js";
import type { ServicePortText } from "./block.js";
import { RestoreTextSink } from "./restore-sink.js";
import { type GenerateOptions, payloadHead, payloadTail } from "./rules.js";
import { servicePortText } from "./write-port.js";

/**
 * The payload kube-proxy writes on a full sync of this model, as `iptables-restore` input: byte
 * for byte `formatRestore(generateRules(model, options))`.
 *
 * Each service port's rules are printed as text (kube-proxy's own way) and only the text is
 * kept: for a 10,000-service cluster that is ~320,000 rules that never become objects.
 *
 * @example
 * generateRestoreText(model) === formatRestore(generateRules(model)) // true
 */
export function generateRestoreText(model: ClusterModel, options: GenerateOptions = {}): string {
  const ctx = createContext(model, options.traits);
  const sink = new RestoreTextSink();
  return joinPayload(
    ctx,
    sortServicePorts(model.servicePorts),
    (port) => servicePortText(port, ctx, sink),
    options,
  );
}

/**
 * Joins the payload from the fixed head and tail and one text block per service port (in
 * generation order). `blockOf` supplies the blocks, built or remembered. `predeclared` names
 * fixed chains the kernel already has, whose declarations are left out (the incremental engine's
 * first delta; a declaration would only flush what is empty anyway).
 */
export function joinPayload<T>(
  ctx: GenerationContext,
  ports: readonly T[],
  blockOf: (port: T) => ServicePortText,
  options: GenerateOptions = {},
  predeclared: (table: "filter" | "nat", chain: string) => boolean = () => false,
): string {
  const existingChains = options.existingChains ?? [];
  // The payload prints filter before nat and, within nat, every declaration before any rule,
  // while each service port contributes to all three: one list of pieces per section.
  // Pieces are flat strings (one per port and section, see RestoreTextSink), so one final join
  // copies each once.
  const filter: string[] = [];
  const natDecls: string[] = [];
  const natRules: string[] = [];
  // The stale-chain check needs the declared chain names; only kept when it will be asked.
  const active = existingChains.length > 0 ? new Set<string>() : null;

  const head = payloadHead(ctx);
  const headText = new RestoreLineWriter();
  headText.line("*filter");
  for (const decl of head.filterChains) if (!predeclared("filter", decl.name)) headText.declaration(decl);
  for (const rule of head.filterRules) headText.entry(rule);
  filter.push(headText.finish());
  for (const decl of head.natChains) {
    if (!predeclared("nat", decl.name)) headText.declaration(decl);
    active?.add(decl.name);
  }
  natDecls.push(headText.finish());
  for (const rule of head.natRules) headText.entry(rule);
  natRules.push(headText.finish());

  for (let i = 0; i < ports.length; i++) {
    const block = blockOf(ports[i] as T);
    if (block.filter !== "") filter.push(block.filter);
    if (block.natDeclarations !== "") natDecls.push(block.natDeclarations);
    if (block.natShared !== "") natRules.push(block.natShared);
    if (block.natChainRules !== "") natRules.push(block.natChainRules);
    if (active !== null) for (const chain of block.natChains) active.add(chain);
  }

  const tail = payloadTail(ctx, existingChains, (chain) => active?.has(chain) === true);
  const tailText = new RestoreLineWriter();
  for (const rule of tail.filterRules) tailText.entry(rule);
  tailText.line("COMMIT");
  tailText.line("*nat");
  filter.push(tailText.finish());
  for (const decl of tail.natChains) tailText.declaration(decl);
  natDecls.push(tailText.finish());
  for (const entry of tail.natEntries) tailText.entry(entry);
  tailText.line("COMMIT");
  natRules.push(tailText.finish());
  return filter.concat(natDecls, natRules).join("");
}
