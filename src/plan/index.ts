/**
 * model + profile → one mode-neutral plan per service port (and one for the node), computed
 * once and shared by the iptables and nftables writers.
 *
 * @module
 */

import type { ProfileTraits } from "../model/profiles.js";
import type { ClusterModel, ServicePort } from "../model/types.js";
import { planNode } from "./node-plan.js";
import { sortServicePorts } from "./order.js";
import { planServicePort } from "./service-port-plan.js";
import type { ClusterPlan, ServicePortPlan } from "./types.js";

export { planNode } from "./node-plan.js";
export { planServicePort } from "./service-port-plan.js";
export type {
  ClusterPlan,
  LegacyPlan,
  LocalDetector,
  NodePlan,
  NoEndpointsVerdict,
  ServicePortPlan,
} from "./types.js";

/**
 * Plans a whole model: the node, then every service port in kube-proxy's (sorted) order.
 *
 * @example
 * planCluster(model).servicePorts[0].servicePortName // "default/web:http"
 */
export function planCluster(model: ClusterModel, traitOverrides?: Partial<ProfileTraits>): ClusterPlan {
  const node = planNode(model, traitOverrides);
  const ports = sortServicePorts(model.servicePorts);
  const servicePorts: ServicePortPlan[] = new Array<ServicePortPlan>(ports.length);
  for (let i = 0; i < ports.length; i++)
    servicePorts[i] = planServicePort(ports[i] as ServicePort, node, model.config);
  return { node, servicePorts };
}
