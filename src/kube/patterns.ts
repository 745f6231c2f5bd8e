/**
 * Every regular expression the input validation uses, compiled once. The syntax rules are the
 * Kubernetes API server's (`k8s.io/apimachinery/pkg/util/validation`).
 *
 * @module
 */

/** DNS-1035 label body: a lowercase letter, then letters, digits and `-`, not ending in `-`. */
export const DNS1035_LABEL: RegExp = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 label body: lowercase letters, digits and `-`, starting and ending alphanumeric. */
export const DNS1123_LABEL: RegExp = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 subdomain: dot-separated DNS-1123 labels. */
export const DNS1123_SUBDOMAIN: RegExp = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** IANA_SVC_NAME characters (the other rules are checked one by one for a precise message). */
export const IANA_SVC_NAME_CHARS: RegExp = /^[-a-z0-9]+$/;

/** At least one lowercase letter. */
export const HAS_LETTER: RegExp = /[a-z]/;

/** A label value, or the name part of a qualified name (without its length limit). */
export const LABEL_VALUE: RegExp = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Characters that must never reach rule text: quotes, backslash, C0 and C1 controls, DEL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const UNSAFE_CHAR: RegExp = /["'\\\u0000-\u001f\u007f-\u009f]/;

/** Characters a Linux interface name cannot hold or iptables would read specially. */
export const BAD_INTERFACE_CHAR: RegExp = /[/:!\s]/;

/** Strict decimal without leading zeros (prefix lengths). */
export const DECIMAL: RegExp = /^(0|[1-9][0-9]{0,2})$/;

/** Four dot-separated groups of 1–3 digits (IPv4 as Go's legacy parser reads it). */
export const IPV4_LENIENT: RegExp = /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/;

/** A group with a leading zero in dotted decimal. */
export const LEADING_ZERO: RegExp = /(^|\.)0[0-9]/;

/** A plain identifier, printed as `.key` in a JSON path (otherwise `["key"]`). */
export const PATH_IDENTIFIER: RegExp = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The leading `services[N]` / `endpointSlices[N]` of a problem path. */
export const OBJECT_PATH_HEAD: RegExp = /^(services|endpointSlices)\[(\d+)\]/;

/** A reference to a cluster-file object inside a message: `services[3]`. */
export const OBJECT_REF: RegExp = /\b(services|endpointSlices)\[(\d+)\]/g;
