import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One temporary directory per run, removed at its end (tests create theirs under os.tmpdir()).
    globalSetup: ["test/support/temp-root.ts"],
    // Type tests (test/types/*.test-d.ts) run under `vitest run --typecheck` (`npm test`).
    typecheck: { include: ["test/types/**/*.test-d.ts"], tsconfig: "test/tsconfig.json" },
  },
});
