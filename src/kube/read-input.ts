/**
 * Text → cluster input. Accepts a cluster file (`{config, services, endpointSlices}`), a
 * Kubernetes `List` as `kubectl get svc,endpointslices -A -o json|yaml` prints it (or a
 * `ServiceList` / `EndpointSliceList` as the API returns them), one Service or EndpointSlice, or
 * a stream of such documents: YAML documents, or JSON values one after another. JSON is read by
 * `read-value.ts`; this module adds YAML.
 *
 * @module
 */
import {
  CST,
  type Document,
  isCollection,
  isScalar,
  LineCounter,
  Parser,
  parseAllDocuments,
  type ScalarTag,
  type Tags,
  visit,
} from "yaml";
import { kubectlTextForm } from "./kubectl-text.js";
import type { ReadOptions } from "./list.js";
import {
  type ReadResult,
  readClusterJson,
  readDocuments,
  unreadable,
  withoutByteOrderMark,
} from "./read-value.js";
import { goYamlNumber, NUMBER_START } from "./yaml-numbers.js";

export { type ReadResult, readClusterValue } from "./read-value.js";

const INT_TAG = "tag:yaml.org,2002:int";
const FLOAT_TAG = "tag:yaml.org,2002:float";
const TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp";

/** go-yaml v2's numbers (see `yaml-numbers.ts`); text it does not read as a number stays text. */
const goNumber: ScalarTag = {
  tag: INT_TAG,
  default: true,
  test: NUMBER_START,
  identify: (value) => typeof value === "number",
  resolve: (text) => goYamlNumber(text) ?? text,
};

/**
 * The YAML 1.1 schema as kubectl reads it: the `yaml` package's 1.1 booleans and nulls (the
 * same as go-yaml v2's), its numbers replaced by go-yaml's, and no sexagesimal numbers or
 * timestamps (go-yaml leaves both as text when the target is JSON).
 */
function kubectlTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const name = typeof t === "string" ? t : t.tag;
    return name !== INT_TAG && name !== FLOAT_TAG && name !== TIMESTAMP_TAG;
  });
  // `!!float` written out reads as a number the same way.
  return [...kept, goNumber, { ...goNumber, tag: FLOAT_TAG, default: false }];
}

/** The unreadable-YAML result. */
function yamlProblem(reason: string, pos: { line: number; col: number } | undefined): ReadResult {
  return unreadable(`the input is not valid YAML: ${reason}`, pos);
}

/**
 * Where the quoted scalar that runs to `end` (where yaml reports its missing closing quote, at
 * the end of the text or of its document) opens; `undefined` if no such scalar is found. Read
 * again from the text's CST: only a file with this error pays for it.
 */
function unclosedQuoteStart(text: string, end: number): number | undefined {
  let start: number | undefined;
  const check = (token: CST.Token | undefined): void => {
    if (
      token !== undefined &&
      (token.type === "double-quoted-scalar" || token.type === "single-quoted-scalar") &&
      token.offset + token.source.length === end
    )
      start = token.offset;
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    check(token.value);
    CST.visit(token, (item) => {
      check(item.key ?? undefined);
      check(item.value);
      return start === undefined ? undefined : CST.visit.BREAK;
    });
    if (start !== undefined) break;
  }
  return start;
}

/** A Markdown horizontal rule (`***`, `___`, `* * *`), which YAML does not read as a separator. */
const MARKDOWN_RULE = /^[ \t]*(?:\*[ \t]*){3,}$|^[ \t]*(?:_[ \t]*){3,}$/;

/** The text of a 1-based line, without its line break. */
function lineText(text: string, lines: LineCounter, line: number): string | undefined {
  const start = lines.lineStarts[line - 1];
  if (start === undefined) return undefined;
  const end = lines.lineStarts[line] ?? text.length;
  return text.slice(start, end).replace(/\r?\n$/, "");
}

/** Where the first mapping key that is a collection (`? [a, b] : c`) starts, if any. */
function firstCollectionKey(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return undefined;
      offset = pair.key.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

/** A document with nothing written in it (comments only, or `---` alone), unlike an explicit `null`. */
function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  return c === null || (isScalar(c) && c.value === null && c.source === "");
}

/**
 * Reads a cluster file or Kubernetes objects from JSON or YAML text, as kubectl reads them:
 * YAML 1.1 (`yes` is true, `0120` is 80), objects without a namespace in `options.namespace`
 * (default `default`), v1 Endpoints as the EndpointSlices mirrored from them, objects of other
 * kinds skipped with one note.
 *
 * @example
 * readClusterText('{"services": [], "endpointSlices": []}').input // { services: [], endpointSlices: [] }
 */
export function readClusterText(source: string, options: ReadOptions = {}): ReadResult {
  return readClusterJson(source, options) ?? readClusterYaml(source, options);
}

/**
 * Reads YAML text that is not blank (see {@link readClusterText}, which sends JSON elsewhere).
 *
 * @example
 * readClusterYaml("services: []\nendpointSlices: []\n").shape // "cluster"
 */
export function readClusterYaml(source: string, options: ReadOptions = {}): ReadResult {
  const text = withoutByteOrderMark(source);
  // kubectl's table or describe output: one message saying so, not a YAML or cluster-file one.
  const human = kubectlTextForm(text);
  if (human !== undefined) return unreadable(human.message, { line: human.line, col: 1 });
  const lineCounter = new LineCounter();
  // No warnings on the process's stderr: what yaml would warn about is reported below.
  // YAML 1.1 with go-yaml v2's scalars and `<<` merge keys, as kubectl reads it.
  const docs = parseAllDocuments(text, {
    lineCounter,
    logLevel: "error",
    merge: true,
    version: "1.1",
    customTags: kubectlTags,
  });
  const list = Array.isArray(docs) ? docs : [docs];
  const error = list.flatMap((d) => d.errors)[0];
  if (error !== undefined) {
    // The first line of yaml's message, without the place it appends: the problem carries that.
    const message = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    if (error.code === "MISSING_CHAR" && message.startsWith("Missing closing")) {
      // yaml reports it where the text ends, far from the cause: point at the opening quote.
      const quote = message.includes('"') ? '"' : "'";
      const start = unclosedQuoteStart(text, error.pos[0]);
      if (start !== undefined) {
        return yamlProblem(
          `the ${quote} string opened here is never closed (a paste cut short?)`,
          lineCounter.linePos(start),
        );
      }
    }
    const at = error.linePos?.[0];
    // A Markdown horizontal rule where a `---` separator was (a guide rendered and copied back).
    const ruleLine = at === undefined ? undefined : lineText(text, lineCounter, at.line);
    if (ruleLine !== undefined && MARKDOWN_RULE.test(ruleLine)) {
      return yamlProblem(`${ruleLine.trim()} is a Markdown rule, not a YAML document separator (---)`, {
        line: at?.line ?? 1,
        col: 1,
      });
    }
    return yamlProblem(message || "unknown error", at);
  }
  const collectionKey = list.map(firstCollectionKey).find((offset) => offset !== undefined);
  if (collectionKey !== undefined) {
    // JSON (and so Kubernetes) has only string keys; kubectl refuses such a file too.
    return yamlProblem("a mapping key is a list or a mapping", lineCounter.linePos(collectionKey));
  }
  // Documents with no content (comments only, `---` alone) are skipped; an explicit `null` or
  // `~` is a value, and not a cluster file.
  // Paths still count them (documents[2] is the third document), as a reader of the file does.
  const at = list.flatMap((d, i) => (isEmptyDocument(d) ? [] : [i]));
  let values: unknown[];
  try {
    values = at.map((i) => (list[i] as Document).toJS({ maxAliasCount: 100 }) as unknown);
  } catch (e) {
    // Aliases that expand past the limit (a "billion laughs" document), or nesting too deep.
    return yamlProblem((e as Error).message, undefined);
  }
  if (values.length === 0) {
    return unreadable("the input is empty");
  }
  return readDocuments(values, options, at.length === list.length ? undefined : at);
}
