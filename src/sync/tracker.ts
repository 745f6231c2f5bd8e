/**
 * Change tracking for Services and EndpointSlices, in the way an informer cache hands them out:
 * an unchanged object is passed again as the same reference, a changed one as a new object. The
 * tracker finds the objects that came and went in time proportional to the list, with nothing but
 * reference comparisons when little changed, and names the Services whose view must be rebuilt.
 *
 * @module
 */
import { sliceServiceKey } from "../kube/endpoints.js";
import type { EndpointSlice, Service } from "../kube/types.js";

/** The objects of a new list that were not in the old one, and the old ones that are gone. */
export interface IdentityChanges<T> {
  /** Objects not in the previous list. */
  readonly fresh: readonly T[];
  /** Objects of the previous list that are not in the new one. */
  readonly gone: readonly T[];
}

// Beyond this many mismatches the walk below gives up on positions and compares as sets.
const WALK_LIMIT = 64;

/**
 * Compares two lists by reference. Walks both in step and recognizes a single insertion,
 * deletion or replacement at a time (what an informer update looks like); when the lists differ
 * more than that, falls back to set membership, which is exact for any reordering.
 *
 * @example
 * identityChanges([a, b, c], [a, c, d]) // { fresh: [d], gone: [b] }
 */
export function identityChanges<T>(prev: readonly T[], next: readonly T[]): IdentityChanges<T> {
  if (prev === next) return { fresh: [], gone: [] };
  const fresh: T[] = [];
  const gone: T[] = [];
  let i = 0;
  let j = 0;
  while (i < next.length && j < prev.length) {
    const n = next[i] as T;
    const p = prev[j] as T;
    if (n === p) {
      i++;
      j++;
    } else if (next[i + 1] === p) {
      fresh.push(n);
      i++;
    } else if (prev[j + 1] === n) {
      gone.push(p);
      j++;
    } else {
      fresh.push(n);
      gone.push(p);
      i++;
      j++;
    }
    if (fresh.length + gone.length > WALK_LIMIT) return bySets(prev, next);
  }
  for (; i < next.length; i++) fresh.push(next[i] as T);
  for (; j < prev.length; j++) gone.push(prev[j] as T);
  if (fresh.length + gone.length > WALK_LIMIT) return bySets(prev, next);
  return { fresh, gone };
}

function bySets<T>(prev: readonly T[], next: readonly T[]): IdentityChanges<T> {
  const before = new Set(prev);
  const after = new Set(next);
  return { fresh: next.filter((o) => !before.has(o)), gone: prev.filter((o) => !after.has(o)) };
}

/** `namespace/name` of a Service. */
export function serviceKey(service: Service): string {
  return `${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
}

/**
 * The current Services and EndpointSlices, indexed by Service, updated from one list pair to the
 * next. `apply` returns the keys of the Services whose objects or slices changed.
 */
export class ClusterIndex {
  private services: readonly Service[] = [];
  private slices: readonly EndpointSlice[] = [];
  private readonly serviceByKey = new Map<string, Service>();
  private readonly slicesByKey = new Map<string, Set<EndpointSlice>>();

  /** Takes the new lists and returns the keys of the Services to look at again. */
  apply(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): Set<string> {
    const dirty = new Set<string>();
    const s = identityChanges(this.services, services);
    // Gone first, so that an object that merely moved in the list is removed and added back.
    for (const svc of s.gone) {
      const key = serviceKey(svc);
      if (this.serviceByKey.get(key) === svc) this.serviceByKey.delete(key);
      dirty.add(key);
    }
    for (const svc of s.fresh) {
      const key = serviceKey(svc);
      this.serviceByKey.set(key, svc);
      dirty.add(key);
    }
    const e = identityChanges(this.slices, endpointSlices);
    for (const slice of e.gone) {
      const key = sliceServiceKey(slice);
      if (key === null) continue;
      const set = this.slicesByKey.get(key);
      if (set !== undefined) {
        set.delete(slice);
        if (set.size === 0) this.slicesByKey.delete(key);
      }
      dirty.add(key);
    }
    for (const slice of e.fresh) {
      const key = sliceServiceKey(slice);
      if (key === null) continue;
      let set = this.slicesByKey.get(key);
      if (set === undefined) {
        set = new Set();
        this.slicesByKey.set(key, set);
      }
      set.add(slice);
      dirty.add(key);
    }
    this.services = services;
    this.slices = endpointSlices;
    return dirty;
  }

  /** The Service with this key, if any. */
  service(key: string): Service | undefined {
    return this.serviceByKey.get(key);
  }

  /** The slices of the Service with this key. */
  slicesOf(key: string): EndpointSlice[] {
    const set = this.slicesByKey.get(key);
    return set === undefined ? [] : [...set];
  }
}
