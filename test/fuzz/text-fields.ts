// Optional text fields the random cluster generator leaves out, added so that the injection
// fuzzer has every text field of the input to aim at: endpoint hostnames, node hints,
// annotations, labels, appProtocol, interface names for local-traffic detection.

import type { RandomCluster } from "../support/random-cluster.js";
import type { ClusterInput, EndpointSlice, Service } from "../support/stored-types.js";

type Mutable<T> = { -readonly [K in keyof T]: Mutable<T[K]> };

/**
 * A copy of `cluster` with the optional text fields filled in; `seed` picks the local-traffic
 * detection mode (every mode that names an interface appears among consecutive seeds).
 */
export function decorateTextFields(cluster: RandomCluster, seed: number): ClusterInput {
  const out = structuredClone(cluster) as Mutable<RandomCluster>;
  const config = out.config;
  if (seed % 4 === 1) config.detectLocal = { mode: "BridgeInterface", interface: "cbr0" };
  if (seed % 4 === 2) config.detectLocal = { mode: "InterfaceNamePrefix", prefix: "veth" };
  config.nodeLabels = { ...config.nodeLabels, "kubernetes.io/hostname": config.hostname ?? "node-a" };
  out.services.forEach((s: Mutable<Service>) => {
    s.metadata.labels = { app: s.metadata.name ?? "x", tier: "backend" };
    s.metadata.annotations = { "example.com/note": "free text" };
    const port = s.spec.ports?.[0];
    if (port !== undefined) port.appProtocol = "http";
  });
  out.endpointSlices.forEach((slice: Mutable<EndpointSlice>, i) => {
    slice.metadata.annotations = { "example.com/note": "free text" };
    slice.endpoints?.forEach((ep, j) => {
      ep.hostname = `pod-${i}-${j}`;
      if (j % 2 === 0) ep.hints = { ...ep.hints, forNodes: [{ name: ep.nodeName ?? "node-a" }] };
    });
  });
  return out;
}
