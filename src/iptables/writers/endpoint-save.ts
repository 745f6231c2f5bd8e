/**
 * One service port's load-balancing rules (`KUBE-SVC-`/`KUBE-SVL-` → `KUBE-SEP-`) and endpoint
 * chains printed straight in `iptables-save` form, for {@link generateSaveText}. With ten
 * endpoints a port, these four shapes are 30 of a port's 32 rules; writing them in save form
 * from the model spares reading each back from restore text (tokenizing, then the quick
 * printer's general reading of it).
 *
 * Every line is exactly what `appendQuickSaveLine` prints for the restore line the builder
 * would otherwise write, and the writer declines where that printer would: an address or
 * destination that is not a plain host, an affinity timeout that is not a positive integer. The
 * builder then writes the restore lines as usual. test/save-text.test.ts holds the two paths to
 * each other and to `formatSave(generateState())`.
 *
 * @module
 */

import { isPositive, portAt } from "../../ir/canonical-quick.js";
import { probabilityToStored, probabilityToText } from "../../ir/canonical-values.js";
import { RECENT_MASK_SOURCE, savedAddress, savedComment, savedDestination } from "../../ir/save-quick.js";
import type { IPFamily } from "../../ir/types.js";
import { isCanonicalIPv6 } from "../../model/ip.js";
import { scanIPv6 } from "../../model/ip-scan.js";
import type { Endpoint } from "../../model/types.js";
import { probability } from "../../naming/probability.js";

/** One load-balancing chain and the endpoints it spreads over; `seps[i]` is `endpoints[i]`'s chain. */
export interface Balancing {
  readonly chain: string;
  readonly endpoints: readonly Endpoint[];
  readonly seps: readonly string[];
}

/** What the endpoint rules of one service port depend on besides its endpoints. */
export interface EndpointRulesOf {
  /** The service port name (`ns/name:port`), the comments' text. */
  readonly spn: string;
  /** `tcp`, `udp` or `sctp`. */
  readonly proto: string;
  readonly family: IPFamily;
  /** Whether rules carry comments (not in large-cluster mode). */
  readonly withComments: boolean;
  /** The affinity timeout, or 0 without session affinity. */
  readonly stickySeconds: number;
}

/**
 * Text the writer takes as it is: printable ASCII without a blank or anything either printer
 * escapes (every valid Kubernetes name). Anything else stays with the general path, which also
 * reports what iptables would refuse.
 */
const PLAIN_TEXT = /^[\x21\x23-\x26\x28-\x5b\x5d-\x7e]+$/;

/** `--probability` as printed, by the number of endpoints left (the statistic match stores 1/n rounded). */
const savedProbabilities: string[] = [];

function savedProbability(n: number): string {
  let text = savedProbabilities[n];
  if (text === undefined) {
    // probability(n) is always a valid probability for n >= 2: it stores.
    text = probabilityToText(probabilityToStored(probability(n)));
    if (n < 1_000_000) savedProbabilities[n] = text;
  }
  return text;
}

const groups = new Uint16Array(8);

/**
 * Whether `iptables-save` prints this IPv6 address exactly as written: the model's canonical
 * text (RFC 5952) is what glibc's `inet_ntop` prints, except for the tails it dots (IPv4-mapped,
 * which the canonical check already refuses, and IPv4-compatible `::a.b.c.d`). Spares the
 * general reader a parse and a print of each endpoint's address, twice per endpoint.
 */
function printsAsWritten(ip: string): boolean {
  if (!scanIPv6(ip, groups) || !isCanonicalIPv6(ip, groups)) return false;
  const g = groups;
  const compatible = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0;
  return !(compatible && g[6] !== 0);
}

/**
 * Whether an IPv6 endpoint's `-s` value and DNAT destination save as written (`ADDR/128` and the
 * endpoint's own `[ADDR]:PORT`); otherwise the general reader prints them.
 */
function savesAsWritten(ep: Endpoint): boolean {
  const { ip, endpoint } = ep;
  const close = ip.length + 1;
  return (
    endpoint.charCodeAt(0) === 91 /* [ */ &&
    endpoint.charCodeAt(close) === 93 /* ] */ &&
    endpoint.charCodeAt(close + 1) === 58 /* : */ &&
    endpoint.startsWith(ip, 1) &&
    portAt(endpoint, close + 2, endpoint.length) >= 0 &&
    printsAsWritten(ip)
  );
}

/** A comment as `-m comment --comment …` prints it. */
function commentMatch(text: string): string {
  return ` -m comment --comment ${savedComment(text)}`;
}

/**
 * Appends the port's balancing and endpoint-chain rules to `runs` as pairs of a chain name and
 * the save lines of one run of that chain (each line ending in `\n`), in the order the builder
 * writes them; or returns false, leaving `runs` as it was, where a rule would need the general
 * printer.
 *
 * @param runs - Receives `chain, text, chain, text, …`.
 * @param of - The port's name, protocol, family and options.
 * @param balancing - The SVC and/or SVL chains, in the builder's order.
 * @param reachable - The endpoints that get a SEP chain, and `sepChains[i]` the chain of each.
 */
export function appendEndpointSaveRuns(
  runs: string[],
  of: EndpointRulesOf,
  balancing: readonly Balancing[],
  reachable: readonly Endpoint[],
  sepChains: readonly string[],
): boolean {
  const { spn, proto, family, withComments, stickySeconds } = of;
  const seconds = stickySeconds > 0 ? String(stickySeconds) : "";
  if (seconds !== "" && !isPositive(seconds)) return false;
  if (!PLAIN_TEXT.test(spn)) return false;
  const recentTail = RECENT_MASK_SOURCE[family];
  const spnComment = withComments ? commentMatch(spn) : "";

  // Every run's lines, joined once at the end into one flat string that the runs are slices
  // of (template strings are concatenation trees, which the final join would walk again).
  // Nothing reaches `runs` until every rule is known to print here.
  const lines: string[] = [];
  const runChains: string[] = [];
  const runEnds: number[] = [];
  let length = 0;
  const line = (text: string): void => {
    lines.push(text);
    length += text.length;
  };
  const endRun = (chain: string): void => {
    runChains.push(chain);
    runEnds.push(length);
  };

  for (const { chain, endpoints, seps } of balancing) {
    const n = endpoints.length;
    const comments = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      if (!withComments) {
        comments[i] = "";
        continue;
      }
      const endpoint = (endpoints[i] as Endpoint).endpoint;
      if (!PLAIN_TEXT.test(endpoint)) return false;
      const text = `${spn} -> ${endpoint}`;
      // Never bare (it holds blanks), nothing to escape, ASCII: quoted, cut only past 255 bytes.
      comments[i] = text.length <= 255 ? ` -m comment --comment "${text}"` : commentMatch(text);
    }
    if (seconds !== "") {
      for (let i = 0; i < n; i++) {
        const sep = seps[i] as string;
        line(
          `-A ${chain}${comments[i]} -m recent --rcheck --seconds ${seconds} --reap --name ${sep}${recentTail} -j ${sep}\n`,
        );
      }
    }
    for (let i = 0; i < n; i++) {
      const sep = seps[i] as string;
      line(
        i < n - 1
          ? `-A ${chain}${comments[i]} -m statistic --mode random --probability ${savedProbability(n - i)} -j ${sep}\n`
          : `-A ${chain}${comments[i]} -j ${sep}\n`,
      );
    }
    endRun(chain);
  }

  for (let i = 0; i < reachable.length; i++) {
    const ep = reachable[i] as Endpoint;
    const sep = sepChains[i] as string;
    const plain = family === "IPv6" && savesAsWritten(ep);
    const source = plain ? `${ep.ip}/128` : savedAddress(ep.ip, family);
    const destination = plain ? ep.endpoint : savedDestination(ep.endpoint, family, true);
    if (source === null || destination === null || !PLAIN_TEXT.test(ep.endpoint)) return false;
    const recent = seconds === "" ? "" : ` -m recent --set --name ${sep}${recentTail}`;
    line(`-A ${sep} -s ${source}${spnComment} -j KUBE-MARK-MASQ\n`);
    line(`-A ${sep} -p ${proto}${spnComment}${recent} -m ${proto} -j DNAT --to-destination ${destination}\n`);
    endRun(sep);
  }

  const text = lines.join("");
  let from = 0;
  for (let r = 0; r < runChains.length; r++) {
    const to = runEnds[r] as number;
    runs.push(runChains[r] as string, text.slice(from, to));
    from = to;
  }
  return true;
}
