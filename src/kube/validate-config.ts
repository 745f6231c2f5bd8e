/**
 * Validation of a cluster file's `config` (the node's proxy settings). Every field is optional;
 * defaults are applied elsewhere.
 *
 * @module
 */
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
  "profile",
];
const BOOLEAN_KEYS: readonly string[] = [
  "masqueradeAll",
  "localhostNodePorts",
  "hasRandomFully",
  "conntrackTCPBeLiberal",
];
const FAMILIES = ["IPv4", "IPv6"] as const;
const PROFILES = ["v1.30", "v1.32", "latest", "v1.22"] as const;
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

  const hostname = asString(r, "hostname", config.hostname);
  if (hostname !== undefined) checkSafeText(r, "hostname", hostname);

  checkStringList(r, "nodeIPs", config.nodeIPs, (r, i, ip) => void checkIP(r, i, ip));
  checkLabels(r, "nodeLabels", config.nodeLabels);
  validateDetectLocal(r, config);

  for (const key of BOOLEAN_KEYS) readBoolean(r, config, key);
  const bit = asNumber(r, "masqueradeBit", config.masqueradeBit);
  if (bit !== undefined) checkInteger(r, "masqueradeBit", bit, 0, 31, "a mark bit");

  const addresses = checkStringList(r, "nodePortAddresses", config.nodePortAddresses, (r, i, text) => {
    if (text !== "primary") checkCIDR(r, i, text);
  });
  if (addresses !== undefined && addresses.length > 1 && addresses.includes("primary")) {
    r.error(
      "INVALID_VALUE",
      "nodePortAddresses",
      `"primary" must be the only entry, not mixed with CIDRs (${addresses.length} entries)`,
    );
  }

  const profile = asString(r, "profile", config.profile);
  if (profile !== undefined) checkEnum(r, "profile", profile, PROFILES, "a profile");
  r.leave();
}

function validateDetectLocal(r: Report, config: JsonObject): void {
  const detect = asObject(r, "detectLocal", config.detectLocal);
  if (detect === undefined) return;
  r.enter("detectLocal");
  const mode = asRequired(r, "mode", detect.mode, asString, `is required (${choices(DETECT_MODES)})`);
  if (mode !== undefined && checkEnum(r, "mode", mode, DETECT_MODES, "a detect-local mode")) {
    checkKnownKeys(r, detect, DETECT_KEYS[mode], `detectLocal mode ${mode}`);
    if (mode === "ClusterCIDR" || mode === "NodeCIDR") {
      checkStringList(r, "cidrs", detect.cidrs, (r, i, text) => void checkCIDR(r, i, text));
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
