/**
 * Tells the three kinds of input the CLI accepts apart: iptables-restore input, iptables-save
 * output, or a cluster file (JSON or YAML).
 *
 * @module
 */

/**
 * What a text is.
 *
 * @example
 * detectTextForm("*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n") // "restore"
 * detectTextForm('{"services": []}')                         // "cluster"
 */
export type TextForm = "restore" | "save" | "cluster";

const BUILTIN_POLICY_LINE = /^:(?:PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) (?:ACCEPT|DROP) \[\d+:\d+\]$/m;
const UNMASKED_ADDRESS = /^(?:\[\d+:\d+\] )?-A .*?(?:^| )-[sd] [^ /]+(?: |$)/m;
const NON_APPEND_COMMAND = /^\s*-[IDRFXNZP] /m;

/**
 * Detects the form of a text. Rules text starts (after blank and `#` lines) with `*table`; it is
 * `save` when every built-in chain line carries a policy and counters, no command other than
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
    const line = text.slice(pos, end).trim();
    pos = end + 1;
    if (line.length === 0 || line.startsWith("#")) continue;
    if (!line.startsWith("*")) return "cluster";
    rules = true;
  }
  if (!rules) return "cluster";
  const looksSaved =
    BUILTIN_POLICY_LINE.test(text) && !NON_APPEND_COMMAND.test(text) && !UNMASKED_ADDRESS.test(text);
  return looksSaved ? "save" : "restore";
}
