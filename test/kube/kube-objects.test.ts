// Reading Kubernetes objects as kubectl and the control plane do: other kinds skipped with one
// note, the default namespace, v1 Endpoints mirrored into EndpointSlices, a cluster file's kinds.
import { describe, expect, test } from "vitest";
import {
  type ClusterInput,
  type EndpointSlice,
  prepareCluster,
  readClusterValue,
  splitKubernetesDocuments,
  splitKubernetesList,
} from "../../src/index.js";
import { mirrorEndpoints, mirroredAddress, mirrorPath } from "../../src/kube/endpoints-mirror.js";
import { skippedNote } from "../../src/kube/list.js";
import { mergeClusterReads } from "../../src/kube/merge-input.js";
import { readClusterText } from "../../src/kube/read-input.js";

const service = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "default" },
  spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
  ...extra,
});

const slice = (service: string, ip: string) => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: {
    name: `${service}-abc`,
    namespace: "default",
    labels: { "kubernetes.io/service-name": service },
  },
  addressType: "IPv4",
  endpoints: [{ addresses: [ip], conditions: { ready: true } }],
  ports: [{ name: "http", port: 8080, protocol: "TCP" }],
});

const endpoints = (name: string, subsets: unknown, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name, namespace: "default", ...metadata },
  subsets,
});

/** The model's endpoints of every service port, as `ns/svc:port -> ip:port ready`. */
function modelEndpoints(input: ClusterInput, origins = readClusterValue(input).origins): string[] {
  const { model, problems } = prepareCluster(input, { origins });
  expect(problems.filter((p) => p.severity === "error")).toEqual([]);
  return (model?.servicePorts ?? []).flatMap((sp) =>
    sp.endpoints.map(
      (e) =>
        `${sp.namespace}/${sp.name}:${sp.portName} -> ${e.ip}:${e.port} ${e.ready ? "ready" : "not ready"}`,
    ),
  );
}

describe("objects of other kinds", () => {
  test("are left out with one note, most frequent kind first, and listed with their paths", () => {
    const split = splitKubernetesList({
      kind: "List",
      items: [
        { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: {} },
        { apiVersion: "v1", kind: "Pod", metadata: {} },
        service("web"),
        { apiVersion: "apps/v1", kind: "Deployment", metadata: {} },
        { apiVersion: "v1", kind: "Pod", metadata: {} },
        { apiVersion: "apps/v1", kind: "Deployment", metadata: {} },
        { apiVersion: "v1", kind: "Pod", metadata: {} },
      ],
    });
    expect(split.services).toHaveLength(1);
    expect(split.problems).toEqual([
      {
        code: "OTHER_KIND",
        path: "",
        severity: "warning",
        message: "skipped 6 objects of other kinds: Pod (3), Deployment (2), ReplicaSet (1)",
      },
    ]);
    expect(split.skipped.map((s) => `${s.path} ${s.kind}`)).toEqual([
      "items[0] ReplicaSet",
      "items[1] Pod",
      "items[3] Deployment",
      "items[4] Pod",
      "items[5] Deployment",
      "items[6] Pod",
    ]);
  });

  test("a kind read here in another apiVersion is named with it; ties are in name order", () => {
    expect(
      skippedNote([
        { path: "a", kind: "Service", apiVersion: "v2" },
        { path: "b", kind: "EndpointSlice", apiVersion: "discovery.k8s.io/v1beta1" },
        { path: "c", kind: "ConfigMap" },
      ])?.message,
    ).toBe(
      "skipped 3 objects of other kinds or versions: ConfigMap (1), discovery.k8s.io/v1beta1 EndpointSlice (1), v2 Service (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints",
    );
    expect(skippedNote([])).toBeUndefined();
  });

  test("a stream of documents and typed lists of other kinds: one note for all", () => {
    const split = splitKubernetesDocuments([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } },
      service("web"),
      { apiVersion: "v1", kind: "PodList", items: [{ metadata: {} }, { metadata: {} }] },
    ]);
    expect(split.servicePaths).toEqual(["documents[1]"]);
    expect(split.problems.map((p) => p.message)).toEqual([
      "skipped 3 objects of other kinds: Pod (2), ConfigMap (1)",
    ]);
    expect(split.skipped.map((s) => s.path)).toEqual([
      "documents[0]",
      "documents[2].items[0]",
      "documents[2].items[1]",
    ]);
  });

  test("a document's path counts the empty documents before it, as `helm template` prints them", () => {
    // Templates that render nothing leave their `# Source:` comment as a document of its own.
    const parts = [
      "---\n# Source: shop/templates/serviceaccount.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web}\n",
      "# Source: shop/templates/hpa.yaml\n",
      "# Source: shop/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  clusterIP: 10.96.0.10\n  ports: [{port: 80, protocol: TCP, targetPort: http}]\n  selector: {app: web}\n  type: ClusterIP\n",
      "\n",
      "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  clusterIP: 10.96.0.11\n  ports: [{port: 80, protocol: tcp}]\n",
    ];
    const read = readClusterText(parts.join("---\n"));
    expect(read.shape).toBe("list");
    expect(read.origins.services).toEqual(["documents[2]", "documents[4]"]);
    expect(read.skipped?.map((s) => s.path)).toEqual(["documents[0]"]);
    const prepared = prepareCluster(read.input as ClusterInput, { origins: read.origins });
    expect(prepared.problems.map((p) => p.path)).toEqual(["documents[4].spec.ports[0].protocol"]);
    // A stream without empty documents is numbered as before.
    const full = parts.filter((p) => p.includes("kind:")).join("---\n");
    expect(readClusterText(full).origins.services).toEqual(["documents[1]", "documents[2]"]);
  });

  test("an item without a kind, or with a kind that is not a string, is still an error", () => {
    const split = splitKubernetesList({ kind: "List", items: [{ metadata: {} }, { kind: 5 }, { kind: "" }] });
    expect(split.problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([
      "error REQUIRED items[0].kind",
      "error TYPE items[1].kind",
      "error REQUIRED items[2].kind",
    ]);
  });

  test("a lone object of another kind is read as Kubernetes objects: nothing, and the note", () => {
    const read = readClusterText("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    expect(read.shape).toBe("list");
    expect(read.input).toEqual({ services: [], endpointSlices: [] });
    expect(read.problems.map((p) => p.message)).toEqual(["skipped 1 object of another kind: ConfigMap (1)"]);
  });
});

describe("a cluster file's kinds", () => {
  test("an object of another kind or apiVersion in services or endpointSlices is skipped with the note", () => {
    const read = readClusterValue({
      services: [{ apiVersion: "v1", kind: "Pod", metadata: { name: "p" } }, service("web")],
      endpointSlices: [
        { ...slice("web", "10.244.0.5"), apiVersion: "discovery.k8s.io/v1beta1" },
        slice("web", "10.244.0.6"),
      ],
    });
    expect(read.shape).toBe("cluster");
    expect(read.problems.map((p) => `${p.severity} ${p.code}: ${p.message}`)).toEqual([
      "warning OTHER_KIND: skipped 2 objects of other kinds or versions: Pod (1), discovery.k8s.io/v1beta1 EndpointSlice (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints",
    ]);
    expect(read.skipped?.map((s) => s.path)).toEqual(["services[0]", "endpointSlices[0]"]);
    expect(read.input?.services).toHaveLength(1);
    // Problems found later name where the kept objects were.
    const input = read.input as ClusterInput;
    const bad = {
      ...input,
      services: [{ ...service("web"), spec: { clusterIP: "10.96.0.10", ports: [{ port: 0 }] } }],
    };
    const { problems } = prepareCluster(bad, { origins: read.origins });
    expect(problems.map((p) => p.path)).toContain("services[1].spec.ports[0].port");
    expect(modelEndpoints(input, read.origins)).toEqual(["default/web:http -> 10.244.0.6:8080 ready"]);
  });

  test("with objects skipped in one list only, both lists name where their objects were", () => {
    const read = readClusterValue({
      services: [service("web"), { kind: "Pod" }, service("api")],
      endpointSlices: [slice("web", "10.244.0.6"), slice("api", "10.244.0.7")],
    });
    expect(read.origins.services).toEqual(["services[0]", "services[2]"]);
    expect(read.origins.endpointSlices).toEqual(["endpointSlices[0]", "endpointSlices[1]"]);
    // Nothing skipped: the objects are where they were, and no paths are kept for them.
    expect(readClusterValue({ services: [service("web")] }).origins.services).toEqual([]);
  });

  test("objects of the right kind, or without one, are kept; a file without objects is as it was", () => {
    const value = { services: [{ kind: "Service", metadata: { name: "a", namespace: "x" }, spec: {} }] };
    const read = readClusterValue(value);
    expect(read.problems).toEqual([]);
    expect(read.input?.services).toEqual(value.services);
    expect(readClusterValue({ config: {} }).input).toEqual({ config: {} });
  });
});

describe("the default namespace", () => {
  test("an object without a namespace (absent, null or empty) is read in default, or the one given", () => {
    const items = [
      { kind: "Service", metadata: { name: "a" }, spec: {} },
      { kind: "Service", metadata: { name: "b", namespace: null }, spec: {} },
      { kind: "Service", metadata: { name: "c", namespace: "" }, spec: {} },
      { kind: "Service", metadata: { name: "d", namespace: "shop" }, spec: {} },
    ];
    const namespaces = (options = {}) =>
      splitKubernetesList({ kind: "List", items }, options).services.map((s) => s.metadata?.namespace);
    expect(namespaces()).toEqual(["default", "default", "default", "shop"]);
    // The object's own namespace wins over the option (kubectl get output names its own).
    expect(namespaces({ namespace: "kube-system" })).toEqual([
      "kube-system",
      "kube-system",
      "kube-system",
      "shop",
    ]);
    // The input is not changed.
    expect(items[0]?.metadata).toEqual({ name: "a" });
  });

  test("slices and Endpoints too, so that they find their Service; cluster files as well", () => {
    const text = [
      "kind: Service\nmetadata: {name: web}\nspec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80}]}",
      "kind: Endpoints\nmetadata: {name: web}\nsubsets: [{addresses: [{ip: 10.244.0.5}], ports: [{name: http, port: 8080}]}]",
    ].join("\n---\n");
    const read = readClusterText(text, { namespace: "shop" });
    expect(modelEndpoints(read.input as ClusterInput, read.origins)).toEqual([
      "shop/web:http -> 10.244.0.5:8080 ready",
    ]);
    const cluster = readClusterText("services:\n- metadata: {name: web}\n  spec: {clusterIP: 10.96.0.10}\n");
    expect(cluster.input?.services?.[0]?.metadata?.namespace).toBe("default");
  });

  test("metadata that is not an object is left for the validator", () => {
    const split = splitKubernetesList({ kind: "List", items: [{ kind: "Service", metadata: "x" }] });
    expect(split.services[0]?.metadata).toBe("x");
  });
});

describe("v1 Endpoints become the EndpointSlices the mirroring controller makes", () => {
  test("ready and not-ready addresses, nodeName, hostname, targetRef, the default port name and protocol", () => {
    const { slices, problems } = mirrorEndpoints(
      endpoints("db", [
        {
          addresses: [
            {
              ip: "10.244.1.5",
              nodeName: "node-a",
              hostname: "db-0",
              targetRef: { kind: "Pod", name: "db-0" },
            },
          ],
          notReadyAddresses: [{ ip: "10.244.1.6" }],
          ports: [{ port: 5432 }],
        },
      ]),
    );
    expect(problems).toEqual([]);
    expect(slices.map((s) => s.slice)).toEqual([
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: "db-mirror-0",
          namespace: "default",
          labels: {
            "kubernetes.io/service-name": "db",
            "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
          },
        },
        addressType: "IPv4",
        endpoints: [
          {
            addresses: ["10.244.1.5"],
            conditions: { ready: true },
            nodeName: "node-a",
            hostname: "db-0",
            targetRef: { kind: "Pod", name: "db-0" },
          },
          { addresses: ["10.244.1.6"], conditions: { ready: false } },
        ],
        ports: [{ name: "", port: 5432, protocol: "TCP" }],
      },
    ]);
    expect(slices[0]?.paths.endpoints).toEqual([
      ".subsets[0].addresses[0]",
      ".subsets[0].notReadyAddresses[0]",
    ]);
  });

  test("families split; subsets with the same ports in any order share a slice, others do not", () => {
    const ports = [
      { name: "a", port: 1, protocol: "TCP" },
      { name: "b", port: 2, protocol: "UDP" },
    ];
    const { slices } = mirrorEndpoints(
      endpoints("web", [
        { addresses: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }], ports },
        { addresses: [{ ip: "10.0.0.2" }], ports: [...ports].reverse() },
        { addresses: [{ ip: "10.0.0.3" }], ports: [{ name: "a", port: 9, protocol: "TCP" }] },
      ]),
    );
    expect(
      slices.map(
        (s) => `${s.slice.addressType} ${(s.slice.endpoints ?? []).map((e) => e.addresses[0]).join(",")}`,
      ),
    ).toEqual(["IPv4 10.0.0.1,10.0.0.2", "IPv6 fd00::1", "IPv4 10.0.0.3"]);
    expect(slices.map((s) => s.slice.metadata?.name)).toEqual([
      "web-mirror-0",
      "web-mirror-1",
      "web-mirror-2",
    ]);
  });

  test("addresses are read as Go reads them and written canonically; IPv4-mapped IPv6 is IPv4", () => {
    expect(mirroredAddress("10.0.0.010")).toBe("10.0.0.10");
    expect(mirroredAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(mirroredAddress("FD00:0:0::1")).toBe("fd00::1");
    expect(mirroredAddress("fe80::1%eth0")).toBeNull();
    expect(mirroredAddress("10.0.0")).toBeNull();
    const { slices } = mirrorEndpoints(
      endpoints("w", [{ addresses: [{ ip: "::ffff:10.1.2.3" }], ports: [] }]),
    );
    expect(slices[0]?.slice.addressType).toBe("IPv4");
    expect(slices[0]?.slice.endpoints?.[0]?.addresses).toEqual(["10.1.2.3"]);
  });

  test("labels and annotations are copied, except the last-applied and trigger-time annotations", () => {
    const { slices } = mirrorEndpoints(
      endpoints("w", [{ addresses: [{ ip: "10.0.0.1" }] }], {
        labels: { app: "w", "kubernetes.io/service-name": "other" },
        annotations: {
          note: "kept",
          "kubectl.kubernetes.io/last-applied-configuration": "{}",
          "endpoints.kubernetes.io/last-change-trigger-time": "2024-01-01T00:00:00Z",
        },
      }),
    );
    expect(slices[0]?.slice.metadata?.labels).toEqual({
      app: "w",
      "kubernetes.io/service-name": "w",
      "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
    });
    expect(slices[0]?.slice.metadata?.annotations).toEqual({ note: "kept" });
  });

  test("at most 1000 addresses of a subset, ready ones first, with a warning", () => {
    const ip = (i: number) => ({ ip: `10.1.${i >> 8}.${i & 255}` });
    const ready = Array.from({ length: 990 }, (_, i) => ip(i));
    const notReady = Array.from({ length: 20 }, (_, i) => ip(1000 + i));
    const { slices, problems } = mirrorEndpoints(
      endpoints("big", [{ addresses: ready, notReadyAddresses: notReady }]),
    );
    const eps = slices[0]?.slice.endpoints ?? [];
    expect(eps).toHaveLength(1000);
    expect(eps.filter((e) => e.conditions?.ready === false)).toHaveLength(10);
    expect(problems.map((p) => `${p.severity} ${p.path}: ${p.message}`)).toEqual([
      "warning .subsets[0]: has 1010 addresses; the EndpointSliceMirroring controller mirrors at most 1000 of a subset: 10 left out",
    ]);
  });

  test("the same address twice is one endpoint, the later (not ready) one", () => {
    const { slices } = mirrorEndpoints(
      endpoints("w", [
        { addresses: [{ ip: "10.0.0.1" }], notReadyAddresses: [{ ip: "10.0.0.1" }], ports: [] },
      ]),
    );
    expect(slices[0]?.slice.endpoints).toEqual([{ addresses: ["10.0.0.1"], conditions: { ready: false } }]);
    expect(slices[0]?.paths.endpoints).toEqual([".subsets[0].notReadyAddresses[0]"]);
  });

  test("no subsets, or empty ones, make no slice; a leader-election lock is not mirrored", () => {
    expect(mirrorEndpoints(endpoints("w", undefined)).slices).toEqual([]);
    expect(mirrorEndpoints(endpoints("w", [{ ports: [{ port: 80 }] }])).slices).toEqual([]);
    const lock = endpoints("kube-scheduler", [{ addresses: [{ ip: "10.0.0.1" }] }], {
      annotations: { "control-plane.alpha.kubernetes.io/leader": "{}" },
    });
    expect(mirrorEndpoints(lock).slices).toEqual([]);
  });

  test("a Service with a selector, or the skip-mirror label, is mirrored all the same", () => {
    const input = readClusterValue({
      kind: "List",
      items: [
        service("web", {
          spec: { selector: { app: "web" }, clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
        }),
        endpoints("web", [{ addresses: [{ ip: "10.244.0.5" }], ports: [{ name: "http", port: 8080 }] }], {
          labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
        }),
      ],
    });
    expect(modelEndpoints(input.input as ClusterInput, input.origins)).toEqual([
      "default/web:http -> 10.244.0.5:8080 ready",
    ]);
  });

  test("problems in the mirrored slices name the Endpoints' own paths", () => {
    const read = readClusterValue({
      kind: "List",
      items: [
        service("web"),
        endpoints("web", [
          {
            addresses: [{ ip: "10.244.0.5" }],
            notReadyAddresses: [{ ip: "10.0.0.300" }],
            ports: [{ name: "http", port: 8080 }],
          },
          { addresses: [{ ip: "10.244.0.6", nodeName: "Bad_Node" }], ports: [{ name: "http", port: 70000 }] },
          "nope",
        ]),
        endpoints("db", { a: 1 }),
      ],
    });
    const { problems } = prepareCluster(read.input as ClusterInput, { origins: read.origins });
    expect(problems.filter((p) => p.severity === "error").map((p) => p.path)).toEqual([
      "items[1].subsets[0].notReadyAddresses[0].ip",
      "items[1].subsets[1].addresses[0].nodeName",
      "items[1].subsets[1].ports[0].port",
      "items[1].subsets[2]",
      "items[2].subsets",
    ]);
  });

  test("an EndpointsList (items without a kind) is read as Endpoints, in the default namespace", () => {
    const split = splitKubernetesList({
      apiVersion: "v1",
      kind: "EndpointsList",
      items: [
        { metadata: { name: "web" }, subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80 }] }] },
      ],
    });
    expect(split.problems).toEqual([]);
    expect(split.endpointSlicePaths).toEqual(["items[0]"]);
    expect(split.endpointSlices[0]?.metadata?.namespace).toBe("default");
    expect(split.endpointSliceMirrors[0]?.endpoints).toEqual([".subsets[0].addresses[0]"]);
  });

  test("mirrorPath maps each part of a slice to its Endpoints", () => {
    const paths = {
      endpoints: [".subsets[1].addresses[2]"],
      endpointList: ".subsets",
      ports: ".subsets[1].ports",
    };
    expect(mirrorPath(".endpoints[0].addresses[0]", paths)).toBe(".subsets[1].addresses[2].ip");
    expect(mirrorPath(".endpoints[0].hostname", paths)).toBe(".subsets[1].addresses[2].hostname");
    expect(mirrorPath(".endpoints", paths)).toBe(".subsets");
    expect(mirrorPath(".ports[0].name", paths)).toBe(".subsets[1].ports[0].name");
    expect(mirrorPath('.metadata.labels["kubernetes.io/service-name"]', paths)).toBe(".metadata.name");
    expect(mirrorPath(".metadata.namespace", paths)).toBe(".metadata.namespace");
    expect(mirrorPath("", paths)).toBe("");
  });
});

describe("Endpoints and slices of the same Service", () => {
  test("the slices win, with a note at the Endpoints; other Endpoints are still mirrored", () => {
    const read = readClusterValue({
      kind: "List",
      items: [
        service("web"),
        service("db", { spec: { clusterIP: "10.96.0.11", ports: [{ name: "http", port: 80 }] } }),
        endpoints("web", [{ addresses: [{ ip: "10.244.0.99" }], ports: [{ name: "http", port: 8080 }] }]),
        slice("web", "10.244.0.5"),
        endpoints("db", [{ addresses: [{ ip: "10.244.0.7" }], ports: [{ name: "http", port: 8080 }] }]),
      ],
    });
    expect(read.problems.map((p) => `${p.severity} ${p.path}: ${p.message}`)).toEqual([
      "warning items[2]: Endpoints default/web: EndpointSlices of this Service are given too, and are read instead",
    ]);
    expect(modelEndpoints(read.input as ClusterInput, read.origins).sort()).toEqual([
      "default/db:http -> 10.244.0.7:8080 ready",
      "default/web:http -> 10.244.0.5:8080 ready",
    ]);
  });

  test("also when they come from different files", () => {
    const a = readClusterText(
      JSON.stringify({
        kind: "List",
        items: [
          service("web"),
          endpoints("web", [{ addresses: [{ ip: "10.244.0.99" }], ports: [{ name: "http", port: 8080 }] }]),
        ],
      }),
    );
    const b = readClusterText(JSON.stringify(slice("web", "10.244.0.5")));
    const merged = mergeClusterReads([
      { source: "a.json", read: a },
      { source: "b.json", read: b },
    ]);
    expect(merged.problems.map((p) => `${p.source} ${p.path}: ${p.message}`)).toEqual([
      "a.json items[1]: Endpoints default/web: EndpointSlices of this Service are given too, and are read instead",
    ]);
    expect(merged.input?.endpointSlices?.map((s: EndpointSlice) => s.endpoints?.[0]?.addresses[0])).toEqual([
      "10.244.0.5",
    ]);
    expect(merged.origins.endpointSlices).toEqual([""]);
  });

  test("for several Services, one note names them ('kubectl get svc,ep,endpointslices -A')", () => {
    const names = ["web", "db", "api", "cache"];
    const items = names.flatMap((name, i) => [
      service(name, { spec: { clusterIP: `10.96.0.${20 + i}`, ports: [{ name: "http", port: 80 }] } }),
      endpoints(name, [{ addresses: [{ ip: `10.244.0.${20 + i}` }], ports: [{ name: "http", port: 8080 }] }]),
      {
        ...slice(name, `10.244.0.${20 + i}`),
        metadata: { ...slice(name, "").metadata, name: `${name}-abc` },
      },
    ]);
    const read = readClusterValue({ kind: "List", items });
    expect(read.problems.map((p) => `${p.severity} ${p.path}: ${p.message}`)).toEqual([
      "warning : EndpointSlices are given as well as Endpoints for 4 Services (default/web, default/db, default/api, …): the slices are read, as kube-proxy reads them",
    ]);
    expect(modelEndpoints(read.input as ClusterInput, read.origins)).toHaveLength(4);
    // Across files, the note names the file when they are all in one.
    const merged = mergeClusterReads([
      {
        source: "a.json",
        read: readClusterValue({ kind: "List", items: items.filter((o) => o.kind !== "EndpointSlice") }),
      },
      {
        source: "b.json",
        read: readClusterValue({ kind: "List", items: items.filter((o) => o.kind === "EndpointSlice") }),
      },
    ]);
    expect(merged.problems.map((p) => `${p.source} ${p.path}: ${p.message.slice(0, 60)}`)).toEqual([
      "a.json : EndpointSlices are given as well as Endpoints for 4 Services",
    ]);
  });

  test("merged files name their skipped kinds in one note", () => {
    const reads = ["ConfigMap", "ConfigMap", "Secret"].map((kind, i) => ({
      source: `${i}.yaml`,
      read: readClusterText(`apiVersion: v1\nkind: ${kind}\nmetadata: {name: x}\n`),
    }));
    const merged = mergeClusterReads(reads);
    expect(merged.problems.map((p) => p.message)).toEqual([
      "skipped 3 objects of other kinds: ConfigMap (2), Secret (1)",
    ]);
    expect(merged.skipped?.map((s) => `${s.source} ${s.path}`)).toEqual(["0.yaml ", "1.yaml ", "2.yaml "]);
  });
});

describe("objects kube-proxy's informers filter out by label", () => {
  // kube-proxy lists Services and EndpointSlices with one selector: neither
  // service.kubernetes.io/service-proxy-name nor service.kubernetes.io/headless may be present.
  const labelled = (label: string) => {
    const s = slice("web", "10.244.0.9");
    return {
      ...s,
      metadata: { ...s.metadata, name: "web-hidden", labels: { ...s.metadata.labels, [label]: "" } },
    };
  };
  test.each(["service.kubernetes.io/headless", "service.kubernetes.io/service-proxy-name"])(
    "a slice labelled %s adds no endpoint, with a note where it is",
    (label) => {
      const input = {
        services: [service("web")],
        endpointSlices: [slice("web", "10.244.0.5"), labelled(label)],
      } as unknown as ClusterInput;
      expect(modelEndpoints(input)).toEqual(["default/web:http -> 10.244.0.5:8080 ready"]);
      const { problems } = prepareCluster(input);
      expect(problems.map((p) => `${p.code} ${p.path}`)).toContain(
        `SKIPPED endpointSlices[1].metadata.labels[${JSON.stringify(label)}]`,
      );
    },
  );
});

describe("kubectl's human-readable output instead of objects", () => {
  const problemsOf = (text: string) =>
    readClusterText(text).problems.map((p) => `${p.line}:${p.column} ${p.message}`);

  test("the table of kubectl get, with -A, after a blank line, or of several kinds, is named as such", () => {
    const table =
      "this is the table 'kubectl get' prints, not the objects: run the command again with -o yaml (or -o json) and give what it prints";
    expect(
      problemsOf(
        "NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\nweb    ClusterIP   10.96.0.9    <none>        80/TCP    3d\n",
      ),
    ).toEqual([`1:1 ${table}`]);
    expect(
      problemsOf("NAMESPACE   NAME   ENDPOINTS        AGE\nshop        web    10.244.0.5:80    3d\n"),
    ).toEqual([`1:1 ${table}`]);
    expect(
      problemsOf(
        "\nNAME        READY   STATUS    RESTARTS   AGE   NOMINATED NODE\npod/web-1   1/1     Running   0          3d    <none>\n\nNAME   TYPE   CLUSTER-IP\n",
      ),
    ).toEqual([`2:1 ${table}`]);
  });

  test("kubectl's warnings above its output: a table is named, JSON names the warning line, YAML reads", () => {
    // Every kubectl ≥ 1.33 prints this above `kubectl get endpoints` (real KodeKloud task log).
    const warning = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice";
    expect(
      problemsOf(
        `${warning}\nNAME            ENDPOINTS          AGE\nhttpd-service   10.22.0.10:80      36s\n`,
      ),
    ).toEqual([
      "2:1 this is the table 'kubectl get' prints, not the objects: run the command again with -o yaml (or -o json) and give what it prints",
    ]);
    const json = '{"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"}, "subsets": []}';
    expect(problemsOf(`${warning}\n\n${json}\n`)).toEqual([
      "1:1 this line is a kubectl warning (from its stderr), not part of the objects: remove it",
    ]);
    expect(readClusterText(`${warning}\n${serviceYamlText}`).problems).toEqual([]);
  });

  test("kubectl describe output is named as such; objects and other text are read as before", () => {
    expect(
      problemsOf("Name:              web\nNamespace:         shop\nType:              ClusterIP\n"),
    ).toEqual([
      "1:1 this is what 'kubectl describe' prints, not the objects: run 'kubectl get' with -o yaml (or -o json) for the same objects and give what it prints",
    ]);
    // `Name:` alone, or a header-like line that is not kubectl's, keeps the old messages.
    expect(problemsOf("Name: web\nType: ClusterIP\n")).toEqual([]);
    expect(problemsOf("NAME TYPE\n")[0]).toMatch(/got the string "NAME TYPE"/);
    expect(readClusterText(serviceYamlText).problems).toEqual([]);
  });
});

describe("a node's rules in a form not read: iptables -L, nft list", () => {
  const problemsOf = (text: string) =>
    readClusterText(text).problems.map((p) => `${p.line}:${p.column} ${p.message}`);
  const listing =
    "this is an 'iptables -L' listing, which leaves parts of rules out: give what 'iptables-save' (or 'iptables -t nat -S') prints";

  test("iptables -L, -L -n -v, one user chain, --line-numbers, after iptables-nft's warning", () => {
    // The shapes of real pastes (a k3s/metallb lab's `iptables -t nat -L CHAIN -n`; an
    // iptables-nft node's `iptables -t nat -nv -L PREROUTING` under its legacy-tables warning).
    expect(
      problemsOf(
        "Chain KUBE-SVC-CDEB5OJ5KJNVMLM6 (2 references)\ntarget     prot opt source               destination         \nKUBE-MARK-MASQ  tcp  -- !10.42.0.0/16         10.43.207.14         /* default/web cluster IP */ tcp dpt:80\n",
      ),
    ).toEqual([`1:1 ${listing}`]);
    expect(
      problemsOf(
        "# Warning: iptables-legacy tables present, use iptables-legacy to see them\nChain PREROUTING (policy ACCEPT 0 packets, 0 bytes)\n pkts bytes target     prot opt in     out     source               destination\n",
      ),
    ).toEqual([`2:1 ${listing}`]);
    expect(problemsOf("\nChain INPUT (policy DROP 12K packets, 3M bytes)\n")).toEqual([`2:1 ${listing}`]);
    expect(
      problemsOf(
        "num  target     prot opt source               destination\n1    DOCKER     all  --  0.0.0.0/0   0.0.0.0/0\n",
      ),
    ).toEqual([`1:1 ${listing}`]);
  });

  test("nft list ruleset and nft list table are named as nftables' text", () => {
    expect(problemsOf("table ip kube-proxy {\n\tchain services {\n\t}\n}\n")[0]).toMatch(
      /^1:1 this is nftables' text \('nft list'\), which is not read here/,
    );
    expect(
      problemsOf(
        "# Warning: table ip filter is managed by iptables-nft, do not touch!\ntable inet filter {\n}\n",
      )[0],
    ).toMatch(/^2:1 this is nftables' text/);
  });

  test("kube-proxy's payload in journal lines is named as log lines, with the prefix to remove", () => {
    // kubernetes/kubernetes#36652: the restore payload as journalctl showed it.
    const logged = [
      "Nov 14 11:06:11 HOSTNAME kube-proxy[12085]: -A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -j KUBE-SEP-SSNSCRUIRMZDLXKS",
      "Nov 14 11:06:11 HOSTNAME kube-proxy[12085]: COMMIT",
      "",
    ].join("\n");
    expect(problemsOf(logged)).toEqual([
      "1:1 these are log lines (`Nov 14 11:06:11 HOSTNAME kube-proxy[12085]:' before each rule): remove that prefix from every line (sed 's/^[^:]*:[^:]*:[^:]*: //')",
    ]);
    expect(problemsOf("2016-11-14T11:06:11+0000 node-1 kube-proxy[7]: *nat\n")[0]).toMatch(
      /^1:1 these are log lines/,
    );
    // A log line whose message is not rules text keeps the YAML reading.
    expect(problemsOf("Nov 14 11:06:11 HOSTNAME kube-proxy[12085]: I1114 started\n").join()).not.toMatch(
      /log lines/,
    );
  });

  test("YAML whose first key or value merely starts alike keeps its own messages", () => {
    expect(problemsOf("Chain: web\n").join()).not.toMatch(/iptables -L/);
    expect(
      problemsOf(
        "# a comment\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {clusterIP: None}\n",
      ).join(),
    ).not.toMatch(/iptables -L|nft/);
  });
});

const serviceYamlText = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  clusterIP: 10.96.0.9
  ports: [{name: http, port: 80}]
`;
