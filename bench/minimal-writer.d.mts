import type { ClusterModel } from "../src/index.js";

/** Why the minimal writer cannot write this model (the first assumption it breaks), or `null`. */
export declare function minimalWriterRefusal(model: ClusterModel): string | null;
/** The restore text of a model the writer accepts; throws for any other model. */
export declare function minimalRestoreText(model: ClusterModel): string;
/** The timed loop, unchecked: only for a model `minimalWriterRefusal` accepts. */
export declare function writeMinimalRestoreText(model: ClusterModel): string;
