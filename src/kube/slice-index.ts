/**
 * The EndpointSlices of each Service, found by the Service's namespace and name as the input
 * spells them: no `namespace/name` string is built, flattened and hashed per object (which was a
 * tenth of building the 10k-Service model).
 *
 * @module
 */
import { isSliceRead, SERVICE_NAME_LABEL } from "./endpoints.js";
import type { EndpointSlice } from "./types.js";

const NONE: readonly EndpointSlice[] = [];

/**
 * Slices grouped exactly as `sliceServiceKey` groups them. That key is `namespace/name`, so a
 * namespace or name holding a `/` (invalid, but `buildModel` trusts its input) can meet another
 * split of the same string: slices with such a name are also kept by that key, and a Service
 * with one is looked up by it. Without a `/` on either side the two lookups agree.
 */
export class SliceIndex {
  private readonly byNamespace = new Map<string, Map<string, EndpointSlice[]>>();
  private readonly byKey = new Map<string, EndpointSlice[]>();

  /** Indexes the slices; each Service's list keeps their input order. */
  constructor(slices: readonly EndpointSlice[]) {
    for (let i = 0; i < slices.length; i++) this.add(slices[i] as EndpointSlice);
  }

  private add(slice: EndpointSlice): void {
    if (!isSliceRead(slice)) return;
    const namespace = text(slice.metadata.namespace);
    const service = text(slice.metadata.labels?.[SERVICE_NAME_LABEL]);
    if (namespace.includes("/") || service.includes("/"))
      pushTo(this.byKey, `${namespace}/${service}`, slice);
    let names = this.byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(namespace, names);
    }
    pushTo(names, service, slice);
  }

  /** The slices of the Service `namespace/name` (as `buildModel` reads them), in input order. */
  slicesOf(namespaceValue: unknown, nameValue: unknown): readonly EndpointSlice[] {
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

function pushTo(map: Map<string, EndpointSlice[]>, key: string, slice: EndpointSlice): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [slice]);
  else list.push(slice);
}
