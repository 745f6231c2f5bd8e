// One kube-proxy vector written out as the files the CLI reads: the cluster (as a JSON cluster
// file), and the kernel's save text and kube-proxy's restore payload as dumps.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeProxyVector } from "./corpora.js";

/** The paths of a vector's files in `dir`. */
export interface VectorFiles {
  readonly clusterFile: string;
  readonly saveFile: string;
  readonly restoreFile: string;
}

/** Writes `vector`'s cluster, save text and restore payload into `dir`. */
export function writeVectorFiles(dir: string, vector: KubeProxyVector): VectorFiles {
  const clusterFile = join(dir, "cluster.json");
  writeFileSync(
    clusterFile,
    JSON.stringify({
      config: vector.config,
      services: vector.services,
      endpointSlices: vector.endpointSlices,
    }),
  );
  const saveFile = join(dir, "rules.save");
  writeFileSync(saveFile, vector.expected.save);
  const restoreFile = join(dir, "rules.restore");
  writeFileSync(restoreFile, vector.expected.restore);
  return { clusterFile, saveFile, restoreFile };
}
