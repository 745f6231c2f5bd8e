/**
 * The SVC chain's load balancing and the endpoint (SEP) chains (v1.22): every endpoint gets a
 * chain, ready or not; affinity checks come first, then the `1/(n-i)` jumps to the ready ones.
 * Large-cluster mode drops the comments of these rules.
 *
 * @module
 */
import type { Endpoint } from "../../../model/types.js";
import { endpointChainList } from "../../../naming/chain-names.js";
import { probability } from "../../../naming/probability.js";
import type { PortRuleSink } from "../../shape/sink.js";
import type { RuleShape } from "../../shape/types.js";
import {
  AFFINITY_CHECK,
  BALANCE,
  COMMENTED_JUMP,
  ENDPOINT_DNAT,
  ENDPOINT_DNAT_AFFINITY,
  JUMP,
  LEGACY,
  UNCOMMENTED,
} from "../../shapes.js";
import type { LegacyPort } from "./port.js";

/**
 * The SEP chains of some endpoints, in order.
 *
 * @example
 * sepChains(port, port.legacy.ready) // ["KUBE-SEP-…", …]
 */
export function sepChains(port: LegacyPort, endpoints: readonly Endpoint[]): string[] {
  return endpointChainList(port.spn, port.protocol, endpoints);
}

/**
 * Session affinity: clients seen within the timeout go back to their endpoint's chain, one rule
 * per endpoint chain, before any balancing.
 *
 * @example
 * writeAffinityChecks(sink, "KUBE-SVC-X", ["KUBE-SEP-A"], "ns/web:http", "10800", AFFINITY_CHECK)
 * // -A KUBE-SVC-X -m comment --comment ns/web:http -m recent --name KUBE-SEP-A --rcheck --seconds 10800 --reap -j KUBE-SEP-A
 */
export function writeAffinityChecks(
  sink: PortRuleSink,
  chain: string,
  seps: readonly string[],
  comment: string,
  seconds: string,
  shape: RuleShape,
): void {
  for (const sep of seps) sink.rule(shape, chain, [comment, sep, seconds]);
}

/**
 * The `1/(n-i)` statistic jumps to `seps`, the last one unconditional. `commentOf` gives each
 * rule's comment; `null` writes them without one (large-cluster mode).
 *
 * @example
 * writeBalancing(sink, "KUBE-SVC-X", ["KUBE-SEP-A", "KUBE-SEP-B"], () => "ns/web:http")
 * // -A KUBE-SVC-X -m comment --comment ns/web:http -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-A
 * // -A KUBE-SVC-X -m comment --comment ns/web:http -j KUBE-SEP-B
 */
export function writeBalancing(
  sink: PortRuleSink,
  chain: string,
  seps: readonly string[],
  commentOf: ((i: number) => string) | null,
): void {
  const n = seps.length;
  for (let i = 0; i < n; i++) {
    const sep = seps[i] as string;
    const comment = commentOf === null ? "" : commentOf(i);
    if (i < n - 1) {
      sink.rule(commentOf === null ? UNCOMMENTED.BALANCE : BALANCE, chain, [
        comment,
        probability(n - i),
        sep,
      ]);
    } else if (commentOf === null) {
      sink.rule(JUMP, chain, [sep]);
    } else {
      sink.rule(COMMENTED_JUMP, chain, [comment, sep]);
    }
  }
}

/**
 * Declares every endpoint's chain, writes the SVC chain's affinity checks and balancing over
 * the ready endpoints, then each endpoint chain's hairpin masquerade and DNAT.
 *
 * @example
 * writeServiceEndpoints(sink, port, false)
 * // -A KUBE-SVC-… -m comment --comment ns/web:http -j KUBE-SEP-A
 * // -A KUBE-SEP-A -m comment --comment ns/web:http -s 10.244.1.5/32 -j KUBE-MARK-MASQ
 * // -A KUBE-SEP-A -m comment --comment ns/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
 */
export function writeServiceEndpoints(sink: PortRuleSink, port: LegacyPort, largeCluster: boolean): void {
  const endpoints = port.legacy.endpoints;
  const seps = sepChains(port, endpoints);
  for (const sep of seps) sink.chain(sep);
  const comment = largeCluster ? "" : port.spn;
  const seconds = port.plan.affinitySeconds;
  if (seconds > 0) {
    const shape = largeCluster ? UNCOMMENTED.AFFINITY_CHECK : AFFINITY_CHECK;
    writeAffinityChecks(sink, port.svc, seps, comment, String(seconds), shape);
  }
  const spn = port.spn;
  writeBalancing(sink, port.svc, sepChains(port, port.legacy.ready), largeCluster ? null : () => spn);

  const hairpin = largeCluster ? LEGACY.UNCOMMENTED_ENDPOINT_HAIRPIN : LEGACY.ENDPOINT_HAIRPIN;
  const dnat =
    seconds > 0
      ? largeCluster
        ? UNCOMMENTED.ENDPOINT_DNAT_AFFINITY
        : ENDPOINT_DNAT_AFFINITY
      : largeCluster
        ? UNCOMMENTED.ENDPOINT_DNAT
        : ENDPOINT_DNAT;
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    const sep = seps[i] as string;
    sink.rule(hairpin, sep, [comment, ep.ip + port.hostBits]);
    // The affinity form names the chain in its `recent` list; the plain form has no slot 3.
    sink.rule(
      dnat,
      sep,
      seconds > 0 ? [comment, port.protocol, ep.endpoint, sep] : [comment, port.protocol, ep.endpoint],
    );
  }
}
