// Small readers of rule sets shared by the generation tests.
import type { RuleSet } from "../../src/index.js";

/** The nat chains a payload declares (what the kernel holds after it is restored). */
export function natChainsOf(payload: RuleSet): string[] {
  return payload.tables.find((t) => t.name === "nat")?.chains.map((c) => c.name) ?? [];
}
