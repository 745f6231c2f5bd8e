// createSync with `validate`: each object is checked when it first appears, objects with errors
// are left out (as prepareCluster leaves them out) and reported at their place in every update's
// lists, and the rules match a full generation of the valid objects.
import { describe, expect, it } from "vitest";
import { formatSave } from "../src/format/save.js";
import { generateState } from "../src/iptables/output/rules.js";
import { applyRestore } from "../src/ir/state.js";
import type { RuleSet } from "../src/ir/types.js";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import type { EndpointSlice, ProxyConfigInput, Service } from "../src/kube/types.js";
import { createSync } from "../src/sync/index.js";

const CONFIG: ProxyConfigInput = { hostname: "node-a", nodeIPs: ["198.18.0.2"] };

function service(name: string, clusterIP: string, port: number): Service {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      type: "ClusterIP",
      clusterIP,
      clusterIPs: [clusterIP],
      ports: [{ name: "http", port, protocol: "TCP", targetPort: 8080 }],
    },
  } as Service;
}

function slice(name: string, serviceName: string, addresses: readonly string[]): EndpointSlice {
  return {
    metadata: { name, namespace: "default", labels: { "kubernetes.io/service-name": serviceName } },
    addressType: "IPv4",
    endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  } as EndpointSlice;
}

/** The state a full generation of the valid objects gives, as prepareCluster leaves out the rest. */
function expectedSave(services: readonly unknown[], endpointSlices: readonly unknown[]): string {
  const { model } = prepareCluster({ config: CONFIG, services, endpointSlices } as never);
  if (model === null) throw new Error("unusable input");
  return formatSave(generateState(model));
}

const web = service("web", "10.96.0.10", 80);
const webSlice = slice("web-1", "web", ["10.244.1.5", "10.244.2.6"]);
const badPort = service("api", "10.96.0.20", 70000);
const apiSlice = slice("api-1", "api", ["10.244.1.7"]);

describe("createSync with validate", () => {
  it("leaves out an object with errors, reports it where it is, and matches a full generation", () => {
    const sync = createSync(CONFIG, { validate: true });
    const services = [web, badPort];
    const slices = [webSlice, apiSlice];
    const first = sync.update(services, slices);
    expect(first.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "services[1].spec.ports[0].port: 70000 is not a port number (1-65535)",
    ]);
    expect(first.problems.every((p) => p.severity === "error")).toBe(true);
    expect(first.deltaText).not.toContain("70000");
    expect(formatSave(first.state)).toBe(expectedSave(services, slices));

    // Unchanged lists: reported again, nothing rebuilt or written.
    const again = sync.update(services, slices);
    expect(again.problems).toEqual(first.problems);
    expect(again.deltaText).toBe("");
    expect(again.stats.blocksBuilt).toBe(0);

    // Moved to the front: reported at its new place.
    const moved = sync.update([badPort, web], slices);
    expect(moved.problems.map((p) => p.path)).toEqual(["services[0].spec.ports[0].port"]);
    expect(moved.deltaText).toBe("");

    // Fixed (a new object, as an informer hands it out): it joins, and the delta adds it.
    const fixed = service("api", "10.96.0.20", 8000);
    const after = sync.update([fixed, web], slices);
    expect(after.problems).toEqual([]);
    expect(after.deltaText).toContain("--dport 8000");
    expect(formatSave(applyRestore(moved.state, after.delta, { noflush: true }))).toBe(
      expectedSave([fixed, web], slices),
    );
  });

  it("leaves out a bad slice and what is not an object at all, instead of failing", () => {
    const sync = createSync(CONFIG, { validate: true });
    const badSlice = slice("web-2", "web", ["10.244.3.7", "127.0.0.1"]);
    const services = [null, web] as unknown as Service[];
    const slices = [webSlice, badSlice];
    const result = sync.update(services, slices);
    expect(result.problems.map((p) => [p.code, p.path])).toEqual([
      ["TYPE", "services[0]"],
      ["INVALID_VALUE", "endpointSlices[1].endpoints[1].addresses[0]"],
    ]);
    // The good slice's endpoints only: 10.244.3.7 shares the bad slice's fate.
    expect(result.deltaText).toContain("10.244.1.5:8080");
    expect(result.deltaText).not.toContain("10.244.3.7");
    expect(formatSave(result.state)).toBe(expectedSave([web], [webSlice]));
    // Without the checks, the null Service is read as a Service and the update throws.
    expect(() => createSync(CONFIG).update(services, slices)).toThrow(TypeError);
  });

  it("checks an object once, when it appears; a changed slice is a new object and is checked", () => {
    const sync = createSync(CONFIG, { validate: true });
    const services = [web];
    const own = slice("web-1", "web", ["10.244.1.5", "10.244.2.6"]);
    sync.update(services, [own]);
    // Changed in place (against the contract, to see what is checked): not looked at again.
    (own.endpoints as { addresses: string[] }[])[1] = { addresses: ["0.0.0.0"] };
    const same = sync.update(services, [own]);
    expect(same.problems).toEqual([]);
    expect(same.deltaText).toBe("");
    // The informer's way: a new object, checked and refused.
    const worse = slice("web-1", "web", ["10.244.1.5", "0.0.0.0"]);
    const result = sync.update(services, [worse]);
    expect(result.problems.map((p) => p.path)).toEqual(["endpointSlices[0].endpoints[1].addresses[0]"]);
    // Its Service has no slice left: no endpoints, as a full generation without it has.
    expect(formatSave(result.state)).toBe(expectedSave(services, []));
    const back = sync.update(services, [webSlice]);
    expect(back.problems).toEqual([]);
    expect(formatSave(back.state)).toBe(expectedSave(services, [webSlice]));
  });

  it("keeps leaving out an object listed twice when one of the two goes", () => {
    const sync = createSync(CONFIG, { validate: true });
    const slices = [webSlice];
    expect(sync.update([badPort, web, badPort], slices).problems).toHaveLength(2);
    const result = sync.update([web, badPort], slices);
    expect(result.problems.map((p) => p.path)).toEqual(["services[1].spec.ports[0].port"]);
    expect(result.deltaText).not.toContain("70000");
  });

  it("is off by default: objects are read unchecked and problems stay empty", () => {
    const sync = createSync(CONFIG);
    const result = sync.update([web, badPort], [webSlice, apiSlice]);
    expect(result.problems).toEqual([]);
    expect(result.deltaText).toContain("--dport 70000");
  });

  it("gives the same rules as without it when every object is valid", () => {
    const checked = createSync(CONFIG, { validate: true }).update([web], [webSlice]);
    const plain = createSync(CONFIG).update([web], [webSlice]);
    expect(checked.problems).toEqual([]);
    expect(checked.deltaText).toBe(plain.deltaText);
    const state: RuleSet = checked.state;
    expect(formatSave(state)).toBe(formatSave(plain.state));
  });
});
