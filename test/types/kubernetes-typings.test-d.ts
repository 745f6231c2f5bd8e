// The objects users already hold, typed by the two Kubernetes typings packages they use, are
// accepted by the library without a cast: `kubernetes-types` (the API's JSON, plain interfaces)
// and `@kubernetes/client-node` (classes with the same camelCase fields, `Date` timestamps). The
// input types are loose where the API types are (`string` for enums, optional `metadata`/`spec`);
// the validated model stays strict.
import type * as k8s from "@kubernetes/client-node";
import type {
  Endpoints as KtEndpoints,
  Service as KtService,
  ServiceList as KtServiceList,
} from "kubernetes-types/core/v1.js";
import type { EndpointSlice as KtEndpointSlice } from "kubernetes-types/discovery/v1.js";
import { describe, expectTypeOf, it } from "vitest";
import {
  type ClusterInput,
  type ClusterModel,
  createSync,
  type EndpointSlice,
  type Endpoints,
  modelFromKubernetes,
  type Protocol,
  prepareCluster,
  type Service,
  splitKubernetesList,
} from "../../src/index.js";

declare const ktServices: KtService[];
declare const ktSlices: KtEndpointSlice[];
declare const cnServices: k8s.V1Service[];
declare const cnSlices: k8s.V1EndpointSlice[];

describe("kubernetes-types objects", () => {
  it("are Services and EndpointSlices", () => {
    expectTypeOf<KtService>().toExtend<Service>();
    expectTypeOf<KtEndpointSlice>().toExtend<EndpointSlice>();
    expectTypeOf<KtEndpoints>().toExtend<Endpoints>();
  });

  it("go into modelFromKubernetes, prepareCluster and createSync().update as they are", () => {
    expectTypeOf(
      modelFromKubernetes({ services: ktServices, endpointSlices: ktSlices }),
    ).toEqualTypeOf<ClusterModel>();
    expectTypeOf(
      prepareCluster({ services: ktServices, endpointSlices: ktSlices }).model,
    ).toEqualTypeOf<ClusterModel | null>();
    createSync({ hostname: "node-a" }).update(ktServices, ktSlices);
  });

  it("a List of them goes into splitKubernetesList", () => {
    const list = {} as KtServiceList;
    expectTypeOf(splitKubernetesList(list).services).toExtend<readonly Service[]>();
  });
});

describe("@kubernetes/client-node objects", () => {
  it("are Services and EndpointSlices", () => {
    expectTypeOf<k8s.V1Service>().toExtend<Service>();
    expectTypeOf<k8s.V1EndpointSlice>().toExtend<EndpointSlice>();
    expectTypeOf<k8s.V1Endpoints>().toExtend<Endpoints>();
  });

  it("go into modelFromKubernetes, prepareCluster and createSync().update as they are", () => {
    const input: ClusterInput = { services: cnServices, endpointSlices: cnSlices };
    expectTypeOf(modelFromKubernetes(input)).toEqualTypeOf<ClusterModel>();
    prepareCluster({ config: { hostname: "node-a" }, services: cnServices, endpointSlices: cnSlices });
    createSync().update(cnServices, cnSlices);
  });

  it("a list response's items go in too", () => {
    const services = {} as k8s.V1ServiceList;
    const slices = {} as k8s.V1EndpointSliceList;
    createSync().update(services.items, slices.items);
  });
});

describe("the validated model stays strict", () => {
  it("has literal unions where the input has strings", () => {
    expectTypeOf<ClusterModel["servicePorts"][number]["protocol"]>().toEqualTypeOf<Protocol>();
    expectTypeOf<Protocol>().not.toEqualTypeOf<string>();
  });

  it("still refuses what is not an object of the kind", () => {
    // @ts-expect-error a port number must be a number
    prepareCluster({ services: [{ spec: { ports: [{ port: "80" }] } }] });
    // @ts-expect-error endpoints carry addresses
    prepareCluster({ endpointSlices: [{ addressType: "IPv4", endpoints: [{ nodeName: "a" }] }] });
  });
});
