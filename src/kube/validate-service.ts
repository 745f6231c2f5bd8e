/**
 * Validation of one v1 Service with the API server's rules (`pkg/apis/core/validation`:
 * `ValidateService`, `validateServicePort`, `ValidateServiceClusterIPsRelatedFields`,
 * `ValidateLoadBalancerStatus`), plus warnings for what kube-proxy skips and text-safety checks
 * for what reaches rule text. Each check names the rule it follows: "API server: …" for the API
 * server's, "kube-proxy: …" for what kube-proxy itself skips, "Output: …" for what is refused only
 * because it cannot be written into the rules. A stored object was validated when it was
 * written, so rules the API server applies only to new or changed values (the strict IP forms of
 * StrictIPCIDRValidation) are not applied.
 *
 * @module
 */

import { scanIPv4, scanIPv6 } from "../model/ip-scan.js";
import type { IPFamily } from "../model/types.js";
import { ipFamilyOf, specialIPProblem } from "./addresses.js";
import { trimGoSpace } from "./go-strings.js";
import {
  asArray,
  asBoolean,
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
  checkPort,
  checkStringList,
  checkUniqueName,
  isAbsent,
  objectAt,
  stringAt,
  typeError,
} from "./validate-fields.js";
import { validateMetadata } from "./validate-metadata.js";
import { dns1035Label, dns1123Label, dns1123Subdomain, labelKey, portName } from "./validate-names.js";
import { choices, isObject, type JsonObject, type Report, show } from "./validate-report.js";

const TYPES = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"] as const;
const FAMILIES = ["IPv4", "IPv6"] as const;
const FAMILY_POLICIES = ["SingleStack", "PreferDualStack", "RequireDualStack"] as const;
const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;
const POLICIES = ["Cluster", "Local"] as const;
const AFFINITIES = ["None", "ClientIP"] as const;
const IP_MODES = ["VIP", "Proxy"] as const;

type ServiceType = (typeof TYPES)[number];

/** What the EndpointSlice checks need to know about a Service with a valid namespace and name. */
export interface ServiceInfo {
  /** Where it is: `services[index]`. */
  readonly index: number;
  /** Its namespace. */
  readonly namespace: string;
  /** Its name. */
  readonly name: string;
  /** kube-proxy skips the whole Service (headless, ExternalName, no cluster IP, unwatched). */
  readonly skipped: boolean;
  /** Its port names (`""` for unnamed), in step with {@link ServiceInfo.portProtocols}. */
  readonly portNames: readonly string[];
  /** Its port protocols (`TCP` when not given). */
  readonly portProtocols: readonly string[];
}

/** Whether a Service has a port of this name and protocol. */
export function hasPort(info: ServiceInfo, name: string, protocol: string): boolean {
  for (let i = 0; i < info.portNames.length; i++) {
    if (info.portNames[i] === name && info.portProtocols[i] === protocol) return true;
  }
  return false;
}

/**
 * Validates `services[index]`; the report's current path is `services`.
 *
 * @returns what slices need to know about it, when its namespace and name are usable
 */
export function validateService(
  r: Report,
  services: readonly unknown[],
  index: number,
): ServiceInfo | undefined {
  const svc = objectAt(r, services, index);
  if (svc === undefined) return undefined;
  r.enter(index);
  const meta = validateMetadata(r, svc, dns1035Label, "Service name");
  const spec = asRequired(r, "spec", svc.spec, asObject, "is required");
  let info: ServiceInfo | undefined;
  if (spec !== undefined) {
    const start = r.problems.length;
    const errorsBefore = r.errorCount;
    r.enter("spec");
    const found = validateSpec(r, spec);
    r.leave();
    const type = found.type;
    const ips = found.clusterIPs;
    if (meta.annotations !== undefined) validateAnnotations(r, meta.annotations, type, found.sourceRanges);
    validateStatus(r, svc, type);
    if (r.errorCount > errorsBefore) hintUnsetType(r, svc, spec, meta.annotations, start);
    // kube-proxy: ShouldSkipService (no cluster IP, "None", ExternalName) and the informers'
    // label selectors; the API server stores such Services.
    let skipped = true;
    if (meta.unwatched) {
      // already reported
    } else if (type === "ExternalName") {
      r.warn("SKIPPED", undefined, "ExternalName Service: kube-proxy makes no rules for it");
    } else if (ips[0] === "None") {
      r.warn("SKIPPED", undefined, "headless Service (clusterIP None): kube-proxy makes no rules for it");
    } else if (ips.length === 0) {
      // The API server assigns one when it creates the Service, so only a manifest that was never
      // applied (a Helm template, a hand-written file) lacks it: say where the real one is.
      r.warn(
        "SKIPPED",
        undefined,
        "Service without a cluster IP: kube-proxy makes no rules for it (the API server assigns one when it creates the Service: give the Service as 'kubectl get svc -o yaml' prints it)",
      );
    } else {
      skipped = false;
    }
    if (meta.name !== undefined && meta.namespace !== undefined) {
      info = {
        index,
        namespace: meta.namespace,
        name: meta.name,
        skipped,
        portNames: found.portNames,
        portProtocols: found.portProtocols,
      };
    }
  }
  r.leave();
  return info;
}

/**
 * A Service without `spec.type` is a ClusterIP Service (SetDefaults_Service), so the fields only
 * a NodePort or LoadBalancer Service may set each get an error of their own, none of which names
 * the cause: most often a `type:` line lost when kubectl output was cut short or hand-edited.
 * One error at `spec.type`, in front of the Service's spec errors, says so. It is reported only
 * when the Service already has errors and holds such fields, so it refuses nothing the API server
 * takes. `start` is where the Service's spec problems begin in the report.
 */
function hintUnsetType(
  r: Report,
  svc: JsonObject,
  spec: JsonObject,
  annotations: JsonObject | undefined,
  start: number,
): void {
  if (!isAbsent(spec.type)) return;
  const balancer: string[] = [];
  const either: string[] = [];
  const ports = spec.ports;
  if (
    Array.isArray(ports) &&
    ports.some((p) => isObject(p) && typeof p.nodePort === "number" && p.nodePort !== 0)
  )
    either.push("nodePort");
  const external = Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0;
  if ((spec.externalTrafficPolicy === "Cluster" || spec.externalTrafficPolicy === "Local") && !external)
    either.push("externalTrafficPolicy");
  if (typeof spec.healthCheckNodePort === "number" && spec.healthCheckNodePort !== 0)
    balancer.push("healthCheckNodePort");
  if (typeof spec.allocateLoadBalancerNodePorts === "boolean") balancer.push("allocateLoadBalancerNodePorts");
  if (Array.isArray(spec.loadBalancerSourceRanges) && spec.loadBalancerSourceRanges.length > 0)
    balancer.push("loadBalancerSourceRanges");
  else if (annotations !== undefined && typeof annotations[SOURCE_RANGES_ANNOTATION] === "string")
    balancer.push(`the ${SOURCE_RANGES_ANNOTATION} annotation`);
  if (typeof spec.loadBalancerClass === "string") balancer.push("loadBalancerClass");
  const status = svc.status;
  const lb = isObject(status) ? status.loadBalancer : undefined;
  if (isObject(lb) && Array.isArray(lb.ingress) && lb.ingress.length > 0)
    balancer.push("status.loadBalancer.ingress");
  const fields = [...either, ...balancer];
  if (fields.length === 0) return;
  const kind = balancer.length > 0 ? "a LoadBalancer Service" : "a NodePort or LoadBalancer Service";
  r.enter("spec");
  r.errorBefore(
    start,
    "REQUIRED",
    "type",
    `not set, so ClusterIP, yet ${fields.join(", ")} ${fields.length > 1 ? "are" : "is"} set, as on ${kind}: was "type: ${balancer.length > 0 ? "LoadBalancer" : "NodePort"}" lost (a paste cut short)? The errors below follow from it`,
  );
  r.leave();
}

interface SpecFacts {
  readonly type: ServiceType | undefined;
  /** The cluster IPs as written (`clusterIPs`, else `[clusterIP]`), `""` left out. */
  readonly clusterIPs: readonly string[];
  readonly portNames: readonly string[];
  readonly portProtocols: readonly string[];
  /** `spec.loadBalancerSourceRanges` is a non-empty list (the annotation is then not read). */
  readonly sourceRanges: boolean;
}

/** A Service's port names and protocols, in step (`""` for a port without a valid one). */
interface PortFacts {
  readonly names: readonly string[];
  readonly protocols: readonly string[];
}

const NO_PORTS: PortFacts = { names: [], protocols: [] };

function validateSpec(r: Report, spec: JsonObject): SpecFacts {
  const type = readType(r, spec);
  const nodePorts = type === "NodePort" || type === "LoadBalancer";

  const clusterIPs = validateClusterIPs(r, spec, type);
  const headless = clusterIPs[0] === "None";
  const { names: portNames, protocols: portProtocols } = validatePorts(r, spec, type, headless);

  // API server: a headless Service cannot be a NodePort or LoadBalancer Service.
  if (headless && (type === "NodePort" || type === "LoadBalancer")) {
    r.error("INVALID_VALUE", "clusterIP", `"None" (headless) is not allowed for a ${type} Service`);
  }

  const externalIPs = checkStringList(r, "externalIPs", spec.externalIPs, checkExternalIP);
  // API server: source ranges only on a LoadBalancer Service, each trimmed of spaces, a CIDR
  // (IsValidCIDRForLegacyField; kube-proxy's MapCIDRsByIPFamily trims and parses them sloppily).
  const ranges = checkStringList(
    r,
    "loadBalancerSourceRanges",
    spec.loadBalancerSourceRanges,
    checkSourceRange,
  );
  if (ranges !== undefined && ranges.length > 0 && type !== "LoadBalancer" && type !== undefined) {
    r.error(
      "INVALID_VALUE",
      "loadBalancerSourceRanges",
      `only a LoadBalancer Service may set source ranges, not a ${type} Service`,
    );
  }

  // API server: validateLoadBalancerClassField. Only a LoadBalancer Service names a class, a
  // qualified name (kube-proxy does not read it).
  const lbClass = asString(r, "loadBalancerClass", spec.loadBalancerClass);
  if (lbClass !== undefined) {
    if (type === "LoadBalancer") checkName(r, "loadBalancerClass", lbClass, labelKey, "load-balancer class");
    else if (type !== undefined)
      r.error(
        "INVALID_VALUE",
        "loadBalancerClass",
        `may only be set on a LoadBalancer Service, not a ${type} Service`,
      );
  }
  // API server: loadBalancerIP is only warned about (GetWarningsForIP), never refused, and
  // kube-proxy does not read it: its type is all there is to check.
  asString(r, "loadBalancerIP", spec.loadBalancerIP);

  // API server: validateServiceExternalTrafficPolicy. The policy may be set only when the Service
  // is externally accessible (apiservice.ExternallyAccessible), a node port for health checks only
  // when it needs one (NeedsHealthCheck: LoadBalancer with policy Local). Both are defaulted when
  // absent, which the API server's Required checks assume; SetDefaults_Service reads "" as absent
  // (Cluster on an externally accessible Service, and "" is allowed on the others), and so does
  // the model (only "Local" is local).
  const external = nodePorts || (type === "ClusterIP" && externalIPs !== undefined && externalIPs.length > 0);
  const etp = asString(r, "externalTrafficPolicy", spec.externalTrafficPolicy);
  if (
    etp !== undefined &&
    etp !== "" &&
    checkEnum(r, "externalTrafficPolicy", etp, POLICIES, "a traffic policy") &&
    !external &&
    type !== undefined
  ) {
    r.error(
      "INVALID_VALUE",
      "externalTrafficPolicy",
      `${show(etp)} may only be set on an externally accessible Service (NodePort, LoadBalancer or with externalIPs)`,
    );
  }
  // API server: validateServiceInternalTrafficFieldsValue (defaulted when absent).
  const itp = asString(r, "internalTrafficPolicy", spec.internalTrafficPolicy);
  if (itp !== undefined) checkEnum(r, "internalTrafficPolicy", itp, POLICIES, "a traffic policy");

  const hc = asNumber(r, "healthCheckNodePort", spec.healthCheckNodePort);
  if (hc !== undefined && hc !== 0 && checkPort(r, "healthCheckNodePort", hc)) {
    if (type !== undefined && (type !== "LoadBalancer" || etp !== "Local")) {
      r.error(
        "INVALID_VALUE",
        "healthCheckNodePort",
        `${hc} may only be set on a LoadBalancer Service with externalTrafficPolicy Local`,
      );
    }
  }

  validateAffinity(r, spec);

  // API server: an ExternalName Service needs a DNS-1123 subdomain (a trailing dot allowed).
  if (type === "ExternalName") {
    const name = asRequired(
      r,
      "externalName",
      spec.externalName,
      asString,
      "is required for an ExternalName Service",
    );
    if (name !== undefined)
      checkUniqueName(
        r,
        "externalName",
        name.endsWith(".") ? name.slice(0, -1) : name,
        dns1123Subdomain,
        "DNS name",
      );
  } else {
    asString(r, "externalName", spec.externalName);
  }

  // API server: validateServiceTrafficDistribution.
  const distribution = asString(r, "trafficDistribution", spec.trafficDistribution);
  if (distribution !== undefined) checkDistribution(r, distribution);

  // API server: allocateLoadBalancerNodePorts only on a LoadBalancer Service.
  const allocate = asBoolean(r, "allocateLoadBalancerNodePorts", spec.allocateLoadBalancerNodePorts);
  if (allocate !== undefined && type !== "LoadBalancer" && type !== undefined) {
    r.error(
      "INVALID_VALUE",
      "allocateLoadBalancerNodePorts",
      `may only be set on a LoadBalancer Service, not a ${type} Service`,
    );
  }
  // The API server assigns node ports, and the health check port of a Local LoadBalancer Service,
  // when it creates the Service: a Service without them is a manifest never applied. kube-proxy
  // would make no rules for them, as here; say why they are missing (a Service with no cluster IP
  // at all is reported once, as a whole).
  if (clusterIPs.length > 0 && !headless) {
    if (type === "NodePort" || (type === "LoadBalancer" && allocate !== false))
      noteUnassignedNodePorts(r, spec);
    if (type === "LoadBalancer" && etp === "Local" && (hc === undefined || hc === 0)) {
      r.warn(
        "SKIPPED",
        "healthCheckNodePort",
        "not set: kube-proxy makes no health check rule (the API server assigns this port when it creates a LoadBalancer Service with externalTrafficPolicy Local)",
      );
    }
  }
  // API server: the selector is a label map (ValidateLabels).
  checkLabels(r, "selector", spec.selector);
  return {
    type,
    clusterIPs,
    portNames,
    portProtocols,
    sourceRanges: ranges !== undefined && ranges.length > 0,
  };
}

/** A warning for each port without a node port (see validateSpec), at `ports[i].nodePort`. */
function noteUnassignedNodePorts(r: Report, spec: JsonObject): void {
  const ports = spec.ports;
  if (!Array.isArray(ports)) return;
  r.enter("ports");
  for (let i = 0; i < ports.length; i++) {
    const port: unknown = ports[i];
    if (!isObject(port) || (port.nodePort !== undefined && port.nodePort !== null && port.nodePort !== 0))
      continue;
    r.enter(i);
    r.warn(
      "SKIPPED",
      "nodePort",
      "not set: kube-proxy makes no node port rules for this port (the API server assigns a node port when it creates a NodePort or LoadBalancer Service)",
    );
    r.leave();
  }
  r.leave();
}

/**
 * The Service type, or `undefined` when it is not a known one (API server: supportedServiceType).
 * SetDefaults_Service makes an absent or empty type ClusterIP (the model reads "" so too).
 */
function readType(r: Report, spec: JsonObject): ServiceType | undefined {
  const written = asString(r, "type", spec.type);
  const text = written === undefined || written === "" ? "ClusterIP" : written;
  return checkEnum(r, "type", text, TYPES, "a Service type") ? text : undefined;
}

const SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";
const TOPOLOGY_MODE_ANNOTATION = "service.kubernetes.io/topology-mode";
const TOPOLOGY_HINTS_ANNOTATION = "service.kubernetes.io/topology-aware-hints";

/**
 * ValidateService's checks of a Service's annotations (already checked as annotations); the
 * report's current path is the Service. kube-proxy reads neither the source-range annotation
 * (only the field) nor, with the default gates, the topology ones.
 */
function validateAnnotations(
  r: Report,
  annotations: JsonObject,
  type: ServiceType | undefined,
  sourceRanges: boolean,
): void {
  const mode = annotations[TOPOLOGY_MODE_ANNOTATION];
  const hints = annotations[TOPOLOGY_HINTS_ANNOTATION];
  const ranges = sourceRanges ? undefined : annotations[SOURCE_RANGES_ANNOTATION];
  if (mode === undefined && ranges === undefined) return;
  r.enter("metadata");
  r.enter("annotations");
  // API server: when both topology annotations are set, they are the same.
  if (typeof mode === "string" && typeof hints === "string" && mode !== hints) {
    r.error(
      "INVALID_VALUE",
      TOPOLOGY_MODE_ANNOTATION,
      `${show(mode)} must match annotations[${show(TOPOLOGY_HINTS_ANNOTATION)}] (${show(hints)}) when both are set`,
    );
  }
  // API server: without the loadBalancerSourceRanges field, the annotation is read in its place:
  // only on a LoadBalancer Service, a comma-separated list of CIDRs, each trimmed of spaces
  // (IsValidCIDRForLegacyField; the whole value trimmed and empty is an empty list).
  if (typeof ranges === "string") {
    if (type !== undefined && type !== "LoadBalancer") {
      r.error(
        "INVALID_VALUE",
        SOURCE_RANGES_ANNOTATION,
        `may only be set on a LoadBalancer Service, not a ${type} Service`,
      );
    }
    const list = trimGoSpace(ranges);
    if (list !== "") {
      for (const part of list.split(",")) {
        const cidr = trimGoSpace(part);
        checkCIDR(r, SOURCE_RANGES_ANNOTATION, cidr, cidr);
      }
    }
  }
  r.leave();
  r.leave();
}

/**
 * API server: each external IP is an IP (IsValidIPForLegacyField: legacy spellings stay valid in
 * stored objects) and not a special address (ValidateNonSpecialIP, on the sloppily parsed value).
 */
function checkExternalIP(r: Report, index: number, ip: string): void {
  if (!checkIP(r, index, ip)) return;
  const special = specialIPProblem(ip);
  if (special !== undefined)
    r.error("INVALID_VALUE", index, `${show(ip)} ${special}, which is not allowed as an external IP`);
}

function checkSourceRange(r: Report, index: number, text: string): void {
  checkCIDR(r, index, text, trimGoSpace(text));
}

/**
 * API server: ValidateServiceClusterIPsRelatedFields. clusterIPs[0] equals clusterIP (the API
 * server fills clusterIPs from clusterIP, so a clusterIP alone is read as both), "None" only alone
 * and first, at most two, one per family, each an IP (IsValidIPForLegacyField: `010.0.0.1` and
 * `::ffff:10.0.0.1` stay valid in stored objects; the family is the sloppy parser's, so an
 * IPv4-mapped address is IPv4, as kube-proxy's GetClusterIPByFamily reads it).
 */
function validateClusterIPs(r: Report, spec: JsonObject, type: ServiceType | undefined): string[] {
  const single = asString(r, "clusterIP", spec.clusterIP);
  const list = asArray(r, "clusterIPs", spec.clusterIPs);
  const fromList = list !== undefined && list.length > 0;
  if (type === "ExternalName") {
    if ((single !== undefined && single !== "") || fromList) {
      r.error(
        "INVALID_VALUE",
        fromList ? "clusterIPs" : "clusterIP",
        "an ExternalName Service has no cluster IP",
      );
    }
    if (asArray(r, "ipFamilies", spec.ipFamilies)?.length)
      r.error("INVALID_VALUE", "ipFamilies", "an ExternalName Service has no IP families");
    if (asString(r, "ipFamilyPolicy", spec.ipFamilyPolicy) !== undefined) {
      r.error("INVALID_VALUE", "ipFamilyPolicy", "an ExternalName Service has no IP family policy");
    }
    return [];
  }
  // Sized once (see validatePorts): nearly always one entry each.
  const count = fromList ? list.length : single !== undefined && single !== "" ? 1 : 0;
  const ips = new Array<string>(count).fill("");
  const families = new Array<IPFamily | undefined>(count).fill(undefined);
  if (fromList) {
    r.enter("clusterIPs");
    for (let i = 0; i < list.length; i++) {
      const ip = stringAt(r, list, i);
      ips[i] = ip ?? "";
      families[i] = ip === undefined ? undefined : checkClusterIP(r, i, ip, i === 0);
      if (i === 0 && ip === "None" && list.length > 1) {
        r.error("INVALID_VALUE", i, `"None" (headless) must be the only cluster IP`);
      }
    }
    if (list.length > 2)
      r.error(
        "INVALID_VALUE",
        undefined,
        `has ${list.length} entries; a Service has at most one cluster IP per family`,
      );
    const a = families[0];
    if (a !== undefined && a === families[1])
      r.error(
        "INVALID_VALUE",
        1,
        `${show(ips[1])} is ${a} like clusterIPs[0]; a dual-stack Service has one cluster IP per family`,
      );
    r.leave();
    if (single === undefined || single === "") {
      // The API server refuses this; kube-proxy would read the Service as headless.
      r.error("INVALID_VALUE", "clusterIPs", "must be empty when clusterIP is not set");
    } else if (single !== list[0]) {
      r.error(
        "INVALID_VALUE",
        "clusterIP",
        `${show(single)} is not the same as clusterIPs[0] ${show(list[0])}`,
      );
    }
  } else if (single !== undefined && single !== "") {
    ips[0] = single;
    families[0] = checkClusterIP(r, "clusterIP", single, true);
  }
  validateFamilies(r, spec, ips, families, fromList);
  return ips;
}

function checkClusterIP(
  r: Report,
  key: string | number,
  ip: string,
  noneAllowed: boolean,
): IPFamily | undefined {
  if (ip === "None" && noneAllowed) return undefined;
  // One scan for a valid address; checkIP (a second one) only to report a bad one.
  const family = ipFamilyOf(ip);
  if (family === undefined) checkIP(r, key, ip);
  return family;
}

/**
 * API server: ipFamilies are IPv4 or IPv6, without duplicates, each matching its cluster IP's
 * family (IsIPv6String, sloppy); ipFamilyPolicy one of the three. SingleStack with two families
 * is refused by the registry when the Service is written (alloc.go), so no stored Service has it.
 */
function validateFamilies(
  r: Report,
  spec: JsonObject,
  ips: readonly string[],
  families: readonly (IPFamily | undefined)[],
  fromList: boolean,
): void {
  const declared = asArray(r, "ipFamilies", spec.ipFamilies);
  let count = families.length;
  if (declared !== undefined) {
    count = Math.max(count, declared.length);
    r.enter("ipFamilies");
    for (let i = 0; i < declared.length; i++) {
      const f = stringAt(r, declared, i);
      if (f === undefined || !checkEnum(r, i, f, FAMILIES, "an IP family")) continue;
      if (i === 1 && declared[0] === f) r.error("DUPLICATE", i, `${show(f)} is listed twice`);
      const actual = families[i];
      if (actual !== undefined && actual !== f) {
        r.error(
          "INVALID_VALUE",
          i,
          `${show(f)} does not match the cluster IP ${show(ips[i])}, which is ${actual}`,
        );
      }
    }
    if (declared.length > 2)
      r.error("INVALID_VALUE", undefined, `has ${declared.length} entries; there are only two IP families`);
    r.leave();
  }
  const policy = asString(r, "ipFamilyPolicy", spec.ipFamilyPolicy);
  if (
    policy !== undefined &&
    checkEnum(r, "ipFamilyPolicy", policy, FAMILY_POLICIES, "an IP family policy")
  ) {
    if (policy === "SingleStack" && count > 1) {
      r.error(
        "INVALID_VALUE",
        "ipFamilyPolicy",
        `"SingleStack" allows one IP family, but the Service has ${fromList ? "two cluster IPs" : "two IP families"}`,
      );
    }
  }
}

/**
 * Validates `spec.ports` (API server: validateServicePort, and ValidateService's duplicate
 * checks); returns their names and protocols. Duplicates are found by scanning earlier ports:
 * Services have few.
 */
function validatePorts(
  r: Report,
  spec: JsonObject,
  type: ServiceType | undefined,
  headless: boolean,
): PortFacts {
  const ports = asArray(r, "ports", spec.ports);
  if (ports === undefined || ports.length === 0) {
    if (
      (ports !== undefined || isAbsent(spec.ports)) &&
      !headless &&
      type !== "ExternalName" &&
      type !== undefined
    ) {
      r.error(
        "REQUIRED",
        "ports",
        "a Service needs at least one port (unless it is headless or ExternalName)",
      );
    }
    return NO_PORTS;
  }
  const several = ports.length > 1;
  // Sized once rather than grown by `push` from empty: four growing arrays per Service were
  // most of the garbage validation made, and garbage brings the next collection closer.
  const names = new Array<string>(ports.length).fill("");
  const protocols = new Array<string>(ports.length).fill("");
  const numbers = new Array<number>(ports.length).fill(0);
  const nodePorts = new Array<number>(ports.length).fill(0);
  r.enter("ports");
  for (let i = 0; i < ports.length; i++) {
    const port = objectAt(r, ports, i);
    if (port === undefined) continue;
    r.enter(i);
    const name = asString(r, "name", port.name) ?? "";
    // API server: a name is required when there are several ports, and is a DNS-1123 label
    // (ValidateDNS1123Label, not IANA_SVC_NAME: "80", "80-8080" and 63 characters are valid).
    if (name === "") {
      if (several) r.error("REQUIRED", "name", "is required when a Service has several ports");
    } else if (checkName(r, "name", name, dns1123Label, "port name")) {
      const first = names.indexOf(name);
      if (first >= 0 && first < i)
        r.error("DUPLICATE", "name", `${show(name)} is already the name of ports[${first}]`);
      else names[i] = name;
    }
    // API server: supportedPortProtocols (SetDefaults_Service makes an absent or empty one TCP, as
    // the model does); the port a valid number, unique with its protocol.
    const protocolText = asString(r, "protocol", port.protocol) || "TCP";
    const protocol = checkEnum(r, "protocol", protocolText, PROTOCOLS, "a protocol") ? protocolText : "";
    protocols[i] = protocol;
    const number = asRequired(r, "port", port.port, asNumber, "is required");
    if (number !== undefined && checkPort(r, "port", number) && protocol !== "") {
      const first = findPair(numbers, protocols, number, protocol, i);
      if (first >= 0)
        r.error("DUPLICATE", undefined, `${number}/${protocol} is already used by ports[${first}]`);
      else numbers[i] = number;
    }
    validateTargetPort(r, port);
    // API server: no node port on a ClusterIP Service (other types are not checked here);
    // node ports unique with their protocol.
    const nodePort = asNumber(r, "nodePort", port.nodePort);
    if (nodePort !== undefined && nodePort !== 0 && checkPort(r, "nodePort", nodePort)) {
      if (type === "ClusterIP") {
        r.error("INVALID_VALUE", "nodePort", `${nodePort} is set, but a ClusterIP Service has no node ports`);
      } else if (protocol !== "") {
        const first = findPair(nodePorts, protocols, nodePort, protocol, i);
        if (first >= 0)
          r.error(
            "DUPLICATE",
            "nodePort",
            `${nodePort}/${protocol} is already the node port of ports[${first}]`,
          );
        else nodePorts[i] = nodePort;
      }
    }
    // API server: appProtocol is a qualified name (ValidateQualifiedName).
    const appProtocol = asString(r, "appProtocol", port.appProtocol);
    if (appProtocol !== undefined) checkName(r, "appProtocol", appProtocol, labelKey, "application protocol");
    r.leave();
  }
  r.leave();
  return { names, protocols };
}

/** The first index before `end` holding `number` with `protocol`, or -1. */
function findPair(
  numbers: readonly number[],
  protocols: readonly string[],
  number: number,
  protocol: string,
  end: number,
): number {
  for (let j = 0; j < end; j++) {
    if (numbers[j] === number && protocols[j] === protocol) return j;
  }
  return -1;
}

/**
 * API server: ValidatePortNumOrName. A number is a port number, a name is an IANA_SVC_NAME
 * (IsValidPortName). 0 and "" are what the API server defaults to the port itself.
 */
function validateTargetPort(r: Report, port: JsonObject): void {
  const target = port.targetPort;
  if (isAbsent(target) || target === 0 || target === "") return;
  if (typeof target === "number") checkPort(r, "targetPort", target);
  else if (typeof target === "string") checkName(r, "targetPort", target, portName, "port name");
  else typeError(r, "targetPort", "a port number or name", target);
}

/**
 * API server: supportedSessionAffinityType; with ClientIP the timeout is 1-86400 seconds
 * (validateClientIPAffinityConfig, defaulted to 10800). SetDefaults_Service makes an absent or
 * empty affinity None and drops a None Service's config before validation (which then finds
 * none), so that config is only decoded: its timeout must fit an int32. The model reads the
 * config only with ClientIP.
 */
function validateAffinity(r: Report, spec: JsonObject): void {
  const written = asString(r, "sessionAffinity", spec.sessionAffinity);
  const affinity = written === undefined || written === "" ? "None" : written;
  const known = checkEnum(r, "sessionAffinity", affinity, AFFINITIES, "a session affinity");
  const config = asObject(r, "sessionAffinityConfig", spec.sessionAffinityConfig);
  if (config === undefined || !known) return;
  r.enter("sessionAffinityConfig");
  const clientIP = asObject(r, "clientIP", config.clientIP);
  if (clientIP !== undefined) {
    r.enter("clientIP");
    const timeout = asNumber(r, "timeoutSeconds", clientIP.timeoutSeconds);
    if (timeout === undefined) {
      // absent: defaulted (ClientIP) or dropped (None)
    } else if (affinity === "ClientIP") {
      checkInteger(r, "timeoutSeconds", timeout, 1, 86400, "a timeout in seconds");
    } else if (!Number.isInteger(timeout) || timeout < INT32_MIN || timeout > INT32_MAX) {
      r.error("INVALID_VALUE", "timeoutSeconds", `${show(timeout)} is not a 32-bit integer`);
    }
    r.leave();
  }
  r.leave();
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * API server: ValidateLoadBalancerStatus. Ingress only on a LoadBalancer Service (unless the
 * AllowServiceLBStatusOnNonLB gate is on).
 */
function validateStatus(r: Report, svc: JsonObject, type: ServiceType | undefined): void {
  const status = asObject(r, "status", svc.status);
  if (status === undefined) return;
  r.enter("status");
  const lb = asObject(r, "loadBalancer", status.loadBalancer);
  if (lb !== undefined) {
    r.enter("loadBalancer");
    const ingress = asArray(r, "ingress", lb.ingress);
    if (ingress !== undefined) {
      if (ingress.length > 0 && type !== "LoadBalancer" && type !== undefined) {
        r.error(
          "INVALID_VALUE",
          "ingress",
          `only a LoadBalancer Service has load-balancer ingress, not a ${type} Service`,
        );
      }
      r.enter("ingress");
      for (let i = 0; i < ingress.length; i++) validateIngress(r, ingress, i);
      r.leave();
    }
    r.leave();
  }
  r.leave();
}

function validateIngress(r: Report, ingress: readonly unknown[], index: number): void {
  const entry = objectAt(r, ingress, index);
  if (entry === undefined) return;
  r.enter(index);
  // API server: the IP is an IP (IsValidIPForLegacyField, legacy spellings valid; kube-proxy
  // parses it sloppily); the hostname a DNS-1123 subdomain that is not an IP (net.ParseIP, which
  // is strict: `010.1.2.3` is a valid hostname); an ipMode only with an IP.
  const ip = asString(r, "ip", entry.ip) ?? "";
  if (ip !== "") checkIP(r, "ip", ip);
  const hostname = asString(r, "hostname", entry.hostname) ?? "";
  if (hostname !== "") {
    if (isStrictIP(hostname))
      r.error("INVALID_VALUE", "hostname", `${show(hostname)} is an IP address, not a DNS name`);
    else checkUniqueName(r, "hostname", hostname, dns1123Subdomain, "DNS name");
  }
  const mode = asString(r, "ipMode", entry.ipMode);
  if (mode !== undefined && checkEnum(r, "ipMode", mode, IP_MODES, "an IP mode")) {
    if (ip === "") r.error("INVALID_VALUE", "ipMode", `${show(mode)} may only be set together with ip`);
    // kube-proxy: IsVIPMode; an ingress IP in Proxy mode gets no rules (1.29+).
    else if (mode === "Proxy" && r.traits.ipModeField)
      r.warn("SKIPPED", "ipMode", `"Proxy": kube-proxy makes no rules for this ingress IP`);
  }
  // kube-proxy: an ingress without an IP gets no rules.
  if (ip === "") {
    const what =
      hostname === "" ? "ingress without ip or hostname" : `hostname-only ingress ${show(hostname)}`;
    r.warn("SKIPPED", undefined, `${what}: kube-proxy makes no rules for it`);
  }
  r.leave();
}

/** Scratch space for {@link isStrictIP}. */
const strictGroups = new Uint16Array(8);

/** Whether Go's `net.ParseIP` (strict: no leading zeros, no zone) reads the text as an address. */
function isStrictIP(text: string): boolean {
  return scanIPv4(text, 0, text.length) >= 0 || scanIPv6(text, strictGroups);
}

/**
 * The `spec.trafficDistribution` values some release's API server takes: `PreferClose` (1.30 on),
 * `PreferSameZone` and `PreferSameNode` (PreferSameTrafficDistribution: alpha 1.33, on from 1.34).
 * Every one is taken under every profile: the API server may be up to three minor releases newer
 * than kube-proxy, and kube-proxy never reads the field (only the hints the EndpointSlice
 * controller derives from it), so a value newer than the profile's release changes nothing.
 */
const TRAFFIC_DISTRIBUTIONS: readonly string[] = ["PreferClose", "PreferSameZone", "PreferSameNode"];

/** The API server's check of `spec.trafficDistribution` (validateServiceTrafficDistribution). */
function checkDistribution(r: Report, distribution: string): void {
  if (TRAFFIC_DISTRIBUTIONS.includes(distribution)) return;
  r.error(
    "INVALID_VALUE",
    "trafficDistribution",
    `${show(distribution)} is not a traffic distribution (${choices(TRAFFIC_DISTRIBUTIONS)})`,
  );
}
