/**
 * The profile table: every kube-proxy release the library can imitate, described as a handful of
 * named differences (traits) that the stages consult where releases differ, in both modes. There
 * is one generator; a profile never adds a code path of its own, it only sets these traits, and no
 * code outside this file looks at a profile's name.
 *
 * | trait                       | v1.22 | v1.30 | v1.32 | v1.34 | v1.36 | v1.37 | latest |
 * |-----------------------------|-------|-------|-------|-------|-------|-------|--------|
 * | `nfacctCounters`            | no    | no    | yes   | yes   | yes   | yes   | yes    |
 * | `externalChains`            | `xlb` | `ext` | `ext` | `ext` | `ext` | `ext` | `ext`  |
 * | `nodePortsInServiceChain`   | yes   | no    | no    | no    | no    | no    | no     |
 * | `firewallDropTarget`        | KUBE-MARK-DROP | KUBE-PROXY-FIREWALL | same | same | same | same | same |
 * | `localhostNodePortsSetting` | no    | yes   | yes   | yes   | yes   | yes   | yes    |
 * | `interfaceDetectors`        | no    | yes   | yes   | yes   | yes   | yes   | yes    |
 * | `ipModeField`               | no    | yes   | yes   | yes   | yes   | yes   | yes    |
 * | `terminatingFallback`       | no    | yes   | yes   | yes   | yes   | yes   | yes    |
 * | `topology`                  | `none`| `zone`| `zone`| `node-then-zone` | same | same | same |
 * | `duplicateEndpoints`        | `prefer-local` | same | same | same | `prefer-non-terminating` | same | same |
 * | `externalIPsGate`           | no    | no    | no    | no    | yes   | yes   | yes    |
 * | `nodePortAddressKeywords`   | no    | no    | no    | no    | no    | yes   | yes    |
 * | `nftablesLayout`            | none  | `A`   | `A`   | `B`   | none  | none  | `B`    |
 * | `nftFirewallElementComment` | no    | yes   | no    | no    | no    | no    | no     |
 *
 * The iptables rule text is the same from 1.31 on (spec/kube-proxy-iptables.md §15,
 * spec/kube-proxy-nftables.md §3): v1.34, v1.36 and v1.37 print 1.32's text and differ only in
 * which rules appear. `latest` is the newest release's iptables behaviour (v1.37); its nftables
 * layout is the newest one reproduced here (B, 1.34/1.35): layouts C (1.36) and D (1.37) are not.
 *
 * @module
 */
import type { Profile } from "./types.js";

/**
 * The named differences between kube-proxy releases.
 *
 * @example
 * // A v1.32 node where kube-proxy could not create the nfacct counters:
 * generateRules(modelFromKubernetes({ config: { profile: "v1.32" }, services, endpointSlices }), {
 *   traits: { nfacctCounters: false },
 * });
 */
export interface ProfileTraits {
  /** The profile these traits describe. */
  readonly name: Profile;
  /** The kube-proxy releases the profile stands for, for people (`"1.34–1.35"`). */
  readonly releases: string;
  /**
   * 1.31+: the INVALID drop and the localhost node-port jumps carry `-m nfacct` counter matches
   * (kube-proxy writes them only when it could create the counter; on by default here).
   */
  readonly nfacctCounters: boolean;
  /**
   * The mark as kube-proxy prints it (`%#08x`, `0x00004000`); `false` prints the bare hex
   * (`0x4000`), the value upstream unit tests inject into their fake proxier.
   */
  readonly paddedMark: boolean;
  /**
   * How external traffic is routed: `ext` = KUBE-EXT / KUBE-SVL / KUBE-FW chains and filter
   * DROP rules (1.24+); `xlb` = one KUBE-XLB chain per eTP=Local port, drops through the nat
   * KUBE-MARK-DROP chain, rules written per feature in one stream (≤ 1.23).
   */
  readonly externalChains: "ext" | "xlb";
  /** ≤ 1.23: node-port masquerading lives in the KUBE-SVC chain, not in an external chain. */
  readonly nodePortsInServiceChain: boolean;
  /** Where traffic refused by `loadBalancerSourceRanges` ends. */
  readonly firewallDropTarget: "KUBE-PROXY-FIREWALL" | "KUBE-MARK-DROP";
  /**
   * 1.26+: the `localhostNodePorts` setting exists (KUBE-FIREWALL localnet rule, `! -d 127.0.0.0/8`
   * on the node-port jump). Without it, loopback is one more interface address for
   * `nodePortAddresses` and the setting is ignored.
   */
  readonly localhostNodePortsSetting: boolean;
  /** 1.23+: the BridgeInterface / InterfaceNamePrefix detect-local modes exist (else: no detector). */
  readonly interfaceDetectors: boolean;
  /**
   * 1.29+: a load-balancer ingress with `ipMode: Proxy` gets no rules (the field did not exist
   * before, so older releases program every ingress IP).
   */
  readonly ipModeField: boolean;
  /**
   * Which topology hints narrow the cluster endpoints (§6.4, §15 of the spec): `zone` = zone hints
   * only; `node-then-zone` = node hints (PreferSameNode) first, else zone hints (PreferSameZone).
   * kube-proxy reads only the hints; that `PreferClose` means `PreferSameZone` is the EndpointSlice
   * controller's business (it writes zone hints for both).
   */
  readonly topology: "none" | "zone" | "node-then-zone";
  /** Serving-terminating endpoints are used when no ready one exists (ProxyTerminatingEndpoints). */
  readonly terminatingFallback: boolean;
  /** Which copy of an `IP:port` listed in two slices of one Service survives. */
  readonly duplicateEndpoints: "prefer-local" | "prefer-non-terminating";
  /**
   * 1.36+: the `AllowServiceExternalIPs` gate exists (default on); with `allowServiceExternalIPs:
   * false` in the config, Services' `externalIPs` get no rules. Older releases ignore the setting.
   */
  readonly externalIPsGate: boolean;
  /**
   * 1.37+: `nodePortAddresses` takes the keywords `primary`, `localhost` and `all`, mixed freely
   * with CIDRs; before, `primary` was only valid as the single entry.
   */
  readonly nodePortAddressKeywords: boolean;
  /**
   * The nftables mode's layout (spec/kube-proxy-nftables.md §1): `A` = 1.30–1.33 (filter base
   * chains at -110, `filter-output-post-dnat`), `B` = 1.34/1.35; `null` = no nftables mode here.
   */
  readonly nftablesLayout: "A" | "B" | null;
  /** nftables mode: `firewall-ips` elements carry the service port's name (gone by ≈1.32). */
  readonly nftFirewallElementComment: boolean;
}

// Release sources for each step (kubernetes/kubernetes unless said otherwise):
// - pkg/features/kube_features.go: PreferSameTrafficDistribution alpha (off) 1.33, beta (on)
//   1.34, GA 1.35; pkg/apis/core/validation validateServiceTrafficDistribution takes the two new
//   values only with the gate on. With it on, pkg/proxy/topology.go topologyModeFromHints picks PreferSameNode
//   when every ready endpoint has node hints and one names this node, else PreferSameZone.
// - PR #135593 (merged 2025-12, after the 1.35 freeze, so 1.36): pkg/proxy/endpointslicecache.go
//   keeps a non-terminating copy of an endpoint listed twice.
// - kubernetes/website feature gate AllowServiceExternalIPs: deprecated stage, default true,
//   from 1.36 (KEP-5707, PR #137293): "kube-proxy will continue to respect" externalIPs.
// - PR #138427 (1.37): cmd/kube-proxy/app/options.go --nodeport-addresses takes the keywords
//   'primary', 'localhost' and 'all' "in any combination with each other and with CIDRs".

const V130: ProfileTraits = {
  name: "v1.30",
  releases: "1.24–1.30 (vectors: 1.30.5)",
  nfacctCounters: false,
  paddedMark: true,
  externalChains: "ext",
  nodePortsInServiceChain: false,
  firewallDropTarget: "KUBE-PROXY-FIREWALL",
  localhostNodePortsSetting: true,
  interfaceDetectors: true,
  ipModeField: true,
  topology: "zone",
  terminatingFallback: true,
  duplicateEndpoints: "prefer-local",
  externalIPsGate: false,
  nodePortAddressKeywords: false,
  nftablesLayout: "A",
  nftFirewallElementComment: true,
};

const V132: ProfileTraits = {
  ...V130,
  name: "v1.32",
  releases: "1.31–1.33",
  nfacctCounters: true,
  nftFirewallElementComment: false,
};

const V134: ProfileTraits = {
  ...V132,
  name: "v1.34",
  releases: "1.34–1.35",
  topology: "node-then-zone",
  nftablesLayout: "B",
};

const V136: ProfileTraits = {
  ...V134,
  name: "v1.36",
  releases: "1.36",
  duplicateEndpoints: "prefer-non-terminating",
  externalIPsGate: true,
  nftablesLayout: null,
};

const V137: ProfileTraits = { ...V136, name: "v1.37", releases: "1.37", nodePortAddressKeywords: true };

/**
 * The traits of every profile, oldest first, `latest` last.
 *
 * @example
 * PROFILES["v1.22"].externalChains // "xlb"
 * PROFILES["v1.34"].nftablesLayout // "B"
 */
export const PROFILES: Readonly<Record<Profile, ProfileTraits>> = {
  "v1.22": {
    name: "v1.22",
    releases: "1.21–1.22",
    nfacctCounters: false,
    paddedMark: true,
    externalChains: "xlb",
    nodePortsInServiceChain: true,
    firewallDropTarget: "KUBE-MARK-DROP",
    localhostNodePortsSetting: false,
    interfaceDetectors: false,
    ipModeField: false,
    topology: "none",
    terminatingFallback: false,
    duplicateEndpoints: "prefer-local",
    externalIPsGate: false,
    nodePortAddressKeywords: false,
    nftablesLayout: null,
    nftFirewallElementComment: false,
  },
  "v1.30": V130,
  "v1.32": V132,
  "v1.34": V134,
  "v1.36": V136,
  "v1.37": V137,
  // The newest release's behaviour; nftables: the newest layout reproduced (B), see the module doc.
  latest: { ...V137, name: "latest", releases: "newest (= v1.37)", nftablesLayout: "B" },
};

/**
 * Every profile name, in the table's order (oldest first, `latest` last).
 *
 * @example
 * PROFILE_NAMES // ["v1.22", "v1.30", "v1.32", "v1.34", "v1.36", "v1.37", "latest"]
 */
export const PROFILE_NAMES: readonly Profile[] = Object.keys(PROFILES) as Profile[];

/** The profile used when a config names none. */
export const DEFAULT_PROFILE: Profile = "v1.30";

/**
 * Whether a string names a profile.
 *
 * @example
 * isProfile("v1.34") // true
 * isProfile("v1.99") // false
 */
export function isProfile(name: string): name is Profile {
  return Object.hasOwn(PROFILES, name);
}

/**
 * The traits of a profile, with some of them overridden (host facts such as a missing nfacct
 * counter, or the unpadded mark of upstream unit tests).
 *
 * @example
 * profileTraits("v1.32").nfacctCounters                              // true
 * profileTraits("v1.32", { nfacctCounters: false }).nfacctCounters   // false
 */
export function profileTraits(profile: Profile, overrides?: Partial<ProfileTraits>): ProfileTraits {
  const base = PROFILES[profile];
  return overrides === undefined ? base : { ...base, ...overrides, name: base.name };
}

/**
 * The traits of a name that may not be a profile (unchecked input): the default profile's when
 * it is not one.
 *
 * @example
 * traitsOfName("v1.22").ipModeField // false
 * traitsOfName(undefined).name      // "v1.30"
 */
export function traitsOfName(name: string | undefined): ProfileTraits {
  return PROFILES[name !== undefined && isProfile(name) ? name : DEFAULT_PROFILE];
}
