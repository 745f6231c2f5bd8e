// bench/RESULTS.md from bench/results.json and kube-proxy's figures, plus the profile notes
// kept by hand in bench/profile-notes.md.
//   node bench/report.mjs   (run.mjs calls writeReport itself)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { caseIds, caseInfo } from "./cases.mjs";
import { KUBE_PROXY_PEAK_MEMORY, kubeProxyFor, mid, range } from "./kube-proxy.mjs";
import { BENCH_DIR } from "./load.mjs";
import { tidy } from "./tidy.mjs";

const ms = (v) =>
  v === undefined
    ? "–"
    : v >= 100
      ? v.toFixed(0)
      : v >= 10
        ? v.toFixed(1)
        : v >= 1
          ? v.toFixed(2)
          : v.toFixed(3);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const int = (n) => (n === undefined ? "–" : n.toLocaleString("en-US"));
// Two decimals, but two significant digits for the tiny ratios of the incremental cases.
const ratio = (a, b) => `${a / b < 0.1 ? (a / b).toPrecision(2) : (a / b).toFixed(2)}×`;

function find(results, op, model) {
  return results.cases.find((c) => c.op === op && c.model === model && c.skip === undefined);
}

/**
 * Each target of issue 7: what it asks, what we measured, whether it holds. Timing targets are
 * judged twice, on wall time (what the issue means) and on CPU time (what survives a shared
 * machine): rows are [target, wall, met, CPU, met].
 */
function targets(results) {
  const rows = [];
  const verdict = (v, limit) => (v <= limit ? "yes" : "**no**");
  const timed = (what, c, mode, limit, scale = (v) => v, show = ms) => {
    if (c === undefined) return rows.push([what, "not measured", "–", "–", "–"]);
    const w = scale(c[mode].wall.median, "wall");
    const u = scale(c[mode].cpu.median, "cpu");
    rows.push([what, show(w), verdict(w, limit), show(u), verdict(u, limit)]);
  };
  const plain = (what, c, value, limit, show) => {
    if (c === undefined) return rows.push([what, "not measured", "–", "", ""]);
    rows.push([what, show(value(c)), verdict(value(c), limit), "", ""]);
  };
  const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
  const times = (r) => `${r.toFixed(2)}×`;
  // Cold: a fresh process and a one-shot generateRestoreText. Warm: the issue's "same generator
  // object reused for the next full generation", i.e. createGenerator on a rebuilt model.
  const tenK = find(results, "restore", "bench-clusterip-10000");
  const tenKResync = find(results, "resync", "bench-clusterip-10000");
  timed("10k×10 → restore, cold median ≤ 260 ms", tenK, "cold", 260);
  timed("10k×10 → restore, warm (reused generator) median ≤ 130 ms", tenKResync, "warm", 130);
  timed("10k×10 → restore, warm (one-shot, same process) median ≤ 130 ms", tenK, "warm", 130);
  plain("10k×10 → restore, peak heap growth ≤ 150 MB", tenK, (c) => c.heap.peakGrowth, 150e6, mb);
  const fiftyK = find(results, "restore", "bench-clusterip-50000");
  for (const mode of ["cold", "warm"]) {
    if (tenK === undefined || fiftyK === undefined) continue;
    timed(
      mode === "cold"
        ? "50k×10 cold ≤ 5.5 × our 10k cold"
        : "50k×10 warm (one-shot) ≤ 5.5 × our 10k warm (one-shot)",
      fiftyK,
      mode,
      5.5,
      (v, kind) => v / tenK[mode][kind].median,
      times,
    );
  }
  // The same ratio for the issue's warm: the generator reused, at both sizes.
  const fiftyKResync = find(results, "resync", "bench-clusterip-50000");
  if (tenKResync !== undefined && fiftyKResync !== undefined) {
    timed(
      "50k×10 warm (reused generator) ≤ 5.5 × our 10k warm (reused generator)",
      fiftyKResync,
      "warm",
      5.5,
      (v, kind) => v / tenKResync.warm[kind].median,
      times,
    );
  }
  if (results.pairs !== undefined) {
    // Each 50k cold run right after a 10k one: the median of the per-pair ratios.
    const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const of = (kind) => median(results.pairs.runs.map((r) => r.fifty[kind] / r.ten[kind]));
    const [w, u] = [of("wall"), of("cpu")];
    rows.push([
      `50k×10 cold ≤ 5.5 × our 10k cold, in back-to-back pairs (median of ${results.pairs.runs.length})`,
      times(w),
      verdict(w, 5.5),
      times(u),
      verdict(u, 5.5),
    ]);
  }
  if (results.cliFloor !== undefined) {
    // bench/cli-floor.mjs: fresh CLI processes and, in turn with them, a process that only reads
    // and JSON.parses the same file; medians of each, start-up included.
    const { cases: c, runs } = results.cliFloor;
    for (const [kind, what, limit] of [
      ["restore", "`generate --format restore`", 3.0],
      ["save", "`generate` (save text)", 3.5],
    ]) {
      const [w, u] = ["wall", "cpu"].map((m) => c[kind][m].median / c.floor[m].median);
      rows.push([
        `CLI ${what} of 10k×10, a fresh process, ≤ ${limit} × read + JSON.parse alone (median of ${runs})`,
        times(w),
        verdict(w, limit),
        times(u),
        verdict(u, limit),
      ]);
    }
  }
  plain("50k×10 peak heap growth < 1 GB", fiftyK, (c) => c.heap.peakGrowth, 1e9, mb);
  for (const [model, kp] of [
    ["bench-clusterip-1000x100", [445, 450]],
    ["bench-mixed-10000", [933, 964]],
  ]) {
    const c = find(results, "restore", model);
    const r = find(results, "resync", model);
    timed(`${model} → restore, cold ≤ 0.5 × kube-proxy (${ms(mid(kp) / 2)} ms)`, c, "cold", mid(kp) / 2);
    timed(
      `${model} → restore, warm (reused generator) ≤ 0.5 × kube-proxy (${ms(mid(kp) / 2)} ms)`,
      r,
      "warm",
      mid(kp) / 2,
    );
  }
  timed(
    "10k×10 objects → model (validated), cold ≤ 100 ms",
    find(results, "kube", "bench-clusterip-10000"),
    "cold",
    100,
  );
  timed(
    "10k×10 objects → model (validated), warm ≤ 100 ms",
    find(results, "kube", "bench-clusterip-10000"),
    "warm",
    100,
  );
  timed(
    "10k×10 objects → model (unchecked), warm ≤ 100 ms",
    find(results, "build", "bench-clusterip-10000"),
    "warm",
    100,
  );
  const inc = find(results, "update-endpoint", "bench-clusterip-10000");
  timed("one endpoint changed (10k), warm ≤ 1 ms", inc, "warm", 1);
  plain(
    "one endpoint changed (10k), delta < 1 KB",
    inc,
    (c) => c.output.bytes,
    1023,
    (b) => `${b} B`,
  );
  return rows;
}

function table(head, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The markdown text. */
export function renderReport(results) {
  const m = results.machine;
  const measured = results.cases.filter((c) => c.skip === undefined);
  const seen = new Set(results.cases.map((c) => c.id));
  const skipped = [
    ...results.cases.filter((c) => c.skip !== undefined),
    ...caseIds()
      .filter((id) => !seen.has(id))
      .map((id) => ({ ...caseInfo(id), skip: "not run yet (the suite was stopped first)" })),
  ];
  const out = [];
  out.push("# Benchmark results");
  out.push("");
  out.push(
    "Generated by `npm run bench` (bench/run.mjs → bench/report.mjs); do not edit by hand. Raw data: `bench/results.json`.",
  );
  out.push("");
  out.push(`- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}`);
  out.push(`- **Node:** ${m.node}`);
  if (results.complete === false)
    out.push(
      "- **Incomplete run:** the suite was stopped before every case ran; the missing ones are listed under *Not measured*.",
    );
  out.push(`- **Date:** ${results.date}`);
  out.push(
    `- **Commit:** ${results.commit}${results.dirty ? " plus uncommitted changes under src/ (the working tree was measured)" : ""}`,
  );
  out.push(
    `- **Load average** (1/5/15 min) at start ${m.loadAverage.start.map((v) => v.toFixed(1)).join(" / ")}, at end ${m.loadAverage.end.map((v) => v.toFixed(1)).join(" / ")}. ` +
      `Above ${m.cores} the machine was shared and wall times are inflated; the CPU-time columns (user + system of the whole process, GC threads included) suffer far less.`,
  );
  const st = results.settings;
  out.push(
    `- **Runs per case:** ${st.coldRuns} cold and up to ${st.warmSamples} warm samples; for models of 5,000 services or more (and the ×100/×1000-endpoint ones) ${st.largeColdRuns} cold and ${st.largeWarmSamples} warm (at least 3 warm, more while within 30 s)${st.incrementalWarmSamples === undefined ? "" : `; incremental updates ${st.incrementalWarmSamples} warm samples`}${st.quick ? " — quick mode" : ""}.`,
  );
  out.push("");
  out.push(
    "**Cold** = a fresh `node` process (no JIT, empty chain-name and address caches; input loaded and, for the model → text cases, the model built before the clock starts). ",
  );
  out.push(
    "**Warm** = the same process running the operation again (the first run is discarded), as a long-lived controller does. ",
  );
  out.push(
    "**Peak heap growth** = the largest used-heap size V8 reported (`--trace-gc`, before each collection, and at the end) minus the size before the call, in the first cold run (run with `--trace-gc`); ",
  );
  out.push(
    "**heap at end** = used heap right after the call (result alive, garbage not yet collected) minus before. p95 is nearest-rank (with ≤ 10 samples, the largest or second largest).",
  );
  out.push("");
  out.push("## Targets (issue 7)");
  out.push("");
  out.push(table(["target", "wall", "met", "CPU", "met"], targets(results)));
  out.push("");
  out.push("## The floor under the cold targets");
  out.push("");
  out.push(
    "`hash-floor` runs only the mandated libraries: js-sha256 (its pure-JS build, `array()` output) and base32-encode " +
      "over the hash input of every chain name of the model, once each, in a fresh process — none of our code, no " +
      "memo, no text. Whatever the generator does around it, a cold generation cannot take less than this.",
  );
  out.push("");
  out.push(
    table(
      [
        "model",
        "names hashed",
        "floor, cold",
        "floor, cold CPU",
        "floor, warm",
        "cold target",
        "our cold restore",
      ],
      [
        ["bench-clusterip-10000", 260],
        ["bench-clusterip-1000x100", 223.75],
        ["bench-mixed-10000", 474.25],
      ].map(([model, target]) => {
        const f = find(results, "hash-floor", model);
        const r = find(results, "restore", model);
        return [
          model,
          int(f?.output.names),
          ms(f?.cold.wall.median),
          ms(f?.cold.cpu.median),
          ms(f?.warm.wall.median),
          `≤ ${ms(target)}`,
          ms(r?.cold.wall.median),
        ];
      }),
    ),
  );
  out.push("");
  out.push("## Every case");
  out.push("");
  out.push(
    table(
      [
        "case",
        "cold median",
        "cold p95",
        "cold CPU",
        "warm median",
        "warm p95",
        "warm CPU",
        "peak heap growth",
        "heap at end",
        "output bytes",
        "rules",
      ],
      measured.map((c) => [
        `${c.op} · ${c.model}`,
        ms(c.cold.wall.median),
        ms(c.cold.wall.p95),
        ms(c.cold.cpu.median),
        ms(c.warm.wall.median),
        ms(c.warm.wall.p95),
        ms(c.warm.cpu.median),
        mib(c.heap.peakGrowth),
        mib(c.heap.retained),
        int(c.output.bytes),
        int(c.output.rules ?? c.output.servicePorts),
      ]),
    ),
  );
  out.push("");
  out.push(
    "Times in ms. For `kube`/`build` the last column is service ports, and there are no output bytes. " +
      "`kube` runs `prepareCluster` (validation, invalid objects left out): bench-mixed-10000 holds 1,000 Services the " +
      "validator rejects (`healthCheckNodePort` on Services that are not LoadBalancer with externalTrafficPolicy " +
      "Local), hence 9,000 ports there. `validate` is `validateClusterInput` alone: `kube` costs about `validate` plus " +
      "`build`, the endpoints being built while the validator walks them (which spares no time: each half is " +
      "bound by first reads of the same 100,000 endpoint objects).",
  );
  out.push("");
  out.push("## Side by side with kube-proxy");
  out.push("");
  out.push(
    "kube-proxy v1.30.5, `syncProxyRules` only, a 2-core CI machine, its own medians (±20–40%); ranges where it gave them, ratios against the midpoint. " +
      "kube-proxy's time includes its own bookkeeping and writing into a buffer, not `iptables-restore`; ours is model → text. A ratio below 1 means we are faster.",
  );
  out.push("");
  const withRatio = (v, kp) => `${ms(v)} (${ratio(v, mid(kp))})`;
  const side = measured
    .map((c) => ({ c, kp: kubeProxyFor(c) }))
    .filter((x) => x.kp !== null)
    .map(({ c, kp }) => [
      `${c.op} · ${c.model}`,
      kp.what,
      range(kp.ms),
      withRatio(c.cold.wall.median, kp.ms),
      withRatio(c.cold.cpu.median, kp.ms),
      withRatio(c.warm.wall.median, kp.ms),
      withRatio(c.warm.cpu.median, kp.ms),
      int(kp.bytes ?? undefined),
      int(c.output.bytes),
      kp.rules === undefined ? "–" : `${int(kp.rules)} / ${int(c.output.rules)}`,
    ]);
  out.push(
    table(
      [
        "case",
        "kube-proxy",
        "kube-proxy ms",
        "ours cold (ratio)",
        "cold CPU (ratio)",
        "ours warm (ratio)",
        "warm CPU (ratio)",
        "kube-proxy bytes",
        "our bytes",
        "rules (kp / ours)",
      ],
      side,
    ),
  );
  out.push("");
  const mem = ["bench-clusterip-10000", "bench-clusterip-50000"].map((model, i) => {
    const c = find(results, "restore", model);
    const kp = i === 0 ? KUBE_PROXY_PEAK_MEMORY["10k"] : KUBE_PROXY_PEAK_MEMORY["50k"];
    return c === undefined
      ? null
      : `${model}: kube-proxy process peak ${(kp / 1e6).toFixed(0)} MB; our cold process peak RSS ${(c.heap.maxRSS / 1e6).toFixed(0)} MB (input objects and model included), heap growth of the generation ${(c.heap.peakGrowth / 1e6).toFixed(0)} MB.`;
  });
  for (const line of mem) if (line !== null) out.push(`- ${line}`);
  out.push("");
  out.push("![time against services](scaling.svg)");
  out.push("");
  if (skipped.length > 0) {
    out.push("## Not measured");
    out.push("");
    for (const c of skipped) out.push(`- \`${c.id}\` (${c.label}): ${c.skip}.`);
    out.push("");
  }
  // Hand-kept sections: where the time goes, and bench/apply.mjs's kernel timings (root only).
  for (const name of ["profile-notes.md", "apply-notes.md"]) {
    const notes = join(BENCH_DIR, name);
    if (existsSync(notes)) out.push(readFileSync(notes, "utf8").trimEnd(), "");
  }
  return `${out.join("\n")}\n`;
}

/** Writes bench/RESULTS.md. */
export function writeReport(results) {
  writeFileSync(join(BENCH_DIR, "RESULTS.md"), renderReport(results));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeReport(JSON.parse(readFileSync(join(BENCH_DIR, "results.json"), "utf8")));
  tidy(["bench/RESULTS.md"]);
}
