// An IPv6-only cluster read in the default family (IPv4) makes no service port: generate would
// print only kube-proxy's fixed chains and graph "no service port", without saying why.
import { prepareCluster } from "../kube/from-kubernetes.js";
import type { ClusterInput } from "../kube/types.js";

/**
 * The hint to give `--family IPv6` when the default family (no `config.ipFamily`; the caller
 * checks its `--family`) made no service port and IPv6 would have; `null` otherwise. Only
 * counts: the objects' problems were printed already.
 *
 * @param ports - how many service ports the IPv4 model has
 * @param input - the cluster, as read
 * @returns the sentence, or `null`
 * @example
 * otherFamilyHint(0, ipv6OnlyCluster)
 * // "no Service has an IPv4 cluster IP, and 1 service port has an IPv6 one: give --family IPv6, or set config.ipFamily"
 */
export function otherFamilyHint(ports: number, input: ClusterInput): string | null {
  if (ports > 0 || input.config?.ipFamily !== undefined || (input.services?.length ?? 0) === 0) return null;
  const found = prepareCluster(input, { family: "IPv6" }).model?.servicePorts.length ?? 0;
  if (found === 0) return null;
  const has = found === 1 ? "1 service port has" : `${found} service ports have`;
  return `no Service has an IPv4 cluster IP, and ${has} an IPv6 one: give --family IPv6, or set config.ipFamily`;
}
