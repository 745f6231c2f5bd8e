/**
 * Validation of an object's `metadata` with the API server's `ValidateObjectMeta`: name,
 * namespace, labels and annotations.
 *
 * @module
 */

import { UNWATCHED_LABELS } from "./unwatched-labels.js";
import {
  asObject,
  asRequired,
  asString,
  checkLabels,
  checkName,
  checkStringMap,
  checkUniqueName,
} from "./validate-fields.js";
import { dns1123Label, type NameRule } from "./validate-names.js";
import type { JsonObject, Report } from "./validate-report.js";

/** What the object validators need from `metadata`. */
export interface MetadataFacts {
  /** The name, when valid. */
  readonly name: string | undefined;
  /** The namespace, when valid. */
  readonly namespace: string | undefined;
  /** The labels, when an object. */
  readonly labels: JsonObject | undefined;
  /** kube-proxy does not watch the object (one of its labels filters it out). */
  readonly unwatched: boolean;
}

const NONE: MetadataFacts = { name: undefined, namespace: undefined, labels: undefined, unwatched: false };

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
  // API server: ValidateAnnotations also checks the keys and the total size; only the value types
  // are checked here (looser: annotations make no rules).
  checkStringMap(r, "annotations", meta.annotations);
  r.leave();
  return {
    name: nameOk ? name : undefined,
    namespace: namespaceOk ? namespace : undefined,
    labels,
    unwatched,
  };
}
