/**
 * Version profiles: each kube-proxy release the generator can imitate, described as a handful of
 * named differences (traits) that the generator consults at the few places where layouts differ.
 * There is one generator; a profile never adds a code path of its own, it only flips these flags.
 *
 * | trait                     | v1.22        | v1.30        | v1.32        | latest          |
 * |---------------------------|--------------|--------------|--------------|-----------------|
 * | `nfacctCounters`          | no           | no           | yes          | yes             |
 * | `externalChains`          | `xlb`        | `ext`        | `ext`        | `ext`           |
 * | `nodePortsInServiceChain` | yes          | no           | no           | no              |
 * | `firewallDropTarget`      | KUBE-MARK-DROP | KUBE-PROXY-FIREWALL | same | same           |
 * | `topology`                | `none`       | `zone`       | `zone`       | `node-then-zone`|
 * | `duplicateEndpoints`      | `prefer-local` | `prefer-local` | `prefer-local` | `prefer-non-terminating` |
 * | `nftablesLayout`          | none         | `A`          | `A`          | `B`             |
 * | `nftFirewallElementComment` | no         | yes          | no           | no              |
 *
 * @module
 */
import type { Profile } from "../model/types.js";

/** The named differences between kube-proxy releases. */
export interface ProfileTraits {
  /** The profile these traits describe. */
  readonly name: Profile;
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
  /** Which topology hints narrow the cluster endpoints (§6.4, §15 of the spec). */
  readonly topology: "none" | "zone" | "node-then-zone";
  /** Serving-terminating endpoints are used when no ready one exists (ProxyTerminatingEndpoints). */
  readonly terminatingFallback: boolean;
  /** Which copy of an `IP:port` listed in two slices of one Service survives. */
  readonly duplicateEndpoints: "prefer-local" | "prefer-non-terminating";
  /**
   * The nftables mode's layout (spec/kube-proxy-nftables.md §1): `A` = 1.30–1.33 (filter base
   * chains at -110, `filter-output-post-dnat`), `B` = 1.34/1.35; `null` = no nftables mode.
   */
  readonly nftablesLayout: "A" | "B" | null;
  /** nftables mode: `firewall-ips` elements carry the service port's name (gone by ≈1.32). */
  readonly nftFirewallElementComment: boolean;
}

const V130: ProfileTraits = {
  name: "v1.30",
  nfacctCounters: false,
  paddedMark: true,
  externalChains: "ext",
  nodePortsInServiceChain: false,
  firewallDropTarget: "KUBE-PROXY-FIREWALL",
  localhostNodePortsSetting: true,
  interfaceDetectors: true,
  topology: "zone",
  terminatingFallback: true,
  duplicateEndpoints: "prefer-local",
  nftablesLayout: "A",
  nftFirewallElementComment: true,
};

/** The traits of every profile. */
export const PROFILES: Readonly<Record<Profile, ProfileTraits>> = {
  "v1.30": V130,
  "v1.32": { ...V130, name: "v1.32", nfacctCounters: true, nftFirewallElementComment: false },
  latest: {
    ...V130,
    name: "latest",
    nfacctCounters: true,
    topology: "node-then-zone",
    duplicateEndpoints: "prefer-non-terminating",
    nftablesLayout: "B",
    nftFirewallElementComment: false,
  },
  "v1.22": {
    name: "v1.22",
    nfacctCounters: false,
    paddedMark: true,
    externalChains: "xlb",
    nodePortsInServiceChain: true,
    firewallDropTarget: "KUBE-MARK-DROP",
    localhostNodePortsSetting: false,
    interfaceDetectors: false,
    topology: "none",
    terminatingFallback: false,
    duplicateEndpoints: "prefer-local",
    nftablesLayout: null,
    nftFirewallElementComment: false,
  },
};

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
