// System errors in words. Node's error carries the errno name (ENOENT) and a message that
// repeats it with the system call (`ENOENT: no such file or directory, open 'x'`); a user
// wants the words alone, after the file's name, as cat(1) and diff(1) print them.

/** The words for the errno names a file argument commonly meets. */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EIO: "input/output error",
  ENXIO: "no such device or address",
  ENODEV: "no such device",
  EAGAIN: "resource temporarily unavailable",
  EINVAL: "invalid argument",
  ENOMEM: "out of memory",
  EFBIG: "file too large",
  ESTALE: "stale file handle",
  ETIMEDOUT: "connection timed out",
};

/**
 * What went wrong in a failed system call, in words: the known errno names from a table, any
 * other from Node's message without its errno name and system call.
 *
 * @example
 * systemErrorText(Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT" }))
 * // "no such file or directory"
 */
export function systemErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const known = code === undefined ? undefined : WORDS[code];
  if (known !== undefined) return known;
  // "EXDEV: cross-device link not permitted, rename 'a' -> 'b'" → "cross-device link not permitted"
  const words = /^[A-Z0-9_]+: (.*?)(?:, \w+ '.*)?$/s.exec(error.message);
  return (words?.[1] ?? error.message).trim();
}
