// The bad-input corpus (test/bad-inputs/): its files and the problems expected.json lists for
// each, shared by the library test and the CLI test.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One expected problem. */
export interface Expected {
  code: string;
  path: string;
  message: string;
}

/** Absolute path of test/bad-inputs. */
export const BAD_INPUTS_DIR: string = join(dirname(fileURLToPath(import.meta.url)), "..", "bad-inputs");

/** The problems expected for each corpus file. */
export const expected: Record<string, Expected[]> = JSON.parse(
  readFileSync(join(BAD_INPUTS_DIR, "expected.json"), "utf8"),
) as Record<string, Expected[]>;

/** The corpus files (JSON or YAML), sorted. */
export const files: string[] = readdirSync(BAD_INPUTS_DIR)
  .filter((f) => /\.(json|yaml)$/.test(f) && f !== "expected.json")
  .sort();
