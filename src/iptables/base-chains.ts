/**
 * The fixed chains kube-proxy owns (§4 of the spec) and the jump rules it ensures in the
 * built-in chains on a full sync.
 *
 * @module
 */
import { appendRule, type Rule } from "../ir/types.js";
import type { ProfileTraits } from "../model/profiles.js";
import type { GenerationContext } from "./context.js";

/** filter chains kube-proxy declares, in its order. */
export function filterChains(ctx: GenerationContext): string[] {
  const chains = ["KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-FORWARD", "KUBE-NODEPORTS"];
  // Before KUBE-PROXY-FIREWALL existed, source ranges were enforced in nat (KUBE-MARK-DROP).
  if (ctx.traits.firewallDropTarget === "KUBE-PROXY-FIREWALL") chains.push("KUBE-PROXY-FIREWALL");
  if (ctx.family === "IPv4" && ctx.localhostNodePorts) chains.push("KUBE-FIREWALL");
  return chains;
}

/** nat chains kube-proxy declares before the per-service ones, in its order. */
export const NAT_FIXED_CHAINS: readonly string[] = [
  "KUBE-SERVICES",
  "KUBE-NODEPORTS",
  "KUBE-POSTROUTING",
  "KUBE-MARK-MASQ",
];

/** The filter rules written before the per-service ones. */
export function filterHeadRules(ctx: GenerationContext): Rule[] {
  if (!(ctx.family === "IPv4" && ctx.localhostNodePorts)) return [];
  return [
    appendRule("KUBE-FIREWALL", [
      "-m",
      "comment",
      "--comment",
      "block incoming localnet connections",
      "-d",
      "127.0.0.0/8",
      "!",
      "-s",
      "127.0.0.0/8",
      "-m",
      "conntrack",
      "!",
      "--ctstate",
      "RELATED,ESTABLISHED,DNAT",
      "-j",
      "DROP",
    ]),
  ];
}

/** The `KUBE-FORWARD` rules, written after the per-service filter rules. */
export function forwardRules(ctx: GenerationContext): Rule[] {
  const rules: Rule[] = [];
  // The tcp_be_liberal check arrived with the KUBE-EXT layout's releases (1.29); older ones always drop.
  if (!ctx.config.conntrackTCPBeLiberal || ctx.traits.externalChains === "xlb") {
    rules.push(
      appendRule(
        "KUBE-FORWARD",
        ctx.traits.nfacctCounters
          ? [
              "-m",
              "conntrack",
              "--ctstate",
              "INVALID",
              "-m",
              "nfacct",
              "--nfacct-name",
              "ct_state_invalid_dropped_pkts",
              "-j",
              "DROP",
            ]
          : ["-m", "conntrack", "--ctstate", "INVALID", "-j", "DROP"],
      ),
    );
  }
  rules.push(
    appendRule("KUBE-FORWARD", [
      "-m",
      "comment",
      "--comment",
      "kubernetes forwarding rules",
      "-m",
      "mark",
      "--mark",
      `${ctx.mark}/${ctx.mark}`,
      "-j",
      "ACCEPT",
    ]),
  );
  // ≤ 1.23 wrote the conntrack rule twice, once per direction, with no address match.
  const conntrackComments =
    ctx.traits.externalChains === "xlb"
      ? [
          "kubernetes forwarding conntrack pod source rule",
          "kubernetes forwarding conntrack pod destination rule",
        ]
      : ["kubernetes forwarding conntrack rule"];
  for (const text of conntrackComments) {
    rules.push(
      appendRule("KUBE-FORWARD", [
        "-m",
        "comment",
        "--comment",
        text,
        "-m",
        "conntrack",
        "--ctstate",
        "RELATED,ESTABLISHED",
        "-j",
        "ACCEPT",
      ]),
    );
  }
  return rules;
}

/** `KUBE-POSTROUTING` and `KUBE-MARK-MASQ`, the first nat rules. */
export function natHeadRules(ctx: GenerationContext): Rule[] {
  const masquerade = ctx.config.hasRandomFully
    ? ["-j", "MASQUERADE", "--random-fully"]
    : ["-j", "MASQUERADE"];
  return [
    appendRule("KUBE-POSTROUTING", ["-m", "mark", "!", "--mark", `${ctx.mark}/${ctx.mark}`, "-j", "RETURN"]),
    appendRule("KUBE-POSTROUTING", ["-j", "MARK", "--xor-mark", ctx.mark]),
    appendRule("KUBE-POSTROUTING", [
      "-m",
      "comment",
      "--comment",
      "kubernetes service traffic requiring SNAT",
      ...masquerade,
    ]),
    appendRule("KUBE-MARK-MASQ", ["-j", "MARK", "--or-mark", ctx.mark]),
  ];
}

/** The comment of kube-proxy's last rule of nat KUBE-SERVICES, the jump to KUBE-NODEPORTS. */
export const NODEPORTS_COMMENT =
  "kubernetes service nodeports; NOTE: this must be the last rule in this chain";

/** The final `KUBE-SERVICES` → `KUBE-NODEPORTS` rule(s) (§10). */
export function nodePortsTailRules(ctx: GenerationContext): Rule[] {
  const comment = ["-m", "comment", "--comment", NODEPORTS_COMMENT];
  if (ctx.nodePortAddresses === null) {
    const exclude = !ctx.traits.localhostNodePortsSetting
      ? []
      : ctx.family === "IPv6"
        ? ["!", "-d", "::1/128"]
        : ctx.localhostNodePorts
          ? []
          : ["!", "-d", "127.0.0.0/8"];
    return [
      appendRule("KUBE-SERVICES", [
        ...comment,
        "-m",
        "addrtype",
        "--dst-type",
        "LOCAL",
        ...exclude,
        "-j",
        "KUBE-NODEPORTS",
      ]),
    ];
  }
  return ctx.nodePortAddresses.map((ip) =>
    appendRule("KUBE-SERVICES", [...comment, "-d", ip, "-j", "KUBE-NODEPORTS"]),
  );
}

/** A jump kube-proxy ensures in a built-in chain, with the table it lives in. */
export interface BuiltinJump {
  /** `filter` or `nat`. */
  readonly table: "filter" | "nat";
  /** The rule (`-A` form; it is inserted at position 1). */
  readonly rule: Rule;
}

function jump(
  table: "filter" | "nat",
  chain: string,
  extra: string[],
  comment: string | null,
  target: string,
): BuiltinJump {
  const commentArgs = comment === null ? [] : ["-m", "comment", "--comment", comment];
  return { table, rule: appendRule(chain, [...extra, ...commentArgs, "-j", target]) };
}

const NEW = ["-m", "conntrack", "--ctstate", "NEW"];

/**
 * The jumps kube-proxy (and, for KUBE-FIREWALL, kubelet) ensure in the built-in chains, in the
 * order they are inserted; each goes to position 1, so on an empty table later ones end up first.
 */
export const BUILTIN_JUMPS: readonly BuiltinJump[] = [
  jump("filter", "INPUT", NEW, "kubernetes externally-visible service portals", "KUBE-EXTERNAL-SERVICES"),
  jump("filter", "FORWARD", NEW, "kubernetes externally-visible service portals", "KUBE-EXTERNAL-SERVICES"),
  jump("filter", "INPUT", [], "kubernetes health check service ports", "KUBE-NODEPORTS"),
  jump("filter", "FORWARD", NEW, "kubernetes service portals", "KUBE-SERVICES"),
  jump("filter", "OUTPUT", NEW, "kubernetes service portals", "KUBE-SERVICES"),
  jump("filter", "FORWARD", [], "kubernetes forwarding rules", "KUBE-FORWARD"),
  jump("filter", "INPUT", NEW, "kubernetes load balancer firewall", "KUBE-PROXY-FIREWALL"),
  jump("filter", "OUTPUT", NEW, "kubernetes load balancer firewall", "KUBE-PROXY-FIREWALL"),
  jump("filter", "FORWARD", NEW, "kubernetes load balancer firewall", "KUBE-PROXY-FIREWALL"),
  jump("nat", "OUTPUT", [], "kubernetes service portals", "KUBE-SERVICES"),
  jump("nat", "PREROUTING", [], "kubernetes service portals", "KUBE-SERVICES"),
  jump("nat", "POSTROUTING", [], "kubernetes postrouting rules", "KUBE-POSTROUTING"),
  jump("filter", "INPUT", [], null, "KUBE-FIREWALL"),
  jump("filter", "OUTPUT", [], null, "KUBE-FIREWALL"),
];

/** User chains that exist after the jumps are ensured, whether or not the payload declares them. */
export const JUMP_TARGET_CHAINS: Readonly<Record<"filter" | "nat", readonly string[]>> = {
  filter: [
    "KUBE-EXTERNAL-SERVICES",
    "KUBE-NODEPORTS",
    "KUBE-SERVICES",
    "KUBE-FORWARD",
    "KUBE-PROXY-FIREWALL",
    "KUBE-FIREWALL",
  ],
  nat: ["KUBE-SERVICES", "KUBE-POSTROUTING"],
};

const NO_FIREWALL_TARGETS = new Set(["KUBE-PROXY-FIREWALL", "KUBE-FIREWALL"]);

/**
 * The built-in jumps a profile's kube-proxy ensures. Releases that drop through KUBE-MARK-DROP
 * have no KUBE-PROXY-FIREWALL and leave KUBE-FIREWALL to kubelet.
 *
 * @example
 * builtinJumps(profileTraits("v1.22")).length // 8
 */
export function builtinJumps(traits: ProfileTraits): readonly BuiltinJump[] {
  if (traits.firewallDropTarget === "KUBE-PROXY-FIREWALL") return BUILTIN_JUMPS;
  return LEGACY_JUMPS;
}

const LEGACY_JUMPS: readonly BuiltinJump[] = BUILTIN_JUMPS.filter(
  (j) => !NO_FIREWALL_TARGETS.has(jumpTarget(j.rule)),
);

function jumpTarget(rule: Rule): string {
  return rule.args[rule.args.length - 1] ?? "";
}

/**
 * The user chains that exist after a profile's full sync besides those the payload declares.
 * Releases that drop through KUBE-MARK-DROP ensure that (kubelet-filled) chain in nat.
 *
 * @example
 * jumpTargetChains(profileTraits("v1.22")).nat // ["KUBE-SERVICES", "KUBE-POSTROUTING", "KUBE-MARK-DROP"]
 */
export function jumpTargetChains(
  traits: ProfileTraits,
): Readonly<Record<"filter" | "nat", readonly string[]>> {
  return traits.firewallDropTarget === "KUBE-PROXY-FIREWALL" ? JUMP_TARGET_CHAINS : LEGACY_TARGETS;
}

const LEGACY_TARGETS: Readonly<Record<"filter" | "nat", readonly string[]>> = {
  filter: JUMP_TARGET_CHAINS.filter.filter((c) => !NO_FIREWALL_TARGETS.has(c)),
  nat: [...JUMP_TARGET_CHAINS.nat, "KUBE-MARK-DROP"],
};
