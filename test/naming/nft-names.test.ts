// nftables names: the hashes of spec/kube-proxy-nftables.md §2.2 (recomputed there from
// kube-proxy's code and matched against real output) and the 240-character cap.
import { describe, expect, test } from "vitest";
import {
  NFT_NAME_BASE_MAX,
  nftEndpointBase,
  nftNameBase,
  nftServicePortNames,
} from "../../src/naming/nft-names.js";

describe("nftables names", () => {
  test.each([
    ["default/web/tcp/http", "SUSTUHLJ"],
    ["default/web/tcp/http__10.244.1.1/8080", "6NNI7AUO"],
    ["ns1/svc1/tcp/p80", "ULMVA6XW"],
    ["ns1/svc1/tcp/p80__10.180.0.1/80", "5OJB2KTY"],
    ["default/web6/tcp/http__fd00.10.244.1..5/8080", "NZTBPJL7"],
    ["kproxy-lab/backend-api/tcp/http", "YVSKLJHA"],
  ])("%s → %s", (readable, hash) => {
    expect(nftNameBase(readable)).toBe(`${hash}-${readable}`);
  });

  test("service port chains share one base; an unnamed port leaves a trailing slash", () => {
    const names = nftServicePortNames("default", "web", "tcp", "");
    expect(names.service).toBe("service-PFISGYVC-default/web/tcp/");
    expect(names.external).toBe("external-PFISGYVC-default/web/tcp/");
  });

  test("an IPv6 endpoint's colons become dots", () => {
    expect(nftEndpointBase("default/web6/tcp/http", "fd00:10:244:1::5", 8080)).toBe(
      "NZTBPJL7-default/web6/tcp/http__fd00.10.244.1..5/8080",
    );
  });

  test("a base over 240 characters is cut to 237 plus '...', hashed over the whole text", () => {
    const long = `${"a".repeat(63)}/${"b".repeat(63)}/tcp/${"c".repeat(63)}__fd00.1111.2222.3333.4444.5555.6666.7777/65535`;
    const base = nftNameBase(long);
    expect(base.length).toBe(NFT_NAME_BASE_MAX);
    expect(base.endsWith("...")).toBe(true);
    expect(base.slice(9, NFT_NAME_BASE_MAX - 3)).toBe(long.slice(0, NFT_NAME_BASE_MAX - 12));
    // Two texts that differ only past the cut keep different names.
    expect(nftNameBase(`${long}x`)).not.toBe(base);
  });
});
