// bench/minimal-writer.mjs, the yardstick of issue 21, must write what the library writes for the
// models it accepts (byte for byte), and refuse the rest rather than write something else.
import { describe, expect, it } from "vitest";
import { writeMinimalSaveText } from "../../bench/minimal-save-writer.mjs";
import {
  minimalModelOf,
  minimalRestoreText,
  minimalWriterRefusal,
  writeMinimalRestoreText,
} from "../../bench/minimal-writer.mjs";
import {
  checkClusterObjects,
  rememberedPorts,
  writeRequiredRestoreText,
} from "../../bench/required-writer.mjs";
import {
  type ClusterInput,
  type ClusterModel,
  generateRestoreText,
  generateSaveText,
  modelFromKubernetes,
} from "../../src/index.js";
import { bench1000, SMALL } from "./bench-clusters.js";

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
    const model = modelFromKubernetes(bench1000());
    expect(minimalRestoreText(model)).toBe(generateRestoreText(model));
  });

  it("writes the CLI's bytes from the raw objects (the CLI's lower bound in bench/cli-floor.mjs)", () => {
    for (const input of [SMALL, bench1000()])
      expect(writeMinimalRestoreText(minimalModelOf(input))).toBe(
        generateRestoreText(modelFromKubernetes(input)),
      );
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

describe("bench/required-writer.mjs", () => {
  it("writes the minimal writer's bytes, remembering every port's names, and writes them again from memory", () => {
    const model = modelFromKubernetes(bench1000());
    const before = rememberedPorts();
    const first = writeRequiredRestoreText(model);
    expect(first).toBe(writeMinimalRestoreText(model));
    expect(rememberedPorts() - before).toBe(model.servicePorts.length);
    expect(writeRequiredRestoreText(model)).toBe(first);
  });

  it("guards what it writes: a line feed in a name is refused", () => {
    const model = modelFromKubernetes(SMALL);
    const [first, ...rest] = model.servicePorts;
    if (first === undefined) throw new Error("no ports");
    const bad = { ...model, servicePorts: [{ ...first, name: "web\n-A X" }, ...rest] };
    expect(() => writeRequiredRestoreText(bad)).toThrow(/cannot be written/);
    const [ep, ...eps] = first.endpoints;
    if (ep === undefined) throw new Error("no endpoints");
    const badEndpoint = {
      ...model,
      servicePorts: [{ ...first, endpoints: [{ ...ep, ip: "10.0.0.1\0" }, ...eps] }, ...rest],
    };
    expect(() => writeRequiredRestoreText(badEndpoint)).toThrow(/cannot be written/);
  });

  it("writes from its plan: an endpoint that is not ready gets no rule, as in the library", () => {
    const model = modelFromKubernetes(SMALL);
    const ports = model.servicePorts.map((p) =>
      p.name === "big"
        ? {
            ...p,
            endpoints: p.endpoints.map((e, i) => (i === 0 ? { ...e, ready: false, serving: false } : e)),
          }
        : p,
    );
    const changed = { ...model, servicePorts: ports };
    const text = writeRequiredRestoreText(changed);
    expect(text.match(/ -j DNAT /g)).toHaveLength(3 * 2 + 1 + 12 + 7 * 2 + 2 + 999);
    expect(text).toBe(generateRestoreText(changed));
  });
});

describe("bench/minimal-save-writer.mjs", () => {
  it("writes generateSaveText's bytes, from the model and from the raw objects", () => {
    for (const input of [SMALL, bench1000()]) {
      const model = modelFromKubernetes(input);
      const text = generateSaveText(model);
      expect(writeMinimalSaveText(model)).toBe(text);
      expect(writeMinimalSaveText(minimalModelOf(input))).toBe(text);
    }
  });
});

describe("checkClusterObjects (the required CLI bound's part of the API server's checks)", () => {
  it("accepts the bench's clusters and refuses, with the path, what the library refuses", () => {
    expect(() => checkClusterObjects(bench1000())).not.toThrow();
    expect(() => checkClusterObjects(SMALL)).not.toThrow();
    const services = SMALL.services as unknown as {
      metadata: object;
      spec: { clusterIP: string; ports: object[] };
    }[];
    const slices = SMALL.endpointSlices as unknown as { endpoints: { addresses: string[] }[] }[];
    const [svc] = services;
    const [slice] = slices;
    if (svc === undefined || slice === undefined) throw new Error("empty cluster");
    const cases: [ClusterInput, RegExp][] = [
      [
        { ...SMALL, services: [{ ...svc, metadata: { ...svc.metadata, name: "Web" } }] },
        /services\[0\]\.metadata\.name/,
      ],
      [
        { ...SMALL, services: [{ ...svc, spec: { ...svc.spec, clusterIP: "10.96.0.256" } }] },
        /services\[0\]\.spec\.clusterIP/,
      ],
      [
        {
          ...SMALL,
          services: [{ ...svc, spec: { ...svc.spec, ports: [{ name: "http", port: 0, protocol: "TCP" }] } }],
        },
        /services\[0\]\.spec\.ports\[0\]\.port/,
      ],
      [
        {
          ...SMALL,
          endpointSlices: [{ ...slice, endpoints: [{ ...slice.endpoints[0], addresses: ["10.1.1"] }] }],
        },
        /endpointSlices\[0\]\.endpoints\[0\]\.addresses\[0\]/,
      ],
    ] as [ClusterInput, RegExp][];
    for (const [bad, where] of cases) {
      expect(() => checkClusterObjects(bad)).toThrow(where);
      expect(() => modelFromKubernetes(bad)).toThrow();
    }
  });
});

describe("bench/required-writer.mjs for checked input in a one-shot process", () => {
  it("writes the same bytes with neither guard nor memory of names", () => {
    const model = modelFromKubernetes(bench1000());
    const before = rememberedPorts();
    const text = writeRequiredRestoreText(model, { checked: true, memo: false });
    expect(text).toBe(writeMinimalRestoreText(model));
    expect(rememberedPorts()).toBe(before);
  });
});
