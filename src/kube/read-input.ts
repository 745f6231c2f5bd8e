/**
 * Text → cluster input. Accepts a cluster file (`{config, services, endpointSlices}`), a
 * Kubernetes `List` as `kubectl get svc,endpointslices -A -o json|yaml` prints it (or a
 * `ServiceList` / `EndpointSliceList` as the API returns them), one Service or EndpointSlice, or
 * a stream of such documents: YAML documents, or JSON values one after another. JSON is read by
 * `read-value.ts`; this module adds YAML.
 *
 * @module
 */
import { type Document, isCollection, isScalar, LineCounter, parseAllDocuments, visit } from "yaml";
import {
  type ReadResult,
  readClusterJson,
  readDocuments,
  unreadable,
  withoutByteOrderMark,
} from "./read-value.js";

export { type ReadResult, readClusterValue } from "./read-value.js";

/** The unreadable-YAML result. */
function yamlProblem(reason: string, pos: { line: number; col: number } | undefined): ReadResult {
  return unreadable(`the input is not valid YAML: ${reason}`, pos);
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
 * Reads a cluster file or Kubernetes objects from JSON or YAML text.
 *
 * @example
 * readClusterText('{"services": [], "endpointSlices": []}').input // { services: [], endpointSlices: [] }
 */
export function readClusterText(source: string): ReadResult {
  return readClusterJson(source) ?? readClusterYaml(source);
}

/**
 * Reads YAML text that is not blank (see {@link readClusterText}, which sends JSON elsewhere).
 *
 * @example
 * readClusterYaml("services: []\nendpointSlices: []\n").shape // "cluster"
 */
export function readClusterYaml(source: string): ReadResult {
  const text = withoutByteOrderMark(source);
  const lineCounter = new LineCounter();
  // No warnings on the process's stderr: what yaml would warn about is reported below.
  // `<<` merge keys are read as kubectl (YAML 1.1) reads them.
  const docs = parseAllDocuments(text, { lineCounter, logLevel: "error", merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const error = list.flatMap((d) => d.errors)[0];
  if (error !== undefined) {
    // The first line of yaml's message, without the place it appends: the problem carries that.
    const message = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    return yamlProblem(message || "unknown error", error.linePos?.[0]);
  }
  const collectionKey = list.map(firstCollectionKey).find((offset) => offset !== undefined);
  if (collectionKey !== undefined) {
    // JSON (and so Kubernetes) has only string keys; kubectl refuses such a file too.
    return yamlProblem("a mapping key is a list or a mapping", lineCounter.linePos(collectionKey));
  }
  // Documents with no content (comments only, `---` alone) are skipped; an explicit `null` or
  // `~` is a value, and not a cluster file.
  let values: unknown[];
  try {
    values = list.filter((d) => !isEmptyDocument(d)).map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
  } catch (e) {
    // Aliases that expand past the limit (a "billion laughs" document), or nesting too deep.
    return yamlProblem((e as Error).message, undefined);
  }
  if (values.length === 0) {
    return unreadable("the input is empty");
  }
  return readDocuments(values);
}
