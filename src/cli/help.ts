import { DEFAULT_PROFILE, PROFILE_NAMES } from "../model/profiles.js";

// The commands and their flags as data: each command's --help is printed from it, and so are the
// shell completion scripts, so that what --help says, what completion offers and what the
// commands accept stay one list (a test holds the commands' parseArgs options to it).

/** One flag of a command. */
export interface FlagSpec {
  /** The long name, without `--`. */
  readonly name: string;
  /** The one-letter form, without `-`. */
  readonly short?: string;
  /** What the value is (`IP`, `FILE`); absent for a flag without a value. */
  readonly value?: string;
  /** The values the flag takes, when they are a fixed list (completed and shown as `a|b|c`). */
  readonly choices?: readonly string[];
  /** The value is a file (completed as one). */
  readonly file?: boolean;
  /** What it does; wrapped to the help's width. */
  readonly help: string;
  /** A few words for a completion menu, when the help's first clause does not do. */
  readonly brief?: string;
}

/** A titled group of flags in a command's help. */
export interface FlagGroup {
  /** The group's title, as the line above it. */
  readonly title: string;
  /** Its flags, in the help's order. */
  readonly flags: readonly FlagSpec[];
}

/** One command: its help text and what its arguments are. */
export interface CommandSpec {
  /** The command's name. */
  readonly name: string;
  /** One line for the list of commands. */
  readonly summary: string;
  /** The usage lines, each after `kube-iptables `. */
  readonly usage: readonly string[];
  /** Paragraphs about the command, wrapped; a paragraph whose lines start with spaces is kept as it is. */
  readonly about: readonly string[];
  /** The flags, by group. */
  readonly groups: readonly FlagGroup[];
  /** What the exit codes mean for this command. */
  readonly exit: string;
  /** What the arguments are: files, command names or shell names (for completion). */
  readonly operands: "files" | "commands" | "shells";
}

/** Every line of help fits an 80-column terminal. */
export const HELP_WIDTH = 80;
/** The column where a flag's description starts. */
const FLAG_COLUMN = 31;

/** The flags every command takes (main reads them before the command does). */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  { name: "help", short: "h", help: "print this help and exit" },
  { name: "quiet", short: "q", help: "no progress line and no notes on stderr (problems are still printed)" },
];

const FAMILY: FlagSpec = {
  name: "family",
  value: "FAMILY",
  choices: ["IPv4", "IPv6", "both"],
  help: "the proxier's family [config.ipFamily, else IPv4]; both prints the IPv4 text, then the IPv6 text, each after a '#' line",
};
const PROFILE: FlagSpec = {
  name: "profile",
  value: "RELEASE",
  choices: PROFILE_NAMES,
  help: `the kube-proxy release whose layout to print [${DEFAULT_PROFILE}]`,
};

const NODE_FLAGS: readonly FlagSpec[] = [
  { name: "hostname", value: "NAME", help: 'kube-proxy\'s node name; endpoints on it are local [""]' },
  { name: "node-ip", value: "IP", help: "a node address, primary first; repeatable []" },
  {
    name: "cluster-cidr",
    value: "CIDR",
    help: "detect local traffic by source CIDR (ClusterCIDR mode); repeatable, or comma-separated",
  },
  {
    name: "node-cidr",
    value: "CIDR",
    help: "detect local traffic by the node's pod CIDR (NodeCIDR mode); repeatable",
  },
  {
    name: "bridge-interface",
    value: "NAME",
    help: "detect local traffic by input bridge (BridgeInterface mode)",
  },
  {
    name: "interface-name-prefix",
    value: "PREFIX",
    help: "detect local traffic by input interface prefix (InterfaceNamePrefix mode)",
  },
  { name: "no-detect-local", help: "no local traffic detection [the default without a config]" },
  { name: "masquerade-bit", value: "N", help: "mark bit for masquerading, 0-31 [14]" },
  { name: "masquerade-all", help: "masquerade all traffic to cluster IPs [off]" },
  {
    name: "nodeport-addresses",
    value: "LIST",
    help: "comma-separated CIDRs, or 'primary' [every local address]",
  },
  { name: "no-localhost-nodeports", help: "node ports do not answer on 127.0.0.0/8 [they do]" },
  { name: "zone", value: "ZONE", help: "the node's topology.kubernetes.io/zone label" },
  { name: "random-fully", help: "the iptables binary supports --random-fully [off]" },
  { name: "conntrack-tcp-be-liberal", help: "nf_conntrack_tcp_be_liberal is set [off]" },
  {
    name: "no-external-ips",
    help: "AllowServiceExternalIPs is off: no rules for spec.externalIPs (v1.36 and later) [on]",
  },
];

/** How objects are read (all commands take it with the node flags). */
const NAMESPACE: FlagSpec = {
  name: "namespace",
  short: "n",
  value: "NAMESPACE",
  help: "the namespace of objects that name none [default], as with 'kubectl apply -f'; an object's own namespace wins",
};

const NODE_GROUP: FlagGroup = {
  title: "Node options (override the cluster file's config; defaults in brackets):",
  flags: NODE_FLAGS,
};

const INPUT =
  "FILE is a cluster file ({config, services, endpointSlices}, JSON or YAML) or Kubernetes objects as 'kubectl get svc,endpointslices -A -o json' (or -o yaml) prints them: Lists, ServiceLists, EndpointSliceLists or single objects, also several in a row. UTF-8, or UTF-16 with a byte order mark. '-' reads stdin. Several FILEs are read as one cluster (say, a cluster file with the config and the kubectl output): their objects one after another, at most one config. A directory stands for its .json, .yaml and .yml files, as with 'kubectl apply -f DIR'.";

const TROUBLE = "2 trouble: a usage error, a file that cannot be read, or invalid input";

/** The commands, in the order the help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "generate",
    summary: "print the rules kube-proxy installs (iptables or nftables mode)",
    usage: ["generate FILE|DIR|- [FILE|DIR...] [options]"],
    about: [
      "Prints the rules kube-proxy installs on a node for the Services and EndpointSlices of FILE. In iptables mode (the default): as iptables-save prints them, as the iptables-restore input kube-proxy writes, or as JSON; with --mode nftables: as the transaction kube-proxy passes to nft, as nft list table prints it, as knftables' dump, or as JSON.",
      INPUT,
      "A Service or EndpointSlice that is not valid is left out, as kube-proxy leaves it out, with its problem on stderr: 'kube-iptables: FILE: path: message'.",
    ],
    groups: [
      {
        title: "Options:",
        flags: [
          {
            name: "format",
            value: "FORMAT",
            choices: ["save", "restore", "json", "transaction", "ruleset", "dump"],
            brief: "output format",
            help: "iptables mode: save, what iptables-save prints once the rules are loaded into an empty kernel [default]; restore, what kube-proxy hands to iptables-restore; json, the rule set as data. nftables mode: transaction, what kube-proxy passes to 'nft -f -' [default]; ruleset, what 'nft list table' prints then; dump, knftables' Fake.Dump(); json",
          },
          {
            name: "mode",
            value: "MODE",
            choices: ["iptables", "nftables"],
            help: "kube-proxy's proxy mode [iptables]",
          },
          {
            name: "service-cidr",
            value: "CIDR",
            help: "nftables mode: a service CIDR (kube-proxy's --service-cluster-ip-range); repeatable",
          },
          FAMILY,
          PROFILE,
          NAMESPACE,
          {
            name: "strict",
            help: "fail on any invalid Service or EndpointSlice (exit 2, no output) instead of leaving it out",
          },
          {
            name: "current",
            value: "DUMP",
            file: true,
            help: "the node's iptables-save (or ip6tables-save) output: its per-service nat chains that no Service uses any more are declared and deleted (-X), as kube-proxy's full sync does; one family only",
          },
        ],
      },
      NODE_GROUP,
    ],
    exit: `0 the rules were printed (objects left out are named on stderr); ${TROUBLE} (with --strict, any invalid object).`,
    operands: "files",
  },
  {
    name: "diff",
    summary: "what changes between two rule states (a node's dump, a cluster)",
    usage: ["diff OLD NEW [options]"],
    about: [
      "OLD and NEW are each a cluster file (or a directory of them, see 'kube-iptables generate --help') or a rules text: iptables-restore input or an iptables-save dump, detected. Either may be '-' (stdin).",
      "summary (the default) lists what changed per Service; restore prints the delta that turns OLD's kernel state into NEW's with 'iptables-restore --noflush'. With a node's dump (or any rules text) on either side, only kube-proxy's chains are compared: against a cluster file, what kube-proxy would change on that node; between two dumps, what it changed (a note names the other chains that differ).",
    ],
    groups: [
      {
        title: "Options:",
        flags: [
          {
            name: "format",
            value: "FORMAT",
            choices: ["summary", "restore"],
            brief: "output format",
            help: "summary: what changed per Service [default]; restore: the iptables-restore --noflush delta",
          },
          { name: "all-chains", help: "compare every chain, not only kube-proxy's" },
          {
            name: "family",
            value: "FAMILY",
            choices: ["IPv4", "IPv6"],
            help: "the family of a cluster side [a rules side's, else config.ipFamily, else IPv4]",
          },
          PROFILE,
          NAMESPACE,
        ],
      },
      NODE_GROUP,
    ],
    exit: `0 no differences; 1 differences (in the chains compared); ${TROUBLE}. As diff(1): 'kube-iptables diff -q OLD NEW >/dev/null' tests whether kube-proxy would change anything.`,
    operands: "files",
  },
  {
    name: "trace",
    summary: "follow one packet through the rules: each outcome and its chance",
    usage: ["trace FILE|DIR [...] --src IP[:PORT] --dst IP:PORT [options]"],
    about: [
      "Prints every outcome of one packet (DNAT destination, masquerade, accept, reject or drop) with its exact probability from the kernel's fixed-point statistic values, and the rules it passed. FILE is a cluster file or a rules text (an iptables-save dump of a node); several files or a directory are read as one cluster, as generate reads them.",
      "--node-ip gives the node's addresses (a cluster file's config names them too): an outcome that depends on whether an address is the node's, none being known, prints both ways and exits 2 with a note.",
    ],
    groups: [
      {
        title: "Options:",
        flags: [
          { name: "src", value: "IP[:PORT]", help: "the packet's source [port 40000]" },
          { name: "dst", value: "IP:PORT", help: "the packet's destination; its family is the trace's" },
          { name: "proto", value: "PROTO", choices: ["tcp", "udp", "sctp"], help: "the protocol [tcp]" },
          {
            name: "from",
            value: "ORIGIN",
            choices: ["pod", "node", "external"],
            help: "where the packet comes from [pod]: the nat PREROUTING or OUTPUT entry, and the default input interface",
          },
          {
            name: "in-interface",
            value: "IF",
            help: "the packet's input interface, for -i matches [cbr0 from a pod, eth0 from outside, none from the node]",
          },
          {
            name: "format",
            value: "FORMAT",
            choices: ["text", "json", "svg", "dot", "mermaid"],
            brief: "output format",
            help: "text [default]; json, the outcomes as data; svg, dot or mermaid, the picture of the service port (see graph) with the packet's paths drawn on it",
          },
          {
            name: "out-interface",
            value: "IF",
            help: "the interface routes leave by, for -o matches [unknown: each outcome that depends on it names the condition, both ways]",
          },
          {
            name: "route",
            value: "CIDR=IF",
            help: "the route to CIDR leaves by IF; repeatable (the longest prefix wins)",
          },
          {
            name: "brief",
            help: "outcomes only, without the rules each path passed (paths that end alike on one line)",
          },
          PROFILE,
          NAMESPACE,
        ],
      },
      NODE_GROUP,
    ],
    exit: `0 the packet was traced (whatever its outcome); ${TROUBLE}, or an outcome that depends on the node's addresses when none are known.`,
    operands: "files",
  },
  {
    name: "graph",
    summary: "draw each service port's path through the chains",
    usage: ["graph FILE|DIR|- [...] [options]"],
    about: [
      "Draws each selected service port's path through the chains: the built-in chain a packet enters by (from a pod, from the node, from outside), KUBE-SERVICES / KUBE-NODEPORTS, the service and endpoint chains with each endpoint's exact share, the masquerade mark, and where packets are rejected or dropped. FILE as for trace: a cluster, or a node's iptables-save dump.",
    ],
    groups: [
      {
        title: "Options:",
        flags: [
          {
            name: "service",
            value: "NS/NAME[:PORT]",
            help: "the service (all its ports) or service port to draw; repeatable [every service port, in one picture]",
          },
          {
            name: "format",
            value: "FORMAT",
            choices: ["svg", "dot", "mermaid"],
            brief: "output format",
            help: "svg, a standalone picture [default]; dot, Graphviz input; mermaid, a flowchart for GitHub Markdown",
          },
          {
            name: "out",
            value: "DIR",
            file: true,
            help: "one file per service port in DIR (their names printed) instead of stdout",
          },
          { name: "list", help: "print the service ports the input has rules for" },
          {
            name: "family",
            value: "FAMILY",
            choices: ["IPv4", "IPv6"],
            help: "the family to draw [a dump's, else config.ipFamily, else IPv4]",
          },
          PROFILE,
          NAMESPACE,
        ],
      },
      NODE_GROUP,
    ],
    exit: `0 the picture was written; ${TROUBLE}, or no rule names a selected service port.`,
    operands: "files",
  },
  {
    name: "completion",
    summary: "print a bash or zsh completion script",
    usage: ["completion bash|zsh"],
    about: [
      "Prints a script that completes kube-iptables' commands, flags, the values of flags that take a fixed list, and file names. To load it in every new shell:",
      '  bash (~/.bashrc):  source <(kube-iptables completion bash)\n  zsh (~/.zshrc, after compinit):  source <(kube-iptables completion zsh)\n  or, once:  kube-iptables completion zsh > "$fpath[1]/_kube-iptables"',
    ],
    groups: [],
    exit: "0 the script was printed; 2 a usage error.",
    operands: "shells",
  },
  {
    name: "help",
    summary: "print a command's help",
    usage: ["help [COMMAND]"],
    about: ["The same as 'kube-iptables COMMAND --help'."],
    groups: [],
    exit: "0 the help was printed; 2 an unknown command.",
    operands: "commands",
  },
];

/**
 * The command of that name, if there is one.
 *
 * @example
 * commandSpec("diff")?.usage // ["diff OLD NEW [options]"]
 */
export function commandSpec(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/**
 * Wraps text into lines of at most `width - indent` characters (each is printed after `indent`
 * columns), broken between words. A word longer than a line is left whole.
 *
 * @example
 * wrap("a b c", 3, 0) // ["a b", "c"]
 */
export function wrap(text: string, width: number, indent: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * How a flag is written in the help.
 *
 * @example
 * flagLabel({ name: "node-ip", value: "IP", help: "" }) // "--node-ip IP"
 * flagLabel({ name: "quiet", short: "q", help: "" })    // "-q, --quiet"
 */
export function flagLabel(flag: FlagSpec): string {
  const names = flag.short === undefined ? `--${flag.name}` : `-${flag.short}, --${flag.name}`;
  const value = flag.choices?.join("|") ?? flag.value;
  return value === undefined ? names : `${names} ${value}`;
}

/** A group of flags as help lines: the label, its description wrapped beside it (or below it). */
function flagLines(flags: readonly FlagSpec[]): string[] {
  const out: string[] = [];
  const pad = " ".repeat(FLAG_COLUMN);
  for (const flag of flags) {
    const label = `  ${flagLabel(flag)}`;
    const text = wrap(flag.help, HELP_WIDTH, FLAG_COLUMN);
    if (label.length < FLAG_COLUMN - 1) {
      out.push(`${label.padEnd(FLAG_COLUMN)}${text[0] ?? ""}`.trimEnd());
      for (const more of text.slice(1)) out.push(pad + more);
    } else {
      out.push(label);
      for (const more of text) out.push(pad + more);
    }
  }
  return out;
}

/** A paragraph as lines: wrapped, or kept as it is when it is indented. */
function paragraph(text: string): string[] {
  return text.startsWith(" ") ? text.split("\n") : wrap(text, HELP_WIDTH, 0);
}

/**
 * A command's help: usage, what it does, its flags, and its exit status.
 *
 * @example
 * commandHelp(commandSpec("diff")!) // "Usage:\n  kube-iptables diff OLD NEW [options]\n\n…"
 */
export function commandHelp(command: CommandSpec): string {
  const lines = ["Usage:", ...command.usage.map((u) => `  kube-iptables ${u}`)];
  for (const text of command.about) lines.push("", ...paragraph(text));
  for (const group of command.groups) lines.push("", group.title, ...flagLines(group.flags));
  lines.push("", "Global options:", ...flagLines(GLOBAL_FLAGS));
  lines.push("", ...wrap(`Exit status: ${command.exit}`, HELP_WIDTH, 0));
  return `${lines.join("\n")}\n`;
}

/**
 * The help of `kube-iptables` alone: the commands, the global flags, and how messages look.
 *
 * @example
 * mainHelp().startsWith("kube-iptables: the iptables rules") // true
 */
export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  const lines = [
    "kube-iptables: the rules kube-proxy installs on a node (iptables, nftables)",
    "",
    "Usage:",
    "  kube-iptables COMMAND [ARGS...] [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Global options:",
    ...flagLines([...GLOBAL_FLAGS, { name: "version", short: "V", help: "print the version and exit" }]),
    "",
    ...wrap(
      "Messages go to stderr, each line as 'kube-iptables: FILE:LINE:COL: message' or 'kube-iptables: FILE: path: message' (stdin is '-'); on a terminal a progress line shows the stages of a long run. Exit status: 0 success (diff: no differences), 1 diff only: differences, 2 trouble (a usage error, a file that cannot be read, invalid input).",
      HELP_WIDTH,
      0,
    ),
    "",
    "Run 'kube-iptables COMMAND --help' for a command's options and exit status.",
  ];
  return `${lines.join("\n")}\n`;
}
