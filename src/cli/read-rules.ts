// Rules text → a RuleSet for the CLI, with what people paste around a dump handled first: a
// shell or password prompt, Windows line endings (one message saying what to do), and rule lines
// without their `*table` lines (`iptables-save | grep KUBE`), read as the tables kube-proxy's
// chains place them in, with a note.
import { withSourceText } from "../diff/saved-state.js";
import type { Problem } from "../errors.js";
import {
  type HeaderlessRead,
  isHeaderlessRules,
  type ParseOptions,
  type ParseResult,
  parseRules,
  pastedTextProblem,
  readHeaderlessRules,
} from "../iptables/index.js";
import { writeErr, writeNote, writeProblems } from "./io.js";

/**
 * A rules file as parsed: `parseRules`' result and, for rule lines without their tables, the
 * chains the text holds (`HeaderlessRead.held`; null for a whole text): the state made of such a
 * text has the other chains empty, which the text does not say.
 */
export interface ParsedRulesFile extends ParseResult {
  readonly held: HeaderlessRead["held"] | null;
}

/**
 * Parses one file's rules text as `parseRules` does, after the checks above; `null` after saying
 * on stderr why the text cannot be read at all. Problems of the rules themselves are returned
 * (with the file's own line numbers) for the caller to print.
 */
export function parseRulesFile(file: string, text: string, options: ParseOptions): ParsedRulesFile | null {
  const name = file; // as the user gave it: stdin is "-"
  const pasted = pastedTextProblem(text, true);
  if (pasted !== null) {
    writeProblems(name, [pasted]);
    return null;
  }
  // The text each state was read from goes with it: a diff finds unchanged chains by their bytes.
  if (!isHeaderlessRules(text)) {
    const parsed = sourced(parseRules(text, options), text);
    return { ...(options.noflush === true ? parsed : lastBlocks(name, parsed, text)), held: null };
  }
  const read = readHeaderlessRules(text);
  if (read === null) {
    writeErr(
      `${name}: rule lines without a *table line (as iptables -S or iptables-save | grep print them), and none of their chains is one of kube-proxy's, which would tell the table: give the whole iptables-save output (or iptables-save -t TABLE)`,
    );
    return null;
  }
  const where = read.tables.map((t) => `${t.lines} line${t.lines === 1 ? "" : "s"} in ${t.name}`).join(", ");
  writeNote(
    `${name} has rule lines without *table lines (as iptables -S or iptables-save | grep print them): read as the tables kube-proxy's chains live in (${where}), chains they name but do not declare taken as declared`,
  );
  const parsed = sourced(parseRules(read.text, options), read.text);
  const problems = parsed.problems.map(
    (p): Problem => (p.line === undefined ? p : { ...p, line: read.lineMap[p.line - 1] ?? p.line }),
  );
  return { ruleSet: parsed.ruleSet, problems, held: read.held };
}

/**
 * A text that holds a table more than once (two dumps pasted one after the other, such as
 * iptables-nft-save's and iptables-legacy-save's), read as iptables-restore loads it: each
 * `*table` block replaces the table (nft flushes it, legacy commits a new one), so the last block
 * of each table is what the kernel holds. A note says so.
 */
function lastBlocks(name: string, parsed: ParseResult, text: string): ParseResult {
  const { tables } = parsed.ruleSet;
  const last = new Map<string, number>();
  for (let i = 0; i < tables.length; i++) last.set((tables[i] as (typeof tables)[number]).name, i);
  if (last.size === tables.length) return parsed;
  for (const table of new Set(tables.map((t) => t.name))) {
    const times = tables.filter((t) => t.name === table).length;
    if (times > 1)
      writeNote(
        `${name} holds the ${table} table ${times} times (dumps pasted one after another?): read as iptables-restore loads it, each *${table} block replacing the one before, so only the last counts here; iptables-nft's and iptables-legacy's tables are both active on a node: give each backend's dump on its own`,
      );
  }
  const kept = { ...parsed.ruleSet, tables: tables.filter((t, i) => last.get(t.name) === i) };
  return { ...parsed, ruleSet: withSourceText(kept, text) };
}

function sourced(parsed: ParseResult, text: string): ParseResult {
  withSourceText(parsed.ruleSet, text);
  return parsed;
}
