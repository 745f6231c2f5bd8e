// What the real nft would refuse, reported with the path of the input that causes it, while the
// output stays kube-proxy's. Models are built without validation here (as a caller holding
// Services the API server never checked would): two ports of one Service on one port/protocol.
import { describe, expect, test } from "vitest";
import { type ClusterInput, generateNftables } from "../../src/index.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { formatNftTransaction } from "../../src/nftables/index.js";

const slice = (service: string, ports: { name: string; port: number }[]) => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name: `${service}-1`, namespace: "default", labels: { "kubernetes.io/service-name": service } },
  addressType: "IPv4",
  endpoints: [{ addresses: ["10.244.1.1"] }],
  ports: ports.map((p) => ({ ...p, protocol: "TCP" })),
});

function input(services: unknown[], slices: unknown[]): ClusterInput {
  return {
    config: {
      hostname: "node-a",
      nodeIPs: ["198.18.0.2"],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
    },
    services,
    endpointSlices: slices,
  } as unknown as ClusterInput;
}

describe("problems of the nftables transaction", () => {
  test("two ports on one port/protocol: service-ips gets one key twice, nft refuses it all", () => {
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "twice", namespace: "default" },
      spec: {
        clusterIP: "10.96.0.12",
        ports: [
          { name: "x", port: 80, protocol: "TCP", targetPort: 8080 },
          { name: "y", port: 80, protocol: "TCP", targetPort: 9090 },
        ],
      },
    };
    const model = modelFromInput(
      input(
        [svc],
        [
          slice("twice", [
            { name: "x", port: 8080 },
            { name: "y", port: 9090 },
          ]),
        ],
      ),
    );
    const table = generateNftables(model, {
      servicePortPath: (_ns, _name, portName) => `services[0].spec.ports[${portName === "x" ? 0 : 1}]`,
    });
    const text = formatNftTransaction(table);
    // kube-proxy's output all the same: both elements are written.
    expect(
      text.match(/add element ip kube-proxy service-ips \{ 10\.96\.0\.12 \. tcp \. 80 : /g)?.length,
    ).toBe(2);
    expect(table.problems).toHaveLength(1);
    expect(table.problems[0]).toMatchObject({
      code: "DUPLICATE",
      path: "services[0].spec.ports[1]",
      severity: "warning",
    });
    expect(table.problems[0]?.message).toMatch(/service-ips .* 10\.96\.0\.12 \. tcp \. 80.*File exists/);
  });

  test("the same cluster IP in several ports of one Service is no problem (a set, one key)", () => {
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "two", namespace: "default" },
      spec: {
        clusterIP: "10.96.0.13",
        ports: [
          { name: "x", port: 80, protocol: "TCP", targetPort: 8080 },
          { name: "y", port: 81, protocol: "TCP", targetPort: 9090 },
        ],
      },
    };
    const model = modelFromInput(
      input(
        [svc],
        [
          slice("two", [
            { name: "x", port: 8080 },
            { name: "y", port: 9090 },
          ]),
        ],
      ),
    );
    expect(generateNftables(model).problems).toEqual([]);
  });

  test("an interface-name-prefix detector is reported only when a rule uses it", () => {
    const config = {
      hostname: "node-a",
      nodeIPs: ["198.18.0.2"],
      detectLocal: { mode: "InterfaceNamePrefix", prefix: "veth" },
    };
    const empty = modelFromInput({ config, services: [], endpointSlices: [] } as unknown as ClusterInput);
    expect(generateNftables(empty).problems).toEqual([]);
  });
});
