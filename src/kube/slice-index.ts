/**
 * The EndpointSlices of each Service, found by the Service's namespace and name as the input
 * spells them: no `namespace/name` string is built, flattened and hashed per object (which was a
 * tenth of building the 10k-Service model).
 *
 * @module
 */
import { isSliceRead, SERVICE_NAME_LABEL } from "./endpoints.js";
import type { EndpointSlice } from "./types.js";

const NONE: readonly never[] = [];

/**
 * Slices (or a value made of each, `T`) grouped exactly as `sliceServiceKey` groups them. That
 * key is `namespace/name`, so a namespace or name holding a `/` (invalid, but `buildModel` trusts
 * its input) can meet another split of the same string: slices with such a name are also kept by
 * that key, and a Service with one is looked up by it. Without a `/` on either side the two
 * lookups agree.
 */
export class SliceIndex<T = EndpointSlice> {
  private readonly byNamespace = new Map<string, Map<string, T[]>>();
  private readonly byKey = new Map<string, T[]>();

  /** Indexes `value` under `slice`'s Service, after those added before (unless kube-proxy ignores it). */
  add(slice: EndpointSlice, value: T): void {
    if (!isSliceRead(slice)) return;
    const namespace = text(slice.metadata?.namespace);
    const service = text(slice.metadata?.labels?.[SERVICE_NAME_LABEL]);
    if (namespace.includes("/") || service.includes("/"))
      pushTo(this.byKey, `${namespace}/${service}`, value);
    let names = this.byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(namespace, names);
    }
    pushTo(names, service, value);
  }

  /** The values of the Service `namespace/name`'s slices (as `buildModel` reads them), in order added. */
  slicesOf(namespaceValue: unknown, nameValue: unknown): readonly T[] {
    const namespace = text(namespaceValue ?? "");
    const name = text(nameValue ?? "");
    if (namespace.includes("/") || name.includes("/")) return this.byKey.get(`${namespace}/${name}`) ?? NONE;
    return this.byNamespace.get(namespace)?.get(name) ?? NONE;
  }
}

/** A name as the `namespace/name` key spells it (JSON strings stay as they are). */
function text(value: unknown): string {
  return typeof value === "string" ? value : `${value}`;
}

/** Indexes every slice (kube-proxy reads) in input order. */
export function indexSlices(slices: readonly EndpointSlice[]): SliceIndex {
  const index = new SliceIndex();
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i] as EndpointSlice;
    index.add(slice, slice);
  }
  return index;
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
