/**
 * Human-readable output given where objects (or a node's rules) are wanted: the table `kubectl
 * get` prints without `-o`, what `kubectl describe` prints, the listing `iptables -L` prints, or
 * nftables' own text (`nft list ruleset`), or rules text inside log lines. None holds what is read here, and YAML reads them as a
 * string or as unknown keys, which made messages about cluster files; this names what the text
 * is and what to run instead.
 *
 * @module
 */

/**
 * A table's header line: `NAME` (or `NAMESPACE` with `-A`), then column titles in capitals,
 * which kubectl's tab writer separates by at least two spaces (a title may hold one space:
 * `NOMINATED NODE`).
 */
const TABLE_HEADER = /^(?:NAMESPACE|NAME)(?: {2,}[A-Z][-A-Z0-9()%/.]*(?: [A-Z][-A-Z0-9()%/.]*)*)+ *$/;
/** describe's first two lines for a namespaced object: `Name:` and `Namespace:`, values aligned. */
const DESCRIBE_NAME = /^Name:[ \t]+\S/;
const DESCRIBE_NAMESPACE = /^Namespace:[ \t]/;
/**
 * The first line of a chain in `iptables -L` (or `ip6tables -L`): a built-in chain with its
 * policy (and, with `-v`, its counters), a user chain with its references.
 */
const LISTING_CHAIN =
  /^Chain \S+ \((?:policy [A-Z]+(?: \d+[KMGT]? packets, \d+[KMGT]? bytes)?|\d+ references)\)$/;
/** The column titles `iptables -L` prints under it (`-v` adds counters and interfaces, `--line-numbers` a number). */
const LISTING_HEADER = /^(?:num +)?(?:pkts +bytes +)?target +prot +opt +(?:in +out +)?source +destination$/;
/**
 * A syslog line as journalctl (or /var/log/messages) prints it, `Nov 14 11:06:11 node
 * kube-proxy[12085]: ` (or with an ISO time, `journalctl -o short-iso`), whose message is a line
 * of rules text: kube-proxy logs its iptables-restore payload so at high verbosity.
 */
const LOG_PREFIX =
  /^(?:[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*) \S+ [^\s:[\]]+(?:\[\d+\])?: (?=[-:*#]|COMMIT$)/;
/** A warning kubectl prints on stderr, from the API server's Warning header or its own. */
const KUBECTL_WARNING = /^Warning: \S/;
/** The first line of nftables' text (`nft list ruleset`, `nft list table ip kube-proxy`). */
const NFT_TABLE = /^table (?:ip|ip6|inet|arp|bridge|netdev) [\w.-]+ \{$/;

/** Which human-readable output of kubectl a text is, with the line it is recognized on. */
export interface KubectlText {
  /** `table` (`kubectl get` without `-o`), `describe`, `listing` (`iptables -L`), `nft` (`nft list`), `log` (rules in syslog lines) or `warning` (kubectl's, above JSON). */
  readonly form: "table" | "describe" | "listing" | "nft" | "log" | "warning";
  /** The 1-based line of its first line. */
  readonly line: number;
  /** What it is and what to run instead. */
  readonly message: string;
}

/**
 * Whether YAML text is kubectl's table or describe output, an `iptables -L` listing or nftables'
 * text rather than objects; only its first lines are read (after blank lines, and `#` lines for
 * the last two). None is ever a valid cluster file or object, so the answer only changes the
 * message for a text that is refused anyway.
 *
 * @example
 * kubectlTextForm("NAME   TYPE   CLUSTER-IP\nweb    ClusterIP   10.96.0.10\n")?.form // "table"
 * kubectlTextForm("Name:   web\nNamespace:   default\n")?.form                    // "describe"
 * kubectlTextForm("Chain KUBE-SERVICES (2 references)\n")                         ?.form // "listing"
 * kubectlTextForm("apiVersion: v1\nkind: Service\n")                              // undefined
 */
export function kubectlTextForm(text: string): KubectlText | undefined {
  let start = 0;
  let line = 1;
  // Blank lines above it (a copied terminal often starts with one) are passed over.
  for (;;) {
    const end = lineEnd(text, start);
    if (text.slice(start, end).trim() !== "" || end >= text.length) break;
    start = end + 1;
    line++;
  }
  let first = text.slice(start, lineEnd(text, start)).replace(/\r$/, "");
  // iptables-nft's warning (`# Warning: iptables-legacy tables present, …`) comes first; so do
  // the warnings kubectl prints on stderr (`Warning: v1 Endpoints is deprecated in v1.33+; …`),
  // copied from a terminal or captured with 2>&1, and blank lines between.
  let kubectlWarning: number | undefined;
  while (
    (first.startsWith("#") ||
      KUBECTL_WARNING.test(first) ||
      (kubectlWarning !== undefined && first.trim() === "")) &&
    lineEnd(text, start) < text.length
  ) {
    if (KUBECTL_WARNING.test(first)) kubectlWarning ??= line;
    start = lineEnd(text, start) + 1;
    line++;
    first = text.slice(start, lineEnd(text, start)).replace(/\r$/, "");
  }
  const trimmed = first.trim();
  // JSON after such a warning reads as neither JSON nor YAML: name the line to remove. (YAML
  // after it reads, the warning a key of the first object that nothing reads.)
  if (kubectlWarning !== undefined && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
    return {
      form: "warning",
      line: kubectlWarning,
      message: "this line is a kubectl warning (from its stderr), not part of the objects: remove it",
    };
  }
  if (LISTING_CHAIN.test(trimmed) || LISTING_HEADER.test(trimmed)) {
    return {
      form: "listing",
      line,
      message:
        "this is an 'iptables -L' listing, which leaves parts of rules out: give what 'iptables-save' (or 'iptables -t nat -S') prints",
    };
  }
  const logged = LOG_PREFIX.exec(trimmed);
  if (logged !== null) {
    const prefix = logged[0].length > 60 ? `${logged[0].slice(0, 60)}…` : logged[0];
    return {
      form: "log",
      line,
      message: `these are log lines (\`${prefix.trimEnd()}' before each rule): remove that prefix from every line (sed 's/^[^:]*:[^:]*:[^:]*: //')`,
    };
  }
  if (NFT_TABLE.test(trimmed)) {
    return {
      form: "nft",
      line,
      message:
        "this is nftables' text ('nft list'), which is not read here: give what 'iptables-save' prints",
    };
  }
  if (TABLE_HEADER.test(first)) {
    return {
      form: "table",
      line,
      message:
        "this is the table 'kubectl get' prints, not the objects: run the command again with -o yaml (or -o json) and give what it prints",
    };
  }
  if (DESCRIBE_NAME.test(first)) {
    const nextStart = lineEnd(text, start) + 1;
    const second = text.slice(nextStart, lineEnd(text, nextStart));
    if (DESCRIBE_NAMESPACE.test(second)) {
      return {
        form: "describe",
        line,
        message:
          "this is what 'kubectl describe' prints, not the objects: run 'kubectl get' with -o yaml (or -o json) for the same objects and give what it prints",
      };
    }
  }
  return undefined;
}

/** The index of the newline ending the line that starts at `start`, or the text's length. */
function lineEnd(text: string, start: number): number {
  const nl = text.indexOf("\n", start);
  return nl < 0 ? text.length : nl;
}
