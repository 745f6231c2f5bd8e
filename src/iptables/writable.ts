/**
 * The writers' guard on the model (see `format/unsafe-text.ts`): every string of a service port
 * and of the node's settings that reaches the rules text is checked once, as the port's rules
 * are built, so a cached port is not checked again and the cost follows what is rebuilt.
 *
 * @module
 */

import type { ServicePort } from "../model/types.js";
import { checkWritable, hasUnsafeCharacter } from "./unsafe-text.js";

function checkList(values: readonly string[], path: string): void {
  for (let i = 0; i < values.length; i++) checkWritable(values[i] as string, `${path}[${i}]`);
}

/** Whether any string of the port that its rules print holds `\n`, `\r` or NUL. */
function portHasUnsafeText(port: ServicePort): boolean {
  if (
    hasUnsafeCharacter(port.namespace) ||
    hasUnsafeCharacter(port.name) ||
    hasUnsafeCharacter(port.portName) ||
    hasUnsafeCharacter(port.clusterIP) ||
    listHasUnsafeText(port.externalIPs) ||
    listHasUnsafeText(port.loadBalancerVIPs) ||
    listHasUnsafeText(port.loadBalancerSourceRanges)
  )
    return true;
  const endpoints = port.endpoints;
  for (let i = 0; i < endpoints.length; i++) {
    const e = endpoints[i] as ServicePort["endpoints"][number];
    if (hasUnsafeCharacter(e.ip) || hasUnsafeCharacter(e.endpoint)) return true;
  }
  return false;
}

function listHasUnsafeText(values: readonly string[]): boolean {
  for (let i = 0; i < values.length; i++) if (hasUnsafeCharacter(values[i] as string)) return true;
  return false;
}

/**
 * Throws `UNSAFE_TEXT` when a string of `port` that its rules print holds `\n`, `\r` or NUL.
 * The path names the port by its `namespace/name:port` (JSON-quoted, so any character shows).
 * A clean port costs one scan of its strings; the paths are built only to name what is wrong.
 *
 * @example
 * checkWritablePort(port) // returns for any port a validated input made
 */
export function checkWritablePort(port: ServicePort): void {
  if (!portHasUnsafeText(port)) return;
  const at = `servicePorts[${JSON.stringify(`${port.namespace}/${port.name}:${port.portName}`)}]`;
  checkWritable(port.namespace, `${at}.namespace`);
  checkWritable(port.name, `${at}.name`);
  checkWritable(port.portName, `${at}.portName`);
  checkWritable(port.clusterIP, `${at}.clusterIP`);
  checkList(port.externalIPs, `${at}.externalIPs`);
  checkList(port.loadBalancerVIPs, `${at}.loadBalancerVIPs`);
  checkList(port.loadBalancerSourceRanges, `${at}.loadBalancerSourceRanges`);
  const endpoints = port.endpoints;
  for (let i = 0; i < endpoints.length; i++) {
    const e = endpoints[i] as ServicePort["endpoints"][number];
    checkWritable(e.ip, `${at}.endpoints[${i}].ip`);
    checkWritable(e.endpoint, `${at}.endpoints[${i}].endpoint`);
  }
}

/**
 * Throws `UNSAFE_TEXT` when an argument the node's settings put into rules (the local-traffic
 * interface or prefix, node addresses) holds `\n`, `\r` or NUL.
 *
 * @example
 * checkWritableArgs(["-i", "cbr0"], "config.detectLocal") // returns
 */
export function checkWritableArgs(args: readonly string[] | null, path: string): void {
  if (args !== null) checkList(args, path);
}
