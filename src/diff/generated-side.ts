/**
 * A cluster's side of a diff: its state after kube-proxy's first full sync, printed as save text
 * at once and built as rules only if a chain differs (see `saved-state.ts`).
 *
 * @module
 */
import { createContext, generateIndexedSaveText, generateState, payloadHead } from "../iptables/index.js";
import type { RuleSet, Table } from "../ir/types.js";
import type { ClusterModel } from "../model/types.js";
import { kubeProxyChainsOfDeclared } from "./diff-rules.js";
import { withSaveText } from "./saved-state.js";

/** What {@link generatedState} returns. */
export interface GeneratedState {
  /** `generateState(model)`, its tables built on first access; diffs compare its save text. */
  readonly state: RuleSet;
  /** `kubeProxyChainsOf(generateRules(model))`: the chains kube-proxy owns where it writes it. */
  readonly owned: (table: string, chain: string) => boolean;
}

/**
 * A model's state for `diffRules`: equal to `generateState(model)`, but compared with a state
 * of rules (a node's dump) as its save text (`generateSaveText`, byte for byte
 * `formatSave(generateState(model))`), and built as rules only when asked, as a diff does when
 * a chain differs or when both sides are generated. `owned` needs no rules either: the
 * fixed chains a payload declares are its head's, and every per-service chain counts.
 *
 * @example
 * const { state, owned } = generatedState(model);
 * diffRules(nodeDump, state, { chains: owned }) // rules built only if a chain differs
 */
export function generatedState(model: ClusterModel): GeneratedState {
  const ctx = createContext(model);
  let tables: readonly Table[] | null = null;
  const lazy: RuleSet = {
    family: ctx.family,
    get tables(): readonly Table[] {
      tables ??= generateState(model).tables;
      return tables;
    },
  };
  const state = withSaveText(lazy, () => generateIndexedSaveText(model));
  // The payload's other declarations are its per-service chains (and, with existingChains, the
  // stale ones it deletes): the head's are all the fixed ones it declares.
  const head = payloadHead(ctx);
  const declared = new Set<string>();
  for (const d of head.filterChains) declared.add(`filter\u0000${d.name}`);
  for (const d of head.natChains) declared.add(`nat\u0000${d.name}`);
  return { state, owned: kubeProxyChainsOfDeclared(declared) };
}
