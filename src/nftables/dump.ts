/**
 * The dump printer: what knftables' `Fake.Dump()` prints for the table after the transaction,
 * the form of kube-proxy's own golden tests (and `expected.dump` of the vectors). The objects
 * as `add` commands: the table, then chains, sets and maps each sorted by name, then every
 * chain's rules (chains by name), then the elements of sets and of maps (by name, each in the
 * order added).
 *
 * @module
 */
import { nftCommandLine } from "./transaction.js";
import type { NftCommand, NftTable } from "./types.js";

type Named = Extract<NftCommand, { object: "chain" | "set" | "map" }>;
type Element = Extract<NftCommand, { object: "element" }>;
type RuleCommand = Extract<NftCommand, { object: "rule" }>;

const byName = <T>(m: Map<string, T>): T[] =>
  [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

/**
 * The table as knftables' `Fake.Dump()` prints it.
 *
 * @example
 * formatNftDump(generateNftables(model)).split("\n")[1] // "add chain ip kube-proxy cluster-ips-check"
 */
export function formatNftDump(table: NftTable): string {
  const where = `${table.family} ${table.name}`;
  let head: NftCommand | undefined;
  const chains = new Map<string, { decl: Named; rules: RuleCommand[] }>();
  const sets = new Map<string, { decl: Named; elements: Map<string, Element> }>();
  const maps = new Map<string, { decl: Named; elements: Map<string, Element> }>();
  for (const c of table.commands) {
    switch (c.object) {
      case "table":
        head = c;
        break;
      case "chain":
        if (c.verb === "delete") chains.delete(c.name);
        else if (c.verb === "flush") chains.get(c.name)?.rules.splice(0);
        else if (!chains.has(c.name)) chains.set(c.name, { decl: c, rules: [] });
        break;
      case "rule":
        chains.get(c.chain)?.rules.push(c);
        break;
      case "set":
      case "map": {
        const where = c.object === "set" ? sets : maps;
        if (c.verb === "delete") where.delete(c.name);
        else if (c.verb === "flush") where.get(c.name)?.elements.clear();
        else if (!where.has(c.name)) where.set(c.name, { decl: c, elements: new Map() });
        break;
      }
      case "element": {
        const elements = (c.container === "set" ? sets : maps).get(c.name)?.elements;
        const key = c.key.join(" . ");
        // The fake keeps the first of two equal keys (nft refuses two verdicts for one key).
        if (elements !== undefined && !elements.has(key)) elements.set(key, c);
        break;
      }
    }
  }
  const lines: string[] = [];
  if (head !== undefined) lines.push(nftCommandLine(head, where));
  for (const { decl } of byName(chains)) lines.push(nftCommandLine(decl, where));
  for (const { decl } of byName(sets)) lines.push(nftCommandLine(decl, where));
  for (const { decl } of byName(maps)) lines.push(nftCommandLine(decl, where));
  for (const { rules } of byName(chains)) for (const r of rules) lines.push(nftCommandLine(r, where));
  for (const { elements } of byName(sets))
    for (const e of elements.values()) lines.push(nftCommandLine(e, where));
  for (const { elements } of byName(maps))
    for (const e of elements.values()) lines.push(nftCommandLine(e, where));
  return `${lines.join("\n")}\n`;
}
