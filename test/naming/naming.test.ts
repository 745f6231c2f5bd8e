// Chain names: the known values from kube-proxy's tests and our seeds, and a property against an
// independent SHA-256 (node:crypto) + RFC 4648 base32.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chainHash, endpointChain, servicePortChains } from "../../src/index.js";
import { cachedNameCount, endpointChainList, limitCachedNames } from "../../src/naming/chain-names.js";
import { probability } from "../../src/naming/probability.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function referenceHash(input: string): string {
  const bytes = createHash("sha256").update(input, "utf8").digest();
  let bits = "";
  for (const b of bytes.subarray(0, 10)) bits += b.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < 80; i += 5) out += ALPHABET[Number.parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

describe("chain names", () => {
  it.each([
    ["default/nginx", "tcp", "KUBE-SVC-2CMXP7HKUVJN7L6M"],
    ["kube-system/kube-dns:dns", "udp", "KUBE-SVC-TCOU7JCQXEZGVUNU"],
    ["default/kubernetes:https", "tcp", "KUBE-SVC-NPX46M4PTMTKRN6Y"],
    ["ns1/svc1:p80", "tcp", "KUBE-SVC-XPGD46QRK7WJZT7O"],
    ["ns5/svc5:p80", "tcp", "KUBE-SVC-NUKIZ6OKUXPJNT4C"],
  ])("%s %s → %s", (spn, proto, chain) => {
    expect(servicePortChains(spn, proto).svc).toBe(chain);
  });
  it.each([
    ["default/nginx", "tcp", "10.244.2.2:80", "KUBE-SEP-HUXRPHBUO34UVPEF"],
    ["default/my-nginx-svc", "tcp", "10.244.3.38:80", "KUBE-SEP-DSBJGVCOU4RGUKVK"],
    ["ns1/svc1:p80", "tcp", "10.180.0.1:80", "KUBE-SEP-SXIVWICOYRO3J4NJ"],
    ["ns3/svc3:p8081", "tcp", "203.0.113.4:8081", "KUBE-SEP-RUVVH7YV3PHQBDOS"],
  ])("%s %s %s → %s", (spn, proto, ep, chain) => {
    expect(endpointChain(spn, proto, ep)).toBe(chain);
  });
  it("agrees with node:crypto on any text (multi-byte, surrogates, several blocks)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
        expect(chainHash(s)).toBe(referenceHash(s));
      }),
      { numRuns: 3000, seed: 20261122 },
    );
  });
  it("hashes an unpaired surrogate as the U+FFFD it decodes to (as node:crypto and Go's JSON do)", () => {
    expect(chainHash("ns/a\ud800b:ptcp")).toBe(referenceHash("ns/a\ufffdb:ptcp"));
    expect(chainHash("\udc00")).toBe(referenceHash("\ufffd"));
    expect(chainHash("x\ud83d")).toBe(referenceHash("x\ufffd"));
    const codeUnit = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(codeUnit, { maxLength: 120 }), (units) => {
        const s = String.fromCharCode(...units);
        expect(chainHash(s)).toBe(referenceHash(s));
      }),
      { numRuns: 3000, seed: 20261122 },
    );
  });
  it("keeps one port name's protocols apart, each remembered with its endpoints", () => {
    // A port whose protocol changed (or two protocols asked in turn) shares the name's cache entry.
    const spn = "proto/web:p";
    const eps = [{ endpoint: "10.0.0.1:53" }, { endpoint: "10.0.0.2:53" }];
    for (let round = 0; round < 2; round++) {
      for (const protocol of ["tcp", "udp", "sctp"]) {
        const chains = servicePortChains(spn, protocol);
        const hash = referenceHash(`${spn}${protocol}`);
        expect([chains.svc, chains.svl, chains.ext, chains.fw]).toEqual([
          `KUBE-SVC-${hash}`,
          `KUBE-SVL-${hash}`,
          `KUBE-EXT-${hash}`,
          `KUBE-FW-${hash}`,
        ]);
        expect(endpointChainList(spn, protocol, eps)).toEqual(
          eps.map((e) => `KUBE-SEP-${referenceHash(`${spn}${protocol}${e.endpoint}`)}`),
        );
      }
    }
  });
  it("keeps its caches bounded and the names right when they start over", () => {
    // A long-running controller sees endpoints come and go: more distinct names than the bound.
    const endpoint = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:${8000 + (i >> 24)}`;
    const bound = 500;
    const previous = limitCachedNames(bound);
    const first = endpointChainList("churn/web:http", "tcp", [{ endpoint: endpoint(0) }])[0];
    let peak = 0;
    let startedOver = false;
    // Each round remembers a list one endpoint longer than the last (new endpoints arriving).
    for (let i = 1; i <= 120; i++) {
      const before = cachedNameCount();
      const list = Array.from({ length: i }, (_, j) => ({ endpoint: endpoint(j) }));
      endpointChainList(`churn/web-${i % 7}:http`, "tcp", list);
      servicePortChains(`churn/other-${i}:http`, "tcp");
      if (cachedNameCount() < before) startedOver = true;
      peak = Math.max(peak, cachedNameCount());
    }
    limitCachedNames(previous);
    expect(peak).toBeLessThanOrEqual(bound);
    expect(startedOver).toBe(true);
    // After starting over, names are hashed again and come out the same.
    expect(endpointChainList("churn/web:http", "tcp", [{ endpoint: endpoint(0) }])[0]).toBe(first);
    expect(first).toBe(`KUBE-SEP-${referenceHash(`churn/web:httptcp${endpoint(0)}`)}`);
    expect(servicePortChains("default/kubernetes:https", "tcp").svc).toBe("KUBE-SVC-NPX46M4PTMTKRN6Y");
  });
  it("names every list of a port's endpoints as one endpoint at a time would, whatever the order", () => {
    // Lists remembered, then asked again as new objects, as parts, out of order, and changed.
    const address = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 40 }));
    fc.assert(
      fc.property(
        fc.array(fc.array(address, { maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom("a/web:http", "b/dns", "c/x:p"),
        (lists, spn) => {
          for (const list of lists) {
            const endpoints = list.map(([a, b]) => ({ endpoint: `10.0.${a}.${b}:80` }));
            const expected = endpoints.map((e) => `KUBE-SEP-${referenceHash(`${spn}tcp${e.endpoint}`)}`);
            expect(endpointChainList(spn, "tcp", endpoints)).toEqual(expected);
            const sorted = [...endpoints].sort((x, y) => (x.endpoint < y.endpoint ? -1 : 1));
            expect(endpointChainList(spn, "tcp", sorted)).toEqual(
              sorted.map((e) => endpointChain(spn, "tcp", e.endpoint)),
            );
          }
        },
      ),
      { numRuns: 300, seed: 20261124 },
    );
  });
});

describe("probabilities as kube-proxy writes them", () => {
  it.each([
    [2, "0.5000000000"],
    [3, "0.3333333333"],
    [6, "0.1666666667"],
    [7, "0.1428571429"],
    [1000, "0.0010000000"],
    [2048, "0.0004882812"],
    [4096, "0.0002441406"],
    [100001, "0.0000099999"],
  ])("1/%i → %s", (n, text) => {
    expect(probability(n)).toBe(text);
  });
});
