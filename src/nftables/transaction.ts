/**
 * The transaction printer: the text kube-proxy (through knftables) passes to `nft -f -`, one
 * command a line.
 *
 * @module
 */
import type { NftCommand, NftTable } from "./types.js";

/**
 * A string as Go's `%q` prints it (knftables quotes comments so): printable ASCII as is,
 * `"` and `\` escaped, other characters as escapes.
 *
 * @example
 * quoteNft('say "hi"') // "\"say \\\"hi\\\"\""
 */
export function quoteNft(text: string): string {
  let out = '"';
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x80) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += `\\U${c.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** The `{ … }` of a set or map declaration, as knftables writes it. */
function containerSpec(c: Extract<NftCommand, { object: "set" | "map" }>): string {
  let spec = ` { type ${c.type ?? ""} ;`;
  if (c.flags !== undefined && c.flags.length > 0) spec += ` flags ${c.flags.join(",")} ;`;
  if (c.timeoutSeconds !== undefined) spec += ` timeout ${c.timeoutSeconds}s ;`;
  if (c.comment !== undefined) spec += ` comment ${quoteNft(c.comment)} ;`;
  return `${spec} }`;
}

/**
 * One command as a transaction line (without the newline); `where` is `FAMILY TABLE`.
 *
 * @example
 * nftCommandLine({ object: "chain", verb: "flush", name: "services" }, "ip kube-proxy")
 * // "flush chain ip kube-proxy services"
 */
export function nftCommandLine(c: NftCommand, where: string): string {
  switch (c.object) {
    case "table":
      return `add table ${where} { comment ${quoteNft(c.comment)} ; }`;
    case "chain": {
      let line = `${c.verb} chain ${where} ${c.name}`;
      if (c.verb === "add" && (c.hook !== undefined || c.comment !== undefined)) {
        let spec = " {";
        if (c.hook !== undefined)
          spec += ` type ${c.hook.type} hook ${c.hook.hook} priority ${c.hook.priority} ;`;
        if (c.comment !== undefined) spec += ` comment ${quoteNft(c.comment)} ;`;
        line += `${spec} }`;
      }
      return line;
    }
    case "rule":
      return `add rule ${where} ${c.chain} ${c.rule.written}${c.comment === undefined ? "" : ` comment ${quoteNft(c.comment)}`}`;
    case "set":
    case "map":
      return `${c.verb} ${c.object} ${where} ${c.name}${c.verb === "add" ? containerSpec(c) : ""}`;
    case "element": {
      const comment = c.comment === undefined ? "" : ` comment ${quoteNft(c.comment)}`;
      const value = c.value === undefined ? "" : ` : ${c.value}`;
      return `add element ${where} ${c.name} { ${c.key.join(" . ")}${comment}${value} }`;
    }
  }
}

/**
 * The transaction text, as kube-proxy passes it to `nft -f -`.
 *
 * @example
 * formatNftTransaction(generateNftables(model)).split("\n")[0]
 * // 'add table ip kube-proxy { comment "rules for kube-proxy" ; }'
 */
export function formatNftTransaction(table: NftTable): string {
  const where = `${table.family} ${table.name}`;
  const lines: string[] = new Array<string>(table.commands.length);
  for (let i = 0; i < table.commands.length; i++)
    lines[i] = nftCommandLine(table.commands[i] as NftCommand, where);
  return `${lines.join("\n")}\n`;
}
