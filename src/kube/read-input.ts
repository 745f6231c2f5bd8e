/**
 * Text → cluster input. Accepts a cluster file (`{config, services, endpointSlices}`), a
 * Kubernetes `List` as `kubectl get svc,endpointslices -A -o json|yaml` prints it (or a
 * `ServiceList` / `EndpointSliceList` as the API returns them), one Service or EndpointSlice, or
 * a stream of such documents: YAML documents, or JSON values one after another.
 *
 * @module
 */
import { type Document, isCollection, isScalar, LineCounter, parseAllDocuments, visit } from "yaml";
import { type Problem, problem } from "../errors.js";
import { splitJsonValues } from "./json-values.js";
import {
  isKubernetesKind,
  isListObject,
  type ObjectOrigins,
  type SplitList,
  splitKubernetesDocuments,
} from "./list.js";
import type { ClusterInput } from "./types.js";
import { validateClusterInput } from "./validate.js";
import { isObject } from "./validate-report.js";

/** What {@link readClusterText} found. */
export interface ReadResult {
  /** The cluster input, or `null` when the text could not be read. */
  readonly input: ClusterInput | null;
  /** `cluster` for a cluster file, `list` for Kubernetes objects. */
  readonly shape: "cluster" | "list" | null;
  /**
   * For `list` input: the original path of each object (`items[3]`), so that problems found on
   * `services[i]` / `endpointSlices[j]` can be reported where the user wrote them.
   */
  readonly origins: ObjectOrigins;
  /** Problems that make the text unreadable. */
  readonly problems: readonly Problem[];
}

const NO_ORIGINS = { services: [], endpointSlices: [] };

/** The read result of Kubernetes objects split into Services and EndpointSlices. */
function fromSplit(split: SplitList): ReadResult {
  return {
    input: { services: split.services, endpointSlices: split.endpointSlices },
    shape: "list",
    origins: { services: split.servicePaths, endpointSlices: split.endpointSlicePaths },
    problems: split.problems,
  };
}

/** Reads an already parsed JSON/YAML value. */
export function readClusterValue(value: unknown): ReadResult {
  if (!isObject(value)) {
    // The validator's own problem, so that the CLI and validateClusterInput say the same thing.
    return { input: null, shape: null, origins: NO_ORIGINS, problems: validateClusterInput(value) };
  }
  // Kubernetes objects say what they are; a cluster file has no kind.
  if (isKubernetesKind(value.kind)) {
    const split = splitKubernetesDocuments([value]);
    // A List without an items array holds nothing to read: no input, only its problem.
    if (isListObject(value) && !Array.isArray(value.items))
      return { input: null, shape: null, origins: NO_ORIGINS, problems: split.problems };
    return fromSplit(split);
  }
  return { input: value as ClusterInput, shape: "cluster", origins: NO_ORIGINS, problems: [] };
}

/** The result for text that cannot be read at all, with the line and column when known. */
function unreadable(message: string, pos?: { line: number; col: number }): ReadResult {
  const where = pos === undefined ? {} : { line: pos.line, column: pos.col };
  return {
    input: null,
    shape: null,
    origins: NO_ORIGINS,
    problems: [{ ...problem("MALFORMED_INPUT", "", message), ...where }],
  };
}

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
  // A byte order mark (files saved on Windows) is not part of the JSON or YAML.
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (text.trim() === "") {
    return unreadable("the input is empty");
  }
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      // Several JSON documents one after another are read as a stream of documents.
      const documents = parseJsonValues(text);
      if (documents !== null) return readDocuments(documents);
      return unreadable(`the input is not valid JSON: ${(e as Error).message}`);
    }
    return readClusterValue(value);
  }
  const lineCounter = new LineCounter();
  // No warnings on the process's stderr: what yaml would warn about is reported below.
  // `<<` merge keys are read as kubectl (YAML 1.1) reads them.
  const docs = parseAllDocuments(text, { lineCounter, logLevel: "error", merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const error = list.flatMap((d) => d.errors)[0];
  if (error !== undefined) {
    return yamlProblem(error.message.split("\n")[0] ?? "unknown error", error.linePos?.[0]);
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

/** Reads the values of a stream's documents: one is read on its own, several as Kubernetes objects. */
function readDocuments(values: readonly unknown[]): ReadResult {
  if (values.length === 1) return readClusterValue(values[0]);
  return fromSplit(splitKubernetesDocuments(values));
}

/** The values of text holding several JSON values one after another, or `null` when it does not. */
function parseJsonValues(text: string): unknown[] | null {
  const pieces = splitJsonValues(text);
  if (pieces === null) return null;
  try {
    return pieces.map((piece) => JSON.parse(piece) as unknown);
  } catch {
    return null;
  }
}
