// YAML as kubectl reads it (sigs.k8s.io/yaml → go-yaml v2, YAML 1.1): which plain scalars are
// numbers and booleans, and what the validator then says about a value of the wrong type.
import { describe, expect, test } from "vitest";
import { type ClusterInput, prepareCluster } from "../../src/index.js";
import { readClusterText } from "../../src/kube/read-input.js";
import { goYamlNumber } from "../../src/kube/yaml-numbers.js";

describe("goYamlNumber: go-yaml v2's numbers", () => {
  test.each([
    ["80", 80],
    ["0120", 80],
    ["0o120", 80],
    ["0x50", 80],
    ["0X50", 80],
    ["0b1010000", 80],
    ["-0b11", -3],
    ["+80", 80],
    ["-0x10", -16],
    ["1_000", 1000],
    ["8_0_", 80],
    ["08", 8],
    ["09.5", 9.5],
    ["80.0", 80],
    ["1e3", 1000],
    ["-.5", -0.5],
    [".5", 0.5],
    ["+.5e1", 5],
    ["0", 0],
    ["-0", 0],
    ["18446744073709551615", 2 ** 64],
    ["0x1_0000_0000_0000_0000", 2 ** 64],
  ])("%s is %d", (text, value) => {
    expect(goYamlNumber(text)).toBe(value);
  });

  test.each([".inf", ".Inf", ".INF", "+.inf"])("%s is +Infinity", (text) => {
    expect(goYamlNumber(text)).toBe(Number.POSITIVE_INFINITY);
  });

  test("-.inf and .nan", () => {
    expect(goYamlNumber("-.INF")).toBe(Number.NEGATIVE_INFINITY);
    expect(goYamlNumber(".NaN")).toBeNaN();
  });

  test.each([
    "1:20", // no sexagesimal
    "2024-01-02", // a timestamp stays text
    "0x", // no digits
    "0b102",
    "1.2.3",
    "1e400", // out of range
    "-0x8000_0000_0000_0001", // a signed integer past 64 bits that is not decimal
    "._5",
    ".inF",
    "_80", // a scalar that starts with _ is not tried as a number
    "http",
    "0x1p3", // no hex floats
    "Infinity",
  ])("%s is text", (text) => {
    expect(goYamlNumber(text)).toBeUndefined();
  });
});

/** The first Service of a YAML text, read as the CLI reads it. */
function firstService(yaml: string) {
  const read = readClusterText(yaml);
  expect(read.problems).toEqual([]);
  return read.input?.services?.[0];
}

const SERVICE = (ports: string, extra = "") => `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
${extra}spec:
  clusterIP: 10.96.0.10
  ports:
${ports}`;

describe("reading YAML as kubectl does", () => {
  test("a port in octal, hex, with underscores or as 80.0 is the number kubectl sends", () => {
    for (const written of ["0120", "0x50", "0o120", "8_0", "80.0", "+80"]) {
      const svc = firstService(SERVICE(`  - {name: http, port: ${written}, targetPort: 8080}\n`));
      expect(svc?.spec?.ports?.[0]?.port).toBe(80);
    }
    // YAML 1.2 would read 0120 as 120; a quoted one is a string, which the API server refuses.
    const quoted = readClusterText(SERVICE(`  - {name: http, port: "0120"}\n`));
    const { problems } = prepareCluster(quoted.input as ClusterInput);
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'services[0].spec.ports[0].port: expected a number, got the string "0120"',
    ]);
  });

  test("yes, no, on, off, y and n are booleans; other spellings are text", () => {
    const read = readClusterText(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: s, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints:
- {addresses: [10.0.0.1], conditions: {ready: yes, serving: on, terminating: no}}
- {addresses: [10.0.0.2], conditions: {ready: off, serving: Y, terminating: N}}
- {addresses: [10.0.0.3], conditions: {ready: YES, serving: True, terminating: FALSE}}
ports: [{name: http, port: 80}]
`);
    expect(read.input?.endpointSlices?.[0]?.endpoints?.map((e) => e.conditions)).toEqual([
      { ready: true, serving: true, terminating: false },
      { ready: false, serving: true, terminating: false },
      { ready: true, serving: true, terminating: false },
    ]);
    const text = readClusterText("services:\n- metadata: {name: yEs, namespace: oN}\n");
    expect(text.input?.services?.[0]?.metadata).toEqual({ name: "yEs", namespace: "oN" });
  });

  test("a number or a boolean where the API wants a string is refused, as the API server's decoder does", () => {
    const typeErrors = (ports: string) => {
      const read = readClusterText(SERVICE(ports));
      return prepareCluster(read.input as ClusterInput)
        .problems.filter((p) => p.code === "TYPE")
        .map((p) => `${p.path}: ${p.message}`);
    };
    expect(typeErrors("  - {name: 80, port: 80}\n")).toEqual([
      "services[0].spec.ports[0].name: expected a string, got the number 80",
    ]);
    expect(typeErrors("  - {name: yes, port: 80}\n")).toEqual([
      "services[0].spec.ports[0].name: expected a string, got true",
    ]);
    // Quoted, it is a string (then checked as a port name).
    expect(typeErrors("  - {name: '80', port: 80}\n")).toEqual([]);
    expect(typeErrors("  - {name: 'yes', port: 80}\n")).toEqual([]);
  });

  test("text that YAML 1.1 schemas read as numbers or dates stays text, as with go-yaml", () => {
    const svc = firstService(
      SERVICE(
        "  - {name: http, port: 80}\n",
        "  annotations:\n    window: 1:20\n    since: 2024-01-02\n    at: 2001-12-14t21:59:43.10-05:00\n",
      ),
    );
    expect(svc?.metadata?.annotations).toEqual({
      window: "1:20",
      since: "2024-01-02",
      at: "2001-12-14t21:59:43.10-05:00",
    });
    const read = readClusterText(SERVICE("  - {name: http, port: 80}\n", "  annotations: {window: 1:20}\n"));
    expect(prepareCluster(read.input as ClusterInput).problems).toEqual([]);
  });

  test(".inf is a number no port can be; a key that is a boolean is the text true", () => {
    const read = readClusterText(SERVICE("  - {name: http, port: .inf}\n", "  labels: {on: x}\n"));
    expect(read.input?.services?.[0]?.metadata?.labels).toEqual({ true: "x" });
    const { problems } = prepareCluster(read.input as ClusterInput);
    expect(problems.map((p) => p.path)).toEqual(["services[0].spec.ports[0].port"]);
  });

  test("JSON is read as JSON: a leading zero is an error, not octal", () => {
    const read = readClusterText('{"services": [{"spec": {"ports": [{"port": 0120}]}}]}');
    expect(read.input).toBeNull();
  });
});
