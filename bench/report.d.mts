/** The chance of `k` or more heads in `n` fair coin tosses (a one-sided sign test's p-value). */
export function signTestTail(n: number, k: number): number;
