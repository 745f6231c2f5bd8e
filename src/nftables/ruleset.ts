/**
 * The ruleset printer: what `nft list table` (nft 1.0.6) prints once the transaction is loaded
 * into an empty kernel. The commands are replayed (a deleted object goes, a re-added one moves
 * to the end), then sets and maps are listed in creation order, then chains.
 *
 * @module
 */

import { quoteNft } from "./transaction.js";
import type { NftCommand, NftHook, NftTable } from "./types.js";

interface ListedContainer {
  object: "set" | "map";
  name: string;
  type: string;
  flags: readonly string[];
  timeoutSeconds: number | undefined;
  comment: string | undefined;
  elements: Map<string, string>;
}

interface ListedChain {
  name: string;
  hook: NftHook | undefined;
  comment: string | undefined;
  rules: string[];
}

// nft's standard priorities and the hooks where it prints them by name (nft 1.0.6,
// `std_prio_table`): dstnat only for prerouting, srcnat only for postrouting.
const STD_PRIORITIES: readonly (readonly [string, number, string | null])[] = [
  ["raw", -300, null],
  ["mangle", -150, null],
  ["dstnat", -100, "prerouting"],
  ["filter", 0, null],
  ["security", 50, null],
  ["srcnat", 100, "postrouting"],
];

/**
 * A priority as nft lists it: a standard name, a name ± up to 10, or the number.
 *
 * @example
 * listedPriority("prerouting", -110) // "dstnat - 10"
 * listedPriority("input", -110)      // "-110"
 */
export function listedPriority(hook: string, priority: number): string {
  for (const [name, value, only] of STD_PRIORITIES) {
    if (only !== null && only !== hook) continue;
    const offset = priority - value;
    if (offset === 0) return name;
    if (offset < 0 && offset >= -10) return `${name} - ${-offset}`;
    if (offset > 0 && offset <= 10) return `${name} + ${offset}`;
  }
  return String(priority);
}

/**
 * A timeout as nft lists it: days, hours, minutes and seconds, the zero ones left out.
 *
 * @example
 * listedTimeout(10800) // "3h"
 * listedTimeout(18053) // "5h53s"
 */
export function listedTimeout(seconds: number): string {
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), "d"],
    [Math.floor((seconds % 86400) / 3600), "h"],
    [Math.floor((seconds % 3600) / 60), "m"],
    [seconds % 60, "s"],
  ];
  const text = parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join("");
  return text === "" ? "0s" : text;
}

function replay(commands: readonly NftCommand[]): {
  comment: string;
  containers: Map<string, ListedContainer>;
  chains: Map<string, ListedChain>;
} {
  let comment = "";
  const containers = new Map<string, ListedContainer>();
  const chains = new Map<string, ListedChain>();
  for (const c of commands) {
    switch (c.object) {
      case "table":
        comment = c.comment;
        break;
      case "chain":
        if (c.verb === "delete") chains.delete(c.name);
        else if (c.verb === "flush") {
          const chain = chains.get(c.name);
          if (chain !== undefined) chain.rules.length = 0;
        } else if (!chains.has(c.name)) {
          chains.set(c.name, { name: c.name, hook: c.hook, comment: c.comment, rules: [] });
        }
        break;
      case "rule": {
        const comment = c.comment === undefined ? "" : ` comment ${quoteNft(c.comment)}`;
        chains.get(c.chain)?.rules.push(`${c.rule.listed}${comment}`);
        break;
      }
      case "set":
      case "map":
        if (c.verb === "delete") containers.delete(c.name);
        else if (c.verb === "flush") containers.get(c.name)?.elements.clear();
        else if (!containers.has(c.name)) {
          containers.set(c.name, {
            object: c.object,
            name: c.name,
            type: c.type ?? "",
            flags: c.flags ?? [],
            timeoutSeconds: c.timeoutSeconds,
            comment: c.comment,
            elements: new Map(),
          });
        }
        break;
      case "element": {
        const container = containers.get(c.name);
        const key = c.key.join(" . ");
        // An element already there stays as it was (a different verdict makes nft refuse the
        // transaction, reported as a problem by generateNftables).
        if (container === undefined || container.elements.has(key)) break;
        const comment = c.comment === undefined ? "" : ` comment ${quoteNft(c.comment)}`;
        container.elements.set(key, `${key}${comment}${c.value === undefined ? "" : ` : ${c.value}`}`);
        break;
      }
    }
  }
  return { comment, containers, chains };
}

function listContainer(c: ListedContainer): string {
  let out = `\t${c.object} ${c.name} {\n\t\ttype ${c.type}\n`;
  // The kernel gives a dynamic set its default size.
  if (c.flags.includes("dynamic")) out += "\t\tsize 65535\n";
  if (c.flags.length > 0) out += `\t\tflags ${c.flags.join(",")}\n`;
  if (c.timeoutSeconds !== undefined) out += `\t\ttimeout ${listedTimeout(c.timeoutSeconds)}\n`;
  if (c.comment !== undefined) out += `\t\tcomment ${quoteNft(c.comment)}\n`;
  if (c.elements.size > 0) out += `\t\telements = { ${[...c.elements.values()].join(", ")} }\n`;
  return `${out}\t}\n`;
}

function listChain(c: ListedChain): string {
  let out = `\tchain ${c.name} {\n`;
  if (c.hook !== undefined)
    out += `\t\ttype ${c.hook.type} hook ${c.hook.hook} priority ${listedPriority(c.hook.hook, c.hook.priority)}; policy accept;\n`;
  if (c.comment !== undefined) out += `\t\tcomment ${quoteNft(c.comment)}\n`;
  for (const rule of c.rules) out += `\t\t${rule}\n`;
  return `${out}\t}\n`;
}

/**
 * What `nft list table FAMILY kube-proxy` prints after the transaction is loaded into an empty
 * kernel. The kernel lists the elements of a set or map in its own hash order; this prints them
 * in the order they were added (compare elements as sets).
 *
 * @example
 * formatNftRuleset(generateNftables(model)).split("\n")[0] // "table ip kube-proxy {"
 */
export function formatNftRuleset(table: NftTable): string {
  const { comment, containers, chains } = replay(table.commands);
  const objects: string[] = [];
  for (const c of containers.values()) objects.push(listContainer(c));
  for (const c of chains.values()) objects.push(listChain(c));
  const head = `table ${table.family} ${table.name} {\n${comment === "" ? "" : `\tcomment ${quoteNft(comment)}\n`}`;
  return `${head}${objects.join("\n")}}\n`;
}
