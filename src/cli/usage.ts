// Usage errors and exit codes shared by the CLI commands.

/** Success. */
export const EXIT_OK = 0;
/** A usage error: unknown command or option, a missing argument. */
export const EXIT_USAGE = 1;
/** Invalid input: a file that cannot be read or holds invalid objects. */
export const EXIT_INPUT = 2;

/** Thrown for a usage error; the CLI prints it and exits 1. */
export class UsageError extends Error {
  override name = "UsageError";
}
