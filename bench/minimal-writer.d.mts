import type { ClusterModel, Endpoint, ServicePort } from "../src/index.js";

/** What the timed loop reads of a model (a ClusterModel is one). */
export interface WriterModel {
  readonly config: Pick<ClusterModel["config"], "masqueradeBit" | "detectLocal">;
  readonly servicePorts: readonly (Pick<
    ServicePort,
    "namespace" | "name" | "portName" | "clusterIP" | "port"
  > & {
    readonly endpoints: readonly Pick<Endpoint, "ip" | "endpoint">[];
  })[];
}

/** Why the minimal writer cannot write this model (the first assumption it breaks), or `null`. */
export declare function minimalWriterRefusal(model: ClusterModel): string | null;
/** The restore text of a model the writer accepts; throws for any other model. */
export declare function minimalRestoreText(model: ClusterModel): string;
/** The timed loop, unchecked: only for a model `minimalWriterRefusal` accepts. */
export declare function writeMinimalRestoreText(model: WriterModel): string;
/** The writer's model read straight from a cluster file's objects, nothing checked (the CLI's lower bound). */
export declare function minimalModelOf(input: unknown): WriterModel;
/** kube-proxy's chain hash (16 base32 characters). */
export declare function hash(text: string): string;
/** kube-proxy's `--probability` text for `k` endpoints left. */
export declare function probability(k: number): string;
