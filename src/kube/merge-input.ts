/**
 * Several read inputs as one: a cluster put together from files (`generate svc.yaml eps.json`),
 * or from any other named sources.
 *
 * @module
 */
import { type Problem, problem } from "../errors.js";
import {
  givenSlicesNotes,
  type MirrorPaths,
  preferGivenSlices,
  sliceServiceName,
} from "./endpoints-mirror.js";
import { type ObjectOrigins, type SkippedObject, skippedNote } from "./list.js";
import type { ReadResult } from "./read-value.js";
import type { ClusterInput, EndpointSlice, ProxyConfigInput, Service } from "./types.js";
import { validateClusterInput } from "./validate.js";

/**
 * One source's read input and its name (a file name, as the user gave it).
 *
 * @example
 * const reads: NamedRead[] = files.map((file) => ({ source: file, read: readClusterText(readFileSync(file, "utf8")) }));
 * mergeClusterReads(reads); // one cluster; problems carry their file as `source`
 */
export interface NamedRead {
  /** The source's name, as problems should show it (`cluster.yaml`, `standard input`). */
  readonly source: string;
  /** What was read from it. */
  readonly read: ReadResult;
}

/** The problems of a cluster file's top level: its keys, and whether its lists are lists. */
function clusterShapeProblems(input: ClusterInput): Problem[] {
  const { services, endpointSlices } = input;
  return validateClusterInput({
    ...input,
    config: undefined,
    services: Array.isArray(services) ? [] : services,
    endpointSlices: Array.isArray(endpointSlices) ? [] : endpointSlices,
  });
}

/**
 * Puts read inputs together: their Services and EndpointSlices one after another, in source
 * order, and the config of the one source that has one. Every problem carries its `source`,
 * and so will those found later (`prepareCluster` with these `origins`): `formatProblem` prints
 * them as `b.yaml: items[3].spec.ports[0].port: …`. The input is `null` when a source
 * could not be read, or when more than one gives a config (which would win is not obvious).
 * Objects of other kinds are named in one note for all sources, and slices mirrored from
 * Endpoints give way to slices of the same Service given in any source.
 *
 * @example
 * const merged = mergeClusterReads([
 *   { source: "svc.yaml", read: readClusterText(services) },
 *   { source: "eps.yaml", read: readClusterText(slices) },
 * ]);
 * prepareCluster(merged.input, { origins: merged.origins });
 */
export function mergeClusterReads(reads: readonly NamedRead[]): ReadResult {
  const problems: Problem[] = [];
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  const origins = { services: [] as string[], endpointSlices: [] as string[] };
  const sources = { services: [] as string[], endpointSlices: [] as string[] };
  const mirrors: (MirrorPaths | undefined)[] = [];
  const skipped: SkippedObject[] = [];
  let config: { readonly value: ProxyConfigInput; readonly source: string } | undefined;
  let readable = true;
  for (const { source, read } of reads) {
    // The sources' notes on skipped kinds become one, below.
    for (const p of read.problems) if (p.code !== "OTHER_KIND") problems.push({ ...p, source });
    for (const object of read.skipped ?? []) skipped.push({ ...object, source });
    const input = read.input;
    if (input === null) {
      readable = false;
      continue;
    }
    if (input.config !== undefined) {
      if (config !== undefined) {
        readable = false;
        problems.push({
          ...problem("DUPLICATE", "config", `config is also given in ${config.source}: give it once`),
          source,
        });
      } else config = { value: input.config, source };
    }
    if (read.shape === "cluster") {
      // The file's own shape (unknown keys, lists that are not lists) is checked here, its
      // objects and config once they are together.
      const shapeErrors = clusterShapeProblems(input);
      for (const p of shapeErrors) problems.push({ ...p, source });
      if (shapeErrors.some((p) => p.severity === "error")) {
        readable = false;
        continue;
      }
    }
    // A cluster file's objects have no origins of their own: their paths are where they are.
    const add = <T>(objects: readonly T[] | undefined, kind: "services" | "endpointSlices", into: T[]) => {
      const own: ObjectOrigins[typeof kind] = read.origins[kind];
      (objects ?? []).forEach((object, i) => {
        into.push(object);
        origins[kind].push(own[i] ?? `${kind}[${i}]`);
        sources[kind].push(source);
      });
    };
    add(input.services, "services", services);
    add(input.endpointSlices, "endpointSlices", endpointSlices);
    const own = read.origins.endpointSliceMirrors;
    for (let i = 0; i < (input.endpointSlices?.length ?? 0); i++) mirrors.push(own?.[i]);
  }
  // Slices mirrored from one file's Endpoints give way to the same Service's slices in another.
  const mirrored = mirrors.map((m) => m !== undefined);
  const prefer = mirrored.includes(true)
    ? preferGivenSlices(endpointSlices, mirrored)
    : { keep: mirrored.map(() => true), dropped: [] };
  const dropped = prefer.dropped.map((i) => ({
    path: origins.endpointSlices[i] ?? "",
    service: sliceServiceName(endpointSlices[i]),
    source: sources.endpointSlices[i] ?? "",
  }));
  // The file they are in, when all are in one (a note on several files names none).
  const from = new Set(dropped.map((d) => d.source));
  for (const note of givenSlicesNotes(dropped))
    problems.push(from.size === 1 ? { ...note, source: dropped[0]?.source ?? "" } : note);
  const kept = (_: unknown, i: number) => prefer.keep[i] === true;
  const note = skippedNote(skipped);
  if (note !== undefined) problems.push(note);
  const input: ClusterInput = {
    ...(config === undefined ? {} : { config: config.value }),
    services,
    endpointSlices: endpointSlices.filter(kept),
  };
  return {
    input: readable ? input : null,
    shape: "list",
    origins: {
      services: origins.services,
      endpointSlices: origins.endpointSlices.filter(kept),
      sources: { services: sources.services, endpointSlices: sources.endpointSlices.filter(kept) },
      endpointSliceMirrors: mirrors.filter(kept),
    },
    problems,
    skipped,
  };
}
