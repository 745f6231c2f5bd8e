// Several sources read as one cluster (mergeClusterReads): objects in source order, one config,
// and problems found later by prepareCluster placed in their source.
import { describe, expect, it } from "vitest";
import {
  type ClusterInput,
  formatProblem,
  generateRestoreText,
  type Problem,
  prepareCluster,
} from "../../src/index.js";
import { mergeClusterReads } from "../../src/util.js";
import { readClusterText } from "../../src/yaml.js";
import { kubeProxyVector } from "../support/corpora.js";

const vector = kubeProxyVector("kube-proxy", "large-1");
const whole = vector as unknown as Required<ClusterInput>;

function sources(...texts: [string, unknown][]) {
  return mergeClusterReads(
    texts.map(([source, value]) => ({ source, read: readClusterText(JSON.stringify(value)) })),
  );
}

describe("mergeClusterReads", () => {
  it("builds the model the whole cluster file builds, from a config, a List and single objects", () => {
    const [first, ...rest] = whole.endpointSlices;
    const merged = sources(
      ["node.json", { config: whole.config }],
      [
        "svc.json",
        {
          kind: "List",
          apiVersion: "v1",
          items: whole.services.map((s) => ({ kind: "Service", apiVersion: "v1", ...s })),
        },
      ],
      ["one-slice.json", { kind: "EndpointSlice", apiVersion: "discovery.k8s.io/v1", ...first }],
      ["slices.json", { endpointSlices: rest }],
    );
    expect(merged.problems).toEqual([]);
    const model = prepareCluster(merged.input as ClusterInput, { origins: merged.origins }).model;
    const reference = prepareCluster(whole).model;
    expect(model).not.toBeNull();
    expect(generateRestoreText(model as never)).toBe(generateRestoreText(reference as never));
  });

  it("places problems and the objects they refer to in their sources", () => {
    const service = whole.services[0] as { metadata: { name: string } };
    const merged = sources(
      ["a.json", { services: [service] }],
      ["b.json", { kind: "Service", apiVersion: "v1", ...service }],
    );
    const { problems } = prepareCluster(merged.input as ClusterInput, { origins: merged.origins });
    const duplicate = problems.find((p) => p.code === "DUPLICATE");
    // The lone object of b.json is that file's root: its path is empty, its source the file.
    expect(duplicate?.source).toBe("b.json");
    expect(duplicate?.path).toBe("");
    expect(formatProblem(duplicate as Problem)).toMatch(
      /^b\.json: Service .* is already a\.json: services\[0\]/,
    );
  });

  it("reads nothing when a source is unreadable or a second one gives a config", () => {
    const broken = mergeClusterReads([
      { source: "a.yaml", read: readClusterText("services: [") },
      { source: "b.json", read: readClusterText("{}") },
    ]);
    expect(broken.input).toBeNull();
    expect(broken.problems[0]?.source).toBe("a.yaml");
    expect(formatProblem(broken.problems[0] as Problem)).toMatch(
      /^a\.yaml:\d+:\d+: the input is not valid YAML/,
    );
    const twoConfigs = sources(["a.json", { config: {} }], ["b.json", { config: {} }]);
    expect(twoConfigs.input).toBeNull();
    expect(twoConfigs.problems.map(formatProblem)).toEqual([
      "b.json: config: config is also given in a.json: give it once",
    ]);
  });
});
