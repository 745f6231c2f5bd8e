/**
 * The `kube-iptables` command. Exit codes as diff(1)'s: 0 success (diff: no differences), 1 diff
 * only: differences, 2 trouble (a usage error, a file that cannot be read, invalid input).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { completionScript } from "./completion.js";
import { runDiff } from "./diff.js";
import { runGenerate } from "./generate.js";
import { runGraph } from "./graph.js";
import { commandHelp, commandSpec, mainHelp } from "./help.js";
import { clearProgress, configureOutput, writeErr, writeOut } from "./io.js";
import { runTrace } from "./trace.js";
import { EXIT_OK, EXIT_USAGE, plainUsageMessage, UsageError } from "./usage.js";

/** The command line without the flags every command takes, and those flags. */
interface GlobalFlags {
  readonly help: boolean;
  readonly quiet: boolean;
  readonly rest: readonly string[];
}

/**
 * Takes out `-h`/`--help` and `-q`/`--quiet`, which every command takes wherever they stand
 * (as kubectl's global flags), up to a `--` after which every word is an argument. A flag's
 * value cannot be one of them: parseArgs refuses a value that starts with '-' unless it is
 * written `--flag=-VALUE`.
 */
function splitGlobalFlags(argv: readonly string[]): GlobalFlags {
  let help = false;
  let quiet = false;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg === "-q" || arg === "--quiet") quiet = true;
    else rest.push(arg);
  }
  return { help, quiet, rest };
}

/**
 * The package's version, from the package.json beside the build (dist/cli.js → ../package.json;
 * it is in the published tarball) or beside the sources (src/cli/main.ts → ../../package.json).
 */
function packageVersion(): string {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const json = JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (json.name === "kube-iptables" && typeof json.version === "string") return json.version;
    } catch {
      // not this one: try the next place
    }
  }
  return "(unknown version)";
}

/** Runs one command, or prints help or the version; returns the exit code. */
async function run(command: string | undefined, args: readonly string[], help: boolean): Promise<number> {
  if (command === undefined) {
    if (!help) throw new UsageError("missing COMMAND");
    writeOut(mainHelp());
    return EXIT_OK;
  }
  if (command === "help" && !help) {
    const [topic, ...extra] = args;
    if (extra.length > 0) throw new UsageError(`${extra[0]}: unexpected argument`);
    const spec = topic === undefined ? undefined : commandSpec(topic);
    if (topic !== undefined && spec === undefined) throw new UsageError(`${topic}: unknown command`);
    writeOut(spec === undefined ? mainHelp() : commandHelp(spec));
    return EXIT_OK;
  }
  if (command === "--version" || command === "-V") {
    if (args.length > 0) throw new UsageError(`${args[0]}: unexpected argument`);
    writeOut(`kube-iptables ${packageVersion()}\n`);
    return EXIT_OK;
  }
  const spec = commandSpec(command);
  if (spec === undefined) {
    throw new UsageError(
      command.startsWith("-") ? `${command}: unknown option` : `${command}: unknown command`,
    );
  }
  if (help) {
    writeOut(commandHelp(spec));
    return EXIT_OK;
  }
  switch (command) {
    case "generate":
      return await runGenerate(args);
    case "diff":
      return await runDiff(args);
    case "trace":
      return await runTrace(args);
    case "graph":
      return await runGraph(args);
    default:
      writeOut(completionScript(args));
      return EXIT_OK;
  }
}

/**
 * Runs the CLI with the given arguments and returns the exit code.
 *
 * @example
 * process.exitCode = await main(["generate", "cluster.yaml", "--format", "restore"]);
 */
export async function main(argv: readonly string[]): Promise<number> {
  const { help, quiet, rest } = splitGlobalFlags(argv);
  configureOutput({ quiet });
  const [command, ...args] = rest;
  try {
    return await run(command, args, help);
  } catch (e) {
    if (e instanceof UsageError) {
      writeErr(plainUsageMessage(e.message));
      const known = command !== undefined && command !== "help" && commandSpec(command) !== undefined;
      writeErr(`Try 'kube-iptables ${known ? `${command} ` : ""}--help'.`);
      return EXIT_USAGE;
    }
    throw e;
  } finally {
    clearProgress();
  }
}
