/**
 * Every kind of rule kube-proxy's iptables mode writes for a service port, each described once,
 * in kube-proxy's argument order (spec §5–§9 for the current layout, the v1.22 vectors' README
 * for the `xlb` layout). Writers fill them with values; the printers of `shape/` turn one
 * description and one list of values into the restore line, the save line and the rule object.
 *
 * Conventions: slot 0 is the comment where a shape has one; `REJECT` is always literal (its save
 * form adds `--reject-with`), while a `chain` slot takes any target printed as `-j NAME` alone
 * (a user chain, `KUBE-MARK-MASQ`, `DROP`, `ACCEPT`).
 *
 * @module
 */
import { dropComment, ruleShape, slot } from "./shape/define.js";
import type { RuleShape } from "./shape/types.js";

const COMMENT = ["-m", "comment", "--comment", slot(0, "comment")] as const;
const PROTOCOL = ["-m", slot(1, "protocol"), "-p", slot(1, "protocol")] as const;

/**
 * Traffic to one address and port of the service port, sent to a chain: the cluster-IP,
 * external-IP and load-balancer-IP jumps, the masquerade-all rule, the firewall's DROP.
 * Values: comment, protocol, address, port, target.
 *
 * @example
 * restoreLine(TO_DESTINATION, "KUBE-SERVICES", ["ns/web:http cluster IP", "tcp", "10.96.0.10", "80", "KUBE-SVC-X"])
 */
export const TO_DESTINATION: RuleShape = ruleShape("to destination", [
  ...COMMENT,
  ...PROTOCOL,
  "-d",
  slot(2, "address"),
  "--dport",
  slot(3, "port"),
  "-j",
  slot(4, "chain"),
]);

/**
 * Traffic to one address and port, rejected (no endpoints). Values: comment, protocol, address, port.
 *
 * @example
 * restoreLine(REJECT_DESTINATION, "KUBE-SERVICES", ["ns/web:http has no endpoints", "tcp", "10.96.0.10", "80"])
 */
export const REJECT_DESTINATION: RuleShape = ruleShape("reject destination", [
  ...COMMENT,
  ...PROTOCOL,
  "-d",
  slot(2, "address"),
  "--dport",
  slot(3, "port"),
  "-j",
  "REJECT",
]);

/**
 * Cluster-IP traffic not from a pod (source outside the pod CIDR) is marked for masquerade.
 * Values: comment, protocol, address, port, pod CIDR.
 *
 * @example
 * restoreLine(MASQUERADE_NOT_FROM_CIDR, "KUBE-SVC-X", ["ns/web:http cluster IP", "tcp", "10.96.0.10", "80", "10.244.0.0/16"])
 */
export const MASQUERADE_NOT_FROM_CIDR: RuleShape = ruleShape("masquerade not from CIDR", [
  ...COMMENT,
  ...PROTOCOL,
  "-d",
  slot(2, "address"),
  "--dport",
  slot(3, "port"),
  "!",
  "-s",
  slot(4, "cidr"),
  "-j",
  "KUBE-MARK-MASQ",
]);

/**
 * Cluster-IP traffic not entering through the pod interface (or prefix, `veth+`) is marked for
 * masquerade. Values: comment, protocol, address, port, interface.
 *
 * @example
 * restoreLine(MASQUERADE_NOT_FROM_INTERFACE, "KUBE-SVC-X", ["ns/web:http cluster IP", "tcp", "10.96.0.10", "80", "cbr0"])
 */
export const MASQUERADE_NOT_FROM_INTERFACE: RuleShape = ruleShape("masquerade not from interface", [
  ...COMMENT,
  ...PROTOCOL,
  "-d",
  slot(2, "address"),
  "--dport",
  slot(3, "port"),
  "!",
  "-i",
  slot(4, "interface"),
  "-j",
  "KUBE-MARK-MASQ",
]);

/**
 * Node-port traffic (any local address) sent to a chain. Values: comment, protocol, node port, target.
 *
 * @example
 * restoreLine(NODE_PORT, "KUBE-NODEPORTS", ["ns/web:http", "tcp", "30080", "KUBE-EXT-X"])
 */
export const NODE_PORT: RuleShape = ruleShape("node port", [
  ...COMMENT,
  ...PROTOCOL,
  "--dport",
  slot(2, "port"),
  "-j",
  slot(3, "chain"),
]);

/**
 * Node-port traffic from loopback sources (v1.22, eTP=Local) marked for masquerade.
 * Values: comment, protocol, node port, loopback CIDR, target.
 *
 * @example
 * restoreLine(NODE_PORT_FROM, "KUBE-NODEPORTS", ["ns/web:http", "tcp", "30080", "127.0.0.0/8", "KUBE-MARK-MASQ"])
 */
export const NODE_PORT_FROM: RuleShape = ruleShape("node port from", [
  ...COMMENT,
  ...PROTOCOL,
  "--dport",
  slot(2, "port"),
  "-s",
  slot(3, "cidr"),
  "-j",
  slot(4, "chain"),
]);

/**
 * Node-port traffic to 127.0.0.0/8, counted by nfacct (1.31+, kubernetes#125015: with localhost node
 * ports and the nfacct counter present).
 * Values: comment, protocol, node port, target.
 *
 * @example
 * restoreLine(LOCALHOST_NODE_PORT, "KUBE-NODEPORTS", ["ns/web:http", "tcp", "30080", "KUBE-EXT-X"])
 */
export const LOCALHOST_NODE_PORT: RuleShape = ruleShape("localhost node port", [
  ...COMMENT,
  ...PROTOCOL,
  "-d",
  "127.0.0.0/8",
  "--dport",
  slot(2, "port"),
  "-m",
  "nfacct",
  "--nfacct-name",
  "localhost_nps_accepted_pkts",
  "-j",
  slot(3, "chain"),
]);

/**
 * A node port refused on local addresses, dropped. Values: comment, protocol, node port, target (`DROP`).
 *
 * @example
 * restoreLine(NODE_PORT_REFUSED, "KUBE-EXTERNAL-SERVICES", ["ns/web:http has no local endpoints", "tcp", "30080", "DROP"])
 */
export const NODE_PORT_REFUSED: RuleShape = ruleShape("node port refused", [
  ...COMMENT,
  "-m",
  "addrtype",
  "--dst-type",
  "LOCAL",
  ...PROTOCOL,
  "--dport",
  slot(2, "port"),
  "-j",
  slot(3, "chain"),
]);

/**
 * A node port rejected on local addresses (no endpoints). Values: comment, protocol, node port.
 *
 * @example
 * restoreLine(NODE_PORT_REJECTED, "KUBE-EXTERNAL-SERVICES", ["ns/web:http has no endpoints", "tcp", "30080"])
 */
export const NODE_PORT_REJECTED: RuleShape = ruleShape("node port rejected", [
  ...COMMENT,
  "-m",
  "addrtype",
  "--dst-type",
  "LOCAL",
  ...PROTOCOL,
  "--dport",
  slot(2, "port"),
  "-j",
  "REJECT",
]);

/**
 * The health-check node port opened in filter (always TCP). Values: comment, port.
 *
 * @example
 * restoreLine(HEALTH_CHECK, "KUBE-NODEPORTS", ["ns/web:http health check node port", "32101"])
 */
export const HEALTH_CHECK: RuleShape = ruleShape("health check", [
  ...COMMENT,
  "-m",
  "tcp",
  "-p",
  "tcp",
  "--dport",
  slot(1, "port"),
  "-j",
  "ACCEPT",
]);

/**
 * A commented jump with no condition. Values: comment, target.
 *
 * @example
 * restoreLine(COMMENTED_JUMP, "KUBE-EXT-X", ["masquerade traffic for ns/web:http external destinations", "KUBE-MARK-MASQ"])
 */
export const COMMENTED_JUMP: RuleShape = ruleShape("commented jump", [...COMMENT, "-j", slot(1, "chain")]);

/**
 * A jump with no condition and no comment. Values: target.
 *
 * @example
 * restoreLine(JUMP, "KUBE-EXT-X", ["KUBE-SVC-X"]) // "-A KUBE-EXT-X -j KUBE-SVC-X"
 */
export const JUMP: RuleShape = ruleShape("jump", ["-j", slot(0, "chain")]);

/**
 * A comment and nothing else (the FW chain's last rule: traffic falls through to the firewall).
 * Values: comment.
 *
 * @example
 * restoreLine(COMMENT_ONLY, "KUBE-FW-X", ["other traffic to ns/web:http will be dropped by KUBE-PROXY-FIREWALL"])
 */
export const COMMENT_ONLY: RuleShape = ruleShape("comment only", [...COMMENT]);

/**
 * A commented jump for traffic from a source CIDR (or host): load-balancer source ranges, pod
 * traffic by CIDR. Values: comment, source, target.
 *
 * @example
 * restoreLine(FROM_SOURCE, "KUBE-FW-X", ["ns/web:http loadbalancer IP", "203.0.113.0/24", "KUBE-EXT-X"])
 */
export const FROM_SOURCE: RuleShape = ruleShape("from source", [
  ...COMMENT,
  "-s",
  slot(1, "cidr"),
  "-j",
  slot(2, "chain"),
]);

/**
 * A commented jump for traffic entering through an interface (or `prefix+`). Values: comment,
 * interface, target.
 *
 * @example
 * restoreLine(FROM_INTERFACE, "KUBE-EXT-X", ["pod traffic for ns/web:http external destinations", "cbr0", "KUBE-SVC-X"])
 */
export const FROM_INTERFACE: RuleShape = ruleShape("from interface", [
  ...COMMENT,
  "-i",
  slot(1, "interface"),
  "-j",
  slot(2, "chain"),
]);

/**
 * A commented jump for traffic from a local address of the node. Values: comment, target.
 *
 * @example
 * restoreLine(FROM_LOCAL, "KUBE-EXT-X", ["route LOCAL traffic for ns/web:http external destinations", "KUBE-SVC-X"])
 */
export const FROM_LOCAL: RuleShape = ruleShape("from local", [
  ...COMMENT,
  "-m",
  "addrtype",
  "--src-type",
  "LOCAL",
  "-j",
  slot(1, "chain"),
]);

/**
 * Session affinity: a client seen within the timeout goes back to its endpoint chain.
 * Values: comment, endpoint chain, seconds.
 *
 * @example
 * restoreLine(AFFINITY_CHECK, "KUBE-SVC-X", ["ns/web:http -> 10.0.0.1:80", "KUBE-SEP-A", "10800"])
 */
export const AFFINITY_CHECK: RuleShape = ruleShape("affinity check", [
  ...COMMENT,
  "-m",
  "recent",
  "--name",
  slot(1, "chain"),
  "--rcheck",
  "--seconds",
  slot(2, "seconds"),
  "--reap",
  "-j",
  slot(1, "chain"),
]);

/**
 * One step of load balancing: jump to an endpoint chain with probability 1/n.
 * Values: comment, probability, endpoint chain.
 *
 * @example
 * restoreLine(BALANCE, "KUBE-SVC-X", ["ns/web:http -> 10.0.0.1:80", "0.5000000000", "KUBE-SEP-A"])
 */
export const BALANCE: RuleShape = ruleShape("balance", [
  ...COMMENT,
  "-m",
  "statistic",
  "--mode",
  "random",
  "--probability",
  slot(1, "probability"),
  "-j",
  slot(2, "chain"),
]);

/**
 * The endpoint chain's masquerade of hairpin traffic (the endpoint talking to itself).
 * Values: comment, endpoint address.
 *
 * @example
 * restoreLine(ENDPOINT_HAIRPIN, "KUBE-SEP-A", ["ns/web:http", "10.0.0.1"])
 */
export const ENDPOINT_HAIRPIN: RuleShape = ruleShape("endpoint hairpin", [
  ...COMMENT,
  "-s",
  slot(1, "address"),
  "-j",
  "KUBE-MARK-MASQ",
]);

/**
 * The endpoint chain's DNAT. Values: comment, protocol, destination (`ip:port`).
 *
 * @example
 * restoreLine(ENDPOINT_DNAT, "KUBE-SEP-A", ["ns/web:http", "tcp", "10.0.0.1:80"])
 */
export const ENDPOINT_DNAT: RuleShape = ruleShape("endpoint DNAT", [
  ...COMMENT,
  ...PROTOCOL,
  "-j",
  "DNAT",
  "--to-destination",
  slot(2, "destination"),
]);

/**
 * The endpoint chain's DNAT with session affinity (records the client). Values: comment,
 * protocol, destination, endpoint chain.
 *
 * @example
 * restoreLine(ENDPOINT_DNAT_AFFINITY, "KUBE-SEP-A", ["ns/web:http", "tcp", "10.0.0.1:80", "KUBE-SEP-A"])
 */
export const ENDPOINT_DNAT_AFFINITY: RuleShape = ruleShape("endpoint DNAT with affinity", [
  ...COMMENT,
  "-m",
  "recent",
  "--name",
  slot(3, "chain"),
  "--set",
  ...PROTOCOL,
  "-j",
  "DNAT",
  "--to-destination",
  slot(2, "destination"),
]);

/**
 * The large-cluster forms of the endpoint rules (no comment; kube-proxy drops them past 1,000
 * endpoints). Same values as their commented shapes.
 *
 * @example
 * restoreLine(UNCOMMENTED.BALANCE, "KUBE-SVC-X", ["", "0.5000000000", "KUBE-SEP-A"])
 * // "-A KUBE-SVC-X -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-A"
 */
export const UNCOMMENTED: {
  readonly AFFINITY_CHECK: RuleShape;
  readonly BALANCE: RuleShape;
  readonly ENDPOINT_HAIRPIN: RuleShape;
  readonly ENDPOINT_DNAT: RuleShape;
  readonly ENDPOINT_DNAT_AFFINITY: RuleShape;
} = {
  AFFINITY_CHECK: dropComment(AFFINITY_CHECK),
  BALANCE: dropComment(BALANCE),
  ENDPOINT_HAIRPIN: dropComment(ENDPOINT_HAIRPIN),
  ENDPOINT_DNAT: dropComment(ENDPOINT_DNAT),
  ENDPOINT_DNAT_AFFINITY: dropComment(ENDPOINT_DNAT_AFFINITY),
};

/**
 * The v1.22 (`xlb`) layout writes host addresses with their prefix (`10.96.0.10/32`) and masks
 * external-IP masquerading only when local detection is on; its shapes are the ones above, with
 * `cidr` slots where it writes a prefix.
 *
 * @example
 * restoreLine(LEGACY.TO_DESTINATION, "KUBE-SERVICES", ["ns/web:http cluster IP", "tcp", "10.96.0.10/32", "80", "KUBE-SVC-X"])
 */
export const LEGACY: {
  readonly TO_DESTINATION: RuleShape;
  readonly REJECT_DESTINATION: RuleShape;
  readonly MASQUERADE_NOT_FROM_CIDR: RuleShape;
  readonly MASQUERADE_NOT_FROM_INTERFACE: RuleShape;
  readonly ENDPOINT_HAIRPIN: RuleShape;
  readonly UNCOMMENTED_ENDPOINT_HAIRPIN: RuleShape;
} = {
  TO_DESTINATION: withCidr(TO_DESTINATION, 2),
  REJECT_DESTINATION: withCidr(REJECT_DESTINATION, 2),
  MASQUERADE_NOT_FROM_CIDR: withCidr(MASQUERADE_NOT_FROM_CIDR, 2),
  MASQUERADE_NOT_FROM_INTERFACE: withCidr(MASQUERADE_NOT_FROM_INTERFACE, 2),
  ENDPOINT_HAIRPIN: withCidr(ENDPOINT_HAIRPIN, 1),
  // Large-cluster mode drops the comment of the endpoint chain's hairpin rule in v1.22 too.
  UNCOMMENTED_ENDPOINT_HAIRPIN: dropComment(withCidr(ENDPOINT_HAIRPIN, 1)),
};

/** The shape with one `address` slot holding a CIDR instead (v1.22 writes `ADDR/32`). */
function withCidr(shape: RuleShape, index: number): RuleShape {
  const args = shape.args.map((arg) =>
    typeof arg === "object" && arg.slot === index ? slot(index, "cidr") : arg,
  );
  return ruleShape(`${shape.name} (v1.22)`, args);
}

/**
 * Every shape above, for the property tests and the shape matcher.
 *
 * @example
 * KUBE_PROXY_SHAPES.length > 20 // true
 */
export const KUBE_PROXY_SHAPES: readonly RuleShape[] = [
  TO_DESTINATION,
  REJECT_DESTINATION,
  MASQUERADE_NOT_FROM_CIDR,
  MASQUERADE_NOT_FROM_INTERFACE,
  NODE_PORT,
  NODE_PORT_FROM,
  LOCALHOST_NODE_PORT,
  NODE_PORT_REFUSED,
  NODE_PORT_REJECTED,
  HEALTH_CHECK,
  COMMENTED_JUMP,
  JUMP,
  COMMENT_ONLY,
  FROM_SOURCE,
  FROM_INTERFACE,
  FROM_LOCAL,
  AFFINITY_CHECK,
  BALANCE,
  ENDPOINT_HAIRPIN,
  ENDPOINT_DNAT,
  ENDPOINT_DNAT_AFFINITY,
  ...Object.values(UNCOMMENTED),
  ...Object.values(LEGACY),
];
