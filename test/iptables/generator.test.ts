// createGenerator remembers each service port's text between full generations; whatever it
// reuses, every call must print what a fresh generation prints.
import { describe, expect, it } from "vitest";
import {
  type ClusterModel,
  createGenerator,
  type Endpoint,
  formatSave,
  type Generator,
  generateRestoreText,
  generateRules,
  generateSaveText,
  generateState,
  type RuleSet,
  type ServicePort,
} from "../../src/index.js";
import { createContext } from "../../src/iptables/context.js";
import { stateAfterFullSync } from "../../src/iptables/index.js";
import { samePort } from "../../src/iptables/same-port.js";
import { modelFromInput } from "../../src/kube/to-model.js";
import { randomCluster } from "../support/random-cluster.js";

describe("createGenerator", () => {
  /** Every call of one generator must print what a fresh one-shot generation prints. */
  function expectFresh(generator: Generator, model: ClusterModel): void {
    expect(generator.restoreText(model)).toBe(generateRestoreText(model));
  }

  it("reuses blocks only where nothing they depend on changed", () => {
    for (let seed = 200; seed < 215; seed++) {
      const generator = createGenerator();
      const cluster = randomCluster(seed, { largeRate: seed % 5 === 0 ? 1 : 0.05 });
      const model = modelFromInput(cluster);
      expectFresh(generator, model);
      // The same objects again, then the same content as new objects.
      expectFresh(generator, model);
      expectFresh(generator, modelFromInput(cluster));
      // One port changed (a new object, as models are immutable), the rest kept.
      const [first, ...rest] = model.servicePorts;
      if (first !== undefined) {
        const changed = { ...first, endpoints: first.endpoints.slice(1) };
        expectFresh(generator, { ...model, servicePorts: [changed, ...rest] });
      }
      // Node settings that every block depends on.
      expectFresh(generator, {
        ...model,
        config: { ...model.config, masqueradeAll: !model.config.masqueradeAll },
      });
      expectFresh(generator, { ...model, config: { ...model.config, profile: "v1.22" } });
      // Another cluster entirely (often crossing the large-cluster threshold), then back.
      expectFresh(generator, modelFromInput(randomCluster(seed + 1000, { family: model.config.ipFamily })));
      expectFresh(generator, model);
    }
  });

  it("follows the large-cluster switch of a model that grows past it", () => {
    const model = modelFromInput(randomCluster(7));
    const generator = createGenerator();
    expectFresh(generator, model);
    const port = model.servicePorts.find((p) => p.endpoints.length > 0);
    expect(port).toBeDefined();
    if (port === undefined) return;
    // Enough copies of one port's endpoints to pass 1,000 in total; the other ports keep their
    // objects, but their SEP rules lose their comments.
    const many = Array.from({ length: 1001 }, (_, i) => ({
      ...(port.endpoints[0] as (typeof port.endpoints)[number]),
      ip: `10.${(i >> 8) & 255}.${i & 255}.7`,
      endpoint: `10.${(i >> 8) & 255}.${i & 255}.7:${port.port}`,
    }));
    const grown = {
      ...model,
      servicePorts: model.servicePorts.map((p) => (p === port ? { ...p, endpoints: many } : p)),
    };
    expectFresh(generator, grown);
    expectFresh(generator, model);
  });
});

describe("createGenerator: reusing the whole payload", () => {
  /** The text, or the message of the error, of one generation. */
  function outcome(generate: () => string): string {
    try {
      return generate();
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  }

  /** Primes a generator with `model`, then expects `next` printed as a fresh generation prints it. */
  function expectAfter(model: ClusterModel, next: ClusterModel): string {
    const generator = createGenerator();
    generator.restoreText(model);
    const text = outcome(() => generator.restoreText(next));
    expect(text).toBe(outcome(() => generateRestoreText(next)));
    return text;
  }

  // A model with node ports, external IPs, source ranges and endpoints of every kind.
  const model = modelFromInput(randomCluster(3));
  const index = model.servicePorts.findIndex((p) => p.endpoints.length > 0);
  const port = model.servicePorts[index] as ServicePort;
  const endpoint = port.endpoints[0] as Endpoint;
  const withPort = (changed: ServicePort): ClusterModel => ({
    ...model,
    servicePorts: model.servicePorts.map((p, i) => (i === index ? changed : p)),
  });

  it("returns the last payload for a model of equal data, and rebuilds none of it", () => {
    const generator = createGenerator();
    const text = generator.restoreText(model);
    expect(generator.restoreText(structuredClone(model))).toBe(text);
    expect(generator.restoreText(model)).toBe(text);
  });

  it.each(Object.keys(port).filter((k) => k !== "endpoints"))("prints a change of one port's %s", (key) => {
    const changed = withPort({ ...port, [key]: perturb(port[key as keyof ServicePort]) } as ServicePort);
    expectAfter(model, changed);
  });

  it.each(Object.keys(endpoint))("prints a change of one endpoint's %s", (key) => {
    const changedEndpoint = { ...endpoint, [key]: perturb(endpoint[key as keyof Endpoint]) } as Endpoint;
    expectAfter(model, withPort({ ...port, endpoints: [changedEndpoint, ...port.endpoints.slice(1)] }));
  });

  it("follows ports that moved, were renamed, added or removed", () => {
    const ports = model.servicePorts;
    expect(ports.length).toBeGreaterThan(2);
    // The same ports in another model order: the generation order, and so the payload, is the same.
    expect(expectAfter(model, { ...model, servicePorts: [...ports].reverse() })).toBe(
      generateRestoreText(model),
    );
    // A port renamed in place moves in the generation order.
    const renamed = { ...port, name: "zzz-last", portName: "aaa" };
    expectAfter(model, withPort(renamed));
    expectAfter(withPort(renamed), model);
    // Removed from the front (every later port shifts), added at the end.
    expectAfter(model, { ...model, servicePorts: ports.slice(1) });
    expectAfter(model, { ...model, servicePorts: [...ports, { ...port, name: "added" }] });
    expectAfter(model, { ...model, servicePorts: [] });
    expectAfter({ ...model, servicePorts: [] }, model);
  });

  it("reports a refused port as a fresh generation does, and forgets nothing it printed", () => {
    const generator = createGenerator();
    const text = generator.restoreText(model);
    // Two ports refused (a line break in a printed string): the first in generation order is named.
    const bad = model.servicePorts.map((p) => ({ ...p, clusterIP: `${p.clusterIP}\n` }));
    const refused = { ...model, servicePorts: bad };
    expect(outcome(() => generator.restoreText(refused))).toBe(outcome(() => generateRestoreText(refused)));
    expect(outcome(() => generator.restoreText(refused))).toMatch(/^error: /);
    expect(generator.restoreText(structuredClone(model))).toBe(text);
  });
});

/** A different value of the same type. */
function perturb(value: unknown): unknown {
  if (typeof value === "string") return `${value}x`;
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  if (Array.isArray(value)) return [...value, "extra"];
  throw new Error(`unexpected field type ${typeof value}`);
}

describe("samePort", () => {
  // A port with every list non-empty, so that each field can be perturbed.
  const model = modelFromInput(randomCluster(3));
  const port = model.servicePorts.find((p) => p.endpoints.length > 0) as ServicePort;
  const endpoint = port.endpoints[0] as Endpoint;

  it("holds for equal data in new objects", () => {
    expect(samePort(port, structuredClone(port))).toBe(true);
  });

  it.each(Object.keys(port).filter((k) => k !== "endpoints"))("sees a change of the port's %s", (key) => {
    const changed = { ...port, [key]: perturb(port[key as keyof ServicePort]) } as ServicePort;
    expect(samePort(port, changed)).toBe(false);
    expect(samePort(changed, port)).toBe(false);
  });

  it.each(Object.keys(endpoint))("sees a change of an endpoint's %s", (key) => {
    const changedEndpoint = { ...endpoint, [key]: perturb(endpoint[key as keyof Endpoint]) } as Endpoint;
    const changed = { ...port, endpoints: [changedEndpoint, ...port.endpoints.slice(1)] };
    expect(samePort(port, changed)).toBe(false);
  });

  it("sees an endpoint added or removed", () => {
    expect(samePort(port, { ...port, endpoints: port.endpoints.slice(1) })).toBe(false);
    expect(samePort(port, { ...port, endpoints: [...port.endpoints, endpoint] })).toBe(false);
  });
});

describe("generateState", () => {
  const natChainsOf = (ruleSet: RuleSet): string[] =>
    ruleSet.tables.find((t) => t.name === "nat")?.chains.map((d) => d.name) ?? [];

  it("is the state the payload leaves on an empty kernel, built in one pass", () => {
    for (let seed = 300; seed < 330; seed++) {
      const random = modelFromInput(randomCluster(seed, { largeRate: seed % 7 === 0 ? 1 : 0.05 }));
      // Every third model in the v1.22 layout (KUBE-XLB chains, other jumps and targets).
      const model =
        seed % 3 === 0 ? { ...random, config: { ...random.config, profile: "v1.22" as const } } : random;
      const traits = createContext(model).traits;
      expect(generateState(model)).toEqual(stateAfterFullSync(generateRules(model), traits));
      // Stale chains of an earlier cluster are declared, deleted, and gone from the state.
      const before = modelFromInput(randomCluster(seed + 1000, { family: model.config.ipFamily }));
      const options = { existingChains: [...natChainsOf(generateRules(before)), "KUBE-MARK-DROP", "OTHER"] };
      const state = generateState(model, options);
      expect(state).toEqual(stateAfterFullSync(generateRules(model, options), traits));
      expect(formatSave(state)).toBe(generateSaveText(model, options));
    }
  });
});
