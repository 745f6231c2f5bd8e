/**
 * Where model building finds each Service's endpoints: read from its slices there and then
 * (`buildModel`), or built while validating (`prepareCluster`). The validator reads every
 * endpoint object anyway; building its model endpoint right after, while the object is still in
 * the CPU cache, spares a second pass over 100,000 endpoint objects that paid for every first
 * read again.
 *
 * @module
 */
import type { IPFamily, ProxyConfig } from "../model/types.js";
import {
  addSliceEndpoints,
  bySliceName,
  type DuplicatePolicy,
  endpointsByPort,
  finishEndpoints,
} from "./endpoints.js";
import { PortEndpoints } from "./port-endpoints.js";
import { indexSlices, type SliceIndex } from "./slice-index.js";
import type { EndpointSlice } from "./types.js";

/** The endpoints of each Service, by port key (see `endpointsByPort`). */
export interface EndpointSource {
  /**
   * The endpoints of the Service `namespace/name`, at `index` of the Services the model is built
   * from, or `undefined` when it has no slices.
   */
  endpointsOf(
    index: number,
    namespace: unknown,
    name: unknown,
    duplicates: DuplicatePolicy,
  ): PortEndpoints | undefined;
}

/** Reads each Service's slices when asked (the unchecked path). */
export class SliceReader implements EndpointSource {
  private readonly index: SliceIndex;

  constructor(
    slices: readonly EndpointSlice[],
    private readonly family: IPFamily,
    private readonly hostname: string,
  ) {
    this.index = indexSlices(slices);
  }

  endpointsOf(
    _index: number,
    namespace: unknown,
    name: unknown,
    duplicates: DuplicatePolicy,
  ): PortEndpoints | undefined {
    const own = this.index.slicesOf(namespace, name);
    return own.length === 0 ? undefined : endpointsByPort(own, this.family, this.hostname, duplicates);
  }
}

/** One slice's endpoints, by port key, in endpoint order. */
interface SliceEndpoints {
  readonly slice: EndpointSlice;
  readonly byPort: PortEndpoints;
}

/**
 * The endpoints of the slices the validator found no error in, built as it goes, for one family
 * and node name, and kept by the Service they belong to: the validator finds that Service anyway
 * (to check the slice's ports against it), so no index of slices by Service name is built.
 * Slices with errors are never added, as `prepareCluster` leaves them out.
 */
export class PrebuiltEndpoints implements EndpointSource {
  /** Each Service's slices, by the Service's index in the input (see {@link dropServices}). */
  private byService: (SliceEndpoints[] | undefined)[] = [];

  /**
   * @param family - the family being built
   * @param hostname - kube-proxy's node name, for `isLocal`
   */
  constructor(
    readonly family: IPFamily,
    readonly hostname: string,
  ) {}

  /** Whether these are the endpoints of a model with this config (else the slices are read). */
  usableFor(config: ProxyConfig): boolean {
    return this.family === config.ipFamily && this.hostname === config.hostname;
  }

  /**
   * Builds the endpoints of a slice the validator found no error in, for the Service at
   * `service` of the input: the one whose namespace and name are the slice's namespace and
   * Service name label, as kube-proxy groups slices (`sliceServiceKey`).
   *
   * @param canonical - the validator also found every address written in canonical form
   */
  add(slice: EndpointSlice, canonical: boolean, service: number): void {
    // Slices of the other family add no endpoints (addSliceEndpoints would skip them).
    if (slice.addressType !== this.family) return;
    const byPort = new PortEndpoints();
    addSliceEndpoints(byPort, slice, this.family, this.hostname, canonical);
    // Filled up to the index first: a store far past the end would turn the array into a
    // dictionary (slices need not come in their Services' order).
    const byService = this.byService;
    while (byService.length <= service) byService.push(undefined);
    const own = byService[service];
    if (own === undefined) byService[service] = [{ slice, byPort }];
    else own.push({ slice, byPort });
  }

  /**
   * Renumbers the Services as the input without those at `bad` numbers them (`prepareCluster`
   * builds the model from the valid Services only).
   */
  dropServices(bad: ReadonlySet<number>): void {
    if (bad.size === 0) return;
    const kept: (SliceEndpoints[] | undefined)[] = [];
    for (let i = 0; i < this.byService.length; i++) if (!bad.has(i)) kept.push(this.byService[i]);
    this.byService = kept;
  }

  endpointsOf(
    index: number,
    _namespace: unknown,
    _name: unknown,
    duplicates: DuplicatePolicy,
  ): PortEndpoints | undefined {
    const own = this.byService[index];
    if (own === undefined) return undefined;
    if (own.length === 1) {
      // Nearly every Service has one slice: its map becomes the Service's (sorting and
      // de-duplicating it again, should it be asked for twice, changes nothing).
      const { byPort } = own[0] as SliceEndpoints;
      finishEndpoints(byPort, duplicates);
      return byPort;
    }
    // Several slices are read in name order, into new lists (each slice's own stay as built).
    const ordered = [...own].sort((a, b) => bySliceName(a.slice, b.slice));
    const byPort = new PortEndpoints();
    for (let i = 0; i < ordered.length; i++) byPort.appendAll((ordered[i] as SliceEndpoints).byPort);
    finishEndpoints(byPort, duplicates);
    return byPort;
  }
}
