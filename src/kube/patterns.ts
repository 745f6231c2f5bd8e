/**
 * Every regular expression the input validation uses, compiled once. The syntax rules are the
 * Kubernetes API server's (`k8s.io/apimachinery/pkg/util/validation`).
 *
 * @module
 */

/** DNS-1035 label body (apimachinery `IsDNS1035Label`): a lowercase letter, then letters, digits and `-`, not ending in `-`. */
export const DNS1035_LABEL: RegExp = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 label body (apimachinery `IsDNS1123Label`): lowercase letters, digits and `-`, starting and ending alphanumeric. */
export const DNS1123_LABEL: RegExp = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 subdomain (apimachinery `IsDNS1123Subdomain`): dot-separated DNS-1123 labels. */
export const DNS1123_SUBDOMAIN: RegExp = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** IANA_SVC_NAME characters (apimachinery `IsValidPortName`; the other rules are checked one by one for a precise message). */
export const IANA_SVC_NAME_CHARS: RegExp = /^[-a-z0-9]+$/;

/** At least one lowercase letter. */
export const HAS_LETTER: RegExp = /[a-z]/;

/** A label value (`IsValidLabelValue`), or the name part of a qualified name (`IsQualifiedName`), without the length limit. */
export const LABEL_VALUE: RegExp = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Characters that must never reach rule text: quotes, backslash, C0 and C1 controls, DEL. Not an
 * API server rule: it protects the output (a quote or newline in a comment would change the
 * structure of the iptables text).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const UNSAFE_CHAR: RegExp = /["'\\\u0000-\u001f\u007f-\u009f]/;

/** Characters a Linux interface name cannot hold or iptables would read specially (kernel `dev_valid_name`, iptables' `-i`). */
export const BAD_INTERFACE_CHAR: RegExp = /[/:!\s]/;

/** A plain identifier, printed as `.key` in a JSON path (otherwise `["key"]`). */
export const PATH_IDENTIFIER: RegExp = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The leading `services[N]` / `endpointSlices[N]` of a problem path. */
export const OBJECT_PATH_HEAD: RegExp = /^(services|endpointSlices)\[(\d+)\]/;

/** A reference to a cluster-file object inside a message: `services[3]`. */
export const OBJECT_REF: RegExp = /\b(services|endpointSlices)\[(\d+)\]/g;
