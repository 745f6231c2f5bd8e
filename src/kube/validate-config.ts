/**
 * Validation of a cluster file's `config` (the node's proxy settings). Every field is optional;
 * defaults are applied elsewhere. These are kube-proxy's settings, not API objects: the rules
 * are kube-proxy's configuration checks (`pkg/proxy/apis/config/validation`), with CIDRs and IPs
 * read as kube-proxy reads them (sloppily), plus what the rules text cannot carry.
 *
 * @module
 */

import { parseCidr } from "../model/ip.js";
import { PROFILE_NAMES, traitsOfName } from "../model/profiles.js";
import {
  asNumber,
  asObject,
  asRequired,
  asString,
  checkCIDR,
  checkEnum,
  checkInteger,
  checkIP,
  checkLabels,
  checkName,
  checkSafeText,
  checkStringList,
  readBoolean,
} from "./validate-fields.js";
import { interfaceName, interfacePrefix } from "./validate-names.js";
import { choices, type JsonObject, type Report, show } from "./validate-report.js";

const CONFIG_KEYS: readonly string[] = [
  "ipFamily",
  "hostname",
  "nodeIPs",
  "nodeLabels",
  "detectLocal",
  "masqueradeAll",
  "masqueradeBit",
  "nodePortAddresses",
  "localhostNodePorts",
  "hasRandomFully",
  "conntrackTCPBeLiberal",
  "allowServiceExternalIPs",
  "profile",
];
const BOOLEAN_KEYS: readonly string[] = [
  "masqueradeAll",
  "localhostNodePorts",
  "hasRandomFully",
  "conntrackTCPBeLiberal",
  "allowServiceExternalIPs",
];
const FAMILIES = ["IPv4", "IPv6"] as const;
const NODE_PORT_KEYWORDS: readonly string[] = ["primary", "localhost", "all"];
const DETECT_MODES = ["ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", "None"] as const;
const DETECT_KEYS: Readonly<Record<(typeof DETECT_MODES)[number], readonly string[]>> = {
  ClusterCIDR: ["mode", "cidrs"],
  NodeCIDR: ["mode", "cidrs"],
  BridgeInterface: ["mode", "interface"],
  InterfaceNamePrefix: ["mode", "prefix"],
  None: ["mode"],
};

/**
 * Reports keys of `obj` that are neither in `known` nor in `ignored`, as one problem at the
 * current path.
 *
 * @example
 * // config {"masqueradebit": 14} → config: unknown key "masqueradebit" (known: ipFamily, …)
 */
export function checkKnownKeys(
  r: Report,
  obj: JsonObject,
  known: readonly string[],
  what: string,
  ignored: readonly string[] = [],
): void {
  const unknown: string[] = [];
  for (const k in obj) {
    if (!known.includes(k) && !ignored.includes(k)) unknown.push(show(k));
  }
  if (unknown.length === 0) return;
  const keys = unknown.length === 1 ? "key" : "keys";
  r.error(
    "INVALID_VALUE",
    undefined,
    `unknown ${keys} ${unknown.join(", ")}; ${what} has ${choices(known, "and")}`,
  );
}

/** Validates `config`; the report's current path is the input's root. */
export function validateConfig(r: Report, root: JsonObject): void {
  const config = asObject(r, "config", root.config);
  if (config === undefined) return;
  r.enter("config");
  checkKnownKeys(r, config, CONFIG_KEYS, "config");

  const family = asString(r, "ipFamily", config.ipFamily);
  if (family !== undefined) checkEnum(r, "ipFamily", family, FAMILIES, "an IP family");

  // Output: the hostname is compared with endpoints' nodeName only, but is text-checked as every
  // string that may reach rule text.
  const hostname = asString(r, "hostname", config.hostname);
  if (hostname !== undefined) checkSafeText(r, "hostname", hostname);

  // kube-proxy: node IPs (from the Node object or --bind-address) read sloppily.
  checkStringList(r, "nodeIPs", config.nodeIPs, (r, i, ip) => void checkIP(r, i, ip));
  checkLabels(r, "nodeLabels", config.nodeLabels);
  validateDetectLocal(r, config);

  for (const key of BOOLEAN_KEYS) readBoolean(r, config, key);
  // kube-proxy: validateKubeProxyIPTablesConfiguration, the mark bit is 0-31.
  const bit = asNumber(r, "masqueradeBit", config.masqueradeBit);
  if (bit !== undefined) checkInteger(r, "masqueradeBit", bit, 0, 31, "a mark bit");

  // kube-proxy: nodePortAddresses are CIDRs, or the single word "primary"; 1.37+
  // (--nodeport-addresses, PR #138427) also the keywords primary, localhost and all, mixed freely.
  const keywords = traitsOfName(
    typeof config.profile === "string" ? config.profile : undefined,
  ).nodePortAddressKeywords;
  const addresses = checkStringList(r, "nodePortAddresses", config.nodePortAddresses, (r, i, text) => {
    if (text === "primary" || (keywords && NODE_PORT_KEYWORDS.includes(text))) return;
    checkCIDR(r, i, text);
  });
  if (!keywords && addresses !== undefined && addresses.length > 1 && addresses.includes("primary")) {
    r.error(
      "INVALID_VALUE",
      "nodePortAddresses",
      `"primary" must be the only entry, not mixed with CIDRs (${addresses.length} entries)`,
    );
  }

  const profile = asString(r, "profile", config.profile);
  if (profile !== undefined) checkEnum(r, "profile", profile, PROFILE_NAMES, "a profile");
  r.leave();
}

function validateDetectLocal(r: Report, config: JsonObject): void {
  const detect = asObject(r, "detectLocal", config.detectLocal);
  if (detect === undefined) return;
  r.enter("detectLocal");
  // kube-proxy: validateDetectLocalConfiguration (a known mode; BridgeInterface and
  // InterfaceNamePrefix need their name). Output: the interface name follows `-i`, so it must be
  // one iptables reads as a name (see interfaceName).
  const mode = asRequired(r, "mode", detect.mode, asString, `is required (${choices(DETECT_MODES)})`);
  if (mode !== undefined && checkEnum(r, "mode", mode, DETECT_MODES, "a detect-local mode")) {
    checkKnownKeys(r, detect, DETECT_KEYS[mode], `detectLocal mode ${mode}`);
    if (mode === "ClusterCIDR" || mode === "NodeCIDR") {
      const used = new Set<string>();
      checkStringList(r, "cidrs", detect.cidrs, (r, i, text) => {
        if (checkCIDR(r, i, text)) checkDetectCIDR(r, i, text, used);
      });
    } else if (mode === "BridgeInterface") {
      const name = asRequired(
        r,
        "interface",
        detect.interface,
        asString,
        "is required for mode BridgeInterface",
      );
      if (name !== undefined) checkName(r, "interface", name, interfaceName, "interface name");
    } else if (mode === "InterfaceNamePrefix") {
      const prefix = asRequired(
        r,
        "prefix",
        detect.prefix,
        asString,
        "is required for mode InterfaceNamePrefix",
      );
      if (prefix !== undefined) checkName(r, "prefix", prefix, interfacePrefix, "interface name prefix");
    }
  }
  r.leave();
}

/**
 * A detect-local CIDR of prefix length 0. kube-proxy takes the first CIDR of each family
 * (getLocalDetectors, MapCIDRsByIPFamily) and writes it as `-s CIDR` / `! -s CIDR` without
 * checking its length; `! -s 0.0.0.0/0` (or `::/0`) is then refused by iptables-restore on the
 * nf_tables backend (EINVAL), so every sync of such a kube-proxy fails. Output: refused here,
 * naming the field, rather than written. A later CIDR of the same family is unused, and not
 * checked.
 *
 * @param used - the families whose first CIDR was seen
 */
function checkDetectCIDR(r: Report, index: number, text: string, used: Set<string>): void {
  const cidr = parseCidr(text);
  if (cidr === null || used.has(cidr.family)) return;
  used.add(cidr.family);
  if (cidr.prefix !== 0) return;
  r.error(
    "INVALID_VALUE",
    index,
    `${show(text)} covers every ${cidr.family} address: the rule kube-proxy would write for it (! -s ${cidr.text}) is refused by iptables-restore on the nf_tables backend; give the pods' CIDR`,
  );
}
