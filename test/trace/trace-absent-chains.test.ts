// A trace of a partial text: chains the input names but does not hold (an `iptables-save | grep`
// extract's KUBE-SEP chains) are walked as empty, and the result names those a path entered;
// the brief text shows outcomes that differ only in the statistic branches they took as one line.

import { describe, expect, it } from "vitest";
import { parseRules, type RuleSet } from "../../src/index.js";
import {
  type ChainRef,
  formatFraction,
  formatTraceText,
  type Packet,
  traceRules,
  traceToJson,
} from "../../src/trace/index.js";

const SVC = "KUBE-SVC-AAAAAAAAAAAAAAAA";
const SEPS = ["KUBE-SEP-BBBBBBBBBBBBBBBB", "KUBE-SEP-CCCCCCCCCCCCCCCC", "KUBE-SEP-DDDDDDDDDDDDDDDD"];

/** A three-endpoint service whose endpoint chains are declared; `filled` says which hold their DNAT. */
function service(filled: readonly boolean[]): RuleSet {
  const lines = [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    ":KUBE-SERVICES - [0:0]",
    ":KUBE-NODEPORTS - [0:0]",
    `:${SVC} - [0:0]`,
    ...SEPS.map((s) => `:${s} - [0:0]`),
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    `-A KUBE-SERVICES -d 10.96.5.5/32 -p tcp -m comment --comment "default/web:http cluster IP" -m tcp --dport 80 -j ${SVC}`,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.2:8080" -m statistic --mode random --probability 0.33333333349 -j ${SEPS[0]}`,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.3:8080" -m statistic --mode random --probability 0.50000000000 -j ${SEPS[1]}`,
    `-A ${SVC} -m comment --comment "default/web:http -> 10.244.1.4:8080" -j ${SEPS[2]}`,
  ];
  SEPS.forEach((sep, i) => {
    if (filled[i] === true)
      lines.push(
        `-A ${sep} -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT --to-destination 10.244.1.${i + 2}:8080`,
      );
  });
  lines.push("COMMIT", "");
  const { ruleSet, problems } = parseRules(lines.join("\n"));
  expect(problems).toEqual([]);
  return ruleSet;
}

const packet: Packet = {
  source: "10.244.0.5",
  sourcePort: 40000,
  destination: "10.96.5.5",
  destinationPort: 80,
  protocol: "tcp",
  from: "pod",
  inInterface: "cbr0",
};

const absent = (...chains: string[]): ChainRef[] => chains.map((chain) => ({ table: "nat", chain }));

describe("chains the input does not hold", () => {
  it("are named when a path entered them, in the order first entered", () => {
    const r = traceRules(service([false, false, false]), packet, {
      nodeAddresses: ["192.0.2.10"],
      absentChains: absent(SEPS[2] as string, "KUBE-NODEPORTS", ...SEPS.slice(0, 2)),
    });
    // The paths fall through the empty chains: each reaches the last rule's chain.
    expect(r.outcomes).toHaveLength(4);
    expect(r.absentChains).toEqual(absent(...SEPS));
    // KUBE-NODEPORTS was named but never entered.
    expect(traceToJson(r)).toMatchObject({ absentChains: absent(...SEPS) });
  });

  it("are not named when no path entered them, nor when none are given", () => {
    const state = service([true, true, true]);
    const options = { nodeAddresses: ["192.0.2.10"] };
    expect(
      traceRules(state, packet, { ...options, absentChains: absent("KUBE-NODEPORTS") }).absentChains,
    ).toEqual([]);
    expect(traceRules(state, packet, options).absentChains).toEqual([]);
    // The same chain name in another table is another chain.
    const filter = [{ table: "filter", chain: SEPS[0] as string }];
    expect(traceRules(state, packet, { ...options, absentChains: filter }).absentChains).toEqual([]);
  });

  it("change nothing else in the trace", () => {
    const state = service([true, false, true]);
    const plain = traceRules(state, packet, { nodeAddresses: ["192.0.2.10"] });
    const marked = traceRules(state, packet, {
      nodeAddresses: ["192.0.2.10"],
      absentChains: absent(SEPS[1] as string),
    });
    expect(marked.outcomes).toEqual(plain.outcomes);
    expect(marked.absentChains).toEqual(absent(SEPS[1] as string));
  });
});

describe("the brief text", () => {
  it("prints outcomes that differ only in the statistic branches they took as one line", () => {
    const r = traceRules(service([false, false, false]), packet, { nodeAddresses: ["192.0.2.10"] });
    // The result keeps every path: each one's steps explain its probability.
    expect(r.outcomes.map((o) => formatFraction(o.probability))).toEqual([
      "0.166666667",
      "0.166666667",
      "0.333333333",
      "0.333333333",
    ]);
    expect(formatTraceText(r, false)).toBe(
      "default/web:http → 10.96.5.5:80 (no DNAT)  p=1.000000000  no masquerade\ntotal p=1.000000000\n",
    );
    // With the rules, each path is printed with its own.
    expect(formatTraceText(r).match(/^default\/web:http/gm)).toHaveLength(4);
  });

  it("keeps apart outcomes that end differently", () => {
    // Two endpoints DNAT, the middle one's chain is empty: its paths fall through to the last.
    const r = traceRules(service([true, false, true]), packet, { nodeAddresses: ["192.0.2.10"] });
    expect(formatTraceText(r, false)).toBe(
      [
        "default/web:http → 10.244.1.2:8080  p=0.333333333  no masquerade",
        "default/web:http → 10.244.1.4:8080  p=0.666666667  no masquerade",
        "total p=1.000000000",
        "",
      ].join("\n"),
    );
  });
});
