/**
 * The order kube-proxy's (sorted) walk visits service ports in, which every output follows.
 *
 * @module
 */
import type { ServicePort } from "../model/types.js";
import { servicePortName } from "../naming/chain-names.js";

/**
 * The order kube-proxy's (sorted) walk visits service ports in: `ns/name:port` as bytes, then
 * the protocol.
 *
 * @example
 * compareServicePorts(dns, web) < 0 // "kube-system/kube-dns:dns" sorts before "web/…"
 */
export function compareServicePorts(a: ServicePort, b: ServicePort): number {
  const an = servicePortName(a.namespace, a.name, a.portName);
  const bn = servicePortName(b.namespace, b.name, b.portName);
  if (an !== bn) return an < bn ? -1 : 1;
  return a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0;
}

/** A service port with its sort key, built once per port rather than once per comparison. */
interface Keyed {
  readonly key: string;
  readonly protocol: string;
  readonly port: ServicePort;
}

function compareKeyed(a: Keyed, b: Keyed): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0;
}

/**
 * Sorts service ports into generation order (a copy); same order as {@link compareServicePorts}.
 *
 * @example
 * sortServicePorts(model.servicePorts)[0] // the port whose `ns/name:port` sorts first
 */
export function sortServicePorts(ports: readonly ServicePort[]): ServicePort[] {
  // Comparing through compareServicePorts would build two name strings per comparison
  // (~280,000 for 10k ports); the keys are built once instead.
  const keyed: Keyed[] = new Array<Keyed>(ports.length);
  for (let i = 0; i < ports.length; i++) {
    const port = ports[i] as ServicePort;
    keyed[i] = {
      key: servicePortName(port.namespace, port.name, port.portName),
      protocol: port.protocol,
      port,
    };
  }
  keyed.sort(compareKeyed);
  const sorted: ServicePort[] = new Array<ServicePort>(keyed.length);
  for (let i = 0; i < keyed.length; i++) sorted[i] = (keyed[i] as Keyed).port;
  return sorted;
}
