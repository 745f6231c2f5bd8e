/**
 * Rules and checks that read the same in every profile's service-port builder.
 *
 * @module
 */
import { appendRule, type Rule } from "../ir/types.js";
import { cidrContains, parseCidr } from "../model/ip.js";

/**
 * The filter rule that opens a health-check node port (always TCP).
 *
 * @example
 * healthCheckRule("default/web:http", 32101).args.at(-1) // "ACCEPT"
 */
export function healthCheckRule(spn: string, healthCheckNodePort: number): Rule {
  return appendRule("KUBE-NODEPORTS", [
    "-m",
    "comment",
    "--comment",
    `${spn} health check node port`,
    "-m",
    "tcp",
    "-p",
    "tcp",
    "--dport",
    String(healthCheckNodePort),
    "-j",
    "ACCEPT",
  ]);
}

/**
 * Whether a source range (a canonical CIDR) contains an address.
 *
 * @example
 * rangeContains("192.168.0.0/24", "192.168.0.2") // true
 */
export function rangeContains(range: string, ip: string): boolean {
  const cidr = parseCidr(range);
  return cidr !== null && cidrContains(cidr, ip);
}
