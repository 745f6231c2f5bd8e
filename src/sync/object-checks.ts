/**
 * Validation for the incremental engine (`createSync(config, { validate: true })`), in time
 * proportional to the change: each object is checked once, when it first appears (by reference,
 * as the engine tracks objects), with the checks `validateClusterInput` makes on that object
 * alone. An object with errors is left out of the update, as `prepareCluster` leaves it out, and
 * reported at its place in every update's lists for as long as it is there.
 *
 * @module
 */
import type { Problem } from "../errors.js";
import type { EndpointSlice, Service } from "../kube/types.js";
import { validateClusterInput } from "../kube/validate.js";
import type { Profile } from "../model/types.js";
import { identityChanges } from "./tracker.js";

type ListName = "services" | "endpointSlices";

/** The objects an update may use, and the problems of those it may not. */
export interface CheckedObjects {
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  /** The errors of the objects left out, with paths into the update's lists. */
  readonly problems: readonly Problem[];
}

/** The problems of an update without any (shared, frozen). */
export const NO_PROBLEMS: readonly Problem[] = Object.freeze([]);

/** Remembers, from one update to the next, which of the current objects have errors. */
export class ObjectChecks {
  private services: readonly Service[] = [];
  private slices: readonly EndpointSlice[] = [];
  /** Each current object with errors, and its errors with paths relative to the object. */
  private readonly invalid = new Map<unknown, readonly Problem[]>();

  /** @param profile - the kube-proxy release the objects are read for (see `ValidateOptions`) */
  constructor(private readonly profile: Profile) {}

  /**
   * Checks the objects not seen in the previous update and returns the lists without the objects
   * that have errors (the lists themselves when none has).
   */
  accept(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): CheckedObjects {
    this.track(this.services, services, "services");
    this.track(this.slices, endpointSlices, "endpointSlices");
    this.services = services;
    this.slices = endpointSlices;
    if (this.invalid.size === 0) return { services, endpointSlices, problems: NO_PROBLEMS };
    const problems: Problem[] = [];
    return {
      services: this.keep(services, "services", problems),
      endpointSlices: this.keep(endpointSlices, "endpointSlices", problems),
      problems,
    };
  }

  private track(previous: readonly unknown[], next: readonly unknown[], list: ListName): void {
    const { fresh, gone } = identityChanges(previous, next);
    // One copy gone of an object listed twice leaves the other (scanned for only when the object
    // has errors, which is rare).
    for (const object of gone)
      if (this.invalid.has(object) && !next.includes(object)) this.invalid.delete(object);
    for (const object of fresh) {
      const errors = this.errorsOf(object, list);
      if (errors.length > 0) this.invalid.set(object, errors);
    }
  }

  /** The errors of one object, with paths relative to it (`.spec.ports[0].port`, or `""`). */
  private errorsOf(object: unknown, list: ListName): Problem[] {
    const at = `${list}[0]`;
    return validateClusterInput({ [list]: [object] }, { profile: this.profile })
      .filter((p) => p.severity === "error")
      .map((p) => ({ ...p, path: p.path.slice(at.length) }));
  }

  /** `list` without its objects with errors, whose errors go to `problems` at their index. */
  private keep<T>(list: readonly T[], name: ListName, problems: Problem[]): readonly T[] {
    let kept: T[] | null = null;
    for (let i = 0; i < list.length; i++) {
      const errors = this.invalid.get(list[i]);
      if (errors === undefined) {
        kept?.push(list[i] as T);
        continue;
      }
      kept ??= list.slice(0, i);
      for (const p of errors) problems.push({ ...p, path: `${name}[${i}]${p.path}` });
    }
    return kept ?? list;
  }
}
