/**
 * Tells the three kinds of input the CLI accepts apart: iptables-restore input, iptables-save
 * output, or a cluster file (JSON or YAML).
 *
 * @module
 */

import type { Problem } from "../../errors.js";
import { isHeaderlessRules } from "./headerless.js";

/**
 * What a text is.
 *
 * @example
 * detectTextForm("*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n") // "restore"
 * detectTextForm('{"services": []}')                         // "cluster"
 */
export type TextForm = "restore" | "save" | "cluster";

/**
 * A shell prompt and the command after it, as a terminal shows them above a command's output:
 * `$ sudo iptables-save`, `root@node:~# iptables-save`, `[root@node ~]# iptables-save`,
 * `node:~ # iptables-save`, PowerShell's `PS C:\Users\me> kubectl …` and cmd's `C:\Users\me>`;
 * the command must be one that prints rules or files (sudo, iptables…,
 * kubectl, cat, ssh …), so that a YAML line such as `key: # note` is not taken for one. (A line
 * starting with `#` is a comment in rules text, never this.)
 */
const PROMPT_LINE =
  /^(?:(?:[\w.-]+@[\w.-]+[^\s#$%>]*|\[[^\]\n]*\]|PS [^>\n]*|[\w.~:/-]+)?[ \t]?[#$%>][ \t]+|[A-Za-z]:\\[^>\n]*>[ \t]*)(?:\S*\/)?(?:sudo|doas|su|ip6?tables[\w-]*|kubectl|oc|cat|ssh|nsenter|docker|crictl|k3s|minikube|kind|microk8s|grep|tee|less)(?:[ \t]|$)/;
/** What sudo (or su) asks before it runs the command. */
const PASSWORD_LINE = /^(?:\[sudo\] password for [^:\n]*:|Password:)[ \t]*$/;
/**
 * A Markdown code fence around a dump copied from an issue or a chat: three or more backticks
 * or tildes, maybe a language name (no rules text or YAML line is one).
 */
const FENCE_LINE = /^(?:`{3,}|~{3,})[ \t]*[\w+.-]*$/;

/** Whether a line (without its newline) is a shell prompt line, a password prompt or a code fence. */
function shellLineKind(line: string): "prompt" | "password" | "fence" | null {
  if (line.startsWith("#") || line.startsWith("*") || line.startsWith(":") || line.startsWith("-"))
    return null;
  if (FENCE_LINE.test(line)) return "fence";
  if (PASSWORD_LINE.test(line)) return "password";
  return PROMPT_LINE.test(line) ? "prompt" : null;
}
const BUILTIN_POLICY_LINE = /^:(?:PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) (?:ACCEPT|DROP) \[\d+:\d+\]$/m;
/** The `[p:b] -A ` a rule line starts with (the prefix optional), read at a line's start. */
const APPEND_HEAD = /(?:\[\d+:\d+\] )?-A /y;

/** Whether `c` ends a line for a regular expression's `^`, `$` and `.` (`\n`, `\r`, U+2028, U+2029). */
function isLineTerminator(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/** Whether `c` is one of the characters a regular expression's `\s` takes. */
function isRegExpSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** An `-s`/`-d` address without a mask, wherever it is (its line is looked at apart). */
const UNMASKED = / -[sd] [^ /]+(?: |$)/gm;

/**
 * Whether an `-A` line has an `-s`/`-d` address without a mask: what
 * `/^(?:\[\d+:\d+\] )?-A .*?(?:^| )-[sd] [^ /]+(?: |$)/m` finds. That expression tried its
 * lazy `.*?` at every character of every rule line (a tenth of a second on a node's dump); the
 * address is searched for alone here, and only the lines it is on are looked at.
 */
function hasUnmaskedAddress(text: string): boolean {
  UNMASKED.lastIndex = 0;
  /** The line start found for the previous match, and where that match was. */
  let searched = 0;
  let searchedLine = 0;
  for (let m = UNMASKED.exec(text); m !== null; m = UNMASKED.exec(text)) {
    const at = m.index;
    // Every match is tried (a match's own text may hide the next one's space).
    UNMASKED.lastIndex = at + 1;
    // The space before `-s` is after `-A ` on the same line (`.` takes no line terminator);
    // the search back stops where the previous one began (a line may hold several).
    let lineStart = at;
    while (lineStart > searched && !isLineTerminator(text.charCodeAt(lineStart - 1))) lineStart--;
    if (lineStart === searched) lineStart = searchedLine;
    searched = at;
    searchedLine = lineStart;
    APPEND_HEAD.lastIndex = lineStart;
    if (APPEND_HEAD.test(text) && APPEND_HEAD.lastIndex <= at) return true;
  }
  return false;
}

/** The commands that make a text restore input: `-I`, `-D`, `-R`, `-F`, `-X`, `-N`, `-Z`, `-P`. */
function isNonAppendCommand(c: number): boolean {
  return c === 73 || c === 68 || c === 82 || c === 70 || c === 88 || c === 78 || c === 90 || c === 80;
}

/**
 * Whether a line starts, after blanks, with a command other than `-A`: what
 * `/^\s*-[IDRFXNZP] /m` finds (`\s` takes line terminators too, so the blanks may span lines),
 * with one `indexOf` per line instead of the expression's attempt at every line start.
 */
function hasNonAppendCommand(text: string): boolean {
  const length = text.length;
  /** Where the blanks the last look skipped end: a line start before it has the same answer. */
  let reached = -1;
  const startsCommand = (from: number): boolean => {
    if (from < reached) return false;
    let q = from;
    while (q < length && isRegExpSpace(text.charCodeAt(q))) q++;
    reached = q;
    return (
      text.charCodeAt(q) === 45 && isNonAppendCommand(text.charCodeAt(q + 1)) && text.charCodeAt(q + 2) === 32
    );
  };
  for (let start = 0; start < length; ) {
    const c = text.charCodeAt(start);
    // A rule line (`-A `, nearly every line of a dump) or a declaration starts no command.
    if (!(c === 58 || (c === 45 && text.charCodeAt(start + 1) === 65)) && startsCommand(start)) return true;
    const nl = text.indexOf("\n", start);
    if (nl < 0) break;
    start = nl + 1;
  }
  // Lines that another terminator starts (rare: most texts have none).
  for (const terminator of ["\r", "\u2028", "\u2029"]) {
    reached = -1;
    for (let at = text.indexOf(terminator); at >= 0; at = text.indexOf(terminator, at + 1))
      if (startsCommand(at + 1)) return true;
  }
  // A text ending in a newline has an empty last line (a command there is covered above).
  return false;
}

/**
 * Detects the form of a text. Rules text starts (after blank and `#` lines, and any shell or
 * password prompt or code fence pasted above it) with `*table`, or is rule lines without one (as
 * `iptables-save | grep` prints them: `restore`, see `readHeaderlessRules`); it is `save` when every built-in chain line carries a policy and counters, no command other than
 * `-A` appears, and every `-s`/`-d` address has a mask (iptables-save always prints one);
 * otherwise `restore`. Anything else is a `cluster` file.
 *
 * @example
 * detectTextForm("*nat\n:KUBE-X - [0:0]\n-A KUBE-X -d 10.0.0.1 -j RETURN\nCOMMIT\n") // "restore"
 * detectTextForm("{\"services\": []}") // "cluster"
 */
export function detectTextForm(text: string): TextForm {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let rules = false;
  while (pos < text.length && !rules) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl;
    const lineStart = pos;
    const line = text.slice(pos, end).trim();
    pos = end + 1;
    if (line.length === 0 || line.startsWith("#")) continue;
    // A prompt pasted above the output says nothing about what the output is.
    if (shellLineKind(line) !== null) continue;
    if (line.startsWith("*")) rules = true;
    else return isHeaderlessRules(text.slice(lineStart)) ? "restore" : "cluster";
  }
  if (!rules) return "cluster";
  const looksSaved =
    BUILTIN_POLICY_LINE.test(text) && !hasNonAppendCommand(text) && !hasUnmaskedAddress(text);
  return looksSaved ? "save" : "restore";
}

/**
 * What was pasted along with rules text, or into it, that makes it unreadable: a shell prompt
 * line, a password prompt or a Markdown code fence (anywhere in rules text; at the top of a
 * cluster file), an indented table, chain or COMMIT line, or Windows
 * line endings in rules text (iptables-restore refuses them). One problem, saying what the text
 * is and what to do, instead of a parse error per line; `null` when there is none.
 *
 * @param text - The whole text.
 * @param rules - Whether it is rules text ({@link detectTextForm} not `"cluster"`).
 * @example
 * pastedTextProblem("$ sudo iptables-save\n*nat\nCOMMIT\n", true)?.message
 * // "this line is a shell prompt and command (`$ sudo iptables-save`), not part of the output: …"
 */
export function pastedTextProblem(text: string, rules: boolean): Problem | null {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    // A line that starts with `*`, `:` or `-` and has no CR at its end is no prompt (see
    // shellLineKind) and is fine: passed without copying it (a node's dump has 400,000).
    const first = text.charCodeAt(start);
    if (rules && (first === 42 || first === 58 || first === 45) && text.charCodeAt(end - 1) !== 13) {
      start = end + 1;
      line++;
      continue;
    }
    const raw = text.slice(start, end);
    start = end + 1;
    line++;
    const trimmed = raw.trim();
    if (trimmed.length === 0) continue;
    const kind = shellLineKind(trimmed);
    if (kind === "password")
      return pasted(
        line,
        "this line is a password prompt (sudo's), not part of the output: remove it, or save the output to a file (sudo iptables-save > node.txt) and give that file",
      );
    if (kind === "fence")
      return pasted(
        line,
        `this line is a Markdown code fence (${trimmed}), not part of the output: remove the fence lines and keep only what the command printed`,
      );
    if (kind === "prompt")
      return pasted(
        line,
        `this line is a shell prompt and command (\`${trimmed.length > 60 ? `${trimmed.slice(0, 60)}…` : trimmed}'), not part of the output: remove it and keep only what the command printed (or save it to a file: ${rules ? "sudo iptables-save > node.txt" : "kubectl get svc,endpointslices -A -o yaml > cluster.yaml"})`,
      );
    if (!rules) return null;
    // iptables-restore reads `*table`, `:chain` and `COMMIT` only at a line's start (an indented
    // `-A` line loads): an indented dump, as pasted into a list or a mail, fails at its first line.
    if (
      (raw.charCodeAt(0) === 32 || raw.charCodeAt(0) === 9) &&
      (trimmed.startsWith("*") || trimmed.startsWith(":") || trimmed === "COMMIT")
    )
      return pasted(
        line,
        "this line is indented (it starts with blanks), and iptables-restore reads *table, :chain and COMMIT lines only at the start of a line: remove the indentation (sed 's/^[[:blank:]]*//')",
      );
    if (raw.endsWith("\r") && !trimmed.startsWith("#"))
      return pasted(
        line,
        "the text has Windows (CRLF) line endings, which iptables-restore refuses (its lines would end in a carriage return): convert it with dos2unix (or tr -d '\\r') and try again",
      );
  }
  return null;
}

function pasted(line: number, message: string): Problem {
  return {
    code: "PARSE",
    path: "",
    message,
    severity: "error",
    line,
    column: 1,
  };
}
