import type { ClusterModel } from "../src/index.js";

/** The minimal writer's bytes, with the guard, a plan per port and memoized names (unchecked model). */
export declare function writeRequiredRestoreText(
  model: ClusterModel,
  options?: { readonly checked?: boolean; readonly memo?: boolean },
): string;
/** How many ports have their SEP names remembered. */
export declare function rememberedPorts(): number;
export { checkClusterObjects } from "./api-checks.mjs";
