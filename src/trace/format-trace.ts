/**
 * A trace result as text for people and as JSON-safe data (bigints as strings).
 *
 * @module
 */
import { oneLine } from "../one-line.js";
import { describeConditions } from "./conditions.js";
import { add, formatFraction, ONE } from "./fraction.js";
import { formatSocket, outcomeHead, outcomeSummary, outcomeTail } from "./outcome-text.js";
import type { TraceOutcome, TraceResult } from "./types.js";

function stepLines(o: TraceOutcome, indent: string): string[] {
  return o.steps.map((s) => {
    const share =
      s.share === null ? "" : `  [${s.matched ? "taken" : "not taken"} ${formatFraction(s.share)}]`;
    return oneLine(`${indent}${s.table} ${s.chain} #${s.index}${share}  ${s.rule}`);
  });
}

/**
 * Prints a trace: one line per outcome, each followed by the rules it passed. Outcomes that
 * depend on facts outside the rules are grouped under the place the packet went (service port,
 * DNAT destination, probability), one line per case: `if <conditions>: <what became of it>`.
 * Without the rules, outcomes that differ only in probability are one line, the probabilities
 * added.
 *
 * @param result the trace.
 * @param verbose include the rules of each path (default true).
 * @returns the text, ending in a newline.
 * @example
 * formatTraceText(traceRules(state, packet, options))
 * // "default/web:http → 10.244.1.2:8080  p=0.333333333  no masquerade\n    nat PREROUTING #1  -A PREROUTING …\n…"
 */
export function formatTraceText(result: TraceResult, verbose = true): string {
  const destination = formatSocket({
    address: result.packet.destination,
    port: result.packet.destinationPort,
  });
  // Rules (and chain names) are printed as written: a comment may hold a control character.
  const groups = new Map<string, TraceOutcome[]>();
  for (const o of verbose ? result.outcomes : mergeAlike(result.outcomes, destination)) {
    const head = outcomeHead(o, destination);
    const key = o.conditions.length === 0 ? `\u0000${groups.size}` : head;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [o]);
    else g.push(o);
  }
  const out: string[] = [];
  for (const g of groups.values()) {
    const first = g[0] as TraceOutcome;
    if (first.conditions.length === 0) {
      out.push(oneLine(first.summary));
      if (verbose) out.push(...stepLines(first, "    "));
      continue;
    }
    out.push(oneLine(`${outcomeHead(first, destination)}, depending on:`));
    for (const o of g) {
      out.push(oneLine(`  if ${describeConditions(o.conditions)}: ${outcomeTail(o)}`));
      if (verbose) out.push(...stepLines(o, "      "));
    }
  }
  out.push(`total p=${formatFraction(result.total)}`);
  return `${out.join("\n")}\n`;
}

/**
 * The outcomes with those that print alike apart from their probability merged into the first
 * of them, their probabilities added (its rules stay the first path's, which are not printed).
 */
function mergeAlike(outcomes: readonly TraceOutcome[], destination: string): TraceOutcome[] {
  const merged = new Map<string, TraceOutcome>();
  for (const o of outcomes) {
    const key = outcomeSummary({ ...o, probability: ONE }, destination);
    const had = merged.get(key);
    if (had === undefined) {
      merged.set(key, o);
      continue;
    }
    const facts = { ...had, probability: add(had.probability, o.probability) };
    merged.set(key, { ...facts, summary: outcomeSummary(facts, destination) });
  }
  return [...merged.values()];
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
