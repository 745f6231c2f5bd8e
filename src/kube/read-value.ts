/**
 * Parsed values and JSON text → cluster input, without the YAML parser: a cluster file
 * (`{config, services, endpointSlices}`), a Kubernetes `List` (or a `ServiceList` /
 * `EndpointSliceList`), one Service or EndpointSlice, or several of them. `readClusterText`
 * adds YAML; the CLI reads JSON through here alone and loads the YAML parser (a third of its
 * start-up) only for YAML.
 *
 * @module
 */

import { type Problem, problem } from "../errors.js";
import { jsonSyntaxError } from "./json-syntax.js";
import { splitJsonValues } from "./json-values.js";
import {
  isKubernetesKind,
  isListObject,
  type ObjectOrigins,
  type ReadOptions,
  readClusterObjects,
  type SkippedObject,
  type SplitList,
  skippedNote,
  splitKubernetesDocuments,
} from "./list.js";
import type { ClusterInput } from "./types.js";
import { validateClusterInput } from "./validate.js";
import { isObject } from "./validate-report.js";

/**
 * What `readClusterText` found.
 *
 * @example
 * const read = readClusterJson('{"kind": "List", "items": []}');
 * read?.shape    // "list"
 * read?.input    // { services: [], endpointSlices: [] }
 * read?.problems // []
 */
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
  /**
   * Errors that make the text unreadable, and notes (warnings): objects of other kinds skipped
   * (one `OTHER_KIND` note), Endpoints whose Service's slices are given too.
   */
  readonly problems: readonly Problem[];
  /** Objects left out for their kind or apiVersion (the `OTHER_KIND` note names them). */
  readonly skipped?: readonly SkippedObject[];
}

const NO_ORIGINS = { services: [], endpointSlices: [] };

/** The read result of Kubernetes objects split into Services and EndpointSlices. */
function fromSplit(split: SplitList): ReadResult {
  return {
    input: { services: split.services, endpointSlices: split.endpointSlices },
    shape: "list",
    origins: {
      services: split.servicePaths,
      endpointSlices: split.endpointSlicePaths,
      endpointSliceMirrors: split.endpointSliceMirrors,
    },
    problems: split.problems,
    skipped: split.skipped,
  };
}

/**
 * Reads an already parsed JSON/YAML value: Kubernetes objects (they have a kind), or a cluster
 * file. Objects without a namespace are read in `options.namespace` (default `default`).
 *
 * @example
 * readClusterValue({ kind: "Service", metadata: { name: "web" }, spec: {} }).input?.services?.[0]?.metadata
 * // { name: "web", namespace: "default" }
 */
export function readClusterValue(value: unknown, options: ReadOptions = {}): ReadResult {
  if (!isObject(value)) {
    // The validator's own problem, so that the CLI and validateClusterInput say the same thing.
    return { input: null, shape: null, origins: NO_ORIGINS, problems: validateClusterInput(value) };
  }
  // Kubernetes objects say what they are; a cluster file has no kind.
  if (isKubernetesKind(value.kind)) {
    const split = splitKubernetesDocuments([value], options);
    // A List without an items array holds nothing to read: no input, only its problem.
    if (isListObject(value) && !Array.isArray(value.items))
      return { input: null, shape: null, origins: NO_ORIGINS, problems: split.problems };
    return fromSplit(split);
  }
  return readClusterFile(value, options);
}

/**
 * A cluster file: its objects read as a List's items are (other kinds skipped with a note, the
 * default namespace where none is given); everything else as written, for the validator.
 */
function readClusterFile(value: Readonly<Record<string, unknown>>, options: ReadOptions): ReadResult {
  const { services, endpointSlices } = value;
  if (!Array.isArray(services) && !Array.isArray(endpointSlices))
    return { input: value as ClusterInput, shape: "cluster", origins: NO_ORIGINS, problems: [] };
  const svc = Array.isArray(services)
    ? readClusterObjects(services, "services", "Service", options)
    : undefined;
  const eps = Array.isArray(endpointSlices)
    ? readClusterObjects(endpointSlices, "endpointSlices", "EndpointSlice", options)
    : undefined;
  const skipped = [...(svc?.skipped ?? []), ...(eps?.skipped ?? [])];
  const note = skippedNote(skipped);
  const input = {
    ...value,
    ...(svc === undefined ? {} : { services: svc.objects }),
    ...(eps === undefined ? {} : { endpointSlices: eps.objects }),
  } as ClusterInput;
  return {
    input,
    shape: "cluster",
    // With objects left out, the others' indexes moved: each names where it was.
    origins:
      skipped.length === 0
        ? NO_ORIGINS
        : { services: pathsOf(svc, "services"), endpointSlices: pathsOf(eps, "endpointSlices") },
    problems: note === undefined ? [] : [note],
    skipped,
  };
}

/** Where each kept object of one list was (readClusterObjects leaves them out when none moved). */
function pathsOf(
  read: { objects: unknown[]; paths: string[] | undefined } | undefined,
  key: string,
): string[] {
  if (read === undefined) return [];
  return read.paths ?? read.objects.map((_, i) => `${key}[${i}]`);
}

/** The result for text that cannot be read at all, with the line and column when known. */
export function unreadable(message: string, pos?: { line: number; col: number }): ReadResult {
  const where = pos === undefined ? {} : { line: pos.line, column: pos.col };
  return {
    input: null,
    shape: null,
    origins: NO_ORIGINS,
    problems: [{ ...problem("MALFORMED_INPUT", "", message), ...where }],
  };
}

/**
 * Reads text that is JSON: one value, or several one after another. Returns `null` when the text
 * does not start like JSON (`{` or `[`), leaving it to the YAML reader.
 *
 * @example
 * readClusterJson('{"services": []}')?.shape // "cluster"
 * readClusterJson('{"kind": "Service", "metadata": {"name": "web"}}', { namespace: "shop" })
 *   ?.input?.services?.[0]?.metadata.namespace // "shop"
 * readClusterJson("services: []") // null
 */
export function readClusterJson(source: string, options: ReadOptions = {}): ReadResult | null {
  const text = withoutByteOrderMark(source);
  // The first character that is not blank, found without copying a large file as trim() does.
  const start = text.search(/\S/);
  if (start < 0) return unreadable("the input is empty");
  const first = text[start];
  if (first !== "{" && first !== "[") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Several JSON documents one after another are read as a stream of documents.
    const documents = parseJsonValues(text);
    if (documents !== null) return readDocuments(documents, options);
    return jsonProblem(text, e as Error);
  }
  return readClusterValue(value, options);
}

/**
 * The unreadable-JSON result: where the text first breaks, by line and column as YAML's errors
 * are (JSON.parse's own message has at most an offset, and for a stream of documents one that
 * points at the second document's start).
 */
function jsonProblem(text: string, parseError: Error): ReadResult {
  const found = jsonSyntaxError(text);
  if (found === null) return unreadable(`the input is not valid JSON: ${parseError.message}`);
  return unreadable(`the input is not valid JSON: ${found.reason}`, linePosition(text, found.offset));
}

/** The 1-based line and column of `offset` in `text`. */
function linePosition(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** The text without a leading byte order mark (files saved on Windows): not part of the JSON or YAML. */
export function withoutByteOrderMark(source: string): string {
  return source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
}

/**
 * Reads the values of a stream's documents: one is read on its own, several as Kubernetes
 * objects; `at` is each one's index in the stream when empty documents were left out.
 */
export function readDocuments(
  values: readonly unknown[],
  options: ReadOptions = {},
  at?: readonly number[],
): ReadResult {
  if (values.length === 1) return readClusterValue(values[0], options);
  return fromSplit(splitKubernetesDocuments(values, options, at));
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
