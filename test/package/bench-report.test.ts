// bench/report.mjs judges a lower bound against its limit with a one-sided sign test on its
// rounds: the tail it computes must be the share of all 2^n outcomes with k or more heads.
import { describe, expect, it } from "vitest";
import { signTestTail } from "../../bench/report.mjs";

/** The share of the 2^n sequences of n tosses with at least k heads, by counting them. */
function countedTail(n: number, k: number): number {
  let hits = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let heads = 0;
    for (let bit = mask; bit !== 0; bit &= bit - 1) heads++;
    if (heads >= k) hits++;
  }
  return hits / 2 ** n;
}

describe("signTestTail", () => {
  it("is the share of outcomes with k or more heads, for every n ≤ 14 and k ≤ n + 1", () => {
    for (let n = 0; n <= 14; n++)
      for (let k = 0; k <= n + 1; k++) expect(signTestTail(n, k)).toBeCloseTo(countedTail(n, k), 12);
  });

  it("puts five of five rounds, 12 of 15 and 18 of 25 under 5%, and one round fewer over it", () => {
    for (const [n, k] of [
      [5, 5],
      [15, 12],
      [25, 18],
    ] as const) {
      expect(signTestTail(n, k)).toBeLessThan(0.05);
      expect(signTestTail(n, k - 1)).toBeGreaterThan(0.05);
    }
  });
});
