/**
 * What makes rule lines read otherwise than as they were written, for the readers that take
 * lines of our own save text without tokenizing them (a dump read against the text generated for
 * its cluster): counters (`-c`, which the usual reading takes out of argv), `-g`/`--goto` or
 * `--jump` (such a reader's target is the last `-j`), a NUL (which ends a line for
 * iptables-restore), a tab (a blank that a search for `" -j "` does not see). The writer marks
 * the chains whose lines hold one; the parser reads those as usual.
 *
 * @module
 */

const NOT_PLAIN = /[\0\t]| -[cg](?=[ \n]|$)|--(?:set-counters|goto|jump)/;

/**
 * Whether rule lines (one or more, each ending in a newline or at the end) hold none of the
 * above: one search for all of them.
 *
 * @example
 * arePlainLines("-A KUBE-SVC-X -j KUBE-SEP-Y\n") // true
 * arePlainLines("-A KUBE-SVC-X -g KUBE-SEP-Y\n") // false
 */
export function arePlainLines(lines: string): boolean {
  return !NOT_PLAIN.test(lines);
}

/** A value that, printed between blanks or quotes, can make a line not plain (see above). */
const NOT_PLAIN_VALUE = /[\0\t]|(?:^| )-[cg](?: |$)|--(?:set-counters|goto|jump)/;

/**
 * Whether a value printed into a rule line keeps the line plain, wherever the printer puts it
 * (after a blank, quoted or not): the writer tests the free text it prints (comments, words,
 * interface names), as the rest of a shape's line is plain by its description.
 *
 * @example
 * isPlainValue("shop/web:http cluster IP") // true
 * isPlainValue("-c") // false
 */
export function isPlainValue(value: string): boolean {
  return !NOT_PLAIN_VALUE.test(value);
}
