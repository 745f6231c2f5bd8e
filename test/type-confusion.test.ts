// Every field of real inputs, replaced in turn by a JSON value of every other kind (or removed):
// the non-throwing entry point must answer with problems, never with an exception, and a model
// it does return must generate. `config.detectLocal: null` once crashed `prepareCluster` with a
// TypeError, because every other error in the bad-input corpus hid it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { formatRestore } from "../src/format/restore.js";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { generateRules } from "../src/iptables/output/rules.js";
import { generateSaveText } from "../src/iptables/output/save-text.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import { splitKubernetesList } from "../src/kube/list.js";
import type { ClusterInput } from "../src/kube/types.js";
import type { Profile } from "../src/model/types.js";
import { listVectors, readJson, type Vector } from "./support/fixtures.js";
import { ROOT } from "./support/run-cli.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value of each JSON kind, plus the edge values validators get wrong. */
const REPLACEMENTS: readonly Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  65536,
  1e21,
  "",
  "x",
  "-",
  " ",
  "10.0.0.1",
  "::1",
  [],
  [null],
  [{}],
  {},
  { "": null },
];
const REMOVED: unique symbol = Symbol("removed");

/** Every path into a JSON value, the root included. */
function pathsOf(value: Json, path: (string | number)[] = []): (string | number)[][] {
  const out = [path];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(...pathsOf(value[i] as Json, [...path, i]));
  } else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...path, k]));
  return out;
}

/** A copy of `root` with the value at `path` replaced (or removed: spliced out of an array). */
function replaced(root: Json, path: (string | number)[], value: Json | typeof REMOVED): unknown {
  if (path.length === 0) return value === REMOVED ? undefined : value;
  const copy = structuredClone(root);
  let parent = copy as Record<string | number, Json> | Json[];
  for (const key of path.slice(0, -1))
    parent = (parent as Record<string | number, Json>)[key] as typeof parent;
  const last = path[path.length - 1] as string | number;
  if (value !== REMOVED) (parent as Record<string | number, Json>)[last] = value;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, Json>)[last];
  return copy;
}

/** Where a problem's message shows a JavaScript value that no JSON input holds. */
const LEAKED = /\bundefined\b|\[object |NaN/;

function check(input: unknown, profile: Profile | undefined): void {
  for (const family of ["IPv4", "IPv6"] as const) {
    const config = profile === undefined ? {} : { config: { profile } };
    const { model, problems } = prepareCluster(input as ClusterInput, { family, ...config });
    for (const p of problems) {
      expect(typeof p.path).toBe("string");
      expect(p.message).not.toBe("");
      expect(p.message).not.toMatch(LEAKED);
    }
    if (model === null) continue;
    const text = generateRestoreText(model);
    expect(text).toBe(formatRestore(generateRules(model)));
    expect(generateSaveText(model)).toMatch(/^\*filter\n/);
  }
}

/** A path with its list indexes left out: the same field of every Service shares one. */
function signatureOf(path: readonly (string | number)[]): string {
  return path.map((k) => (typeof k === "number" ? "*" : k)).join(".");
}

interface Base {
  readonly name: string;
  readonly input: Json;
  /** The paths to replace: the first of each signature no earlier base had. */
  readonly paths: (string | number)[][];
}

/**
 * The examples, then conformance vectors chosen greedily until every field signature any
 * vector has is covered; each field kind is replaced once, where it first occurs.
 */
function bases(folder: string): Base[] {
  const cluster = parse(readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8")) as Json;
  const list = splitKubernetesList(
    JSON.parse(readFileSync(join(ROOT, "examples", "kubectl-list.json"), "utf8")),
  );
  const fromList = {
    config: { hostname: "k8s1" },
    services: list.services,
    endpointSlices: list.endpointSlices,
  };
  const candidates = listVectors(folder).map(({ name, path }) => {
    const { config, services, endpointSlices } = readJson<Vector>(path);
    return { name, input: { config, services, endpointSlices } as Json };
  });
  const covered = new Set<string>();
  const fresh = (input: Json) => {
    const out = new Map<string, (string | number)[]>();
    for (const p of pathsOf(input)) {
      const sig = signatureOf(p);
      if (!covered.has(sig) && !out.has(sig)) out.set(sig, p);
    }
    return out;
  };
  const take = (name: string, input: Json): Base => {
    const paths = fresh(input);
    for (const sig of paths.keys()) covered.add(sig);
    return { name, input, paths: [...paths.values()] };
  };
  const out = [
    take("examples/cluster.yaml", cluster),
    take("examples/kubectl-list.json", fromList as unknown as Json),
  ];
  for (;;) {
    let best: { name: string; input: Json; gain: number } | undefined;
    for (const c of candidates) {
      const gain = fresh(c.input).size;
      if (gain > (best?.gain ?? 0)) best = { ...c, gain };
    }
    if (best === undefined) return out;
    out.push(take(best.name, best.input));
  }
}

for (const [folder, profile] of [
  ["kube-proxy", undefined],
  ["kube-proxy-v1.22", "v1.22"],
] as const) {
  describe(`a field of every JSON kind, anywhere (${folder})`, () => {
    for (const base of bases(folder)) {
      test(`${base.name}: problems, never exceptions; a returned model generates`, () => {
        for (const path of base.paths) {
          // The root itself is not removed: `undefined` is no JSON input.
          const values: (Json | typeof REMOVED)[] =
            path.length === 0 ? [...REPLACEMENTS] : [...REPLACEMENTS, REMOVED];
          for (const value of values) {
            try {
              check(replaced(base.input, path, value), profile);
            } catch (e) {
              const shown = value === REMOVED ? "(removed)" : JSON.stringify(value);
              throw new Error(`${path.join(".") || "(root)"} = ${shown}: ${(e as Error).message}`);
            }
          }
        }
      });
    }
  });
}
