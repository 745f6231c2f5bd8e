/**
 * The labels that keep an object out of kube-proxy's sight: its informers list Services and
 * EndpointSlices with a selector that requires both to be absent (kube-proxy's server setup),
 * so an object carrying either is never seen, whatever else it says. The API server stores
 * such objects as valid.
 *
 * @module
 */

/** Labels that make kube-proxy's informers ignore a Service or an EndpointSlice. */
export const UNWATCHED_LABELS: readonly string[] = [
  "service.kubernetes.io/service-proxy-name",
  "service.kubernetes.io/headless",
];

/**
 * The first label of `labels` that hides the object from kube-proxy, or `null`.
 *
 * @example
 * unwatchedLabel({ "service.kubernetes.io/headless": "" }) // "service.kubernetes.io/headless"
 * unwatchedLabel({ app: "web" }) // null
 */
export function unwatchedLabel(labels: object | null | undefined): string | null {
  // `labels: null` is JSON for "no labels", as Go decodes it.
  if (labels == null) return null;
  for (const label of UNWATCHED_LABELS) if (label in labels) return label;
  return null;
}
