/**
 * Rules and checks that read the same in every profile's service-port builder.
 *
 * @module
 */
import { appendRule, type Rule } from "../../ir/types.js";
import { cidrContains, parseCidr } from "../../model/ip.js";

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
 * The filter rule that refuses a node port (`REJECT` with no endpoints, `DROP` with no local
 * ones): `-m addrtype --dst-type LOCAL` plus the protocol and the node port.
 *
 * @example
 * nodePortRefusal("default/web:http has no endpoints", "tcp", 30080, "REJECT").chain // "KUBE-EXTERNAL-SERVICES"
 */
export function nodePortRefusal(comment: string, proto: string, nodePort: number, target: string): Rule {
  return appendRule("KUBE-EXTERNAL-SERVICES", [
    "-m",
    "comment",
    "--comment",
    comment,
    "-m",
    "addrtype",
    "--dst-type",
    "LOCAL",
    "-m",
    proto,
    "-p",
    proto,
    "--dport",
    String(nodePort),
    "-j",
    target,
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
