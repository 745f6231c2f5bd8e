/**
 * An outcome in words: where the packet went (`default/web:http → 10.244.1.2:8080  p=0.5`),
 * what became of it (`masquerade`, `SNAT to 192.0.2.10`, `DROPPED  (reason)`), and the facts it
 * depends on.
 *
 * @module
 */
import { describeConditions } from "./conditions.js";
import { formatFraction } from "./fraction.js";
import type { SourceNat, TraceOutcome } from "./types.js";

/** The fields the words are made of. */
export type OutcomeFacts = Omit<TraceOutcome, "summary">;

/**
 * An address and port as Kubernetes prints an endpoint: `ip:port`, `[ipv6]:port`.
 *
 * @example
 * formatSocket({ address: "fd00::1", port: 80 }) // "[fd00::1]:80"
 */
export function formatSocket(s: { readonly address: string; readonly port: number }): string {
  return s.address.indexOf(":") >= 0 ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
}

/**
 * Where an SNAT rewrites the source to, as `--to-source` reads: `192.0.2.10`,
 * `192.0.2.10-192.0.2.12`, `192.0.2.10:1024-65535`, `[fd00::1]:1024`, or `port 1024-65535` when
 * the rule keeps the address.
 *
 * @example
 * formatSourceNat({ address: "192.0.2.10", lastAddress: "192.0.2.10", ports: null }) // "192.0.2.10"
 */
export function formatSourceNat(s: SourceNat): string {
  const address = s.address === s.lastAddress ? s.address : `${s.address}-${s.lastAddress}`;
  if (s.ports === null) return address;
  const ports = s.ports.min === s.ports.max ? `${s.ports.min}` : `${s.ports.min}-${s.ports.max}`;
  if (address === "") return `port ${ports}`;
  return address.indexOf(":") >= 0 ? `[${address}]:${ports}` : `${address}:${ports}`;
}

/**
 * Where the packet went and how likely: the service port, the DNAT destination (named whatever
 * became of the packet after it) or the untranslated destination, the probability.
 *
 * @example
 * outcomeHead(outcome) // "default/web:http → 10.244.1.2:8080  p=0.500000000"
 */
export function outcomeHead(o: OutcomeFacts, destination: string): string {
  const who = o.servicePort ?? "(no service)";
  const where = o.dnat === null ? `${destination} (no DNAT)` : formatSocket(o.dnat);
  return `${who} → ${where}  p=${formatFraction(o.probability)}`;
}

/**
 * What became of the packet: `masquerade`, `SNAT to ADDRESS` or `no masquerade` when accepted,
 * else the verdict and why (the unknown reason, or the comment of the rule that decided).
 *
 * @example
 * outcomeTail(outcome) // "DROPPED  (cali:R2AgGWHnVJ4Elk1W)"
 */
export function outcomeTail(o: OutcomeFacts): string {
  if (o.verdict === "accepted") {
    if (o.snat !== null) return `SNAT to ${formatSourceNat(o.snat)}`;
    return o.masquerade ? "masquerade" : "no masquerade";
  }
  const last = o.steps[o.steps.length - 1];
  // A path that ran off the end of a built-in chain was dropped by its policy, not by the last
  // rule it matched: that rule's comment would name the wrong reason.
  const byRule = last !== undefined && /-j (DROP|REJECT)( |$)/.test(last.rule);
  // A REDIRECT drops a packet whose input interface has no address to redirect it to (a
  // REDIRECT that took translated the packet: a later drop is some other chain's).
  const redirect = last !== undefined && o.dnat === null && / -j REDIRECT( |$)/.test(last.rule);
  const why =
    o.verdict === "unknown"
      ? o.unknownReason
      : redirect
        ? "REDIRECT: no address on the input interface"
        : byRule
          ? last.comment
          : "the chain's policy";
  return `${o.verdict.toUpperCase()}${why === null ? "" : `  (${why})`}`;
}

/**
 * The outcome's one line: head, tail, and `if <conditions>` when it depends on any.
 *
 * @example
 * outcomeSummary(outcome, "10.96.0.10:80")
 * // "default/web:http → 10.244.1.2:8080  p=0.500000000  no masquerade  if the route to 10.244.1.2 leaves by docker0"
 */
export function outcomeSummary(o: OutcomeFacts, destination: string): string {
  const conditions = o.conditions.length === 0 ? "" : `  if ${describeConditions(o.conditions)}`;
  return `${outcomeHead(o, destination)}  ${outcomeTail(o)}${conditions}`;
}
