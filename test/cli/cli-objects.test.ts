// The built CLI reading a real cluster's objects as kubectl prints them (`npm test` builds dist/
// first): Lists with other kinds, streams, directories of manifests, objects without a namespace,
// v1 Endpoints, YAML 1.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliResult, runCli, stderrLines } from "../support/run-cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-iptables-objects-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const NODE = ["--hostname", "node-a", "--format", "restore"];

/** A Service `web` (port http 80 → 8080) as YAML, with `namespace` when given. */
const serviceYaml = (namespace?: string, port = "80") => `apiVersion: v1
kind: Service
metadata:
  name: web${namespace === undefined ? "" : `\n  namespace: ${namespace}`}
spec:
  clusterIP: 10.96.0.10
  ports:
  - {name: http, port: ${port}, protocol: TCP, targetPort: 8080}
`;

/** An EndpointSlice of `web` with the given ready endpoints (as YAML values of `ready`). */
const sliceYaml = (endpoints: Record<string, string>, namespace?: string) => `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abcde${namespace === undefined ? "" : `\n  namespace: ${namespace}`}
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
${Object.entries(endpoints)
  .map(([ip, ready]) => `- {addresses: [${ip}], conditions: {ready: ${ready}}}`)
  .join("\n")}
ports: [{name: http, port: 8080, protocol: TCP}]
`;

/** The DNAT destinations of the rules. */
function destinations(r: CliResult): string[] {
  return [...r.stdout.matchAll(/--to-destination (\S+)/g)].map((m) => m[1] as string).sort();
}

const OTHERS = `- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default}
  spec: {containers: [{name: c, image: nginx}]}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-5d9, namespace: default}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: default}
`;

/** `kubectl get all,endpointslices -o yaml`: a List with Pods, a Deployment and a ReplicaSet. */
const getAll = (others = OTHERS) =>
  `apiVersion: v1
kind: List
items:
${others}${[serviceYaml("default"), sliceYaml({ "10.244.0.5": "true" }, "default")]
  .map((doc) => `- ${doc.trimEnd().replaceAll("\n", "\n  ")}\n`)
  .join("")}`;

describe("objects of other kinds", () => {
  test("a List from 'kubectl get all': its Services and slices are read, the rest named in one note", () => {
    const all = file("all.yaml", getAll());
    const r = runCli(["generate", all, ...NODE]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${all}: skipped 4 objects of other kinds: Pod (2), Deployment (1), ReplicaSet (1)`,
    ]);
    expect(destinations(r)).toEqual(["10.244.0.5:8080"]);
    // The same rules as without the other objects.
    const alone = runCli(["generate", file("only.yaml", getAll("")), ...NODE]);
    expect(alone.stderr).toBe("");
    expect(r.stdout).toBe(alone.stdout);
  });

  test("--strict refuses other kinds: exit 2, the note, no output", () => {
    const all = file("all-strict.yaml", getAll());
    const r = runCli(["generate", "--strict", all, ...NODE]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${all}: skipped 4 objects of other kinds: Pod (2), Deployment (1), ReplicaSet (1)`,
    ]);
  });

  test("a stream of documents with a ConfigMap", () => {
    const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n";
    const stream = [configMap, serviceYaml(), sliceYaml({ "10.244.0.5": "true" })].join("---\n");
    const r = runCli(["generate", "-", ...NODE], stream);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual(["kube-iptables: -: skipped 1 object of another kind: ConfigMap (1)"]);
    expect(destinations(r)).toEqual(["10.244.0.5:8080"]);
  });

  test("a directory of manifests: one note for all its files", () => {
    const manifests = join(dir, "manifests");
    mkdirSync(manifests);
    writeFileSync(join(manifests, "service.yaml"), serviceYaml());
    writeFileSync(join(manifests, "slice.yaml"), sliceYaml({ "10.244.0.5": "true", "10.244.0.6": "true" }));
    writeFileSync(join(manifests, "config.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    writeFileSync(
      join(manifests, "secret.json"),
      JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } }),
    );
    writeFileSync(
      join(manifests, "deploy.yml"),
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
    );
    const r = runCli(["generate", manifests, ...NODE]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      "kube-iptables: skipped 3 objects of other kinds: ConfigMap (1), Deployment (1), Secret (1)",
    ]);
    expect(destinations(r)).toEqual(["10.244.0.5:8080", "10.244.0.6:8080"]);
  });

  test("a cluster file with a Pod among its services and a v1beta1 slice: named, refused by --strict", () => {
    const cluster = {
      services: [
        { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } },
        {
          metadata: { name: "web", namespace: "default" },
          spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
        },
      ],
      endpointSlices: [
        {
          apiVersion: "discovery.k8s.io/v1beta1",
          metadata: { name: "old", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
          addressType: "IPv4",
          endpoints: [{ addresses: ["10.244.0.9"] }],
          ports: [{ name: "http", port: 8080 }],
        },
      ],
    };
    const path = file("cluster-kinds.json", JSON.stringify(cluster));
    const r = runCli(["generate", path, ...NODE]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${path}: skipped 2 objects of other kinds or versions: Pod (1), discovery.k8s.io/v1beta1 EndpointSlice (1); the versions read are v1 Service, discovery.k8s.io/v1 EndpointSlice and v1 Endpoints`,
    ]);
    expect(r.stdout).toContain("default/web:http has no endpoints");
    expect(runCli(["generate", "--strict", path, ...NODE]).code).toBe(2);
  });
});

describe("the namespace of objects that name none", () => {
  const manifests = () =>
    file("no-namespace.yaml", [serviceYaml(), sliceYaml({ "10.244.0.5": "true" })].join("---\n"));

  test("is default, as with kubectl apply -f", () => {
    const r = runCli(["generate", manifests(), ...NODE]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain('"default/web:http cluster IP"');
    expect(destinations(r)).toEqual(["10.244.0.5:8080"]);
  });

  test("-n / --namespace chooses another; an object's own namespace wins", () => {
    for (const flag of ["-n", "--namespace"]) {
      const r = runCli(["generate", flag, "shop", manifests(), ...NODE]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain('"shop/web:http cluster IP"');
      expect(destinations(r)).toEqual(["10.244.0.5:8080"]);
    }
    // The slice names its namespace (prod), the Service does not: with -n shop they part.
    const mixed = file(
      "mixed.yaml",
      [serviceYaml(), sliceYaml({ "10.244.0.5": "true" }, "prod")].join("---\n"),
    );
    const r = runCli(["generate", "-n", "shop", mixed, ...NODE]);
    expect(r.stdout).toContain('"shop/web:http has no endpoints"');
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${mixed}: documents[1]: no Service prod/web in the input: its endpoints make no rules`,
    ]);
  });

  test("a namespace the API server would refuse is a usage error", () => {
    const r = runCli(["generate", "-n", "Shop_1", manifests(), ...NODE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("kube-iptables: Try 'kube-iptables generate --help'.");
    expect(r.stderr).toContain("--namespace Shop_1: not a namespace name");
  });

  test("trace and diff read with -n too", () => {
    const path = manifests();
    const trace = runCli(["trace", "-n", "shop", path, "--src", "10.244.1.1", "--dst", "10.96.0.10:80"]);
    expect(trace.code).toBe(0);
    expect(trace.stdout).toContain("shop/web:http");
    const other = file(
      "no-namespace-2.yaml",
      [serviceYaml(), sliceYaml({ "10.244.0.7": "true" })].join("---\n"),
    );
    const diff = runCli(["diff", "--namespace", "shop", path, other]);
    expect(diff.code).toBe(1); // the endpoints differ
    expect(diff.stdout).toContain("shop/web");
    expect(diff.stdout).not.toContain("default/web");
  });
});

describe("v1 Endpoints", () => {
  /** `kubectl get svc,ep -o yaml`. */
  const svcEp = `apiVersion: v1
kind: List
items:
- ${serviceYaml("default").trimEnd().replaceAll("\n", "\n  ")}
- apiVersion: v1
  kind: Endpoints
  metadata:
    name: web
    namespace: default
    labels: {endpointslice.kubernetes.io/skip-mirror: "true"}
  subsets:
  - addresses:
    - {ip: 10.244.0.5, nodeName: node-a, targetRef: {kind: Pod, name: web-1, namespace: default}}
    - {ip: 10.244.1.5, nodeName: node-b}
    notReadyAddresses:
    - {ip: 10.244.0.6, nodeName: node-a}
    ports:
    - {name: http, port: 8080, protocol: TCP}
`;

  test("Endpoints alone are read as the slices the control plane mirrors: ready addresses serve", () => {
    const r = runCli(["generate", file("svc-ep.yaml", svcEp), ...NODE]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(destinations(r)).toEqual(["10.244.0.5:8080", "10.244.1.5:8080"]);
  });

  test("with slices of the same Service the slices win, with a note; also across files", () => {
    const both = `${svcEp}- ${sliceYaml({ "10.244.0.7": "yes" }, "default").trimEnd().replaceAll("\n", "\n  ")}\n`;
    const svcEpSlices = file("svc-ep-slices.yaml", both);
    const r = runCli(["generate", svcEpSlices, ...NODE]);
    expect(r.code).toBe(0);
    expect(stderrLines(r)).toEqual([
      `kube-iptables: ${svcEpSlices}: items[1]: Endpoints default/web: EndpointSlices of this Service are given too, and are read instead`,
    ]);
    expect(destinations(r)).toEqual(["10.244.0.7:8080"]);
    const slices = file("slices-only.yaml", sliceYaml({ "10.244.0.7": "yes" }, "default"));
    const two = runCli(["generate", file("svc-ep-2.yaml", svcEp), slices, ...NODE]);
    expect(stderrLines(two)).toEqual([
      `kube-iptables: ${join(dir, "svc-ep-2.yaml")}: items[1]: Endpoints default/web: EndpointSlices of this Service are given too, and are read instead`,
    ]);
    expect(destinations(two)).toEqual(["10.244.0.7:8080"]);
  });

  test("a bad address is named where it is in the Endpoints; --strict refuses", () => {
    const bad = svcEp.replace("ip: 10.244.1.5", "ip: 10.244.1.500");
    const r = runCli(["generate", file("svc-ep-bad.yaml", bad), ...NODE]);
    expect(stderrLines(r)[0]).toMatch(
      /^kube-iptables: \S+svc-ep-bad\.yaml: items\[1\]\.subsets\[0\]\.addresses\[1\]\.ip: "10\.244\.1\.500" is not/,
    );
    expect(runCli(["generate", "--strict", file("svc-ep-bad2.yaml", bad), ...NODE]).code).toBe(2);
  });
});

describe("kubectl's human-readable output", () => {
  test("the table of kubectl get and describe output: one message with the line, exit 2", () => {
    const table = runCli(
      ["generate", "-", ...NODE],
      "NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\nweb    ClusterIP   10.96.0.9    <none>        80/TCP    3d\n",
    );
    expect(table.code).toBe(2);
    expect(stderrLines(table)).toEqual([
      "kube-iptables: -:1:1: this is the table 'kubectl get' prints, not the objects: run the command again with -o yaml (or -o json) and give what it prints",
    ]);
    const described = runCli([
      "generate",
      file(
        "described.txt",
        "Name:         web\nNamespace:    default\nLabels:       app=web\nAnnotations:  a: b\n",
      ),
      ...NODE,
    ]);
    expect(described.code).toBe(2);
    expect(stderrLines(described)[0]).toMatch(/described\.txt:1:1: this is what 'kubectl describe' prints/);
  });
});

describe("a node's rules listed by iptables -L", () => {
  test("trace and diff name the listing and what to run instead; a prompt above it is named first", () => {
    const text =
      "Chain KUBE-SERVICES (2 references)\ntarget     prot opt source               destination\nKUBE-SVC-ERIFXISQEP7F7OF4  tcp  --  0.0.0.0/0            10.96.0.10           tcp dpt:53\n";
    const listed = file("listed.txt", text);
    const trace = runCli(["trace", listed, "--src", "10.244.1.5", "--dst", "10.96.0.10:53"]);
    expect(trace.code).toBe(2);
    expect(stderrLines(trace)).toEqual([
      `kube-iptables: ${listed}:1:1: this is an 'iptables -L' listing, which leaves parts of rules out: give what 'iptables-save' (or 'iptables -t nat -S') prints`,
    ]);
    const diff = runCli(["diff", listed, listed]);
    expect(diff.code).toBe(2);
    expect(stderrLines(diff)[0]).toContain("this is an 'iptables -L' listing");
    const prompted = file("prompted.txt", `root@node-1:~# iptables -t nat -L -n\n${text}`);
    const traced = runCli(["trace", prompted, "--src", "10.244.1.5", "--dst", "10.96.0.10:53"]);
    expect(traced.code).toBe(2);
    expect(stderrLines(traced)[0]).toContain(`${prompted}:1:1: this line is a shell prompt and command`);
  });
});

describe("YAML 1.1 as kubectl reads it", () => {
  test("an octal port and yes / no are what kubectl apply would create", () => {
    const text = [
      serviceYaml("default", "0120"),
      sliceYaml({ "10.244.0.5": "yes", "10.244.0.6": "no" }, "default"),
    ];
    const r = runCli(["generate", file("yaml11.yaml", text.join("---\n")), ...NODE]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("--dport 80 ");
    expect(destinations(r)).toEqual(["10.244.0.5:8080"]);
  });
});
