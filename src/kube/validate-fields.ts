/**
 * Field readers and value checks shared by the validators. Readers treat `null` like an absent
 * field (as Go's JSON decoding does) and report a `TYPE` problem for a value of the wrong JSON
 * type; checks report `INVALID_VALUE`, `UNSAFE_TEXT` or `REQUIRED`.
 *
 * @module
 */

import type { IPFamily } from "../model/types.js";
import { cidrProblem, ipProblem } from "./addresses.js";
import { labelKey, labelValue, type NameRule, unsafeTextProblem } from "./validate-names.js";
import {
  choices,
  describe,
  isObject,
  type JsonObject,
  type PathKey,
  type Report,
  show,
} from "./validate-report.js";

/** Reports a `TYPE` problem: `expected a string, got the number 5`. */
export function typeError(r: Report, key: PathKey | undefined, want: string, value: unknown): void {
  r.error("TYPE", key, `expected ${want}, got ${describe(value)}`);
}

/** Whether a field is absent (missing or `null`). */
export function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

// Each `read*` has an `as*` twin that takes the field's value instead of the object: hot
// validators read fields themselves (`asString(r, "nodeName", endpoint.nodeName)`), so that each
// property access site sees one object shape, rather than all of them funnelled through one
// `obj[key]` here (a megamorphic lookup, four times slower).

/** An optional string field's value, read by the caller; reports `TYPE` for a non-string. */
export function asString(r: Report, key: PathKey, v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (!isAbsent(v)) typeError(r, key, "a string", v);
  return undefined;
}

/** An optional number field's value, read by the caller (any JSON number). */
export function asNumber(r: Report, key: PathKey, v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (!isAbsent(v)) typeError(r, key, "a number", v);
  return undefined;
}

/** An optional boolean field's value, read by the caller. */
export function asBoolean(r: Report, key: PathKey, v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (!isAbsent(v)) typeError(r, key, "true or false", v);
  return undefined;
}

/** An optional object field's value, read by the caller. */
export function asObject(r: Report, key: PathKey, v: unknown): JsonObject | undefined {
  if (isObject(v)) return v;
  if (!isAbsent(v)) typeError(r, key, "an object", v);
  return undefined;
}

/** An optional array field's value, read by the caller. */
export function asArray(r: Report, key: PathKey, v: unknown): readonly unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (!isAbsent(v)) typeError(r, key, "an array", v);
  return undefined;
}

/**
 * A required field's value, read by the caller, through `as` (one of the `as*` readers);
 * reports `REQUIRED` (with `message`) when it is absent.
 */
export function asRequired<T>(
  r: Report,
  key: PathKey,
  v: unknown,
  as: (r: Report, key: PathKey, v: unknown) => T | undefined,
  message: string,
): T | undefined {
  if (isAbsent(v)) {
    r.error("REQUIRED", key, message);
    return undefined;
  }
  return as(r, key, v);
}

/** Reads an optional string field. */
export function readString(r: Report, obj: JsonObject, key: string): string | undefined {
  return asString(r, key, obj[key]);
}

/** Reads an optional number field (any JSON number). */
export function readNumber(r: Report, obj: JsonObject, key: string): number | undefined {
  return asNumber(r, key, obj[key]);
}

/** Reads an optional boolean field. */
export function readBoolean(r: Report, obj: JsonObject, key: string): boolean | undefined {
  return asBoolean(r, key, obj[key]);
}

/** Reads an optional object field. */
export function readObject(r: Report, obj: JsonObject, key: string): JsonObject | undefined {
  return asObject(r, key, obj[key]);
}

/** Reads an optional array field. */
export function readArray(r: Report, obj: JsonObject, key: string): readonly unknown[] | undefined {
  return asArray(r, key, obj[key]);
}

/** Reads a required field with `read`; reports `REQUIRED` (with `message`) when it is absent. */
export function required<T>(
  r: Report,
  obj: JsonObject,
  key: string,
  read: (r: Report, obj: JsonObject, key: string) => T | undefined,
  message: string,
): T | undefined {
  if (isAbsent(obj[key])) {
    r.error("REQUIRED", key, message);
    return undefined;
  }
  return read(r, obj, key);
}

/** The element `index` of an array if it is a string; reports a `TYPE` problem otherwise. */
export function stringAt(r: Report, items: readonly unknown[], index: number): string | undefined {
  const v = items[index];
  if (typeof v === "string") return v;
  typeError(r, index, "a string", v);
  return undefined;
}

/** The element `index` of an array if it is an object; reports a `TYPE` problem otherwise. */
export function objectAt(r: Report, items: readonly unknown[], index: number): JsonObject | undefined {
  const v = items[index];
  if (isObject(v)) return v;
  typeError(r, index, "an object", v);
  return undefined;
}

/** Checks a port number: an integer 1–65535 (API server: `IsValidPortNum`). */
export function checkPort(r: Report, key: PathKey, value: number): boolean {
  if (Number.isInteger(value) && value >= 1 && value <= 65535) return true;
  r.error("INVALID_VALUE", key, `${show(value)} is not a port number (1-65535)`);
  return false;
}

/** Checks an integer in `[min, max]`; `what` names the range in the message. */
export function checkInteger(
  r: Report,
  key: PathKey,
  value: number,
  min: number,
  max: number,
  what: string,
): boolean {
  if (Number.isInteger(value) && value >= min && value <= max) return true;
  r.error("INVALID_VALUE", key, `${show(value)} is not ${what} (${min}-${max})`);
  return false;
}

/** Checks that a string is one of `allowed`; `noun` names the kind of value (`a protocol`). */
export function checkEnum<T extends string>(
  r: Report,
  key: PathKey,
  value: string,
  allowed: readonly T[],
  noun: string,
): value is T {
  if ((allowed as readonly string[]).includes(value)) return true;
  r.error("INVALID_VALUE", key, `${show(value)} is not ${noun} (${choices(allowed)})`);
  return false;
}

/**
 * Checks that a string can be written into rule text: no quotes, backslashes or control
 * characters. Output, not an API server rule: for strings whose own rule would let them through.
 */
export function checkSafeText(r: Report, key: PathKey, value: string): boolean {
  const bad = unsafeTextProblem(value);
  if (bad === undefined) return true;
  r.error(
    "UNSAFE_TEXT",
    key,
    `${show(value)} contains ${bad}, which cannot be written safely into iptables rules`,
  );
  return false;
}

/**
 * Checks text safety, then a name rule; `noun` names the kind of name (`Service name`). A name
 * that passed is remembered for the rest of the validation (node, zone, namespace, port and
 * label names repeat across thousands of objects).
 */
export function checkName(r: Report, key: PathKey, value: string, rule: NameRule, noun: string): boolean {
  if (r.hasPassed(rule, value)) return true;
  if (!checkUniqueName(r, key, value, rule, noun)) return false;
  r.pass(rule, value);
  return true;
}

/**
 * {@link checkName} without remembering the name: for an object's own name, which is checked
 * once, so that remembering it would only fill the memo (and slow its lookups).
 */
export function checkUniqueName(
  r: Report,
  key: PathKey,
  value: string,
  rule: NameRule,
  noun: string,
): boolean {
  if (!checkSafeText(r, key, value)) return false;
  const bad = rule(value);
  if (bad === undefined) return true;
  r.error("INVALID_VALUE", key, `${show(value)} is not a valid ${noun}: ${bad}`);
  return false;
}

/**
 * Checks an IP address (of `family`, when given), as the API server's legacy IP fields take it
 * (`IsValidIPForLegacyField`: sloppy, see `addresses.ts`).
 */
export function checkIP(r: Report, key: PathKey, value: string, family?: IPFamily): boolean {
  const bad = ipProblem(value, family);
  if (bad === undefined) return true;
  r.error("INVALID_VALUE", key, `${show(value)} ${bad}`);
  return false;
}

/**
 * Checks a CIDR (`IsValidCIDRForLegacyField`: sloppy, host bits allowed); `text` is what is parsed
 * (trimmed, say), `value` what the message shows.
 */
export function checkCIDR(r: Report, key: PathKey, value: string, text: string = value): boolean {
  const bad = cidrProblem(text);
  if (bad === undefined) return true;
  r.error("INVALID_VALUE", key, `${show(value)} ${bad}`);
  return false;
}

/** An optional array of strings (the field `key`'s value `v`): runs `check` on each. */
export function checkStringList(
  r: Report,
  key: string,
  v: unknown,
  check: (r: Report, index: number, value: string) => void,
): readonly unknown[] | undefined {
  const items = asArray(r, key, v);
  if (items === undefined) return undefined;
  r.enter(key);
  for (let i = 0; i < items.length; i++) {
    const v = stringAt(r, items, i);
    if (v !== undefined) check(r, i, v);
  }
  r.leave();
  return items;
}

/**
 * Optional labels (the field `key`'s value `v`): string values, keys and values of label syntax
 * (API server: `ValidateLabels`), and text-safe (label values such as the zone or the service
 * name can reach rule text; label syntax already excludes every unsafe character).
 */
export function checkLabels(r: Report, key: string, v: unknown): JsonObject | undefined {
  const map = asObject(r, key, v);
  if (map === undefined) return undefined;
  r.enter(key);
  for (const k in map) {
    const v = map[k];
    if (!checkName(r, k, k, labelKey, "label key")) continue;
    if (typeof v !== "string") typeError(r, k, "a string", v);
    // Values such as a slice's Service name are mostly one of a kind: not remembered.
    else checkUniqueName(r, k, v, labelValue, "label value");
  }
  r.leave();
  return map;
}
