// The IPv6 data-plane test: the same checks as the IPv4 one, with rules loaded by
// ip6tables-restore and every address in fd00::/8 (see suite.ts and topology.ts).
import { describe, expect, it } from "vitest";
import { assertTestAddress } from "./netns.js";
import { dataplaneSuite } from "./suite.js";

dataplaneSuite("IPv6");

describe("data plane: the address guard", () => {
  it("lets through 198.18.0.0/15 and fd00::/8 only", () => {
    for (const ok of ["198.18.1.11", "198.19.255.2", "fd00:18:1::11", "FD00::1", "fdff::"])
      expect(() => assertTestAddress(ok)).not.toThrow();
    for (const bad of [
      "198.20.0.1",
      "10.0.0.1",
      "fd::1",
      "fe80::1",
      "fc00::1",
      "::ffff:198.18.0.1",
      "fd00:zz::1",
    ])
      expect(() => assertTestAddress(bad), bad).toThrow(/refusing/);
  });
});
