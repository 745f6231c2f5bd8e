/**
 * One service port's share of the payload, in the two shapes callers need: restore text (what
 * the full-sync emitters join) and rules (what the IR, the incremental engine and the state
 * take). The builders write one shape; the other is derived here, so the two cannot disagree.
 *
 * @module
 */
import { formatEntry, quoteArgument } from "../../format/restore.js";
import { TokenCache, tokenizeLine } from "../../format/tokenize.js";
import { appendRule, type Rule } from "../../ir/types.js";

/**
 * A service port's lines of `iptables-restore` text, per payload section; every line ends with
 * `\n`, and rule lines are `-A CHAIN ARGS` with the arguments quoted as `quoteArgument` does.
 */
export interface ServicePortText {
  /** Filter rule lines, in emission order. */
  readonly filter: string;
  /** nat `KUBE-SERVICES` and `KUBE-NODEPORTS` rule lines, in emission order. */
  readonly natShared: string;
  /** The per-service nat chains, in declaration order. */
  readonly natChains: readonly string[];
  /** Their declaration lines (`:NAME - [0:0]`), in the same order. */
  readonly natDeclarations: string;
  /** The rule lines of those chains, in emission order. */
  readonly natChainRules: string;
}

/** Everything one service port contributes to the payload, as rules. */
export interface ServicePortRules {
  /** Filter rules, in emission order. */
  readonly filter: readonly Rule[];
  /** nat `KUBE-SERVICES` and `KUBE-NODEPORTS` rules, in emission order. */
  readonly natShared: readonly Rule[];
  /** The per-service nat chains, in declaration order. */
  readonly natChains: readonly string[];
  /** The rules of those chains, in emission order. */
  readonly natChainRules: readonly Rule[];
}

/** The declaration line of a user chain in a payload. */
export function declarationLine(chain: string): string {
  return `:${chain} - [0:0]\n`;
}

/** Arguments as restore text: each quoted as needed, joined by single spaces. */
export function argsText(args: readonly string[]): string {
  let text = "";
  for (let i = 0; i < args.length; i++)
    text += i === 0 ? quoteArgument(args[i] as string) : ` ${quoteArgument(args[i] as string)}`;
  return text;
}

// Words shared by every rule made from text: a 10k-service payload's rules hold ~4.8 million
// arguments, mostly the same few dozen words (`-m`, `comment`, `--comment`, `KUBE-MARK-MASQ` …);
// without sharing, each would be a string of its own for as long as the rules live.
const WORDS = new TokenCache();

/** Rule lines (`-A CHAIN ARGS\n` …) back to rules, through the tokenizer iptables-restore's rules follow. */
function rulesOfLines(text: string): Rule[] {
  const rules: Rule[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const argv = tokenizeLine(text, start, end, false, undefined, WORDS);
    // argv[0] is always "-A": the builders write nothing else.
    rules.push(appendRule(argv[1] as string, argv.slice(2)));
    start = end + 1;
  }
  return rules;
}

/** A text block as rules. */
export function rulesOfText(block: ServicePortText): ServicePortRules {
  return {
    filter: rulesOfLines(block.filter),
    natShared: rulesOfLines(block.natShared),
    natChains: block.natChains,
    natChainRules: rulesOfLines(block.natChainRules),
  };
}

function linesOfRules(rules: readonly Rule[]): string {
  let text = "";
  for (const rule of rules) text += `${formatEntry(rule)}\n`;
  return text;
}

/** A rule block as text (for builders that write rules). */
export function textOfRules(block: ServicePortRules): ServicePortText {
  let declarations = "";
  for (const chain of block.natChains) declarations += declarationLine(chain);
  return {
    filter: linesOfRules(block.filter),
    natShared: linesOfRules(block.natShared),
    natChains: block.natChains,
    natDeclarations: declarations,
    natChainRules: linesOfRules(block.natChainRules),
  };
}
