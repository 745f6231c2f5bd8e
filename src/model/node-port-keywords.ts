/**
 * The keywords kube-proxy 1.37+ accepts in `--nodeport-addresses` beside CIDRs (PR #138427, the
 * flag's help in cmd/kube-proxy/app/options.go: 'localhost' is the node's loopback addresses,
 * 'all' every address, in any combination with each other, 'primary' and CIDRs). `primary`
 * needs the node's addresses and is resolved where they are known.
 *
 * @module
 */
import type { IPFamily } from "./types.js";

/**
 * `nodePortAddresses` with the `localhost` and `all` keywords replaced by the family's CIDR
 * (`127.0.0.0/8` or `::1/128`; `0.0.0.0/0` or `::/0`) when the profile knows them; other entries
 * (CIDRs, `primary`) unchanged. Without keywords the list is returned as it is.
 *
 * @example
 * expandNodePortKeywords(["primary", "localhost"], "IPv4", true) // ["primary", "127.0.0.0/8"]
 * expandNodePortKeywords(["all"], "IPv6", true)                  // ["::/0"]
 */
export function expandNodePortKeywords(
  entries: readonly string[],
  family: IPFamily,
  keywords: boolean,
): readonly string[] {
  if (!keywords || !entries.some((e) => e === "localhost" || e === "all")) return entries;
  const v4 = family === "IPv4";
  return entries.map((e) =>
    e === "localhost" ? (v4 ? "127.0.0.0/8" : "::1/128") : e === "all" ? (v4 ? "0.0.0.0/0" : "::/0") : e,
  );
}
