// bench/minimal-writer.mjs, the yardstick of issue 21, must write what the library writes for the
// models it accepts (byte for byte), and refuse the rest rather than write something else.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { minimalRestoreText, minimalWriterRefusal } from "../../bench/minimal-writer.mjs";
import {
  type ClusterInput,
  type ClusterModel,
  generateRestoreText,
  modelFromKubernetes,
} from "../../src/index.js";

type Shape = { ns: string; name: string; ports: (string | null)[]; endpoints: number };

/** A ClusterIP-only cluster: each service's ports, its endpoints given out of order on purpose. */
function cluster(shapes: Shape[]): ClusterInput {
  let svcIP = 1;
  let podIP = 1;
  const services = [];
  const endpointSlices = [];
  for (const s of shapes) {
    const clusterIP = `10.96.0.${svcIP++}`;
    const ports = s.ports.map((name, i) => ({
      ...(name === null ? {} : { name }),
      port: 80 + i,
      protocol: "TCP",
      targetPort: 8080 + i,
    }));
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: s.name, namespace: s.ns },
      spec: { type: "ClusterIP", clusterIP, clusterIPs: [clusterIP], ports },
    });
    const endpoints = [];
    for (let e = 0; e < s.endpoints; e++) {
      const n = podIP++;
      endpoints.push({
        addresses: [`10.244.${n >> 8}.${n & 255}`],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: e % 2 === 0 ? "node-a" : "node-b",
      });
    }
    endpoints.reverse();
    endpointSlices.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: `${s.name}-x`, namespace: s.ns, labels: { "kubernetes.io/service-name": s.name } },
      addressType: "IPv4",
      endpoints,
      ports: ports.map((p) => ({
        ...(p.name === undefined ? {} : { name: p.name }),
        port: p.targetPort,
        protocol: "TCP",
      })),
    });
  }
  return {
    config: {
      hostname: "node-a",
      nodeIPs: ["198.18.0.2"],
      detectLocal: { mode: "ClusterCIDR", cidrs: ["10.244.0.0/16"] },
      masqueradeBit: 9,
    },
    services,
    endpointSlices,
  } as ClusterInput;
}

const SMALL = cluster([
  { ns: "prod", name: "web", ports: ["http", "https"], endpoints: 3 },
  { ns: "default", name: "one", ports: [null], endpoints: 1 },
  // "api-v2" sorts before "api/…"'s neighbours byte-wise ('-' < '/'), and 12 endpoints put
  // "10.244.0.10" before "10.244.0.2".
  { ns: "default", name: "api-v2", ports: ["grpc"], endpoints: 12 },
  { ns: "default", name: "api", ports: ["grpc", "metrics"], endpoints: 7 },
  { ns: "kube-system", name: "dns", ports: ["dns-tcp"], endpoints: 2 },
  // Over 1,000 endpoints in all: kube-proxy's large-cluster mode, the only one the writer knows.
  { ns: "default", name: "big", ports: ["http"], endpoints: 1000 },
]);

describe("bench/minimal-writer.mjs", () => {
  it("writes generateRestoreText's bytes for a small ClusterIP model", () => {
    const model = modelFromKubernetes(SMALL);
    expect(minimalWriterRefusal(model)).toBeNull();
    const text = minimalRestoreText(model);
    expect(text).toBe(generateRestoreText(model));
    // Real content, not an empty agreement: every endpoint got a DNAT rule.
    expect(text.match(/ -j DNAT /g)).toHaveLength(3 * 2 + 1 + 12 + 7 * 2 + 2 + 1000);
  });

  it("writes generateRestoreText's bytes for the bench's 1,000-service model", () => {
    const raw = gunzipSync(readFileSync("test/fixtures/bench/bench-clusterip-1000.json.gz"));
    const input = JSON.parse(raw.toString("utf8")) as ClusterInput;
    const model = modelFromKubernetes(input);
    expect(minimalRestoreText(model)).toBe(generateRestoreText(model));
  });

  it("refuses, saying why, every model outside its assumptions", () => {
    const model = modelFromKubernetes(SMALL);
    const [first, ...rest] = model.servicePorts;
    if (first === undefined) throw new Error("no ports");
    const [ep, ...eps] = first.endpoints;
    if (ep === undefined) throw new Error("no endpoints");
    const withPort = (change: object): ClusterModel => ({
      ...model,
      servicePorts: [{ ...first, ...change }, ...rest],
    });
    const withConfig = (change: object): ClusterModel => ({
      ...model,
      config: { ...model.config, ...change },
    });
    const cases: [ClusterModel, RegExp][] = [
      [withPort({ nodePort: 30080 }), /servicePorts\[0\]: not ClusterIP only/],
      [withPort({ stickyMaxAgeSeconds: 10800 }), /session affinity/],
      [withPort({ protocol: "udp" }), /protocol udp/],
      [withPort({ internalPolicyLocal: true }), /Local traffic policy/],
      [withPort({ endpoints: [] }), /0 endpoints/],
      [withPort({ endpoints: [{ ...ep, ready: false }, ...eps] }), /endpoints\[0\]: not ready/],
      [withPort({ endpoints: [...eps, ep] }), /out of order/],
      [withPort({ endpoints: [{ ...ep, zoneHints: ["zone-a"] }, ...eps] }), /topology hints/],
      [withConfig({ masqueradeAll: true }), /masqueradeAll/],
      [withConfig({ ipFamily: "IPv6" }), /ipFamily/],
      [withConfig({ profile: "v1.22" }), /profile/],
      [withConfig({ nodePortAddresses: ["198.18.0.0/24"] }), /nodePortAddresses/],
      [{ ...model, servicePorts: rest.slice(0, 2) }, /not kube-proxy's large-cluster mode/],
    ];
    for (const [bad, why] of cases) {
      expect(minimalWriterRefusal(bad)).toMatch(why);
      expect(() => minimalRestoreText(bad)).toThrow(why);
    }
  });
});
