// The real kube-proxy's figures for the same models (test/fixtures/kube-proxy/README.md,
// "Benchmark models"): v1.30.5, syncProxyRules only, a 2-core CI machine, medians of 5-7 runs,
// ±20-40% noise. Ranges are kept as [low, high]; ratios use their midpoint.

/** Full sync and partial sync (one endpoint changed) per model row. */
export const KUBE_PROXY = {
  "1k": { full: [102, 102], bytes: 3225922, rules: 32009, partial: [26, 26], partialBytes: 143467 },
  "5k": { full: [340, 340], bytes: 16203156, rules: 160009, partial: [126, 126], partialBytes: 704907 },
  "10k": { full: [520, 520], bytes: 32407666, rules: 320009, partial: [200, 200], partialBytes: 1406791 },
  "50k": {
    full: [5030, 6070],
    bytes: 162292564,
    rules: 1600009,
    partial: [1403, 1612],
    partialBytes: 7090063,
  },
  "1kx100": { full: [445, 450], bytes: 29881018, rules: 302009, partial: [88, 133], partialBytes: 169749 },
  mixed10k: { full: [933, 964], bytes: 41595024, rules: 380341, partial: [292, 310], partialBytes: 3975832 },
};

/** On the 10k ClusterIP model: adding and deleting one service. */
export const KUBE_PROXY_10K_CHANGES = {
  "add-service": { ms: [239, 287], bytes: 1406948 },
  "remove-service": { ms: [209, 355], bytes: null },
};

/** Peak memory of the kube-proxy process. */
export const KUBE_PROXY_PEAK_MEMORY = { "10k": 378e6, "50k": 2.0e9 };

/** Midpoint of a [low, high] range. */
export const mid = ([lo, hi]) => (lo + hi) / 2;

/** "520" or "5,030–6,070". */
export const range = ([lo, hi]) =>
  lo === hi ? lo.toLocaleString("en-US") : `${lo.toLocaleString("en-US")}–${hi.toLocaleString("en-US")}`;

/**
 * kube-proxy's time and bytes for a case, or `null` when it has no counterpart: a full sync for
 * `restore`, a partial sync for the incremental cases.
 */
export function kubeProxyFor(c) {
  if (c.kubeProxy === undefined) return null;
  const row = KUBE_PROXY[c.kubeProxy];
  if (c.op === "restore" || c.op === "resync")
    return { ms: row.full, bytes: row.bytes, rules: row.rules, what: "full sync" };
  if (c.op === "update-endpoint") return { ms: row.partial, bytes: row.partialBytes, what: "partial sync" };
  if (c.kubeProxy === "10k" && KUBE_PROXY_10K_CHANGES[c.op] !== undefined) {
    const ch = KUBE_PROXY_10K_CHANGES[c.op];
    return { ms: ch.ms, bytes: ch.bytes, what: "partial sync" };
  }
  return null;
}
