// `kube-iptables completion bash|zsh`, run in the real shells: the candidates offered for a
// command line, as a user pressing TAB would get them.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { DIFF_FLAGS } from "../../src/cli/diff.js";
import { GENERATE_FLAGS } from "../../src/cli/generate.js";
import { GRAPH_FLAGS } from "../../src/cli/graph.js";
import { TRACE_FLAGS } from "../../src/cli/trace.js";
import { PROFILE_NAMES } from "../../src/index.js";
import { runCli } from "../support/run-cli.js";

let dir: string;
let bashScript: string;
let zshScript: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-iptables-completion-"));
  // The files a file argument completes to.
  writeFileSync(join(dir, "cluster.yaml"), "");
  writeFileSync(join(dir, "node.save"), "");
  mkdirSync(join(dir, "manifests"));
  for (const shell of ["bash", "zsh"]) {
    const r = runCli(["completion", shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    writeFileSync(join(dir, `completion.${shell}`), r.stdout);
  }
  bashScript = join(dir, "completion.bash");
  zshScript = join(dir, "completion.zsh");
});

/**
 * The candidates bash offers for `words` (the last one being completed), as it calls the
 * completion function: COMP_WORDS split as bash splits them (`--format=x` is three words).
 */
function bashComplete(...words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(" ");
  const r = spawnSync(
    "bash",
    [
      "--norc",
      "-c",
      `source '${bashScript}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _kube_iptables; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { cwd: dir, encoding: "utf8" },
  );
  expect(r.stderr).toBe("");
  return r.stdout
    .split("\n")
    .filter((w) => w !== "")
    .sort();
}

describe("bash completion", () => {
  test("commands, and the global flags before one", () => {
    expect(bashComplete("kube-iptables", "")).toEqual([
      "completion",
      "diff",
      "generate",
      "graph",
      "help",
      "trace",
    ]);
    expect(bashComplete("kube-iptables", "gen")).toEqual(["generate"]);
    expect(bashComplete("kube-iptables", "-")).toEqual(["--help", "--quiet", "--version", "-V", "-h", "-q"]);
  });

  // Every flag each command takes (its parseArgs options), and the global ones: nothing more.
  test.each([
    ["generate", GENERATE_FLAGS],
    ["diff", DIFF_FLAGS],
    ["trace", TRACE_FLAGS.filter((f) => f !== "family")],
    ["graph", GRAPH_FLAGS],
  ])("%s's flags", (command, flags) => {
    const offered = bashComplete("kube-iptables", command, "x", "-");
    // (-n is --namespace's short form, which every command takes.)
    expect(offered).toEqual([...flags.map((f) => `--${f}`), "--help", "--quiet", "-h", "-n", "-q"].sort());
    expect(bashComplete("kube-iptables", command, "--fo")).toEqual(["--format"]);
  });

  test("the values of a flag with a fixed list, also after '='", () => {
    expect(bashComplete("kube-iptables", "generate", "--format", "")).toEqual([
      "dump",
      "json",
      "restore",
      "ruleset",
      "save",
      "transaction",
    ]);
    expect(bashComplete("kube-iptables", "generate", "--format", "=", "re")).toEqual(["restore"]);
    expect(bashComplete("kube-iptables", "generate", "--format", "=")).toHaveLength(6);
    expect(bashComplete("kube-iptables", "diff", "--format", "")).toEqual(["restore", "summary"]);
    expect(bashComplete("kube-iptables", "trace", "--format", "")).toEqual([
      "dot",
      "json",
      "mermaid",
      "svg",
      "text",
    ]);
    expect(bashComplete("kube-iptables", "generate", "--family", "")).toEqual(["IPv4", "IPv6", "both"]);
    expect(bashComplete("kube-iptables", "diff", "--family", "")).toEqual(["IPv4", "IPv6"]);
    // The profile table's names (sorted, as bash's compgen lists them).
    expect(bashComplete("kube-iptables", "trace", "f", "--profile", "")).toEqual([...PROFILE_NAMES].sort());
    expect(bashComplete("kube-iptables", "trace", "f", "--proto", "")).toEqual(["sctp", "tcp", "udp"]);
    expect(bashComplete("kube-iptables", "trace", "f", "--from", "e")).toEqual(["external"]);
    // A value to type: nothing offered, not the flags nor files.
    expect(bashComplete("kube-iptables", "generate", "--hostname", "")).toEqual([]);
    expect(bashComplete("kube-iptables", "trace", "f", "--src", "")).toEqual([]);
  });

  test("files where a file goes; shells and commands where they go", () => {
    expect(bashComplete("kube-iptables", "generate", "")).toEqual([
      "cluster.yaml",
      "completion.bash",
      "completion.zsh",
      "manifests",
      "node.save",
    ]);
    expect(bashComplete("kube-iptables", "diff", "cluster.yaml", "n")).toEqual(["node.save"]);
    expect(bashComplete("kube-iptables", "generate", "cluster.yaml", "--current", "n")).toEqual([
      "node.save",
    ]);
    expect(bashComplete("kube-iptables", "trace", "m")).toEqual(["manifests"]);
    expect(bashComplete("kube-iptables", "completion", "")).toEqual(["bash", "zsh"]);
    expect(bashComplete("kube-iptables", "help", "t")).toEqual(["trace"]);
  });
});

const hasZsh = spawnSync("zsh", ["-c", "exit 0"]).status === 0;

/**
 * A zsh session on a pseudo-terminal (zsh/zpty) with the script loaded after compinit; TAB on
 * `line` prints each candidate compadd receives, and a marker command ends the read.
 */
const ZSH_DRIVER = `zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PS1=''"
zpty -w z "autoload -U compinit; compinit -u -D"
zpty -w z "source \${(q)1}"
zpty -w z "zstyle ':completion:*' list-grouped false"
zpty -w z "zstyle ':completion:*' insert-tab false"
zpty -w z "zstyle ':completion:*' menu no"
zpty -w z 'compadd () {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  (( $#__hits )) || return 1
  print -n -- "\\n"; print -l -- "<hit>"\${^__hits}
}'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "print '<rea''dy>'"
zpty -r z line '*<ready>*'
zpty -w -n z "$2"$'\\t'
zpty -w -n z $'\\C-u'
zpty -w z "print '<do''ne>'"
zpty -r z out '*<done>*'
print -r -- "$out" | tr -d '\\r' | grep -o '<hit>[^<]*' | sed 's/<hit>//' | sort -u
zpty -d z
`;

/** The candidates zsh offers when TAB is pressed after `line`. */
function zshComplete(line: string): string[] {
  const driver = join(dir, "driver.zsh");
  writeFileSync(driver, ZSH_DRIVER);
  const r = spawnSync("zsh", ["-f", driver, zshScript, line], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.status).toBe(0);
  return r.stdout
    .split("\n")
    .filter((w) => w !== "")
    .sort();
}

// CI installs zsh (.ci/run); elsewhere these run when zsh is there.
describe.skipIf(!hasZsh && process.env.CI !== "true")("zsh completion", () => {
  test("the script parses and binds itself to kube-iptables", () => {
    expect(spawnSync("zsh", ["-n", zshScript]).status).toBe(0);
    const r = spawnSync(
      "zsh",
      [
        "-f",
        "-c",
        `autoload -U compinit; compinit -u -D; source '${zshScript}'; print -r -- $_comps[kube-iptables]`,
      ],
      { encoding: "utf8" },
    );
    expect(r.stdout).toBe("_kube_iptables\n");
  });

  test.each([
    ["kube-iptables gen", ["generate"]],
    ["kube-iptables generate --fo", ["--format"]],
    ["kube-iptables generate --format ", ["dump", "json", "restore", "ruleset", "save", "transaction"]],
    ["kube-iptables trace f --proto ", ["sctp", "tcp", "udp"]],
    ["kube-iptables diff --family ", ["IPv4", "IPv6"]],
    ["kube-iptables generate --current no", ["node.save"]],
    ["kube-iptables diff cluster.yaml ma", ["manifests"]],
    ["kube-iptables completion ", ["bash", "zsh"]],
    ["kube-iptables generate --node-ip 198.18.0.1 --node-i", ["--node-ip"]],
  ])("%j", (line, expected) => {
    expect(zshComplete(line)).toEqual(expected);
  });
});
