// How long the kernel takes to apply a delta: `iptables-restore --noflush` of our one-chain delta
// against kube-proxy's partial-sync payload for the same change (one endpoint of one service
// moved), on a private network namespace holding the 10,000-service rules. Both iptables
// backends: nf_tables (`iptables-restore`) and legacy (`iptables-legacy-restore`).
//
//   node bench/apply.mjs [runs=5]      (root; needs unshare, iptables-nft and iptables-legacy)
//
// Every run gets a fresh `unshare -n` namespace: the full payload is restored first (untimed),
// then the delta alone is timed inside the namespace, then `iptables-save -t nat` checks that
// the new endpoint's DNAT is there and the removed SEP chain is gone. Nothing touches the host's
// tables and no traffic is sent. Prints a JSON summary and a Markdown table.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadLibrary, readClusterInput } from "./load.mjs";

const MODEL = "bench-clusterip-10000";
const RUNS = Number(process.argv[2] ?? 5);
const NEW_ADDRESS = "10.255.255.1";
const KUBE_PROXY_MEASURED_BYTES = 1406791;
// nat chains kube-proxy declares and writes whole on every sync, partial or not.
const FIXED_NAT = ["KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"];
const BACKENDS = [
  { name: "nf_tables", restore: "iptables-restore", save: "iptables-save" },
  { name: "legacy", restore: "iptables-legacy-restore", save: "iptables-legacy-save" },
];

const lib = await loadLibrary();
const input = readClusterInput(MODEL);

// (1) the full payload and the engine's state.
const sync = lib.createSync(input.config);
const first = sync.update(input.services, input.endpointSlices);
const fullText = lib.formatRestore(first.ruleSet);

// (2) one endpoint of the first slice moves to a new address (as bench/cases.mjs's
// update-endpoint); every other object keeps its identity.
const slices = input.endpointSlices.slice();
const slice0 = slices[0];
const endpoints = slice0.endpoints.slice();
const oldAddress = endpoints[0].addresses[0];
endpoints[0] = { ...endpoints[0], addresses: [NEW_ADDRESS] };
slices[0] = { ...slice0, endpoints };
const second = sync.update(input.services, slices);
const ourDelta = second.deltaText;

// (3) kube-proxy's partial sync for the same change.
const changedService = {
  namespace: slice0.metadata.namespace,
  name: slice0.metadata.labels["kubernetes.io/service-name"],
};
const newRules = lib.generateRules(
  lib.modelFromKubernetes({ config: input.config, services: input.services, endpointSlices: slices }),
);
const kubeProxyDelta = lib.formatRestore(kubeProxyPartial(first.ruleSet, newRules, changedService));

/** The jump target of a rule (`-j` or `-g`), or undefined. */
function target(rule) {
  for (let i = rule.args.length - 2; i >= 0; i--) {
    if (rule.args[i] === "-j" || rule.args[i] === "-g") return rule.args[i + 1];
  }
  return undefined;
}

/** Whether a rule of a fixed chain belongs to the service (its comment names it). */
function ofService(rule, { namespace, name }) {
  const i = rule.args.indexOf("--comment");
  if (i < 0) return false;
  const c = rule.args[i + 1];
  const prefix = `${namespace}/${name}`;
  return c.startsWith(`${prefix}:`) || c.startsWith(`${prefix} `) || c === prefix;
}

/**
 * kube-proxy's partial-sync payload: the filter table whole; in nat the fixed chains declared
 * and written whole, and only the changed service's own chains (SVC/SVL/EXT/FW and its SEPs,
 * found by following jumps from its KUBE-SERVICES/KUBE-NODEPORTS rules) declared and written;
 * the chains the change removed are declared (which flushes them) and deleted with `-X` just
 * before the last KUBE-SERVICES rule, where kube-proxy writes them.
 */
function kubeProxyPartial(oldRules, rules, service) {
  const nat = rules.tables.find((t) => t.name === "nat");
  const oldNat = oldRules.tables.find((t) => t.name === "nat");
  const byChain = new Map();
  for (const e of nat.entries) {
    if (e.kind !== "rule") continue;
    if (!byChain.has(e.chain)) byChain.set(e.chain, []);
    byChain.get(e.chain).push(e);
  }
  const fixed = new Set(FIXED_NAT);
  const own = new Set();
  const todo = [];
  for (const chain of ["KUBE-SERVICES", "KUBE-NODEPORTS"]) {
    for (const r of byChain.get(chain) ?? []) {
      const t = target(r);
      if (t?.startsWith("KUBE-") && !fixed.has(t) && ofService(r, service)) todo.push(t);
    }
  }
  while (todo.length > 0) {
    const c = todo.pop();
    if (own.has(c)) continue;
    own.add(c);
    for (const r of byChain.get(c) ?? []) {
      const t = target(r);
      if (t?.startsWith("KUBE-") && !fixed.has(t) && byChain.has(t)) todo.push(t);
    }
  }
  const declared = new Set(nat.chains.map((c) => c.name));
  const removed = oldNat.chains.filter((c) => !declared.has(c.name)).map((c) => c.name);
  const keep = (chain) => fixed.has(chain) || own.has(chain);
  const entries = nat.entries.filter((e) => keep(e.chain));
  let last = entries.length;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].chain === "KUBE-SERVICES") {
      last = i;
      break;
    }
  }
  entries.splice(last, 0, ...removed.map((chain) => ({ kind: "chain", op: "-X", chain })));
  const chains = [
    ...nat.chains.filter((c) => keep(c.name)),
    ...removed.map((name) => ({ name, policy: null })),
  ];
  return {
    family: rules.family,
    tables: rules.tables.map((t) => (t.name === "nat" ? { name: "nat", chains, entries } : t)),
  };
}

// What to check after applying: the new DNAT present once, the old one and its chain gone.
const newDnat = `--to-destination ${NEW_ADDRESS}:`;
const oldDnat = `--to-destination ${oldAddress}:`;
const removedChain = /^-X (\S+)$/m.exec(ourDelta)?.[1];
const count = (text, s) => text.split(s).length - 1;
if (count(fullText, oldDnat) !== 1) throw new Error(`${oldAddress} is not unique in the model`);

const dir = mkdtempSync(join(tmpdir(), "ki-apply-"));
const files = {
  full: join(dir, "full.restore"),
  ours: join(dir, "ours.delta"),
  kubeProxy: join(dir, "kube-proxy.delta"),
};
writeFileSync(files.full, fullText);
writeFileSync(files.ours, ourDelta);
writeFileSync(files.kubeProxy, kubeProxyDelta);
// Runs inside the namespace: load (untimed), time the delta alone, check the result.
const script = join(dir, "run.sh");
writeFileSync(
  script,
  `set -u
restore=$1 save=$2 full=$3 delta=$4
s0=$EPOCHREALTIME
"$restore" < "$full" || { echo "full load failed"; exit 1; }
s1=$EPOCHREALTIME
"$restore" --noflush < "$delta" || { echo "delta failed"; exit 1; }
s2=$EPOCHREALTIME
"$save" -t nat > "$full.$$.nat" || exit 1
echo "load_us=$(( \${s1/./} - \${s0/./} ))"
echo "apply_us=$(( \${s2/./} - \${s1/./} ))"
echo "new_dnat=$(grep -c -- '${newDnat}' "$full.$$.nat")"
echo "old_dnat=$(grep -c -- '${oldDnat}' "$full.$$.nat")"
echo "removed_chain=$(grep -c -- '^:${removedChain} ' "$full.$$.nat")"
rm -f "$full.$$.nat"
`,
);

function runOnce(backend, delta) {
  const r = spawnSync(
    "unshare",
    ["-n", "bash", script, backend.restore, backend.save, files.full, files[delta]],
    {
      encoding: "utf8",
    },
  );
  const out = Object.fromEntries(
    r.stdout
      .trim()
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => l.split("=").map((x, i) => (i === 0 ? x : Number(x)))),
  );
  if (r.status !== 0 || out.new_dnat !== 1 || out.old_dnat !== 0 || out.removed_chain !== 0) {
    throw new Error(`${backend.name} ${delta}: status ${r.status}, ${r.stdout}${r.stderr}`);
  }
  return { applyMs: out.apply_us / 1000, loadMs: out.load_us / 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const started = { date: new Date().toISOString(), loadAverage: loadavg() };
const uptimeStart = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();
const results = [];
try {
  for (const backend of BACKENDS) {
    for (const delta of ["kubeProxy", "ours"]) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(runOnce(backend, delta));
      const row = {
        backend: backend.name,
        delta,
        bytes: Buffer.byteLength(delta === "ours" ? ourDelta : kubeProxyDelta),
        applyMs: runs.map((r) => r.applyMs),
        median: median(runs.map((r) => r.applyMs)),
        loadMedian: median(runs.map((r) => r.loadMs)),
      };
      results.push(row);
      console.error(
        `${backend.name} ${delta}: median ${row.median.toFixed(1)} ms (${row.applyMs.map((v) => v.toFixed(1)).join(", ")}); full load ${row.loadMedian.toFixed(0)} ms`,
      );
    }
  }
} finally {
  if (process.env.KI_APPLY_KEEP) console.error(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
const uptimeEnd = spawnSync("uptime", { encoding: "utf8" }).stdout.trim();

const summary = {
  model: MODEL,
  runs: RUNS,
  started,
  uptimeStart,
  uptimeEnd,
  iptables: spawnSync("iptables", ["--version"], { encoding: "utf8" }).stdout.trim(),
  kernel: spawnSync("uname", ["-r"], { encoding: "utf8" }).stdout.trim(),
  fullBytes: Buffer.byteLength(fullText),
  kubeProxyMeasuredBytes: KUBE_PROXY_MEASURED_BYTES,
  results,
};
console.log(JSON.stringify(summary, null, 2));
const int = (n) => n.toLocaleString("en-US");
console.log(`\n| backend | delta | bytes | apply, median of ${RUNS} (ms) | runs (ms) |`);
console.log("|---|---|---|---|---|");
for (const r of results) {
  const what = r.delta === "ours" ? "ours (createSync)" : "kube-proxy partial sync";
  console.log(
    `| ${r.backend} | ${what} | ${int(r.bytes)} | ${r.median.toFixed(0)} | ${r.applyMs.map((v) => v.toFixed(0)).join(", ")} |`,
  );
}
