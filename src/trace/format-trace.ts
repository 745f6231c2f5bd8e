/**
 * A trace result as text for people and as JSON-safe data (bigints as strings).
 *
 * @module
 */
import { oneLine } from "../format/one-line.js";
import { formatFraction } from "./fraction.js";
import type { TraceResult } from "./types.js";

/**
 * Prints a trace: one summary line per outcome, each followed by the rules it passed.
 *
 * @param result the trace.
 * @param verbose include the rules of each path (default true).
 * @returns the text, ending in a newline.
 * @example
 * formatTraceText(traceRules(state, packet, options))
 * // "default/web:http → 10.244.1.2:8080  p=0.333333333  no masquerade\n    nat PREROUTING #1  -A PREROUTING …\n…"
 */
export function formatTraceText(result: TraceResult, verbose = true): string {
  const out: string[] = [];
  for (const o of result.outcomes) {
    // Rules (and chain names) are printed as written: a comment may hold a control character.
    out.push(oneLine(o.summary));
    if (!verbose) continue;
    for (const s of o.steps) {
      const share =
        s.share === null ? "" : `  [${s.matched ? "taken" : "not taken"} ${formatFraction(s.share)}]`;
      out.push(oneLine(`    ${s.table} ${s.chain} #${s.index}${share}  ${s.rule}`));
    }
  }
  out.push(`total p=${formatFraction(result.total)}`);
  return `${out.join("\n")}\n`;
}

/**
 * A trace as plain JSON data: fractions become `{numerator, denominator, decimal}` with the
 * bigints as decimal strings.
 *
 * @example
 * JSON.stringify(traceToJson(result)).includes('"decimal":"1.000000000"') // true
 */
export function traceToJson(result: TraceResult): unknown {
  return JSON.parse(
    JSON.stringify(result, (_key, value: unknown) => {
      if (typeof value === "bigint") return value.toString();
      if (value !== null && typeof value === "object" && "numerator" in value && "denominator" in value) {
        const f = value as { numerator: bigint; denominator: bigint };
        return {
          numerator: f.numerator.toString(),
          denominator: f.denominator.toString(),
          decimal: formatFraction(f),
        };
      }
      return value;
    }),
  );
}
