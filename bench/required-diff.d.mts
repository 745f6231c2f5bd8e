import type { WriterModel } from "./minimal-writer.mjs";

/** Which of kube-proxy's chains differ, per table (`{}`: none). */
export type DifferingChains = { readonly [table: string]: readonly string[] };

/** Where each chain of one table is in the written text. */
export interface WrittenTable {
  readonly name: string;
  readonly names: readonly string[];
  readonly policies: readonly string[];
}

/** The cluster's save text and where each chain is in it. */
export interface WrittenCluster {
  readonly text: string;
  readonly tables: ReadonlyMap<string, WrittenTable>;
}

/** The save text of a checked model (`generateSaveText`'s bytes), written from a plan per port. */
export declare function writeRequiredSaveText(model: WriterModel): WrittenCluster;
/** Which of kube-proxy's chains differ between a node's iptables-save dump and the written cluster. */
export declare function differingChains(dump: string, written: WrittenCluster): DifferingChains;
/** Read + parse the cluster file, check it, write it, read the dump, compare. */
export declare function requiredDiff(dumpPath: string, clusterPath: string): DifferingChains;
