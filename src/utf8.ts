/**
 * UTF-8 sizes of JavaScript strings, for the limits the real tools count in bytes
 * (iptables-restore's line and argument buffers, the API server's annotation size).
 *
 * @module
 */

/**
 * The number of bytes of `text[start, end)` in UTF-8. A lone surrogate counts 3, as the U+FFFD
 * that both Node's encoder and Go's decoder put in its place.
 *
 * @example
 * utf8Length("né") // 3
 * utf8Length("a😀", 1, 3) // 4
 */
export function utf8Length(text: string, start = 0, end: number = text.length): number {
  let bytes = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
