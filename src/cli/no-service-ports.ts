// Why a node's dump holds no service port: on nodes where kube-proxy does not run in iptables
// mode the dump is still full of KUBE-* chains, and an empty answer alone reads as a bug.
import type { RuleSet } from "../ir/types.js";
import { CHAIN_PREFIX } from "../naming/kube-chains.js";

/**
 * What a rule set without kube-proxy's service chains most likely comes from, as a sentence to
 * append to "no service port has rules"; `null` when it gives no sign.
 *
 * @example
 * whyNoServicePorts({ family: "IPv4", tables: [] }) // "… no nat table …"
 */
export function whyNoServicePorts(state: RuleSet): string | null {
  const nat = state.tables.find((t) => t.name === "nat");
  if (nat === undefined) return "the input has no nat table, where kube-proxy's service rules are";
  // IPVS mode matches cluster IPs by ipset in KUBE-SERVICES; IPVS itself does the DNAT.
  const ipvs = nat.entries.some(
    (e) => e.kind === "rule" && e.chain === "KUBE-SERVICES" && e.args.includes("KUBE-CLUSTER-IP"),
  );
  if (ipvs)
    return "KUBE-SERVICES matches the KUBE-CLUSTER-IP ipset: kube-proxy runs in IPVS mode here, and IPVS, not iptables, holds the services";
  const declared = nat.chains.some((c) => c.name === "KUBE-SERVICES");
  const used = nat.entries.some((e) => e.kind === "rule" && e.chain === "KUBE-SERVICES");
  if (!declared || !used)
    return "the nat table's KUBE-SERVICES chain is empty or missing: kube-proxy in iptables mode wrote no services here (nftables mode, IPVS mode or a kube-proxy replacement such as Cilium's keep them elsewhere)";
  return null;
}

/** The chains every service port with endpoints has one of, in any release. */
const SERVICE_PORT_CHAINS = [CHAIN_PREFIX.service, CHAIN_PREFIX.local, CHAIN_PREFIX.xlb];

/**
 * Whether a rule set holds any service port's chain (a node where kube-proxy runs in iptables
 * mode and some Service has endpoints does).
 *
 * @example
 * hasServicePortChains({ family: "IPv4", tables: [] }) // false
 */
export function hasServicePortChains(state: RuleSet): boolean {
  const nat = state.tables.find((t) => t.name === "nat");
  return nat?.chains.some((c) => SERVICE_PORT_CHAINS.some((p) => c.name.startsWith(p))) === true;
}
