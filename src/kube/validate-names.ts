/**
 * Name syntax rules: the API server's (apimachinery `k8s.io/apimachinery/pkg/util/validation`,
 * each rule naming its function), plus Linux interface names and text safety, which protect the
 * output rather than follow the API server. Each function returns why a string breaks the rule,
 * or `undefined` when it follows it.
 *
 * @module
 */

import { lowerGo } from "./go-strings.js";
import {
  BAD_INTERFACE_CHAR,
  DNS1035_LABEL,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  HAS_LETTER,
  IANA_SVC_NAME_CHARS,
  LABEL_VALUE,
} from "./patterns.js";

/** A name rule: why `text` breaks it, or `undefined`. */
export type NameRule = (text: string) => string | undefined;

/**
 * What makes a string unsafe in rule text: a quote, backslash, newline, NUL or other control
 * character; `undefined` when there is none. Not an API server rule (free-text fields such as
 * label values of other syntaxes or the node's hostname could hold them): it protects the output,
 * where such a character would change the structure of the iptables text.
 *
 * @example
 * unsafeTextProblem('a"b') // "a double quote"
 * unsafeTextProblem("web") // undefined
 */
export function unsafeTextProblem(text: string): string | undefined {
  const at = unsafeCharAt(text);
  if (at < 0) return undefined;
  const ch = text.charAt(at);
  switch (ch) {
    case '"':
      return "a double quote";
    case "'":
      return "a single quote";
    case "\\":
      return "a backslash";
    case "\n":
    case "\r":
      return "a line break";
    case "\u0000":
      return "a NUL character";
    default:
      return `a control character (U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
  }
}

/**
 * Where the first character that must never reach rule text is (a quote, backslash, C0 or C1
 * control, DEL; the characters of `UNSAFE_CHAR`), or -1. A loop rather than the regex: it runs
 * on nearly every string of the input, and for short strings the loop is several times faster.
 */
function unsafeCharAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x27 || c === 0x5c || (c >= 0x7f && c <= 0x9f)) return i;
  }
  return -1;
}

/** DNS-1035 label, at most 63 characters (`IsDNS1035Label`; Service names: `ValidateServiceName`). */
export const dns1035Label: NameRule = (text) => {
  if (text.length > 63) return "at most 63 characters";
  if (!DNS1035_LABEL.test(text)) {
    return "lowercase letters, digits and '-', starting with a letter and ending with a letter or digit";
  }
  return undefined;
};

/**
 * DNS-1123 label, at most 63 characters (`IsDNS1123Label`): namespaces (`ValidateNamespaceName`),
 * Service and EndpointSlice port names (`validateServicePort` and discovery `validatePorts` call
 * `ValidateDNS1123Label`: `80`, `80-8080` and 63-character names are valid), endpoint hostnames.
 */
export const dns1123Label: NameRule = (text) => {
  if (text.length > 63) return "at most 63 characters";
  if (!DNS1123_LABEL.test(text)) {
    return "lowercase letters, digits and '-', starting and ending with a letter or digit";
  }
  return undefined;
};

/**
 * DNS-1123 subdomain, at most 253 characters (`IsDNS1123Subdomain`): EndpointSlice names
 * (`ValidateEndpointSliceName`), node names (`ValidateNodeName`), DNS names.
 */
export const dns1123Subdomain: NameRule = (text) => {
  if (text.length > 253) return "at most 253 characters";
  if (!DNS1123_SUBDOMAIN.test(text)) {
    return "lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit";
  }
  return undefined;
};

/**
 * IANA_SVC_NAME, the API server's `IsValidPortName`: at most 15 characters, at least one letter,
 * no `-` at either end or twice in a row. Only a Service port's `targetPort` given by name
 * (`ValidatePortNumOrName`) is checked this way; port names themselves are DNS-1123 labels.
 */
export const portName: NameRule = (text) => {
  if (text.length > 15) return "at most 15 characters";
  if (!IANA_SVC_NAME_CHARS.test(text)) return "only lowercase letters, digits and '-'";
  if (!HAS_LETTER.test(text)) return "at least one letter";
  if (text.startsWith("-") || text.endsWith("-")) return "no '-' at the start or end";
  if (text.includes("--")) return "no '--'";
  return undefined;
};

/** A label value, at most 63 characters, may be empty (`IsValidLabelValue`). */
export const labelValue: NameRule = (text) => {
  if (text.length > 63) return "at most 63 characters";
  if (!LABEL_VALUE.test(text)) {
    return "letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  }
  return undefined;
};

/** A label key: a qualified name, `[prefix/]name` (`IsQualifiedName`; the prefix a DNS-1123 subdomain). */
export const labelKey: NameRule = (text) => {
  const slash = text.indexOf("/");
  const name = slash < 0 ? text : text.slice(slash + 1);
  if (slash >= 0) {
    const prefix = text.slice(0, slash);
    if (prefix === "") return "the prefix before '/' is empty";
    const bad = dns1123Subdomain(prefix);
    if (bad !== undefined) return `the prefix before '/' is not a DNS subdomain (${bad})`;
  }
  if (name === "") return "the name is empty";
  const bad = labelValue(name);
  if (bad === undefined || slash < 0) return bad;
  return `after the '/': ${bad}`;
};

/**
 * A fully qualified domain name (`IsFullyQualifiedDomainName`, FQDN endpoint addresses): one
 * trailing dot is dropped, then a DNS-1123 subdomain of at least two labels, each a DNS-1123
 * label (at most 63 characters).
 */
export const fullyQualifiedDomainName: NameRule = (text) => {
  const name = text.endsWith(".") ? text.slice(0, -1) : text;
  const bad = dns1123Subdomain(name);
  if (bad !== undefined) return bad;
  let start = 0;
  let labels = 0;
  while (start <= name.length) {
    const dot = name.indexOf(".", start);
    const end = dot < 0 ? name.length : dot;
    if (end - start > 63) return "each label at most 63 characters";
    labels++;
    start = end + 1;
  }
  return labels < 2 ? "at least two labels separated by dots" : undefined;
};

/**
 * An annotation key (`ValidateAnnotations`): a qualified name once lower-cased as Go lower-cases
 * (`lowerGo`), so that the prefix may hold capitals.
 */
export const annotationKey: NameRule = (text) => labelKey(lowerGo(text));

function interfaceRule(max: number, what: string): NameRule {
  return (text) => {
    if (text === "") return "it is empty";
    if (text.length > max) return `at most ${max} characters${what}`;
    if (text === "." || text === "..") return "not '.' or '..'";
    if (BAD_INTERFACE_CHAR.test(text)) return "no '/', ':', '!' or whitespace";
    // A name like `--comment` would stand in the argv where iptables reads options.
    if (text.startsWith("-")) return "not starting with '-' (iptables would read it as an option)";
    if (text.endsWith("+")) return "no '+' at the end (iptables reads it as a wildcard)";
    return undefined;
  };
}

/**
 * A Linux interface name (`IFNAMSIZ` 16, so 15 characters; the kernel's `dev_valid_name`). Not an
 * API server rule: kube-proxy writes it after `-i`, so a name iptables would read as an option or
 * a wildcard is refused to protect the output.
 */
export const interfaceName: NameRule = interfaceRule(15, "");

/** An interface name prefix: iptables appends `+`, which must still fit in 15 characters. */
export const interfacePrefix: NameRule = interfaceRule(14, ", so that the '+' iptables appends fits");
