// The incremental engine on a cluster large enough that its order of service ports spans many
// chunks: changes anywhere in it (first, last, middle, bursts that empty a chunk or grow one
// past its size) give deltas that, applied to the previous state, give a full generation's.
import { describe, expect, it } from "vitest";
import { formatSave } from "../src/format/save.js";
import { generateState } from "../src/iptables/output/rules.js";
import { applyRestore } from "../src/ir/state.js";
import { modelFromInput } from "../src/kube/to-model.js";
import { createSync } from "../src/sync/index.js";
import { randomCluster, seededRng } from "./support/random-cluster.js";
import type { EndpointSlice, Service } from "./support/stored-types.js";

const nameOf = (s: Service): string => s.metadata.name ?? "";
const ownerOf = (s: EndpointSlice): string => s.metadata.labels?.["kubernetes.io/service-name"] ?? "";

describe("sync over many chunks", () => {
  it("random changes across a 700-service cluster", () => {
    const base = randomCluster(3, { clusterIPOnly: true, minServices: 700, maxServices: 700 });
    const donor = randomCluster(4, { clusterIPOnly: true, minServices: 400, maxServices: 400 });
    const rng = seededRng(5);
    const sync = createSync(base.config);
    let services: Service[] = [...base.services];
    let slices: EndpointSlice[] = [...base.endpointSlices];
    let prev = sync.update(services, slices).state;
    let spare = 0;
    for (let step = 0; step < 24; step++) {
      const kind = step % 4;
      if (kind === 0) {
        // Remove a run of neighbouring services (in generation order): empties a chunk.
        const sorted = services.map(nameOf).sort();
        const from = rng.int(0, sorted.length - 1);
        const gone = new Set(sorted.slice(from, from + rng.int(1, 160)));
        services = services.filter((s) => !gone.has(nameOf(s)));
        slices = slices.filter((s) => !gone.has(ownerOf(s)));
      } else if (kind === 1) {
        // Add a burst of services whose names sort together: grows one chunk past its size.
        const tag = `zz-${step}-`;
        const batch = donor.services.slice(spare, spare + rng.int(1, 90));
        spare += batch.length;
        const names = new Set(batch.map(nameOf));
        services = [
          ...services,
          ...batch.map((s) => ({ ...s, metadata: { ...s.metadata, name: `${tag}${nameOf(s)}` } })),
        ];
        slices = [
          ...slices,
          ...donor.endpointSlices
            .filter((s) => names.has(ownerOf(s)))
            .map((s) => ({
              ...s,
              metadata: {
                ...s.metadata,
                name: `${tag}${s.metadata.name ?? ""}`,
                labels: { ...s.metadata.labels, "kubernetes.io/service-name": `${tag}${ownerOf(s)}` },
              },
            })),
        ];
      } else {
        // Change a few slices anywhere: their endpoints move or go.
        slices = slices.slice();
        for (let k = rng.int(1, 6); k > 0; k--) {
          const at = rng.int(0, slices.length - 1);
          const s = slices[at] as EndpointSlice;
          const endpoints = s.endpoints ?? [];
          slices[at] = { ...s, endpoints: kind === 2 ? endpoints.slice(1) : [...endpoints].reverse() };
        }
      }
      const r = sync.update(services, slices);
      const want = formatSave(
        generateState(modelFromInput({ config: base.config, services, endpointSlices: slices })),
      );
      expect(formatSave(applyRestore(prev, r.delta, { noflush: true })), `step ${step}`).toBe(want);
      expect(formatSave(r.state), `step ${step}`).toBe(want);
      prev = r.state;
    }
    expect(services.length).toBeGreaterThan(200);
  });
});
