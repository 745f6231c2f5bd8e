// Usage errors and exit codes shared by the CLI commands. The codes follow diff(1): 0 and 1 are
// answers (for diff: the same, different), 2 is trouble, a usage error as much as a bad file, so
// that a script testing `diff`'s status never reads a typo as "the rules differ".

/** Success (for diff: no differences). */
export const EXIT_OK = 0;
/** diff only: the two sides differ. */
export const EXIT_DIFFER = 1;
/** Trouble: a usage error (unknown command or option, a bad or missing value). */
export const EXIT_USAGE = 2;
/** Trouble: a file that cannot be read or holds invalid objects. */
export const EXIT_INPUT = 2;

/** Thrown for a usage error; the CLI prints it with a hint to the command's help and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * A parseArgs error message in the CLI's words (`--bogus: unknown option`): Node's own name the
 * API (`'-- "--bogus"'`, `<value>`) and run over several lines. Any other message is kept.
 *
 * @example
 * plainUsageMessage("Option '--format <value>' argument missing") // "--format: needs a value"
 */
export function plainUsageMessage(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown !== null) return `${unknown[1]}: unknown option`;
  const missing = /^Option '([^']+?)(?: <value>)?' argument missing/.exec(message);
  if (missing !== null) return `${flagName(missing[1] as string)}: needs a value`;
  const ambiguous = /^Option '([^']+?)(?: <value>)?' argument is ambiguous/.exec(message);
  if (ambiguous !== null) {
    const flag = flagName(ambiguous[1] as string);
    return `${flag}: needs a value (a value starting with '-' is written ${flag}=-VALUE)`;
  }
  const noValue = /^Option '([^']+)' does not take an argument/.exec(message);
  if (noValue !== null) return `${flagName(noValue[1] as string)}: takes no value`;
  const positional = /^Unexpected argument '([^']*)'/.exec(message);
  if (positional !== null) return `${positional[1]}: unexpected argument`;
  return message.replace(/\s*\n\s*/g, " ");
}

/** `-f, --format` as Node names a flag with a short form: the long form only. */
function flagName(name: string): string {
  const long = /--[\w-]+/.exec(name);
  return long === null ? name : long[0];
}
