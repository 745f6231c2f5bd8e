// `kube-iptables completion bash|zsh`: shell completion scripts, written from the command table
// (help.ts) so that they offer exactly the commands and flags the CLI takes: the commands, each
// command's flags, the values of a flag with a fixed list, and files where a file goes.
import { COMMANDS, type CommandSpec, type FlagSpec, GLOBAL_FLAGS } from "./help.js";
import { UsageError } from "./usage.js";

/** The shells a completion script is written for. */
export const SHELLS: readonly string[] = ["bash", "zsh"];

/** Every flag of a command, the global ones last. */
function flagsOf(command: CommandSpec): FlagSpec[] {
  return [...command.groups.flatMap((g) => g.flags), ...GLOBAL_FLAGS];
}

/** A flag's names as typed: `--quiet -q`. */
function spellings(flag: FlagSpec): string[] {
  return flag.short === undefined ? [`--${flag.name}`] : [`--${flag.name}`, `-${flag.short}`];
}

/** The candidates of a command's operands, for the words that are not flags. */
function operandWords(command: CommandSpec): string | null {
  if (command.operands === "commands") return COMMANDS.map((c) => c.name).join(" ");
  if (command.operands === "shells") return SHELLS.join(" ");
  return null; // files
}

/**
 * The bash completion script: a function `_kube_iptables` bound to `kube-iptables` with
 * `complete -F`. Needs bash 4 (mapfile, compopt).
 *
 * @example
 * bashCompletion().includes("complete -F _kube_iptables kube-iptables") // true
 */
export function bashCompletion(): string {
  const global = GLOBAL_FLAGS.flatMap(spellings).concat("--version", "-V").join(" ");
  const cases = COMMANDS.map((command) => {
    const flags = flagsOf(command);
    const valueCases: string[] = [];
    const plain = flags.filter((f) => f.value !== undefined && f.choices === undefined && f.file !== true);
    for (const f of flags.filter((f) => f.choices !== undefined)) {
      valueCases.push(
        `        ${spellings(f).join("|")}) _kube_iptables_words "${f.choices?.join(" ")}"; return ;;`,
      );
    }
    const files = flags.filter((f) => f.file === true);
    if (files.length > 0)
      valueCases.push(`        ${files.flatMap(spellings).join("|")}) _kube_iptables_files; return ;;`);
    if (plain.length > 0)
      valueCases.push(`        ${plain.flatMap(spellings).join("|")}) return ;; # a value to type`);
    const operands = operandWords(command);
    return [
      `    ${command.name})`,
      ...(valueCases.length > 0 ? ["      case $prev in", ...valueCases, "      esac"] : []),
      "      if [[ $cur == -* ]]; then",
      `        _kube_iptables_words "${flags.flatMap(spellings).join(" ")}"`,
      operands === null
        ? "      else\n        _kube_iptables_files"
        : `      else\n        _kube_iptables_words "${operands}"`,
      "      fi",
      "      ;;",
    ].join("\n");
  });
  return `# bash completion for kube-iptables. Load it with:
#   source <(kube-iptables completion bash)
_kube_iptables_words() {
  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}
_kube_iptables_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
_kube_iptables() {
  local cur prev cmd i
  COMPREPLY=()
  cur=\${COMP_WORDS[COMP_CWORD]}
  prev=\${COMP_WORDS[COMP_CWORD-1]}
  # bash splits --flag=value at the '=' (COMP_WORDBREAKS): complete the value.
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
    prev=\${COMP_WORDS[COMP_CWORD-2]}
  fi
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ \${COMP_WORDS[i]} != -* ]]; then
      cmd=\${COMP_WORDS[i]}
      break
    fi
  done
  case $cmd in
    "")
      if [[ $cur == -* ]]; then
        _kube_iptables_words "${global}"
      else
        _kube_iptables_words "${COMMANDS.map((c) => c.name).join(" ")}"
      fi
      ;;
${cases.join("\n")}
  esac
  return 0
}
complete -F _kube_iptables kube-iptables
`;
}

/** Text in a zsh single-quoted `_arguments` spec: `'` closed and reopened, `[]:` escaped. */
function zshText(text: string): string {
  return text.replace(/([[\]:\\])/g, "\\$1").replaceAll("'", "'\\''");
}

/** A flag's description for zsh: its help up to the first clause, without the default. */
function zshDescription(flag: FlagSpec): string {
  const first = flag.brief ?? flag.help.split(/; | \[|: /)[0] ?? flag.help;
  return zshText(first.trim());
}

/**
 * One `_arguments` spec per flag: `'--format=[output format]:format:(save restore json)'`,
 * `'*--node-ip=[…]:ip: '` for a flag that may be repeated, `'(-q --quiet)'{-q,--quiet}'[…]'`.
 */
function zshFlagSpecs(command: CommandSpec): string[] {
  return flagsOf(command).map((flag) => {
    const description = `[${zshDescription(flag)}]`;
    let value = "";
    if (flag.value !== undefined) {
      const action =
        flag.choices !== undefined ? `(${flag.choices.join(" ")})` : flag.file === true ? "_files" : " ";
      value = `:${zshText(flag.value.toLowerCase())}:${action}`;
    }
    const eq = value === "" ? "" : "=";
    if (flag.short !== undefined) {
      const exclusive = `'(-${flag.short} --${flag.name})'`;
      return `${exclusive}{-${flag.short},--${flag.name}${eq}}'${description}${value}'`;
    }
    // The node flags that build lists may be given again.
    const repeat = /repeatable/.test(flag.help) ? "*" : "";
    return `'${repeat}--${flag.name}${eq}${description}${value}'`;
  });
}

/**
 * The zsh completion script: `_kube_iptables` with `_arguments`, bound with `compdef` when
 * sourced, or run as the `_kube-iptables` function when it is installed in `$fpath`.
 *
 * @example
 * zshCompletion().startsWith("#compdef kube-iptables") // true
 */
export function zshCompletion(): string {
  const commands = COMMANDS.map((c) => `    '${c.name}:${zshText(c.summary)}'`).join("\n");
  const cases = COMMANDS.map((command) => {
    const operand =
      command.operands === "files"
        ? "'*:file:_files'"
        : command.operands === "commands"
          ? `'1:command:(${COMMANDS.map((c) => c.name).join(" ")})'`
          : `'1:shell:(${SHELLS.join(" ")})'`;
    const specs = [...zshFlagSpecs(command), operand].map((s) => `            ${s}`).join(" \\\n");
    return `        ${command.name})\n          _arguments -s -S \\\n${specs}\n          ;;`;
  });
  return `#compdef kube-iptables
# zsh completion for kube-iptables. Load it with (after compinit):
#   source <(kube-iptables completion zsh)
# or install it once as a file in $fpath:
#   kube-iptables completion zsh > "\${fpath[1]}/_kube-iptables"
_kube_iptables() {
  local curcontext="$curcontext" state line ret=1
  local -a commands
  commands=(
${commands}
  )
  _arguments -C \\
    '(- *)'{-h,--help}'[print help and exit]' \\
    '(- *)'{-V,--version}'[print the version and exit]' \\
    '(-q --quiet)'{-q,--quiet}'[no progress line and no notes on stderr]' \\
    '1:command:->command' \\
    '*::argument:->argument' && ret=0
  case $state in
    command)
      _describe -t commands 'kube-iptables command' commands && ret=0
      ;;
    argument)
      curcontext="\${curcontext%:*:*}:kube-iptables-$line[1]:"
      case $line[1] in
${cases.join("\n")}
      esac
      ;;
  esac
  return ret
}
if [[ $funcstack[1] == _kube-iptables ]]; then
  _kube_iptables "$@"
else
  compdef _kube_iptables kube-iptables
fi
`;
}

/**
 * Runs `completion SHELL`: the script on stdout.
 *
 * @throws UsageError without a shell, or for one that is not bash or zsh.
 * @example
 * completionScript(["bash"]).includes("_kube_iptables") // true
 */
export function completionScript(argv: readonly string[]): string {
  const [shell, ...extra] = argv;
  if (shell === undefined) throw new UsageError("completion takes a shell: bash or zsh");
  if (extra.length > 0) throw new UsageError(`${extra[0]}: unexpected argument`);
  if (shell === "bash") return bashCompletion();
  if (shell === "zsh") return zshCompletion();
  throw new UsageError(`${shell}: no completion for this shell (bash or zsh)`);
}
