// Bytes of an input file → text. Files saved on Windows often start with a byte order mark, and
// Windows PowerShell's `>` writes UTF-16: both are read as the text they hold. Anything else must
// be UTF-8; other bytes are refused rather than read as U+FFFD, which would surface later as a
// baffling parse error far from the cause.

/** The text of an input file, or why it is not text. */
export type DecodedInput = { readonly text: string } | { readonly problem: string };

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/**
 * Decodes an input file: UTF-8 (a leading byte order mark dropped), or UTF-16 when it starts
 * with a UTF-16 byte order mark.
 *
 * @example
 * decodeInput(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])) // { text: "{}" }
 * decodeInput(new Uint8Array([0xff, 0xfe, 0x7b, 0x00]))      // { text: "{" }
 * decodeInput(new Uint8Array([0x7b, 0xff]))                  // { problem: "is not UTF-8 text (byte 1)" }
 */
export function decodeInput(bytes: Uint8Array): DecodedInput {
  // TextDecoder drops the byte order mark of its own encoding (ignoreBOM is false).
  let encoding = "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = "utf-16le";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = "utf-16be";
  try {
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes) };
  } catch {
    const offset = encoding === "utf-8" ? firstInvalidUtf8(bytes) : -1;
    const where = offset < 0 ? "" : ` (byte ${offset})`;
    const name = encoding === "utf-8" ? "UTF-8" : encoding === "utf-16le" ? "UTF-16LE" : "UTF-16BE";
    return { problem: `is not ${name} text${where}` };
  }
}

/** The offset of the first byte that breaks UTF-8, or -1 (a hint for the message only). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = startsWith(bytes, UTF8_BOM) ? 3 : 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const extra =
      b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (extra < 0) return i;
    for (let k = 1; k <= extra; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += extra + 1;
  }
  return -1;
}
