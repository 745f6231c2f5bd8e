// The trusting path: buildModel reads objects without validation, so a name holding a line feed
// reaches the writers. Every public writer must refuse it (UNSAFE_TEXT, with the path of the
// value) instead of printing a payload in which the kernel would load extra rules.
import { describe, expect, test } from "vitest";
import { KubeIptablesError } from "../src/errors.js";
import { formatRestore, quoteArgument } from "../src/format/restore.js";
import { formatSave } from "../src/format/save.js";
import { createGenerator } from "../src/iptables/output/generator.js";
import { generateRestoreText } from "../src/iptables/output/restore-text.js";
import { generateRules, generateState } from "../src/iptables/output/rules.js";
import { generateSaveText } from "../src/iptables/output/save-text.js";
import { resolveConfig } from "../src/kube/config.js";
import { buildModel } from "../src/kube/to-model.js";
import type { EndpointSlice, Service } from "../src/kube/types.js";
import type { ClusterModel } from "../src/model/types.js";
import { createSync } from "../src/sync/engine.js";

const INJECTED = "-A KUBE-SERVICES -j ACCEPT";
const BAD = ["\n", "\r", "\u0000"] as const;

interface Objects {
  services: Service[];
  endpointSlices: EndpointSlice[];
}

function objects(field: "namespace" | "name" | "portName" | "nodeIP", bad: string): Objects {
  const evil = `x${bad}${INJECTED}`;
  const namespace = field === "namespace" ? evil : "default";
  const name = field === "name" ? evil : "web";
  const portName = field === "portName" ? evil : "http";
  const service = {
    metadata: { name, namespace },
    spec: {
      clusterIP: "10.96.0.10",
      type: "NodePort",
      ports: [{ name: portName, port: 80, protocol: "TCP", nodePort: 30080, targetPort: 8080 }],
    },
  } as unknown as Service;
  const slice = {
    metadata: { name: "web-1", namespace, labels: { "kubernetes.io/service-name": name } },
    addressType: "IPv4",
    endpoints: [{ addresses: [field === "nodeIP" ? `10.0.0.1${bad}${INJECTED}` : "10.0.0.1"] }],
    ports: [{ name: portName, port: 8080, protocol: "TCP" }],
  } as unknown as EndpointSlice;
  return { services: [service], endpointSlices: [slice] };
}

const config = resolveConfig({ hostname: "node-a" });

function model(o: Objects): ClusterModel {
  return buildModel(o.services, o.endpointSlices, config);
}

/** Every public writer, each turning the objects into text. */
const WRITERS: Record<string, (o: Objects) => string> = {
  generateRestoreText: (o) => generateRestoreText(model(o)),
  generateSaveText: (o) => generateSaveText(model(o)),
  "formatRestore(generateRules)": (o) => formatRestore(generateRules(model(o))),
  "formatSave(generateState)": (o) => formatSave(generateState(model(o))),
  "createGenerator().restoreText": (o) => createGenerator().restoreText(model(o)),
  "createSync().update": (o) =>
    createSync({ hostname: "node-a" }).update(o.services, o.endpointSlices).deltaText,
};

function refusal(write: () => string): KubeIptablesError | string {
  try {
    return write();
  } catch (e) {
    if (e instanceof KubeIptablesError) return e;
    throw e;
  }
}

describe("the writers refuse a value that holds a line break or NUL, whoever built the model", () => {
  // Guards the test: the model really holds the value (buildModel does not check it).
  test("buildModel keeps the bad name", () => {
    expect(model(objects("name", "\n")).servicePorts[0]?.name).toBe(`x\n${INJECTED}`);
  });

  for (const [writer, write] of Object.entries(WRITERS)) {
    for (const field of ["namespace", "name", "portName"] as const) {
      for (const bad of BAD) {
        test(`${writer}: ${field} holding ${JSON.stringify(bad)}`, () => {
          const out = refusal(() => write(objects(field, bad)));
          expect(out).toBeInstanceOf(KubeIptablesError);
          const e = out as KubeIptablesError;
          expect(e.code).toBe("UNSAFE_TEXT");
          // createSync reads objects by their keys (it has no model): its path names the object.
          expect(e.path).toMatch(writer.startsWith("createSync") ? /\S/ : new RegExp(`\\.${field}$`));
        });
      }
    }
    test(`${writer}: the same objects without the bad character print`, () => {
      const out = refusal(() => write(objects("name", "")));
      expect(typeof out).toBe("string");
      // The name (spaces and all) stays inside its quoted comment.
      expect(out as string).toContain(`default/x${INJECTED}:http`);
      expect((out as string).split("\n")).not.toContain(INJECTED);
    });
  }

  test("an endpoint address holding a line feed is refused with its path", () => {
    const out = refusal(() => generateRestoreText(model(objects("nodeIP", "\n"))));
    // buildModel may drop an address it cannot read; if it kept it, the writer refuses it.
    if (typeof out === "string") expect(out).not.toContain(`\n${INJECTED}\n`);
    else expect(out.path).toMatch(/\.endpoints\[0\]\.(ip|endpoint)$/);
  });

  test("a local-traffic interface holding a line feed is refused", () => {
    const bridge = resolveConfig({
      hostname: "node-a",
      detectLocal: { mode: "BridgeInterface", interface: `cbr0\n${INJECTED}` },
    } as never);
    const m = buildModel(objects("name", "").services, objects("name", "").endpointSlices, bridge);
    const out = refusal(() => generateRestoreText(m));
    expect(out).toBeInstanceOf(KubeIptablesError);
    expect((out as KubeIptablesError).path).toBe("config.detectLocal[1]");
  });

  test("existingChains holding a line feed is refused", () => {
    const m = model(objects("name", ""));
    const chain = `KUBE-SVC-AAAAAAAAAAAAAAAA\n${INJECTED}`;
    const out = refusal(() => generateRestoreText(m, { existingChains: [chain] }));
    expect(out).toBeInstanceOf(KubeIptablesError);
    expect((out as KubeIptablesError).path).toBe("existingChains[0]");
  });

  test("formatRestore of a hand-built rule set names the bad value", () => {
    const ruleSet = {
      family: "IPv4" as const,
      tables: [
        {
          name: "filter",
          chains: [{ name: "X", policy: null }],
          entries: [
            {
              kind: "rule" as const,
              op: "-A" as const,
              chain: "X",
              args: ["-m", "comment", "--comment", "a\nb"],
            },
          ],
        },
      ],
    };
    const out = refusal(() => formatRestore(ruleSet));
    expect((out as KubeIptablesError).path).toBe("tables[0].entries[0].args[3]");
    const badChain = {
      ...ruleSet,
      tables: [{ ...ruleSet.tables[0], chains: [{ name: "X\r", policy: null }] }],
    };
    expect((refusal(() => formatRestore(badChain as never)) as KubeIptablesError).path).toBe(
      "tables[0].chains[0].name",
    );
  });

  test("quoteArgument refuses what no quoting carries, and quotes the rest", () => {
    for (const bad of BAD) {
      expect(() => quoteArgument(`a${bad}b`)).toThrow(KubeIptablesError);
      expect(() => quoteArgument(`"a${bad}b`)).toThrow(KubeIptablesError);
    }
    expect(quoteArgument("a\tb")).toBe('"a\tb"');
    expect(quoteArgument('a"b')).toBe('"a\\"b"');
  });

  test("generate --current: a chain the dump declares twice is deleted once", () => {
    const m = model(objects("name", ""));
    const stale = "KUBE-SVC-AAAAAAAAAAAAAAAA";
    const text = generateRestoreText(m, { existingChains: [stale, stale] });
    expect(text.split("\n").filter((l) => l === `-X ${stale}`)).toHaveLength(1);
    expect(text.split("\n").filter((l) => l === `:${stale} - [0:0]`)).toHaveLength(1);
  });
});
