/**
 * Validation of one discovery.k8s.io/v1 EndpointSlice with the API server's rules
 * (`pkg/apis/discovery/validation`: `ValidateEndpointSlice`, `validateEndpoints`,
 * `validatePorts`), plus warnings for what kube-proxy skips and text-safety checks. As in
 * `validate-service.ts`, each check says whose rule it is: "API server", "kube-proxy" (what it
 * skips) or "Output" (refused only because it cannot be written into the rules).
 *
 * @module
 */

import { type Problem, warning } from "../errors.js";
import { isCanonicalIPv6 } from "../model/ip.js";
import { scanIPv4 } from "../model/ip-scan.js";
import { scanValidIPv6, specialIPProblem, specialIPv4Problem, specialIPv6Problem } from "./addresses.js";
import {
  asArray,
  asBoolean,
  asNumber,
  asObject,
  asRequired,
  asString,
  checkEnum,
  checkIP,
  checkName,
  checkPort,
  checkUniqueName,
  isAbsent,
  objectAt,
  readArray,
  stringAt,
} from "./validate-fields.js";
import { validateMetadata } from "./validate-metadata.js";
import {
  dns1123Label,
  dns1123Subdomain,
  fullyQualifiedDomainName,
  labelKey,
  labelValue,
} from "./validate-names.js";
import { isObject, type JsonObject, type NamespacedIndex, type Report, show } from "./validate-report.js";
import { hasPort, type ServiceInfo } from "./validate-service.js";

const ADDRESS_TYPES = ["IPv4", "IPv6", "FQDN"] as const;
const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_HINTS = 8;

type AddressType = (typeof ADDRESS_TYPES)[number];

/** A slice naming a Service the input does not hold: its warning, and the Service (`ns/name`). */
export interface Orphan {
  /** The warning the slice would get on its own. */
  readonly warning: Problem;
  /** The Service its label names. */
  readonly service: string;
  /** Where among the report's problems the warning belongs. */
  readonly at: number;
}

/**
 * Validates `endpointSlices[index]`; the report's current path is `endpointSlices`.
 *
 * @param services - the Services with a valid namespace and name, to check port names against
 * @param seen - the slices so far by namespace and name (index into `slices`), for duplicates
 * @param leftOut - where the Services left out as invalid are, by the names they are written with
 * @param orphans - given when the input holds no Service: the "no Service" warning goes there,
 *   for the caller to sum up
 * @returns the Service the slice's namespace and Service name label name, when kube-proxy reads
 *   the slice for one of the Services with a valid namespace and name
 */
export function validateEndpointSlice(
  r: Report,
  slices: readonly unknown[],
  index: number,
  services: NamespacedIndex<ServiceInfo>,
  seen: NamespacedIndex<number>,
  leftOut: NamespacedIndex<number>,
  orphans?: Orphan[],
): ServiceInfo | undefined {
  const slice = objectAt(r, slices, index);
  if (slice === undefined) return undefined;
  r.enter(index);
  const meta = validateMetadata(r, slice, dns1123Subdomain, "EndpointSlice name");
  // kube-proxy: a slice is read only with a kubernetes.io/service-name label (the API server does
  // not require one).
  const label = meta.labels?.[SERVICE_NAME_LABEL];
  // An invalid label value is an error of its own (checkLabels); it names no Service, and must
  // not be echoed raw into the "no Service" warning below (it may hold control characters).
  const serviceName =
    typeof label === "string" && label !== "" && labelValue(label) === undefined ? label : undefined;
  if (
    serviceName === undefined &&
    (label === undefined || label === "") &&
    !meta.unwatched &&
    isObject(slice.metadata)
  ) {
    r.enter("metadata");
    r.warn("SKIPPED", "labels", `no ${SERVICE_NAME_LABEL} label: kube-proxy ignores the slice`);
    r.leave();
  }

  // API server: validateAddressType (required, one of three); kube-proxy ignores FQDN slices.
  const typeText = asRequired(
    r,
    "addressType",
    slice.addressType,
    asString,
    "is required (IPv4, IPv6 or FQDN)",
  );
  let addressType: AddressType | undefined;
  if (typeText !== undefined && checkEnum(r, "addressType", typeText, ADDRESS_TYPES, "an address type")) {
    addressType = typeText;
    if (addressType === "FQDN") r.warn("SKIPPED", "addressType", `"FQDN": kube-proxy ignores FQDN slices`);
  }

  validateEndpoints(r, slice, addressType);
  let service: ServiceInfo | undefined;
  if (
    serviceName !== undefined &&
    meta.namespace !== undefined &&
    !meta.unwatched &&
    addressType !== "FQDN"
  ) {
    service = services.get(meta.namespace, serviceName);
    if (service === undefined) {
      const at = leftOut.get(meta.namespace, serviceName);
      const message =
        at === undefined
          ? `no Service ${meta.namespace}/${serviceName} in the input: its endpoints make no rules`
          : `its Service ${meta.namespace}/${serviceName} (services[${at}]) is invalid: its endpoints make no rules`;
      if (orphans === undefined) r.warn("SKIPPED", undefined, message);
      else
        orphans.push({
          warning: warning("SKIPPED", r.path(), message),
          service: `${meta.namespace}/${serviceName}`,
          at: r.problems.length,
        });
    }
  }
  validatePorts(r, slice, service);
  if (meta.name !== undefined && meta.namespace !== undefined) {
    // API server: one object per namespace and name.
    const first = seen.add(meta.namespace, meta.name, index);
    if (first !== undefined) {
      r.error(
        "DUPLICATE",
        undefined,
        `EndpointSlice ${meta.namespace}/${meta.name} is already endpointSlices[${first}]`,
      );
    }
  }
  r.leave();
  return service;
}

function validateEndpoints(r: Report, slice: JsonObject, addressType: AddressType | undefined): void {
  // API server: at most 1000 endpoints.
  const endpoints = asArray(r, "endpoints", slice.endpoints);
  if (endpoints === undefined) return;
  r.enter("endpoints");
  if (endpoints.length > MAX_ENDPOINTS) {
    r.error(
      "INVALID_VALUE",
      undefined,
      `has ${endpoints.length} endpoints; an EndpointSlice holds at most ${MAX_ENDPOINTS}`,
    );
  }
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = objectAt(r, endpoints, i);
    if (endpoint === undefined) continue;
    r.enter(i);
    validateEndpoint(r, endpoint, addressType);
    r.leave();
  }
  r.leave();
}

function validateEndpoint(r: Report, endpoint: JsonObject, addressType: AddressType | undefined): void {
  // API server: validateEndpoints, 1 to 100 addresses.
  const addresses = asArray(r, "addresses", endpoint.addresses);
  if (addresses === undefined || addresses.length === 0) {
    if (addresses !== undefined || isAbsent(endpoint.addresses))
      r.error("REQUIRED", "addresses", "an endpoint needs at least one address");
  } else {
    r.enter("addresses");
    if (addresses.length > MAX_ADDRESSES) {
      r.error(
        "INVALID_VALUE",
        undefined,
        `has ${addresses.length} addresses; an endpoint has at most ${MAX_ADDRESSES}`,
      );
    }
    for (let i = 0; i < addresses.length; i++) {
      const address = stringAt(r, addresses, i);
      if (address !== undefined) checkAddress(r, i, address, addressType);
    }
    r.leave();
  }
  const conditions = asObject(r, "conditions", endpoint.conditions);
  if (conditions !== undefined) {
    r.enter("conditions");
    asBoolean(r, "ready", conditions.ready);
    asBoolean(r, "serving", conditions.serving);
    asBoolean(r, "terminating", conditions.terminating);
    r.leave();
  }
  // API server: nodeName a node name (DNS-1123 subdomain), hostname a DNS-1123 label, hints at
  // most 8 zones (label values) and nodes (node names), no duplicates. validateEndpoints leaves
  // the zone unchecked, and kube-proxy reads only the hints (the model has no zone): its type is
  // all there is to check.
  const nodeName = asString(r, "nodeName", endpoint.nodeName);
  if (nodeName !== undefined) checkName(r, "nodeName", nodeName, dns1123Subdomain, "node name");
  asString(r, "zone", endpoint.zone);
  const hostname = asString(r, "hostname", endpoint.hostname);
  // Hostnames (of StatefulSet pods) are one per endpoint: not remembered.
  if (hostname !== undefined) checkUniqueName(r, "hostname", hostname, dns1123Label, "hostname");
  const hints = asObject(r, "hints", endpoint.hints);
  if (hints !== undefined) {
    r.enter("hints");
    validateHints(r, hints, "forZones", "zone");
    validateHints(r, hints, "forNodes", "node name");
    r.leave();
  }
}

/**
 * API server: an FQDN address is a fully qualified domain name (IsFullyQualifiedDomainName); an IPv4 / IPv6 address is an address of that family
 * (IsValidIPv4Address / IsValidIPv6Address, later IsValidIPForLegacyField: parsed sloppily, so
 * `010.0.0.1` and, in an IPv4 slice, `::ffff:10.0.0.1` are valid in stored objects) that is not
 * special (ValidateNonSpecialIP). kube-proxy (1.31+) writes `ParseIPSloppy(address).String()`.
 */
function checkAddress(r: Report, index: number, address: string, addressType: AddressType | undefined): void {
  if (addressType === "FQDN") {
    // kube-proxy ignores FQDN slices: the API server's rule is all there is to check.
    if (address === "") r.error("REQUIRED", index, "an FQDN address is required");
    else checkUniqueName(r, index, address, fullyQualifiedDomainName, "fully qualified domain name");
    return;
  }
  // Nearly every address is valid IPv4: one scan gives validity and the special ranges (and a
  // valid IPv4 address is its own canonical form).
  if (addressType !== "IPv6") {
    const v4 = scanIPv4(address, 0, address.length);
    if (v4 >= 0) {
      reportSpecial(r, index, address, specialIPv4Problem(v4));
      return;
    }
    // A legacy spelling (leading zeros, IPv4-mapped): valid, but not in the form kube-proxy
    // writes, so the model builder rewrites it.
    if (!checkIP(r, index, address, addressType)) return;
    r.nonCanonicalIPs++;
    reportSpecial(r, index, address, specialIPProblem(address));
    return;
  }
  // IPv6 likewise, and whether it is written canonically (else the model builder rewrites it).
  const groups = scanValidIPv6(address);
  if (groups === null) {
    if (!checkIP(r, index, address, addressType)) return;
    r.nonCanonicalIPs++;
    reportSpecial(r, index, address, specialIPProblem(address));
    return;
  }
  if (!isCanonicalIPv6(address, groups)) r.nonCanonicalIPs++;
  reportSpecial(r, index, address, specialIPv6Problem(groups));
}

function reportSpecial(r: Report, index: number, address: string, special: string | undefined): void {
  if (special !== undefined)
    r.error("INVALID_VALUE", index, `${show(address)} ${special}, which is not allowed as an endpoint`);
}

function validateHints(r: Report, hints: JsonObject, key: "forZones" | "forNodes", noun: string): void {
  const list = readArray(r, hints, key);
  if (list === undefined) return;
  r.enter(key);
  if (list.length > MAX_HINTS)
    r.error("INVALID_VALUE", undefined, `has ${list.length} entries; at most ${MAX_HINTS} are allowed`);
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const hint = objectAt(r, list, i);
    if (hint === undefined) continue;
    r.enter(i);
    // API server: validateHints. A missing name is "" (Go's zero value): a valid label value for
    // a zone, not a valid node name.
    const name =
      key === "forZones"
        ? (asString(r, "name", hint.name) ?? "")
        : asRequired(r, "name", hint.name, asString, "is required");
    if (
      name !== undefined &&
      checkName(r, "name", name, key === "forZones" ? labelValue : dns1123Subdomain, noun)
    ) {
      if (seen.has(name)) r.error("DUPLICATE", "name", `${show(name)} is listed twice`);
      seen.add(name);
    }
    r.leave();
  }
  r.leave();
}

function validatePorts(r: Report, slice: JsonObject, service: ServiceInfo | undefined): void {
  // API server: validatePorts. Names are DNS-1123 labels (ValidateDNS1123Label, as a Service's
  // port names), unique; protocols one of three; appProtocol a qualified name.
  const ports = asArray(r, "ports", slice.ports);
  if (ports === undefined) return;
  r.enter("ports");
  if (ports.length > MAX_PORTS)
    r.error("INVALID_VALUE", undefined, `has ${ports.length} ports; at most ${MAX_PORTS} are allowed`);
  // The first index of each port name, for duplicates; a slice's only port needs no map.
  const names = ports.length > 1 ? new Map<string, number>() : undefined;
  for (let i = 0; i < ports.length; i++) {
    const port = objectAt(r, ports, i);
    if (port === undefined) continue;
    r.enter(i);
    const name = asString(r, "name", port.name) ?? "";
    let nameOk = name === "" || checkName(r, "name", name, dns1123Label, "port name");
    if (nameOk) {
      const first = names?.get(name);
      if (first !== undefined) {
        r.error("DUPLICATE", "name", `${show(name)} is already the name of ports[${first}]`);
        nameOk = false;
      } else {
        names?.set(name, i);
      }
    }
    const protocolText = asString(r, "protocol", port.protocol) ?? "TCP";
    const protocolOk = checkEnum(r, "protocol", protocolText, PROTOCOLS, "a protocol");
    // kube-proxy: a port without a number, or 0, is skipped. The API server does not check the
    // number's range; Output: anything else but 1-65535 cannot be written after
    // --to-destination (iptables-restore would refuse the whole payload), so it is refused.
    const numberValue = port.port;
    const number = asNumber(r, "port", numberValue);
    const absent = number === undefined ? numberValue === null || numberValue === undefined : number === 0;
    const numberOk = absent || (number !== undefined && checkPort(r, "port", number));
    if (absent && numberOk) r.warn("SKIPPED", "port", "no port number: kube-proxy ignores this port");
    const appProtocol = asString(r, "appProtocol", port.appProtocol);
    if (appProtocol !== undefined) checkName(r, "appProtocol", appProtocol, labelKey, "application protocol");
    if (
      service !== undefined &&
      !service.skipped &&
      nameOk &&
      protocolOk &&
      number !== undefined &&
      !absent &&
      numberOk
    ) {
      if (!hasPort(service, name, protocolText)) {
        const what = name === "" ? "the unnamed port" : `port name ${show(name)}`;
        r.warn(
          "SKIPPED",
          undefined,
          `${what} (${protocolText}) matches no port of Service ${service.namespace}/${service.name}: kube-proxy ignores it`,
        );
      }
    }
    r.leave();
  }
  r.leave();
}
