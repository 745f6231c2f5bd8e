import type { WriterModel } from "./minimal-writer.mjs";

/** The save text of a model `minimalWriterRefusal` accepts, unchecked. */
export declare function writeMinimalSaveText(model: WriterModel): string;
