// The API server's checks on the Services and EndpointSlices of a cluster file, each in the
// cheapest correct form we know: the part of the required CLI bound (bench/cli-floor.mjs,
// `required restore`) that stands for validation. The house accepts exactly what the API server
// accepts (DESIGN.md), so every correct CLI refuses every object the API server refuses, whether
// or not the refused field changes the text; a bound that checked less would understate the work,
// one that checked more (or slowly) would overstate it. The rules are learnt from the API server's
// validation (pkg/apis/core/validation: ValidateService and the functions it calls;
// pkg/apis/discovery/validation: ValidateEndpointSlice; apimachinery's ValidateObjectMeta) and
// read as a stored object is: after the API server's defaulting (an absent type is ClusterIP, an
// absent protocol TCP, an absent policy or timeout the default) and with the legacy spellings
// of addresses it keeps accepting in stored objects (`010.0.0.1`, `::ffff:10.0.0.1`).
// test/package/bench-api-checks.test.ts holds every rule to an object the library refuses too.
//
// Left out: fields the bench's objects never hold and the CLI does not read either
// (ownerReferences, finalizers, managedFields, generation, the ingress' port statuses), the
// registry's allocation rules beyond SingleStack's one family (RequireDualStack's two), and the
// kube-proxy configuration (ours to check, not the API server's: one small object).

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// A label value, or the name part of a qualified name when not empty (IsValidLabelValue,
// IsQualifiedName).
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const IANA_SVC_NAME = /^[-a-z0-9]+$/;
const PATH_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const SERVICE_TYPES = new Set(["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]);
const PROTOCOLS = new Set(["TCP", "UDP", "SCTP"]);
const POLICIES = new Set(["Cluster", "Local"]);
const AFFINITIES = new Set(["None", "ClientIP"]);
const FAMILIES = new Set(["IPv4", "IPv6"]);
const FAMILY_POLICIES = new Set(["SingleStack", "PreferDualStack", "RequireDualStack"]);
const IP_MODES = new Set(["VIP", "Proxy"]);
// validateServiceTrafficDistribution: PreferClose, and the two later releases add.
const DISTRIBUTIONS = new Set(["PreferClose", "PreferSameZone", "PreferSameNode"]);
const ADDRESS_TYPES = new Set(["IPv4", "IPv6", "FQDN"]);

/** Throws: the field at `path` holds `value`, which the API server refuses. */
function refuse(path, value, why) {
  throw new Error(`${path}: ${JSON.stringify(value) ?? String(value)} ${why}`);
}

/** `path` and an object key, as the library writes paths (`.key`, else `["key"]`). */
function keyPath(path, key) {
  return PATH_IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Names repeat across thousands of objects (namespaces, node names, port names, label keys):
// one that passed a rule is remembered, and a set lookup of a string JSON.parse interned is
// cheaper than the regular expression. Only names that passed are kept.
const passed = {
  label: new Set(),
  subdomain: new Set(),
  labelKey: new Set(),
};

/** A DNS-1123 label (IsDNS1123Label): namespaces, port names, endpoint hostnames. */
function isLabel(v) {
  if (passed.label.has(v)) return true;
  if (typeof v !== "string" || v.length > 63 || !DNS1123_LABEL.test(v)) return false;
  passed.label.add(v);
  return true;
}

/** A DNS-1123 subdomain (IsDNS1123Subdomain): EndpointSlice names, node names, DNS names. */
function isSubdomain(v) {
  if (passed.subdomain.has(v)) return true;
  if (typeof v !== "string" || v.length > 253 || !DNS1123_SUBDOMAIN.test(v)) return false;
  passed.subdomain.add(v);
  return true;
}

/** A qualified name, `[prefix/]name` (IsQualifiedName): label and annotation keys, appProtocol. */
function isQualifiedName(v) {
  if (passed.labelKey.has(v)) return true;
  if (typeof v !== "string") return false;
  const slash = v.indexOf("/");
  const name = slash < 0 ? v : v.slice(slash + 1);
  if (name === "" || name.length > 63 || !LABEL_VALUE.test(name)) return false;
  if (slash >= 0) {
    const prefix = v.slice(0, slash);
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
  }
  passed.labelKey.add(v);
  return true;
}

/** A label value (IsValidLabelValue): may be empty. Values are mostly one of a kind: no memo. */
function isLabelValue(v) {
  return typeof v === "string" && v.length <= 63 && LABEL_VALUE.test(v);
}

/** A port number (IsValidPortNum). */
function isPort(v) {
  return Number.isInteger(v) && v >= 1 && v <= 65535;
}

/** A port name (IsValidPortName, IANA_SVC_NAME): a Service port's targetPort given by name. */
function isPortName(v) {
  return (
    v.length <= 15 &&
    IANA_SVC_NAME.test(v) &&
    /[a-z]/.test(v) &&
    !v.startsWith("-") &&
    !v.endsWith("-") &&
    !v.includes("--")
  );
}

/**
 * A label map (ValidateLabels): qualified-name keys, label values. The map is at
 * `${list}[${index}].${where}`: paths are built only to refuse (an eager one per object was a
 * measurable part of the checks).
 */
function checkLabels(map, list, index, where) {
  if (!isObject(map)) refuse(`${list}[${index}].${where}`, map, "is not a map of labels");
  for (const key in map) {
    if (!isQualifiedName(key))
      refuse(keyPath(`${list}[${index}].${where}`, key), key, "is not a valid label key (IsQualifiedName)");
    const value = map[key];
    if (!isLabelValue(value))
      refuse(keyPath(`${list}[${index}].${where}`, key), value, "is not a valid label value");
  }
}

/**
 * ValidateAnnotations: keys are qualified names (case aside), values strings, and all of them
 * together at most 256 KiB (keys and values, in bytes).
 */
function checkAnnotations(map, path) {
  // Rare in the bench's objects: the path is built eagerly.
  if (!isObject(map)) refuse(path, map, "is not a map of annotations");
  let size = 0;
  for (const key in map) {
    if (!isQualifiedName(key.toLowerCase()))
      refuse(keyPath(path, key), key, "is not a valid annotation key (IsQualifiedName)");
    const value = map[key];
    if (typeof value !== "string") refuse(keyPath(path, key), value, "is not a string");
    size += utf8Length(key) + utf8Length(value);
  }
  if (size > 256 * 1024) refuse(path, `${size} bytes`, "is over the 262144 bytes annotations may take");
}

function utf8Length(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/**
 * ValidateObjectMeta for a namespaced object: the name by the kind's rule (`isName`), the
 * namespace a DNS-1123 label (ValidateNamespaceName; absent, it is the reader's default one),
 * labels and annotations. Returns the namespace.
 */
function checkMetadata(meta, list, i, isName, rule) {
  if (!isObject(meta)) refuse(`${list}[${i}].metadata`, meta, "is required (an object)");
  if (!isName(meta.name)) refuse(`${list}[${i}].metadata.name`, meta.name, `is not a valid name (${rule})`);
  const namespace = meta.namespace ?? "default";
  if (!isLabel(namespace))
    refuse(`${list}[${i}].metadata.namespace`, namespace, "is not a valid namespace (a DNS-1123 label)");
  if (meta.labels != null) checkLabels(meta.labels, list, i, "metadata.labels");
  if (meta.annotations != null) checkAnnotations(meta.annotations, `${list}[${i}].metadata.annotations`);
  return namespace;
}

/** A Service name (ValidateServiceName): a DNS-1035 label. Each is checked once: no memo. */
function isServiceName(v) {
  return typeof v === "string" && v.length <= 63 && DNS1035_LABEL.test(v);
}

/** An EndpointSlice name (ValidateEndpointSliceName): a DNS-1123 subdomain, once each. */
function isSliceName(v) {
  return typeof v === "string" && v.length <= 253 && DNS1123_SUBDOMAIN.test(v);
}

// ---- Addresses. Nearly every one is a dotted quad without leading zeros, scanned without
// allocating; anything else goes through the sloppy parser the API server's legacy fields use
// (ParseIPSloppy: leading zeros, IPv4-mapped IPv6), which is slow and rare.

/** A strictly written IPv4 address as an unsigned 32-bit number, or -1. */
function scanIPv4(s) {
  const n = s.length;
  if (n < 7 || n > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (digits > 0 && part === 0)) return -1;
    part = part * 10 + d;
    digits++;
    if (part > 255) return -1;
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

/** Decimal digits from `i`: [value, end], or null (ParseIPSloppy's IPv4 fields). */
function decimalAt(s, i) {
  let n = 0;
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j) - 48;
    if (d < 0 || d > 9) break;
    n = n * 10 + d;
    if (n > 0xffffff) return null;
    j++;
  }
  return j === i ? null : [n, j];
}

/** Sloppy IPv4 (leading zeros allowed) from `i` to the end: four bytes, or null. */
function sloppyIPv4(s, i) {
  const bytes = [];
  let at = i;
  for (let k = 0; k < 4; k++) {
    if (k > 0) {
      if (s.charCodeAt(at) !== 46) return null;
      at++;
    }
    const read = decimalAt(s, at);
    if (read === null || read[0] > 255) return null;
    bytes.push(read[0]);
    at = read[1];
  }
  return at === s.length ? bytes : null;
}

/** Sloppy IPv6 (`::`, an IPv4 tail, no zone): sixteen bytes, or null. */
function sloppyIPv6(s) {
  const bytes = [];
  let ellipsis = -1;
  let at = 0;
  if (s.startsWith("::")) {
    ellipsis = 0;
    at = 2;
    if (at === s.length) return new Array(16).fill(0);
  }
  while (bytes.length < 16) {
    let n = 0;
    let j = at;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (d < 0) break;
      n = n * 16 + d;
      if (n > 0xffffff) return null;
      j++;
    }
    if (j === at) return null;
    if (j < s.length && s.charCodeAt(j) === 46) {
      // An IPv4 tail: only in the last 32 bits.
      if (ellipsis < 0 && bytes.length !== 12) return null;
      if (bytes.length + 4 > 16) return null;
      const v4 = sloppyIPv4(s, at);
      if (v4 === null) return null;
      bytes.push(...v4);
      at = s.length;
      break;
    }
    if (n > 0xffff) return null;
    bytes.push(n >> 8, n & 255);
    at = j;
    if (at === s.length) break;
    if (s.charCodeAt(at) !== 58) return null;
    at++;
    if (at === s.length) return null;
    if (s.charCodeAt(at) === 58) {
      if (ellipsis >= 0) return null;
      ellipsis = bytes.length;
      at++;
      if (at === s.length) break;
    }
  }
  if (at !== s.length) return null;
  if (bytes.length < 16) {
    if (ellipsis < 0) return null;
    const tail = bytes.splice(ellipsis);
    while (bytes.length + tail.length < 16) bytes.push(0);
    bytes.push(...tail);
  } else if (ellipsis >= 0) {
    return null;
  }
  return bytes;
}

/**
 * An address as ParseIPSloppy reads it: `{ v4 }` (an unsigned 32-bit number, for IPv4 and
 * IPv4-mapped IPv6) or `{ v6 }` (sixteen bytes), or null.
 */
function parseIP(s) {
  if (typeof s !== "string") return null;
  const strict = scanIPv4(s);
  if (strict >= 0) return { v4: strict };
  const v4 = s.includes(":") ? null : sloppyIPv4(s, 0);
  if (v4 !== null) return { v4: ((v4[0] << 24) | (v4[1] << 16) | (v4[2] << 8) | v4[3]) >>> 0 };
  const b = sloppyIPv6(s);
  if (b === null) return null;
  let mapped = b[10] === 255 && b[11] === 255;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) mapped = false;
  if (mapped) return { v4: ((b[12] << 24) | (b[13] << 16) | (b[14] << 8) | b[15]) >>> 0 };
  return { v6: b };
}

/**
 * Why an address may not be an endpoint or external IP (ValidateEndpointIP, ValidateNonSpecialIP):
 * unspecified, loopback, link-local unicast or link-local multicast; else undefined.
 */
function specialIPv4(v) {
  if (v === 0) return "is the unspecified address";
  if (v >>> 24 === 127) return "is a loopback address";
  if (v >>> 16 === 0xa9fe) return "is a link-local address";
  if (v >>> 8 === 0xe00000) return "is a link-local multicast address";
  return undefined;
}

function special(ip) {
  if (ip.v4 !== undefined) return specialIPv4(ip.v4);
  const b = ip.v6;
  let zero = true;
  for (let i = 0; i < 15; i++) if (b[i] !== 0) zero = false;
  if (zero && b[15] === 0) return "is the unspecified address";
  if (zero && b[15] === 1) return "is a loopback address";
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return "is a link-local address";
  if (b[0] === 0xff && (b[1] & 0x0f) === 0x02) return "is a link-local multicast address";
  return undefined;
}

/** A CIDR as ParseCIDRSloppy reads it (IsValidCIDRForLegacyField; host bits may be set). */
function isCIDR(s) {
  if (typeof s !== "string") return false;
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const address = s.slice(0, slash);
  const v4 = address.includes(":") ? null : sloppyIPv4(address, 0);
  const bits = v4 !== null ? 32 : sloppyIPv6(address) !== null ? 128 : -1;
  if (bits < 0) return false;
  const prefix = decimalAt(s, slash + 1);
  return prefix !== null && prefix[1] === s.length && prefix[0] <= bits;
}

// ---- Services.

/** ValidateService (with validateServicePort, ValidateServiceClusterIPsRelatedFields). */
function checkService(svc, i) {
  if (!isObject(svc)) refuse(`services[${i}]`, svc, "is not an object");
  outsideUnless(svc, "services", i, "Service", "v1");
  const namespace = checkMetadata(svc.metadata, "services", i, isServiceName, "a DNS-1035 label");
  const spec = svc.spec;
  if (!isObject(spec)) refuse(`services[${i}].spec`, spec, "is required (an object)");
  // Defaulted: an absent or empty type is ClusterIP (SetDefaults_Service).
  const type = spec.type == null || spec.type === "" ? "ClusterIP" : spec.type;
  if (!SERVICE_TYPES.has(type)) refuse(`services[${i}].spec.type`, type, "is not a Service type");
  const headless = checkClusterIPs(spec, i, type);
  const nodePorts = type === "NodePort" || type === "LoadBalancer";
  if (headless && nodePorts)
    refuse(`services[${i}].spec.clusterIPs[0]`, "None", `may not be set for a ${type} Service`);
  checkPorts(spec.ports, i, type, headless);

  // The selector is a label map (ValidateLabels).
  if (spec.selector != null) checkLabels(spec.selector, "services", i, "spec.selector");

  // Session affinity: defaulted to None. With ClientIP the timeout is 1-86400 s (defaulted when
  // absent); with None the defaulting drops any config (SetDefaults_Service), so only its JSON
  // types (the decoding) are checked.
  const affinity =
    spec.sessionAffinity == null || spec.sessionAffinity === "" ? "None" : spec.sessionAffinity;
  if (!AFFINITIES.has(affinity))
    refuse(`services[${i}].spec.sessionAffinity`, affinity, "is not a session affinity");
  const config = spec.sessionAffinityConfig;
  if (config != null) {
    if (!isObject(config)) refuse(`services[${i}].spec.sessionAffinityConfig`, config, "is not an object");
    const clientIP = config.clientIP;
    if (clientIP != null) {
      if (!isObject(clientIP))
        refuse(`services[${i}].spec.sessionAffinityConfig.clientIP`, clientIP, "is not an object");
      const timeout = clientIP.timeoutSeconds;
      if (
        timeout != null &&
        !(Number.isInteger(timeout) && (affinity === "None" || (timeout >= 1 && timeout <= 86400)))
      )
        refuse(
          `services[${i}].spec.sessionAffinityConfig.clientIP.timeoutSeconds`,
          timeout,
          "is not 1-86400 seconds",
        );
    }
  }

  // External IPs: valid and not special (ValidateNonSpecialIP).
  const externalIPs = spec.externalIPs;
  let hasExternalIPs = false;
  if (externalIPs != null) {
    if (!Array.isArray(externalIPs)) refuse(`services[${i}].spec.externalIPs`, externalIPs, "is not a list");
    for (let k = 0; k < externalIPs.length; k++) {
      const ip = parseIP(externalIPs[k]);
      if (ip === null)
        refuse(`services[${i}].spec.externalIPs[${k}]`, externalIPs[k], "is not a valid IP address");
      const why = special(ip);
      if (why !== undefined) refuse(`services[${i}].spec.externalIPs[${k}]`, externalIPs[k], why);
    }
    hasExternalIPs = externalIPs.length > 0;
  }
  // (loadBalancerIP: ValidateService does not check its value; only GetWarningsForIP warns.)

  // Source ranges: only on a LoadBalancer Service; each, trimmed of spaces, a CIDR.
  const ranges = spec.loadBalancerSourceRanges;
  if (ranges != null) {
    if (!Array.isArray(ranges))
      refuse(`services[${i}].spec.loadBalancerSourceRanges`, ranges, "is not a list");
    if (ranges.length > 0 && type !== "LoadBalancer")
      refuse(
        `services[${i}].spec.loadBalancerSourceRanges`,
        ranges,
        "may only be set on a LoadBalancer Service",
      );
    for (let k = 0; k < ranges.length; k++) {
      const r = ranges[k];
      if (typeof r !== "string" || !isCIDR(r.trim()))
        refuse(`services[${i}].spec.loadBalancerSourceRanges[${k}]`, r, "is not a valid CIDR");
    }
  }

  // validateLoadBalancerClassField: only on a LoadBalancer Service, a qualified name.
  const lbClass = spec.loadBalancerClass;
  if (lbClass != null) {
    if (type !== "LoadBalancer")
      refuse(`services[${i}].spec.loadBalancerClass`, lbClass, "may only be set on a LoadBalancer Service");
    if (!isQualifiedName(lbClass))
      refuse(`services[${i}].spec.loadBalancerClass`, lbClass, "is not a qualified name");
  }

  // Without spec ranges, the older annotation: the same rules, its value split at commas.
  const annotations = svc.metadata.annotations;
  if (annotations != null) checkServiceAnnotations(annotations, i, type, ranges?.length > 0);

  // allocateLoadBalancerNodePorts: a boolean, only on a LoadBalancer Service (defaulted there).
  const allocate = spec.allocateLoadBalancerNodePorts;
  if (allocate != null) {
    if (typeof allocate !== "boolean")
      refuse(`services[${i}].spec.allocateLoadBalancerNodePorts`, allocate, "is not a boolean");
    if (type !== "LoadBalancer")
      refuse(
        `services[${i}].spec.allocateLoadBalancerNodePorts`,
        allocate,
        "may only be set on a LoadBalancer Service",
      );
  }

  // validateServiceExternalTrafficPolicy: the policy only where the Service is externally
  // accessible (defaulted to Cluster there); a health-check node port only where one is needed
  // (a LoadBalancer Service with policy Local, which gets one allocated when absent).
  const accessible = nodePorts || (type === "ClusterIP" && hasExternalIPs);
  const etp = spec.externalTrafficPolicy;
  if (etp != null && etp !== "") {
    if (!accessible)
      refuse(
        `services[${i}].spec.externalTrafficPolicy`,
        etp,
        "may only be set on an externally accessible Service",
      );
    if (!POLICIES.has(etp))
      refuse(`services[${i}].spec.externalTrafficPolicy`, etp, "is not a traffic policy");
  }
  const hc = spec.healthCheckNodePort;
  if (hc != null && hc !== 0) {
    if (type !== "LoadBalancer" || etp !== "Local")
      refuse(
        `services[${i}].spec.healthCheckNodePort`,
        hc,
        "may only be set on a LoadBalancer Service with externalTrafficPolicy Local",
      );
    if (!isPort(hc)) refuse(`services[${i}].spec.healthCheckNodePort`, hc, "is not a port number");
  }
  // validateServiceInternalTrafficFieldsValue (defaulted to Cluster when absent).
  const itp = spec.internalTrafficPolicy;
  if (itp != null && !POLICIES.has(itp))
    refuse(`services[${i}].spec.internalTrafficPolicy`, itp, "is not a traffic policy");
  const distribution = spec.trafficDistribution;
  if (distribution != null && !DISTRIBUTIONS.has(distribution))
    refuse(`services[${i}].spec.trafficDistribution`, distribution, "is not a traffic distribution");

  // An ExternalName Service names a DNS-1123 subdomain (a trailing dot allowed).
  const externalName = spec.externalName;
  if (type === "ExternalName") {
    const cname = typeof externalName === "string" ? externalName.replace(/\.$/, "") : "";
    if (!isSubdomain(cname))
      refuse(`services[${i}].spec.externalName`, externalName, "is not a DNS name (required)");
  } else if (externalName != null && typeof externalName !== "string") {
    refuse(`services[${i}].spec.externalName`, externalName, "is not a string");
  }

  if (svc.status != null) checkServiceStatus(svc.status, i, type);
  return namespace;
}

const SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";
const TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";
const TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints";

/**
 * ValidateService's rules on annotations: the source-range annotation (when the spec has no
 * ranges) only on a LoadBalancer Service, a comma-separated list of CIDRs; the topology mode equal
 * to the deprecated topology-hints annotation when both are set.
 */
function checkServiceAnnotations(annotations, i, type, specRanges) {
  const ranges = annotations[SOURCE_RANGES];
  if (ranges !== undefined && !specRanges) {
    const at = keyPath(`services[${i}].metadata.annotations`, SOURCE_RANGES);
    if (type !== "LoadBalancer") refuse(at, ranges, "may only be set on a LoadBalancer Service");
    const list = ranges.trim();
    if (list !== "")
      for (const cidr of list.split(",")) if (!isCIDR(cidr.trim())) refuse(at, cidr, "is not a valid CIDR");
  }
  const mode = annotations[TOPOLOGY_MODE];
  const hints = annotations[TOPOLOGY_HINTS];
  if (mode !== undefined && hints !== undefined && mode !== hints)
    refuse(
      keyPath(`services[${i}].metadata.annotations`, TOPOLOGY_MODE),
      mode,
      `must equal the ${TOPOLOGY_HINTS} annotation`,
    );
}

/**
 * ValidateServiceClusterIPsRelatedFields, with the registry's rule that a SingleStack Service has
 * one family. Returns whether the Service is headless.
 */
function checkClusterIPs(spec, i, type) {
  const single = spec.clusterIP;
  const list = spec.clusterIPs;
  const families = spec.ipFamilies;
  const policy = spec.ipFamilyPolicy;
  if (single != null && typeof single !== "string")
    refuse(`services[${i}].spec.clusterIP`, single, "is not a string");
  if (list != null && !Array.isArray(list)) refuse(`services[${i}].spec.clusterIPs`, list, "is not a list");
  if (families != null && !Array.isArray(families))
    refuse(`services[${i}].spec.ipFamilies`, families, "is not a list");
  if (type === "ExternalName") {
    // An ExternalName Service has no cluster IP, families or family policy.
    if ((single != null && single !== "") || (list != null && list.length > 0))
      refuse(`services[${i}].spec.clusterIPs`, list ?? single, "may not be set for an ExternalName Service");
    if (families != null && families.length > 0)
      refuse(`services[${i}].spec.ipFamilies`, families, "may not be set for an ExternalName Service");
    if (policy != null)
      refuse(`services[${i}].spec.ipFamilyPolicy`, policy, "may not be set for an ExternalName Service");
    return false;
  }
  // clusterIPs[0] is clusterIP (the API server fills the list from clusterIP alone).
  const fromList = list != null && list.length > 0;
  if (fromList) {
    if (single == null || single === "")
      refuse(`services[${i}].spec.clusterIPs`, list, "must be empty when clusterIP is not set");
    if (list[0] !== single) refuse(`services[${i}].spec.clusterIPs`, list, "must start with clusterIP");
    if (list.length > 2) refuse(`services[${i}].spec.clusterIPs`, list, "may hold at most 2 addresses");
  }
  const ips = fromList ? list : single == null || single === "" ? [] : [single];
  const headless = ips.length === 1 && ips[0] === "None";
  // Each a valid IP; "None" only first and alone; two only of different families.
  let first;
  let second;
  if (!headless) {
    for (let k = 0; k < ips.length; k++) {
      const ip = ips[k] === "None" ? null : parseIP(ips[k]);
      if (ip === null) refuse(`services[${i}].spec.clusterIPs[${k}]`, ips[k], "is not a valid IP address");
      if (k === 0) first = ip;
      else second = ip;
    }
    if (second !== undefined && (first.v4 === undefined) === (second.v4 === undefined))
      refuse(`services[${i}].spec.clusterIPs`, list, "may hold at most one address per IP family");
  }
  if (families != null) {
    for (let k = 0; k < families.length; k++) {
      const f = families[k];
      if (!FAMILIES.has(f)) refuse(`services[${i}].spec.ipFamilies[${k}]`, f, "is not an IP family");
      if (k > 0 && families.indexOf(f) < k)
        refuse(`services[${i}].spec.ipFamilies[${k}]`, f, "is listed twice");
      const ip = k === 0 ? first : k === 1 ? second : undefined;
      if (ip !== undefined && (ip.v4 !== undefined) !== (f === "IPv4"))
        refuse(
          `services[${i}].spec.clusterIPs[${k}]`,
          ips[k],
          `is not an ${f} address, as ipFamilies[${k}] says`,
        );
    }
  }
  if (policy != null) {
    if (!FAMILY_POLICIES.has(policy))
      refuse(`services[${i}].spec.ipFamilyPolicy`, policy, "is not an IP family policy");
    if (policy === "SingleStack" && (ips.length > 1 || (families?.length ?? 0) > 1))
      refuse(`services[${i}].spec.ipFamilyPolicy`, policy, "allows one IP family, but the Service has two");
  }
  return headless;
}

/** validateServicePort for each port, and ValidateService's checks across them. */
function checkPorts(ports, i, type, headless) {
  if (ports == null || (Array.isArray(ports) && ports.length === 0)) {
    if (!headless && type !== "ExternalName")
      refuse(`services[${i}].spec.ports`, ports ?? null, "is required (one port at least)");
    return;
  }
  if (!Array.isArray(ports)) refuse(`services[${i}].spec.ports`, ports, "is not a list");
  const several = ports.length > 1;
  for (let n = 0; n < ports.length; n++) {
    const p = ports[n];
    if (!isObject(p)) refuse(`services[${i}].spec.ports[${n}]`, p, "is not an object");
    // A name is required when there are several ports, a DNS-1123 label, unique.
    const name = p.name;
    if (name == null || name === "") {
      if (several)
        refuse(
          `services[${i}].spec.ports[${n}].name`,
          name ?? "",
          "is required when a Service has several ports",
        );
    } else if (!isLabel(name)) {
      refuse(`services[${i}].spec.ports[${n}].name`, name, "is not a valid port name (a DNS-1123 label)");
    }
    // The protocol is defaulted to TCP; the port a number.
    const protocol = p.protocol == null || p.protocol === "" ? "TCP" : p.protocol;
    if (!PROTOCOLS.has(protocol))
      refuse(`services[${i}].spec.ports[${n}].protocol`, protocol, "is not a protocol");
    if (!isPort(p.port)) refuse(`services[${i}].spec.ports[${n}].port`, p.port, "is not a port number");
    // targetPort: a port number or an IANA_SVC_NAME (ValidatePortNumOrName); 0 and "" are
    // defaulted to the port.
    const target = p.targetPort;
    if (target != null && target !== 0 && target !== "") {
      if (typeof target === "number") {
        if (!isPort(target))
          refuse(`services[${i}].spec.ports[${n}].targetPort`, target, "is not a port number");
      } else if (typeof target !== "string" || !isPortName(target)) {
        refuse(
          `services[${i}].spec.ports[${n}].targetPort`,
          target,
          "is not a port number or name (IANA_SVC_NAME)",
        );
      }
    }
    // No node port on a ClusterIP Service.
    const nodePort = p.nodePort;
    if (nodePort != null && nodePort !== 0) {
      if (type === "ClusterIP")
        refuse(`services[${i}].spec.ports[${n}].nodePort`, nodePort, "may not be set on a ClusterIP Service");
      if (!isPort(nodePort))
        refuse(`services[${i}].spec.ports[${n}].nodePort`, nodePort, "is not a port number");
    }
    if (p.appProtocol != null && !isQualifiedName(p.appProtocol))
      refuse(`services[${i}].spec.ports[${n}].appProtocol`, p.appProtocol, "is not a qualified name");
    // Unique names, port/protocol pairs and node port/protocol pairs: a Service has few ports,
    // the earlier ones are scanned.
    for (let j = 0; j < n; j++) {
      const q = ports[j];
      const qProtocol = q.protocol == null || q.protocol === "" ? "TCP" : q.protocol;
      if (name != null && name !== "" && q.name === name)
        refuse(`services[${i}].spec.ports[${n}].name`, name, `is already ports[${j}]'s`);
      if (q.port === p.port && qProtocol === protocol)
        refuse(
          `services[${i}].spec.ports[${n}]`,
          `${p.port}/${protocol}`,
          `is already ports[${j}]'s port and protocol`,
        );
      if (nodePort != null && nodePort !== 0 && q.nodePort === nodePort && qProtocol === protocol)
        refuse(`services[${i}].spec.ports[${n}].nodePort`, nodePort, `is already ports[${j}]'s node port`);
    }
  }
}

/**
 * ValidateLoadBalancerStatus: ingress only on a LoadBalancer Service (AllowServiceLBStatusOnNonLB
 * off); an ingress IP valid, a hostname a DNS-1123 subdomain that is not an IP, an ipMode one of
 * two and only with an IP.
 */
function checkServiceStatus(status, n, type) {
  if (!isObject(status)) refuse(`services[${n}].status`, status, "is not an object");
  const lb = status.loadBalancer;
  if (lb == null) return;
  if (!isObject(lb)) refuse(`services[${n}].status.loadBalancer`, lb, "is not an object");
  const ingress = lb.ingress;
  if (ingress == null) return;
  // Only LoadBalancer Services have ingress: the path is built for them alone.
  const at = `services[${n}].status.loadBalancer.ingress`;
  if (!Array.isArray(ingress)) refuse(at, ingress, "is not a list");
  if (ingress.length > 0 && type !== "LoadBalancer")
    refuse(at, ingress, "may only be set on a LoadBalancer Service");
  for (let i = 0; i < ingress.length; i++) {
    const e = ingress[i];
    if (!isObject(e)) refuse(`${at}[${i}]`, e, "is not an object");
    const address = e.ip;
    const hasIP = address != null && address !== "";
    if (hasIP && parseIP(address) === null) refuse(`${at}[${i}].ip`, address, "is not a valid IP address");
    const mode = e.ipMode;
    if (mode != null) {
      if (!hasIP) refuse(`${at}[${i}].ipMode`, mode, "may only be set together with ip");
      if (!IP_MODES.has(mode)) refuse(`${at}[${i}].ipMode`, mode, "is not an IP mode");
    }
    const hostname = e.hostname;
    if (hostname != null && hostname !== "") {
      if (!isSubdomain(hostname)) refuse(`${at}[${i}].hostname`, hostname, "is not a DNS name");
      if (parseIP(hostname) !== null)
        refuse(`${at}[${i}].hostname`, hostname, "is an IP address, not a DNS name");
    }
  }
}

// ---- EndpointSlices.

/** ValidateEndpointSlice: metadata, addressType, endpoints, ports. */
function checkSlice(slice, i) {
  if (!isObject(slice)) refuse(`endpointSlices[${i}]`, slice, "is not an object");
  outsideUnless(slice, "endpointSlices", i, "EndpointSlice", "discovery.k8s.io/v1");
  const namespace = checkMetadata(slice.metadata, "endpointSlices", i, isSliceName, "a DNS-1123 subdomain");
  const addressType = slice.addressType;
  if (!ADDRESS_TYPES.has(addressType))
    refuse(`endpointSlices[${i}].addressType`, addressType, "is not an address type (required)");
  const endpoints = slice.endpoints;
  if (endpoints != null) {
    if (!Array.isArray(endpoints)) refuse(`endpointSlices[${i}].endpoints`, endpoints, "is not a list");
    if (endpoints.length > 1000)
      refuse(`endpointSlices[${i}].endpoints`, `${endpoints.length} endpoints`, "is over 1000");
    for (let j = 0; j < endpoints.length; j++) checkEndpoint(endpoints[j], i, j, addressType);
  }
  checkSlicePorts(slice.ports, i);
  return namespace;
}

/** validateEndpoints for one endpoint. */
function checkEndpoint(e, i, j, addressType) {
  if (!isObject(e)) refuse(`endpointSlices[${i}].endpoints[${j}]`, e, "is not an object");
  // 1 to 100 addresses, each of the slice's type; an IP one not special (ValidateEndpointIP).
  const addresses = e.addresses;
  if (!Array.isArray(addresses) || addresses.length === 0)
    refuse(
      `endpointSlices[${i}].endpoints[${j}].addresses`,
      addresses ?? null,
      "must hold at least one address",
    );
  if (addresses.length > 100)
    refuse(`endpointSlices[${i}].endpoints[${j}].addresses`, `${addresses.length} addresses`, "is over 100");
  for (let k = 0; k < addresses.length; k++) {
    const address = addresses[k];
    if (addressType === "IPv4") {
      // The common case in one scan: a strictly written IPv4 address.
      const v = typeof address === "string" ? scanIPv4(address) : -1;
      if (v >= 0) {
        const why = specialIPv4(v);
        if (why !== undefined) refuse(`endpointSlices[${i}].endpoints[${j}].addresses[${k}]`, address, why);
        continue;
      }
    }
    checkAddress(address, `endpointSlices[${i}].endpoints[${j}].addresses[${k}]`, addressType);
  }
  // Conditions are booleans (or null).
  const c = e.conditions;
  if (c != null) {
    if (!isObject(c)) refuse(`endpointSlices[${i}].endpoints[${j}].conditions`, c, "is not an object");
    const { ready, serving, terminating } = c;
    if (ready != null && typeof ready !== "boolean")
      refuse(`endpointSlices[${i}].endpoints[${j}].conditions.ready`, ready, "is not a boolean");
    if (serving != null && typeof serving !== "boolean")
      refuse(`endpointSlices[${i}].endpoints[${j}].conditions.serving`, serving, "is not a boolean");
    if (terminating != null && typeof terminating !== "boolean")
      refuse(`endpointSlices[${i}].endpoints[${j}].conditions.terminating`, terminating, "is not a boolean");
  }
  // nodeName a node name (ValidateNodeName: a DNS-1123 subdomain), hostname a DNS-1123 label.
  // The zone is only a string (validateEndpoints leaves it unchecked).
  const nodeName = e.nodeName;
  if (nodeName != null && !isSubdomain(nodeName))
    refuse(`endpointSlices[${i}].endpoints[${j}].nodeName`, nodeName, "is not a valid node name");
  const hostname = e.hostname;
  if (hostname != null && !isLabel(hostname))
    refuse(`endpointSlices[${i}].endpoints[${j}].hostname`, hostname, "is not a DNS-1123 label");
  if (e.zone != null && typeof e.zone !== "string")
    refuse(`endpointSlices[${i}].endpoints[${j}].zone`, e.zone, "is not a string");
  if (e.hints != null) checkHints(e.hints, `endpointSlices[${i}].endpoints[${j}].hints`);
}

/** An address the fast path did not take: a legacy spelling, another family, or invalid. */
function checkAddress(address, at, addressType) {
  if (addressType === "FQDN") {
    // IsFullyQualifiedDomainName: a DNS-1123 subdomain (a trailing dot allowed) of two labels at
    // least, each at most 63 characters.
    const name = typeof address === "string" ? address.replace(/\.$/, "") : address;
    if (!isSubdomain(name) || !name.includes(".") || name.split(".").some((label) => label.length > 63))
      refuse(at, address, "is not a fully qualified domain name");
    return;
  }
  const ip = parseIP(address);
  if (ip === null || (ip.v4 !== undefined) !== (addressType === "IPv4"))
    refuse(at, address, `is not a valid ${addressType} address`);
  const why = special(ip);
  if (why !== undefined) refuse(at, address, why);
}

/** validateHints: at most 8 zones (label values) and 8 nodes (node names), none twice. */
function checkHints(hints, at) {
  if (!isObject(hints)) refuse(at, hints, "is not an object");
  for (const [key, valid] of [
    ["forZones", isLabelValue],
    ["forNodes", isSubdomain],
  ]) {
    const list = hints[key];
    if (list == null) continue;
    if (!Array.isArray(list)) refuse(`${at}.${key}`, list, "is not a list");
    if (list.length > 8) refuse(`${at}.${key}`, `${list.length} entries`, "is over 8");
    for (let i = 0; i < list.length; i++) {
      const h = list[i];
      if (!isObject(h)) refuse(`${at}.${key}[${i}]`, h, "is not an object");
      const name = h.name ?? (key === "forZones" ? "" : undefined);
      if (!valid(name)) refuse(`${at}.${key}[${i}].name`, h.name ?? null, "is not valid");
      for (let j = 0; j < i; j++)
        if (list[j].name === name) refuse(`${at}.${key}[${i}].name`, name, "is listed twice");
    }
  }
}

/**
 * validatePorts: at most 20000; names DNS-1123 labels, unique (the empty name too); protocols
 * defaulted to TCP, one of three; appProtocol a qualified name. The API server leaves the number
 * to its type (int32); the house narrows it to 0-65535, as the library does (kube-proxy skips 0,
 * iptables-restore refuses any other number outside a port's range).
 */
function checkSlicePorts(ports, n) {
  if (ports == null) return;
  if (!Array.isArray(ports)) refuse(`endpointSlices[${n}].ports`, ports, "is not a list");
  if (ports.length > 20000) refuse(at, `${ports.length} ports`, "is over 20000");
  for (let i = 0; i < ports.length; i++) {
    const p = ports[i];
    if (!isObject(p)) refuse(`endpointSlices[${n}].ports[${i}]`, p, "is not an object");
    const name = p.name ?? "";
    if (name !== "" && !isLabel(name))
      refuse(`endpointSlices[${n}].ports[${i}].name`, name, "is not a valid port name (a DNS-1123 label)");
    for (let j = 0; j < i; j++)
      if ((ports[j].name ?? "") === name)
        refuse(`endpointSlices[${n}].ports[${i}].name`, name, `is already ports[${j}]'s`);
    const protocol = p.protocol ?? "TCP";
    if (!PROTOCOLS.has(protocol))
      refuse(`endpointSlices[${n}].ports[${i}].protocol`, protocol, "is not a protocol");
    const port = p.port;
    if (port != null && !(Number.isInteger(port) && port >= 0 && port <= 65535))
      refuse(`endpointSlices[${n}].ports[${i}].port`, port, "is not a port number");
    if (p.appProtocol != null && !isQualifiedName(p.appProtocol))
      refuse(`endpointSlices[${n}].ports[${i}].appProtocol`, p.appProtocol, "is not a qualified name");
  }
}

/**
 * An object of another kind or apiVersion is not the API server's to refuse: the CLI leaves it
 * out (and says so), which this bound does not do, so it stops there.
 */
function outsideUnless(obj, list, i, kind, apiVersion) {
  const k = obj.kind;
  const v = obj.apiVersion;
  if ((k == null || k === "" || k === kind) && (v == null || v === "" || v === apiVersion)) return;
  throw new Error(`${list}[${i}]: a ${v ?? ""} ${k ?? kind}, which the CLI leaves out: outside this bound`);
}

/**
 * Throws at the first field of a cluster file's Services and EndpointSlices that the API server
 * would refuse (the error names its path, `services[3].spec.ports[0].port`), and at any second
 * object of a namespace and name (the API server holds one). The input is a cluster file's parsed
 * JSON: `{ services, endpointSlices }` (other keys are not looked at).
 */
export function checkClusterObjects(input) {
  const services = input.services ?? [];
  const slices = input.endpointSlices ?? [];
  if (!Array.isArray(services)) refuse("services", services, "is not a list");
  if (!Array.isArray(slices)) refuse("endpointSlices", slices, "is not a list");
  const names = new Map();
  for (let i = 0; i < services.length; i++) {
    const namespace = checkService(services[i], i);
    unique(names, services, "services", i, namespace);
  }
  names.clear();
  for (let i = 0; i < slices.length; i++) {
    const namespace = checkSlice(slices[i], i);
    unique(names, slices, "endpointSlices", i, namespace);
  }
}

/**
 * One object per namespace and name. Names are looked up alone (a map of names to the first
 * object of each: no key to build per object); only a name met twice has its namespaces compared,
 * in `names` under `namespace/name` keys (a `/` is in no name).
 */
function unique(names, objects, list, i, namespace) {
  const name = objects[i].metadata.name;
  const first = names.get(name);
  if (first === undefined) {
    names.set(name, i);
    return;
  }
  const firstKey = `${objects[first].metadata.namespace ?? "default"}/${name}`;
  if (!names.has(firstKey)) names.set(firstKey, first);
  const key = `${namespace}/${name}`;
  const earlier = names.get(key);
  if (earlier !== undefined) refuse(`${list}[${i}]`, key, `is already ${list}[${earlier}]`);
  names.set(key, i);
}
