/**
 * kube-proxy's local-traffic detector as rule shapes: pod traffic is told apart by its source
 * CIDR or by the interface (or interface prefix) it enters through, once per node.
 *
 * @module
 */
import type { LocalDetector } from "../../plan/types.js";
import type { RuleShape } from "../shape/types.js";
import {
  FROM_INTERFACE,
  FROM_SOURCE,
  MASQUERADE_NOT_FROM_CIDR,
  MASQUERADE_NOT_FROM_INTERFACE,
} from "../shapes.js";

/**
 * The detector's value as its shapes take it: the CIDR, the interface, or `prefix+`.
 *
 * @example
 * detectorValue({ kind: "interface-prefix", prefix: "veth" }) // "veth+"
 */
export function detectorValue(detector: LocalDetector): string {
  return detector.kind === "cidr"
    ? detector.cidr
    : detector.kind === "interface"
      ? detector.name
      : `${detector.prefix}+`;
}

/**
 * The shape that matches pod traffic and jumps (`-s CIDR` or `-i IFACE`, after the comment).
 *
 * @example
 * fromPodShape({ kind: "cidr", cidr: "10.244.0.0/16" }) === FROM_SOURCE // true
 */
export function fromPodShape(detector: LocalDetector): RuleShape {
  return detector.kind === "cidr" ? FROM_SOURCE : FROM_INTERFACE;
}

/**
 * The shape that marks cluster-IP traffic not from a pod for masquerade (`! -s CIDR` or `! -i IFACE`).
 *
 * @example
 * notFromPodMasqueradeShape({ kind: "interface", name: "cbr0" }) === MASQUERADE_NOT_FROM_INTERFACE // true
 */
export function notFromPodMasqueradeShape(detector: LocalDetector): RuleShape {
  return detector.kind === "cidr" ? MASQUERADE_NOT_FROM_CIDR : MASQUERADE_NOT_FROM_INTERFACE;
}
