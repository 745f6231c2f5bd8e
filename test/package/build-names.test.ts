// The published build is minified, but a stack trace through it still names the library's
// functions (tsup's keepNames): what a user pastes into a bug report must say where it failed.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const DIST = join(import.meta.dirname, "..", "..", "dist", "index.js");

describe.skipIf(!existsSync(DIST))("the built package's stack traces", () => {
  it("name the function that threw and the ones it went through", async () => {
    const built = (await import(pathToFileURL(DIST).href)) as typeof import("../../src/index.js");
    let stack = "";
    try {
      built.parseRulesOrThrow("*nat\n-A KUBE-X -j KUBE-Y\nCOMMIT\n");
    } catch (error) {
      stack = (error as Error).stack ?? "";
    }
    expect(stack).toMatch(/^\s+at (Module\.)?parseRulesOrThrow \(.*dist\/chunk-[^)]*\.js:\d+:\d+\)$/m);
    let thrownIn = "";
    try {
      built.formatSave({
        family: "IPv4",
        tables: [
          {
            name: "nat",
            chains: [],
            entries: [
              { kind: "rule", op: "-A", chain: "X", args: ["-p", "tcp", "--dport", "99999", "-j", "ACCEPT"] },
            ],
          },
        ],
      });
    } catch (error) {
      thrownIn = (error as Error).stack ?? "";
    }
    // Several of the library's own frames, each by its source name (none minified to a letter).
    const frames = [...thrownIn.matchAll(/^\s+at (\S+) \(.*dist\/chunk-/gm)].map((m) => m[1] as string);
    expect(frames.length).toBeGreaterThan(1);
    for (const name of frames)
      expect(name.replace(/^(new |Object\.|Module\.)/, "").length).toBeGreaterThan(2);
  });
});
