// Generated files (results.json, RESULTS.md) are formatted with the repository's Biome settings,
// so that `npm run lint` passes on what the bench writes. Best effort: without Biome they stay
// as written.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./load.mjs";

/** Formats files (paths relative to the repository root) in place. */
export function tidy(files) {
  spawnSync(join(ROOT, "node_modules", ".bin", "biome"), ["format", "--write", ...files], {
    cwd: ROOT,
    stdio: "ignore",
  });
}
