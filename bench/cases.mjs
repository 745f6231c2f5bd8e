// Every benchmark case: what it prepares (untimed) and what it runs (timed). A case whose
// feature the build does not export yet is listed with `skip` saying why.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import base32Encode from "base32-encode";
import { sha256 } from "js-sha256/build/sha256.min.mjs";
import { detectFeatures, libraryPath, readClusterInput } from "./load.mjs";
import { minimalWriterRefusal, writeMinimalRestoreText } from "./minimal-writer.mjs";
import { requiredDiff } from "./required-diff.mjs";
import { writeRequiredRestoreText } from "./required-writer.mjs";

/** Models measured for every operation, with the kube-proxy row they compare against. */
export const MODELS = [
  { name: "bench-clusterip-1000", services: 1000, kubeProxy: "1k" },
  { name: "bench-clusterip-5000", services: 5000, kubeProxy: "5k" },
  { name: "bench-clusterip-10000", services: 10000, kubeProxy: "10k" },
  { name: "bench-clusterip-50000", services: 50000, kubeProxy: "50k" },
  { name: "bench-clusterip-1000x100", services: 1000, kubeProxy: "1kx100" },
  { name: "bench-mixed-10000", services: 10000, kubeProxy: "mixed10k" },
  { name: "gen-ipv6-10000", services: 10000 },
  { name: "gen-multiport-2000x5", services: 2000 },
  { name: "gen-clusterip-100x1000", services: 100 },
];

const TEN_K = "bench-clusterip-10000";

function modelOf(lib, input) {
  return lib.buildModel(input.services, input.endpointSlices, lib.resolveConfig(input.config));
}

/** Counts `-A` lines of restore or save text (kube-proxy's "rules" column). */
export function countRules(text) {
  let n = text.startsWith("-A ") ? 1 : 0;
  for (let i = text.indexOf("\n-A "); i >= 0; i = text.indexOf("\n-A ", i + 4)) n++;
  return n;
}

/** Counts `add rule` lines of an nftables transaction. */
function countNftRules(text) {
  let n = text.startsWith("add rule ") ? 1 : 0;
  for (let i = text.indexOf("\nadd rule "); i >= 0; i = text.indexOf("\nadd rule ", i + 10)) n++;
  return n;
}

function textResult(text) {
  return { bytes: Buffer.byteLength(text), rules: countRules(text) };
}

function modelResult(model) {
  let endpoints = 0;
  for (const p of model.servicePorts) endpoints += p.endpoints.length;
  return { servicePorts: model.servicePorts.length, endpoints };
}

// One endpoint of the first service moves to a new address: kube-proxy's "partial sync after
// one endpoint change".
function changeOneEndpoint(input) {
  const slices = input.endpointSlices.slice();
  const first = slices[0];
  const endpoints = first.endpoints.slice();
  endpoints[0] = {
    ...endpoints[0],
    addresses: [input.config.ipFamily === "IPv6" ? "fd00:ffff::1" : "10.255.255.1"],
  };
  slices[0] = { ...first, endpoints };
  return { ...input, endpointSlices: slices };
}

function addOneService(input) {
  const svc = input.services[0];
  const slice = input.endpointSlices.find(
    (s) => s.metadata.labels?.["kubernetes.io/service-name"] === svc.metadata.name,
  );
  const name = "bench-added";
  const ip = "10.111.222.33";
  const services = [
    ...input.services,
    { ...svc, metadata: { ...svc.metadata, name }, spec: { ...svc.spec, clusterIP: ip, clusterIPs: [ip] } },
  ];
  const addedSlice = {
    ...slice,
    metadata: { ...slice.metadata, name: `${name}-x`, labels: { "kubernetes.io/service-name": name } },
  };
  return { ...input, services, endpointSlices: [...input.endpointSlices, addedSlice] };
}

function removeOneService(input) {
  const gone = input.services[0].metadata;
  return {
    ...input,
    services: input.services.slice(1),
    endpointSlices: input.endpointSlices.filter(
      (s) =>
        !(
          s.metadata.namespace === gone.namespace &&
          s.metadata.labels?.["kubernetes.io/service-name"] === gone.name
        ),
    ),
  };
}

/**
 * One incremental update of `createSync`: the engine has synced `input` (untimed), the timed
 * call hands it the cluster with one change, and `reset` (untimed) hands it `input` again so
 * that every timed call is the same one-object change. Unchanged objects keep their identity,
 * as in an informer cache.
 */
function syncCase(lib, input, change, options = {}) {
  const changed = change(input);
  return {
    prepare() {
      const sync = lib.createSync(input.config, options);
      sync.update(input.services, input.endpointSlices);
      return sync;
    },
    run: (sync) => sync.update(changed.services, changed.endpointSlices),
    reset: (sync) => sync.update(input.services, input.endpointSlices),
    describe: (out) => ({ ...textResult(out.deltaText), blocksBuilt: out.stats.blocksBuilt }),
  };
}

/**
 * The hash inputs of a model's chain names, as the generator hashes them: one per service port
 * (its SVC/SVL/EXT/FW chains share it) and one per ready endpoint (a lower bound of the SEP
 * chains: serving-terminating fallbacks add a few in the mixed model).
 */
function hashInputs(lib, model) {
  const inputs = [];
  for (const p of model.servicePorts) {
    const spn = lib.servicePortName(p.namespace, p.name, p.portName);
    inputs.push(`${spn}${p.protocol}`);
    for (const e of p.endpoints) if (e.ready) inputs.push(`${spn}${p.protocol}${e.endpoint}`);
  }
  return inputs;
}

/**
 * A file the CLI cases read, written once: under BENCH_FILES_DIR (run.mjs sets it per run, for
 * one build, and removes it at the end) every fresh process of a case reuses it, which spares
 * the 50k cases a formatSave of 160 MB per process; without it, a directory of this process's
 * own, removed when it exits.
 */
function inputFile(name, make) {
  let dir = process.env.BENCH_FILES_DIR;
  if (dir === undefined) {
    ownFiles ??= mkdtempSync(join(tmpdir(), "kube-iptables-bench-cli-"));
    dir = ownFiles;
  }
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (!existsSync(path)) {
    // Written aside and renamed: a process killed halfway leaves no truncated file behind.
    writeFileSync(`${path}.${process.pid}`, make());
    renameSync(`${path}.${process.pid}`, path);
  }
  return path;
}
let ownFiles;
process.on("exit", () => {
  if (ownFiles !== undefined) rmSync(ownFiles, { recursive: true, force: true });
});

/**
 * The CLI's whole `generate` on a cluster file, in this process (no node start-up): reading and
 * decoding the file, JSON parsing, validation, model, generation, and writing to a sink in place
 * of stdout. The file is written and the CLI module loaded before the clock starts.
 */
function cliCase(input, format, key) {
  const file = inputFile(`${key}-cluster.json`, () => JSON.stringify(input));
  const cliPath = join(dirname(libraryPath()), "cli.js");
  let main;
  return {
    prepare: async () => {
      ({ main } = await import(pathToFileURL(cliPath).href));
      return file;
    },
    run: async (path) => {
      const write = process.stdout.write;
      const chunks = [];
      process.stdout.write = (chunk) => chunks.push(chunk) > 0;
      try {
        const code = await main(["generate", path, "--format", format]);
        if (code !== 0) throw new Error(`kube-iptables generate exited ${code}`);
      } finally {
        process.stdout.write = write;
      }
      return chunks.join("");
    },
    describe: textResult,
  };
}

/**
 * The CLI's `main(argv)` in this process with stdout caught; `prepare` (untimed) writes the
 * files and loads the CLI module. Returns what it printed.
 */
function cliRun(files, argvOf, key, exitCode = 0) {
  const cliPath = join(dirname(libraryPath()), "cli.js");
  let main;
  return {
    prepare: async () => {
      ({ main } = await import(pathToFileURL(cliPath).href));
      const paths = {};
      for (const [name, make] of Object.entries(files)) {
        paths[name] = inputFile(`${key}-${name}`, make);
      }
      return argvOf(paths);
    },
    run: async (argv) => {
      const write = process.stdout.write;
      const chunks = [];
      process.stdout.write = (chunk) => chunks.push(chunk) > 0;
      try {
        // `diff` exits as diff(1) does: 1 when it found differences, which the changed cases expect.
        const code = await main(argv);
        if (code !== exitCode) throw new Error(`kube-iptables ${argv[0]} exited ${code}, not ${exitCode}`);
      } finally {
        process.stdout.write = write;
      }
      return chunks.join("");
    },
  };
}

/** The node's `iptables-save` dump of a model (what kube-proxy's first sync leaves). */
function nodeDump(lib, input) {
  return lib.formatSave(lib.generateState(modelOf(lib, input)));
}

/** A packet to the last Service in kube-proxy's order (the walk passes every KUBE-SERVICES rule). */
function lastServicePort(lib, input) {
  const ports = modelOf(lib, input).servicePorts;
  let last = ports[0];
  for (const p of ports) if (`${p.namespace}/${p.name}` > `${last.namespace}/${last.name}`) last = p;
  return last;
}

const OPS = {
  "cli-diff": {
    label: "the CLI end to end: `diff DUMP CLUSTER` (the node's own dump: no changes; in-process)",
    needs: "parse",
    setup: (lib, input, key) => ({
      ...cliRun(
        { "node.save": () => nodeDump(lib, input), "cluster.json": () => JSON.stringify(input) },
        (p) => ["diff", p["node.save"], p["cluster.json"]],
        key,
      ),
      describe: (out) => ({ bytes: Buffer.byteLength(out) }),
    }),
  },
  "required-diff": {
    label:
      "the lower bound under `diff DUMP CLUSTER`: bench/required-diff.mjs (read + JSON.parse, checkClusterObjects, the save text with a plan per port, read the dump, compare kube-proxy's chains one by one; nothing of ours, in-process)",
    setup: (lib, input, key) => {
      // The CLI case's files (cli-diff), written once. `prepare` keeps `input` referenced, as
      // cliRun's file makers do for cli-diff, so that both sides of ab:diff-bound run beside the
      // same live heap (a parsed 10k model: dropping it may lower a side's GC time).
      const files = {
        dump: () => inputFile(`${key}-node.save`, () => nodeDump(lib, input)),
        cluster: () => inputFile(`${key}-cluster.json`, () => JSON.stringify(input)),
      };
      return {
        prepare: () => [files.dump(), files.cluster()],
        run: ([d, c]) => requiredDiff(d, c),
        // How many chains differ: 0 on the node's own dump, as the CLI's "no changes".
        describe: (found) => {
          const differing = Object.values(found).reduce((n, chains) => n + chains.length, 0);
          if (differing !== 0)
            throw new Error(`required-diff: ${differing} chains differ on the node's own dump`);
          return { differing };
        },
      };
    },
  },
  "cli-diff-changed": {
    label: "the CLI end to end: `diff DUMP CLUSTER --format restore`, one endpoint moved (in-process)",
    needs: "parse",
    setup: (lib, input, key) => ({
      ...cliRun(
        {
          "node.save": () => nodeDump(lib, input),
          "changed.json": () => JSON.stringify(changeOneEndpoint(input)),
        },
        (p) => ["diff", p["node.save"], p["changed.json"], "--format", "restore"],
        key,
        1,
      ),
      describe: textResult,
    }),
  },
  "diff-delta": {
    label: "the CLI's `diff A B --format restore` of two cluster files, one endpoint moved (in-process)",
    needs: "parse",
    setup: (_lib, input, key) => ({
      ...cliRun(
        {
          "cluster.json": () => JSON.stringify(input),
          "changed.json": () => JSON.stringify(changeOneEndpoint(input)),
        },
        (p) => ["diff", p["cluster.json"], p["changed.json"], "--format", "restore"],
        key,
        1,
      ),
      describe: textResult,
    }),
  },
  "cli-trace": {
    label: "the CLI end to end: `trace DUMP` of one packet to the last Service (in-process)",
    needs: "trace",
    setup: (lib, input, key) => {
      const last = lastServicePort(lib, input);
      const nodeIPs = input.config.nodeIPs ?? [];
      return {
        ...cliRun(
          { "node.save": () => nodeDump(lib, input) },
          (p) => [
            "trace",
            p["node.save"],
            "--src",
            "10.64.0.5",
            "--dst",
            `${last.clusterIP}:${last.port}`,
            "--proto",
            last.protocol.toLowerCase(),
            ...nodeIPs.flatMap((ip) => ["--node-ip", ip]),
          ],
          key,
        ),
        describe: (out) => ({ bytes: Buffer.byteLength(out) }),
      };
    },
  },

  "hash-floor": {
    label: "the mandated libraries alone: js-sha256 + base32-encode of every chain name, no memo",
    // What naming costs before any of our code runs: the floor under model → restore text.
    setup: (lib, input) => {
      const inputs = hashInputs(lib, modelOf(lib, input));
      const head = new Uint8Array(10);
      const options = { padding: false };
      const run = (all) => {
        const names = new Array(all.length);
        for (let i = 0; i < all.length; i++) {
          const digest = sha256.array(all[i]);
          for (let b = 0; b < 10; b++) head[b] = digest[b];
          names[i] = base32Encode(head, "RFC4648", options);
        }
        return names;
      };
      // The same work as the library's naming: the same hashes for a sample (untimed).
      const sample = inputs.filter((_, i) => i % 997 === 0);
      const ours = run(sample);
      sample.forEach((text, i) => {
        if (lib.chainHash(text) !== ours[i]) throw new Error(`hash-floor: ${text} hashes differently`);
      });
      return { prepare: () => inputs, run, describe: (names) => ({ names: names.length }) };
    },
  },
  restore: {
    label: "model → restore text (generateRestoreText, what the CLI runs)",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      return { prepare: () => model, run: (m) => lib.generateRestoreText(m), describe: textResult };
    },
  },
  "minimal-writer": {
    label:
      "the yardstick: bench/minimal-writer.mjs, a loop that writes the same restore text for this model shape (js-sha256 + base32-encode, nothing of ours)",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      // Checked here, untimed (every port and endpoint): the timed loop assumes, as the library does not.
      const refusal = minimalWriterRefusal(model);
      if (refusal !== null) throw new Error(`minimal writer: ${refusal}`);
      return { prepare: () => model, run: (m) => writeMinimalRestoreText(m), describe: textResult };
    },
  },
  "required-writer": {
    label:
      "the yardstick plus what the house requires (bench/required-writer.mjs: the guard, a plan per port, memoized names), nothing of ours",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      const refusal = minimalWriterRefusal(model);
      if (refusal !== null) throw new Error(`required writer: ${refusal}`);
      return { prepare: () => model, run: (m) => writeRequiredRestoreText(m), describe: textResult };
    },
  },
  "save-state": {
    label: "model → state → save text (formatSave(generateState)), the design's own path",
    needs: "save",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      return {
        prepare: () => model,
        run: (m) => lib.formatSave(lib.generateState(m)),
        describe: textResult,
      };
    },
  },
  "restore-ir": {
    label: "model → rules → restore text (formatRestore(generateRules))",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      return {
        prepare: () => model,
        run: (m) => lib.formatRestore(lib.generateRules(m)),
        describe: textResult,
      };
    },
  },
  resync: {
    label: "full resync with a reused generator (model rebuilt from the same objects)",
    needs: "generator",
    // A controller's resync: the generator has printed this cluster before (untimed), and the
    // timed call gets a model rebuilt from the same objects (new model objects, equal data).
    // Two such models alternate, so that no call sees the objects of the call before.
    setup: (lib, input) => {
      const models = [modelOf(lib, input), modelOf(lib, input)];
      let next = 0;
      return {
        prepare() {
          const generator = lib.createGenerator();
          generator.restoreText(modelOf(lib, input));
          return generator;
        },
        run: (generator) => generator.restoreText(models[next++ % 2]),
        describe: textResult,
      };
    },
  },
  "resync-same": {
    label: "full resync with a reused generator (the same model object)",
    needs: "generator",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      return {
        prepare() {
          const generator = lib.createGenerator();
          generator.restoreText(model);
          return generator;
        },
        run: (generator) => generator.restoreText(model),
        describe: textResult,
      };
    },
  },
  save: {
    label: "model → save text",
    needs: "save",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      // generateSaveText where the build has it (what the CLI runs), else the state path.
      const run = lib.generateSaveText ?? ((m) => lib.formatSave(lib.generateState(m)));
      return { prepare: () => model, run: (m) => run(m), describe: textResult };
    },
  },
  kube: {
    label: "Kubernetes objects → model (validated)",
    needs: "checked",
    // prepareCluster, not modelFromKubernetes: the same validation, but an invalid object is
    // left out and reported instead of failing the whole input (bench-mixed-10000 has
    // Services the validator rejects).
    setup: (lib, input) => ({
      prepare: () => input,
      run: (i) => lib.prepareCluster(i),
      describe: (out) => ({ ...modelResult(out.model), problems: out.problems.length }),
    }),
  },
  validate: {
    label: "Kubernetes objects: validation alone (validateClusterInput), the other half of `kube`",
    needs: "checked",
    setup: (lib, input) => ({
      prepare: () => input,
      run: (i) => lib.validateClusterInput(i),
      describe: (out) => ({ problems: out.length }),
    }),
  },
  build: {
    label: "Kubernetes objects → model (unchecked buildModel)",
    setup: (lib, input) => ({ prepare: () => input, run: (i) => modelOf(lib, i), describe: modelResult }),
  },
  "update-endpoint": {
    label: "incremental: one endpoint changed",
    needs: "sync",
    setup: (lib, input) => syncCase(lib, input, changeOneEndpoint),
  },
  "update-endpoint-checked": {
    label: "incremental: one endpoint changed, createSync with validate (the new slice checked)",
    needs: "sync",
    setup: (lib, input) => syncCase(lib, input, changeOneEndpoint, { validate: true }),
  },
  "add-service": {
    label: "incremental: one service added",
    needs: "sync",
    setup: (lib, input) => syncCase(lib, input, addOneService),
  },
  "remove-service": {
    label: "incremental: one service removed",
    needs: "sync",
    setup: (lib, input) => syncCase(lib, input, removeOneService),
  },
  "sync-first": {
    label: "createSync: the first update (its delta is the full payload), a controller starting up",
    needs: "sync",
    setup: (lib, input) => ({
      prepare: () => input,
      run: (i) => lib.createSync(i.config).update(i.services, i.endpointSlices),
      describe: (out) => textResult(out.deltaText),
    }),
  },
  "sync-adopt": {
    label: "createSync from the node's iptables-save dump: the first update (nothing to change)",
    needs: "sync",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      const dump = lib.formatSave(lib.generateState(model));
      const current = lib.parseRules(dump, { family: model.config.ipFamily }).ruleSet;
      return {
        prepare: () => input,
        run: (i) => lib.createSync(i.config, { current }).update(i.services, i.endpointSlices),
        describe: (out) => ({ ...textResult(out.deltaText), dumpBytes: dump.length }),
      };
    },
  },
  parse: {
    label: "parse restore text",
    needs: "parse",
    setup: (lib, input) => {
      const text = lib.formatRestore(lib.generateRules(modelOf(lib, input)));
      return {
        prepare: () => text,
        run: (t) => lib.parseRules(t),
        describe: (out) => ({
          bytes: Buffer.byteLength(text),
          problems: out.problems?.length ?? out.errors?.length,
        }),
      };
    },
  },
  nftables: {
    label: "model → nftables transaction (generateNftables + formatNftTransaction, profile v1.30: layout A)",
    needs: "nftables",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      return {
        prepare: () => model,
        run: (m) => lib.formatNftTransaction(lib.generateNftables(m)),
        describe: (text) => ({ bytes: Buffer.byteLength(text), rules: countNftRules(text) }),
      };
    },
  },
  cli: {
    label: "the CLI end to end: `generate FILE --format restore` (in-process, no node start-up)",
    setup: (_lib, input, key) => cliCase(input, "restore", key),
  },
  "cli-save": {
    label: "the CLI end to end: `generate FILE` (save text, the default; in-process)",
    setup: (_lib, input, key) => cliCase(input, "save", key),
  },
  trace: {
    label: "trace one packet (first trace compiles the state)",
    needs: "trace",
    setup: (lib, input) => {
      const model = modelOf(lib, input);
      // The last service port in kube-proxy's order: the walk passes every KUBE-SERVICES rule.
      const ports = model.servicePorts;
      let last = ports[0];
      for (const p of ports) if (`${p.namespace}/${p.name}` > `${last.namespace}/${last.name}`) last = p;
      const packet = {
        source: "10.64.0.5",
        sourcePort: 40000,
        destination: last.clusterIP,
        destinationPort: last.port,
        protocol: last.protocol,
        from: "pod",
        inInterface: "cbr0",
      };
      const options = { nodeAddresses: input.config.nodeIPs ?? [] };
      return {
        // A fresh state object per process: the cold run includes compiling it.
        prepare: () => lib.generateState(model),
        run: (state) => lib.traceRules(state, packet, options),
        describe: (out) => ({ outcomes: out.outcomes.length }),
      };
    },
  },
};

/** All case ids, `op:model`, in report order. */
export function caseIds() {
  const ids = [];
  for (const m of MODELS)
    for (const op of ["restore", "resync", "save", "kube", "build"]) ids.push(`${op}:${m.name}`);
  for (const m of MODELS.slice(0, 6)) ids.push(`update-endpoint:${m.name}`);
  ids.push(`minimal-writer:${TEN_K}`, `required-writer:${TEN_K}`, `save-state:${TEN_K}`);
  ids.push(`restore-ir:${TEN_K}`, `resync-same:${TEN_K}`);
  for (const m of ["bench-clusterip-10000", "bench-clusterip-1000x100", "bench-mixed-10000"])
    ids.push(`hash-floor:${m}`);
  ids.push(`add-service:${TEN_K}`, `remove-service:${TEN_K}`, `parse:${TEN_K}`, `trace:${TEN_K}`);
  ids.push(`validate:${TEN_K}`, `update-endpoint-checked:${TEN_K}`);
  ids.push(`sync-first:${TEN_K}`, `sync-adopt:${TEN_K}`);
  ids.push(`cli:${TEN_K}`, `cli-save:${TEN_K}`);
  for (const m of [TEN_K, "bench-clusterip-50000"]) ids.push(`cli-diff:${m}`, `cli-trace:${m}`);
  ids.push(`cli-diff-changed:${TEN_K}`, `diff-delta:${TEN_K}`, `required-diff:${TEN_K}`);
  ids.push(`nftables:${TEN_K}`);
  return ids;
}

const FIFTY_K = "bench-clusterip-50000";
const CLUSTERIP_SIZES = ["bench-clusterip-1000", "bench-clusterip-5000", TEN_K, FIFTY_K];

/**
 * The cases `run.mjs --issue21` runs: those the issue-21 targets read, and the ClusterIP scaling
 * series the plot draws (restore, resync and one-endpoint update at 1k–50k). The 10k→50k CLI
 * ratios come from the alternations below, not from cases.
 */
export function issue21CaseIds() {
  const ids = [];
  for (const op of ["restore", "resync", "update-endpoint"])
    for (const m of CLUSTERIP_SIZES) ids.push(`${op}:${m}`);
  for (const op of [
    "minimal-writer",
    "required-writer",
    "save",
    "save-state",
    "cli",
    "cli-save",
    "cli-diff",
    "required-diff",
    "cli-trace",
    "diff-delta",
  ])
    ids.push(`${op}:${TEN_K}`);
  return ids;
}

/**
 * Pairs of cases run alternately in fresh processes (a, b, then b, a, …), so that a shared
 * machine's drift falls on both alike; the per-round quotient a/b is what the targets read.
 * `same`: both must print the same bytes (their SHA-256 is compared on every round).
 * `exponent`: the quotient is a scaling exponent over this size factor, log(a/b) / log(factor).
 */
export const ALTERNATIONS = [
  {
    id: "ab:yardstick",
    what: "cold `generateRestoreText` 10k ÷ the minimal writer (bench/minimal-writer.mjs) cold",
    a: `restore:${TEN_K}`,
    b: `minimal-writer:${TEN_K}`,
    same: true,
  },
  {
    id: "ab:requirements",
    what: "cold bench/required-writer.mjs (the yardstick plus the guard, a plan per port and memoized names) 10k ÷ the minimal writer cold",
    a: `required-writer:${TEN_K}`,
    b: `minimal-writer:${TEN_K}`,
    same: true,
  },
  {
    id: "ab:diff-bound",
    what: "`diff DUMP CLUSTER` 10k cold (in-process) ÷ its lower bound bench/required-diff.mjs cold; the bound's CPU is read against the 2 s limit",
    a: `cli-diff:${TEN_K}`,
    b: `required-diff:${TEN_K}`,
  },
  {
    id: "ab:save-paths",
    what: "cold `formatSave(generateState(m))` 10k ÷ `generateSaveText(m)` cold",
    a: `save-state:${TEN_K}`,
    b: `save:${TEN_K}`,
    same: true,
  },
  {
    id: "ab:restore-scaling",
    what: "cold `generateRestoreText` 50k ÷ 10k",
    a: `restore:${FIFTY_K}`,
    b: `restore:${TEN_K}`,
    exponent: 5,
  },
  {
    id: "ab:diff-scaling",
    what: "`diff DUMP CLUSTER` 50k ÷ 10k, cold",
    a: `cli-diff:${FIFTY_K}`,
    b: `cli-diff:${TEN_K}`,
    exponent: 5,
  },
  {
    id: "ab:trace-scaling",
    what: "`trace DUMP` 50k ÷ 10k, cold",
    a: `cli-trace:${FIFTY_K}`,
    b: `cli-trace:${TEN_K}`,
    exponent: 5,
  },
];

/**
 * The order to run cases in: what the issue's targets need first, the slow save and 50k cases
 * last, so that an interrupted run still answers the main questions (results.json is written
 * after every case).
 */
export function runOrder() {
  const ids = caseIds();
  const rank = (id) => {
    const { op, model } = caseInfo(id);
    const huge = model === "bench-clusterip-50000";
    const generated = model.startsWith("gen-");
    if ((op === "restore" || op === "resync") && !huge && !generated) return 0;
    if (!huge && !generated && op !== "save") return 1;
    if ((op === "restore" || op === "resync") && huge) return 2;
    if (op === "save" && !huge && !generated) return 3;
    if (generated && op !== "save") return 4;
    return 5;
  };
  return ids
    .map((id, i) => ({ id, i, r: rank(id) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.id);
}

/** Static facts about a case, without loading anything. */
export function caseInfo(id) {
  const [op, model] = id.split(":");
  const m = MODELS.find((x) => x.name === model);
  return {
    id,
    op,
    model,
    label: OPS[op].label,
    needs: OPS[op].needs,
    services: m.services,
    kubeProxy: m.kubeProxy,
  };
}

/** Why a case cannot run with this build, or `null`. */
export function skipReason(lib, id) {
  const { needs } = caseInfo(id);
  if (needs === undefined) return null;
  const features = detectFeatures(lib);
  if (features[needs]) return null;
  const missing = {
    save: "formatSave/generateState",
    checked: "prepareCluster",
    sync: "createSync",
    parse: "parseRules",
    trace: "traceRules",
    nftables: "generateNftables/formatNftTransaction",
  };
  return `dist/ does not export ${missing[needs]} yet`;
}

/** Loads the input and sets a case up: `{ prepare(), run(state), describe(output) }`. */
export function setupCase(lib, id) {
  const { op, model } = caseInfo(id);
  // The model's name keys the input files the CLI cases write (see inputFile).
  return OPS[op].setup(lib, readClusterInput(model), model);
}
