/**
 * Validation of an object's `metadata` with the API server's `ValidateObjectMeta`: name,
 * namespace, labels and annotations.
 *
 * @module
 */

import { utf8Length } from "../utf8.js";
import { UNWATCHED_LABELS } from "./unwatched-labels.js";
import {
  asObject,
  asRequired,
  asString,
  checkLabels,
  checkName,
  checkUniqueName,
  typeError,
} from "./validate-fields.js";
import { annotationKey, dns1123Label, type NameRule } from "./validate-names.js";
import { type JsonObject, type Report, show } from "./validate-report.js";

/** The API server's `TotalAnnotationSizeLimitB`: 256 KiB of keys and values. */
const MAX_ANNOTATION_BYTES = 256 * 1024;

/** What the object validators need from `metadata`. */
export interface MetadataFacts {
  /** The name, when valid. */
  readonly name: string | undefined;
  /** The namespace, when valid. */
  readonly namespace: string | undefined;
  /** The labels, when an object. */
  readonly labels: JsonObject | undefined;
  /** The annotations, when an object (their values may be of any type). */
  readonly annotations: JsonObject | undefined;
  /** kube-proxy does not watch the object (one of its labels filters it out). */
  readonly unwatched: boolean;
}

const NONE: MetadataFacts = {
  name: undefined,
  namespace: undefined,
  labels: undefined,
  annotations: undefined,
  unwatched: false,
};

/**
 * Validates `obj.metadata`; the report's current path is the object.
 *
 * @param nameRule - the syntax of the object's name
 * @param noun - the name's kind for messages (`Service name`)
 */
export function validateMetadata(
  r: Report,
  obj: JsonObject,
  nameRule: NameRule,
  noun: string,
): MetadataFacts {
  const meta = asRequired(r, "metadata", obj.metadata, asObject, "is required");
  if (meta === undefined) return NONE;
  r.enter("metadata");
  // API server: a name is required (a stored object has one even when created with generateName)
  // and follows the kind's rule (ValidateServiceName: DNS-1035 label; ValidateEndpointSliceName:
  // DNS-1123 subdomain); a namespaced object's namespace is a DNS-1123 label
  // (ValidateNamespaceName). A missing namespace is defaulted by the readers, as kubectl does.
  const name = asRequired(r, "name", meta.name, asString, "is required");
  const nameOk = name !== undefined && checkUniqueName(r, "name", name, nameRule, noun);
  const namespace = asRequired(r, "namespace", meta.namespace, asString, "is required");
  const namespaceOk =
    namespace !== undefined && checkName(r, "namespace", namespace, dns1123Label, "namespace");
  // API server: ValidateLabels (qualified-name keys, label values).
  const labels = checkLabels(r, "labels", meta.labels);
  let unwatched = false;
  if (labels !== undefined) {
    for (const label of UNWATCHED_LABELS) {
      if (labels[label] === undefined) continue;
      unwatched = true;
      r.enter("labels");
      r.warn("SKIPPED", label, `kube-proxy does not watch objects with the label ${label}`);
      r.leave();
    }
  }
  const annotations = checkAnnotations(r, meta.annotations);
  r.leave();
  return {
    name: nameOk ? name : undefined,
    namespace: namespaceOk ? namespace : undefined,
    labels,
    annotations,
    unwatched,
  };
}

/**
 * API server: ValidateAnnotations. String values, keys that are qualified names once lower-cased,
 * and at most 256 KiB of keys and values together (ValidateAnnotationsSize, counting UTF-8
 * bytes). Annotations make no rules, so nothing here is about text safety.
 */
function checkAnnotations(r: Report, v: unknown): JsonObject | undefined {
  const map = asObject(r, "annotations", v);
  if (map === undefined) return undefined;
  r.enter("annotations");
  let units = 0;
  for (const k in map) {
    const value = map[k];
    // Keys repeat across objects (kubectl's and the controllers' own): remembered once passed.
    if (!r.hasPassed(annotationKey, k)) {
      const bad = annotationKey(k);
      if (bad === undefined) r.pass(annotationKey, k);
      else r.error("INVALID_VALUE", k, `${show(k)} is not a valid annotation key: ${bad}`);
    }
    if (typeof value !== "string") typeError(r, k, "a string", value);
    else units += k.length + value.length;
  }
  r.leave();
  // A UTF-16 unit is at most 3 bytes of UTF-8: only large annotations need counting.
  if (units * 3 > MAX_ANNOTATION_BYTES) {
    const bytes = annotationBytes(map);
    if (bytes > MAX_ANNOTATION_BYTES) {
      r.error(
        "INVALID_VALUE",
        "annotations",
        `hold ${bytes} bytes of keys and values; an object's annotations hold at most ${MAX_ANNOTATION_BYTES} (256 KiB)`,
      );
    }
  }
  return map;
}

/** The UTF-8 size of the keys and string values (a lone surrogate is U+FFFD, 3 bytes, as Go decodes it). */
function annotationBytes(map: JsonObject): number {
  let bytes = 0;
  for (const k in map) {
    const value = map[k];
    if (typeof value === "string") bytes += utf8Length(k) + utf8Length(value);
  }
  return bytes;
}
