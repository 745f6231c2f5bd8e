/**
 * The endpoint lists of a Service's ports, as read from its EndpointSlices: one list per port
 * name and protocol. A slice has a port or two, so the lists sit in one small array searched in
 * order, rather than in a Map keyed by `name\0PROTOCOL` strings built for every slice and every
 * service port (a Map and a key apiece were a tenth of the garbage the 10k-Service build made).
 *
 * @module
 */
import type { Endpoint } from "../model/types.js";

/**
 * A protocol as the endpoint lists key it: upper case (the API server's spelling; the model's is
 * lower case). The valid ones are returned as they are, without a new string.
 *
 * @example
 * upperProtocol("tcp") // "TCP"
 */
export function upperProtocol(protocol: string): string {
  return protocol === "TCP" || protocol === "UDP" || protocol === "SCTP" ? protocol : protocol.toUpperCase();
}

/**
 * Endpoint lists by port name and (upper-case) protocol, in the order the ports were first met.
 *
 * @example
 * const lists = new PortEndpoints();
 * lists.listOf("http", "TCP").push(endpoint);
 * lists.of("http", "tcp"); // [endpoint]
 */
export class PortEndpoints {
  /** For each port: its name, its upper-case protocol and its list, one after another. */
  private entries: (string | Endpoint[])[] | undefined = undefined;

  /** How many ports have a list. */
  get size(): number {
    return this.entries === undefined ? 0 : this.entries.length / 3;
  }

  /** The list of the port `name` / `protocol` (any case), or `undefined`. */
  of(name: string, protocol: string): Endpoint[] | undefined {
    const entries = this.entries;
    if (entries === undefined) return undefined;
    const upper = upperProtocol(protocol);
    for (let i = 0; i < entries.length; i += 3) {
      if (entries[i] === name && entries[i + 1] === upper) return entries[i + 2] as Endpoint[];
    }
    return undefined;
  }

  /** The list of the port `name` / `protocol` (any case), made empty when there is none yet. */
  listOf(name: string, protocol: string): Endpoint[] {
    const found = this.of(name, protocol);
    if (found !== undefined) return found;
    const list: Endpoint[] = [];
    // Made with its first port: an array grown from empty by `push` would reserve 17 slots.
    if (this.entries === undefined) this.entries = [name, upperProtocol(protocol), list];
    else this.entries.push(name, upperProtocol(protocol), list);
    return list;
  }

  /** The list of the `index`th port (from 0 to `size - 1`, in the order the ports were first met). */
  listAt(index: number): Endpoint[] {
    return (this.entries as (string | Endpoint[])[])[index * 3 + 2] as Endpoint[];
  }

  /** Appends each port's list of `from` to that port's list here (made when there is none). */
  appendAll(from: PortEndpoints): void {
    const entries = from.entries;
    if (entries === undefined) return;
    for (let i = 0; i < entries.length; i += 3) {
      const list = this.listOf(entries[i] as string, entries[i + 1] as string);
      const more = entries[i + 2] as Endpoint[];
      for (let k = 0; k < more.length; k++) list.push(more[k] as Endpoint);
    }
  }
}

/**
 * What a service port reads its endpoints from: the lists by port name and protocol.
 *
 * @example
 * const lookup: PortLookup = new PortEndpoints();
 */
export interface PortLookup {
  /** The endpoints of the port `name` / `protocol` (any case), or `undefined`. */
  of(name: string, protocol: string): readonly Endpoint[] | undefined;
}
