// bench/scaling.svg from bench/results.json: time against number of services, log-log, our
// model → restore text (cold and warm) beside kube-proxy's full sync, and our one-endpoint
// incremental update beside kube-proxy's partial sync. Plain SVG text, no dependency.
//   node bench/plot.mjs   (run.mjs calls drawPlot itself)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KUBE_PROXY, mid } from "./kube-proxy.mjs";
import { BENCH_DIR } from "./load.mjs";

const W = 820;
const H = 560;
const M = { left: 70, right: 250, top: 40, bottom: 96 };
// Room between the frame and the first and last points, so their markers stay inside it.
const X_INSET = 14;

const CLUSTERIP = [
  "bench-clusterip-1000",
  "bench-clusterip-5000",
  "bench-clusterip-10000",
  "bench-clusterip-50000",
];

// Where kube-proxy's figures come from: they are not measured by this bench (see kube-proxy.mjs).
const KUBE_PROXY_SOURCE = [
  "kube-proxy: v1.30.5 (as vendored in openshift/sdn), syncProxyRules only, timed on a 2-core machine, medians of 5–7 runs",
  "(±20–40% noise), from test/fixtures/kube-proxy/README.md, \u201cBenchmark models\u201d (the models of test/fixtures/bench/); not rerun here.",
];

function logScale([lo, hi], [a, b]) {
  const l0 = Math.log10(lo);
  const l1 = Math.log10(hi);
  // One decimal is finer than a pixel and keeps the file readable.
  return (v) => Math.round((a + ((Math.log10(v) - l0) / (l1 - l0)) * (b - a)) * 10) / 10;
}

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

/**
 * The series to draw: `{ label, color, dash, marker, ours, points: [{ services, ms, lo, hi, spread }] }`,
 * `spread` saying what `lo`–`hi` is: "min–max" of the samples, "median–p95" for results written
 * before run.mjs kept min and max, or kube-proxy's "range" of reported medians.
 */
function seriesOf(results) {
  const find = (op, model) =>
    results.cases.find((c) => c.op === op && c.model === model && c.skip === undefined);
  const ours = (op, mode, label, color, dash, marker, kind = "wall") => ({
    label,
    color,
    dash,
    marker,
    ours: true,
    points: CLUSTERIP.map((m) => find(op, m))
      .filter((c) => c?.[mode]?.[kind] !== undefined)
      .map((c) => {
        const st = c[mode][kind];
        const minMax = typeof st.min === "number" && typeof st.max === "number";
        return {
          services: c.services,
          ms: st.median,
          lo: minMax ? st.min : st.median,
          hi: minMax ? st.max : st.p95,
          spread: minMax ? "min–max" : "median–p95",
        };
      }),
  });
  const measured = new Set(CLUSTERIP.map((m) => find("restore", m)?.services));
  // kube-proxy only at the sizes we measured (a quick run skips 50k), so the axis ends at ours.
  const kp = (key, label, color, dash, marker) => ({
    label,
    color,
    dash,
    marker,
    ours: false,
    points: [
      [1000, "1k"],
      [5000, "5k"],
      [10000, "10k"],
      [50000, "50k"],
    ]
      .filter(([services]) => measured.has(services))
      .map(([services, row]) => {
        const [lo, hi] = KUBE_PROXY[row][key];
        return { services, ms: mid([lo, hi]), lo, hi, spread: "range" };
      }),
  });
  const series = [
    kp("full", "kube-proxy full sync", "#c0392b", "", "square"),
    ours("restore", "cold", "ours: model → restore, cold", "#1f5fbf", "", "circle"),
    ours("restore", "warm", "ours: model → restore, warm", "#1f5fbf", "6 4", "circle"),
    // CPU time: on a shared machine the wall-time lines above mostly measure the neighbours.
    ours("restore", "warm", "ours: … warm, CPU time", "#7f9fdf", "1 3", "circle", "cpu"),
    // The README's "resync through a reused createGenerator()": report.mjs reads its warm side.
    ours("resync", "warm", "ours: resync, reused generator", "#8e44ad", "", "triangle"),
    kp("partial", "kube-proxy partial sync", "#c0392b", "2 3", "square"),
    ours("update-endpoint", "warm", "ours: one endpoint, warm", "#2e8b57", "2 3", "diamond"),
  ];
  return series.filter((s) => s.points.length > 0);
}

/** The legend's lines on the whiskers, from what the results hold. */
function whiskerNote(series) {
  const kinds = new Set(series.filter((s) => s.ours).flatMap((s) => s.points.map((p) => p.spread)));
  const ours =
    kinds.size === 1 && kinds.has("min–max")
      ? ["whiskers: min–max of the samples"]
      : kinds.size === 1
        ? ["whiskers: median to p95", "(these results keep no min/max)"]
        : ["whiskers: min–max, or median to p95", "where no min/max was kept"];
  return [...ours, "kube-proxy's: the range of its", "reported medians, where it has one"];
}

function marker(kind, x, y, color) {
  if (kind === "square") return `<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="${color}"/>`;
  if (kind === "diamond")
    return `<path d="M${x} ${y - 5}L${x + 5} ${y}L${x} ${y + 5}L${x - 5} ${y}Z" fill="${color}"/>`;
  if (kind === "triangle")
    return `<path d="M${x} ${y - 5}L${x + 5} ${y + 4}L${x - 5} ${y + 4}Z" fill="${color}"/>`;
  return `<circle cx="${x}" cy="${y}" r="4" fill="${color}"/>`;
}

/** A vertical whisker with caps from `lo` to `hi` (pixel rows), tagged with the values it shows. */
function whisker(x, yLo, yHi, color, point) {
  const cap = (y) => `<line x1="${x - 3}" x2="${x + 3}" y1="${y}" y2="${y}"/>`;
  return (
    `<g class="whisker" data-lo="${point.lo}" data-hi="${point.hi}" data-spread="${point.spread}" stroke="${color}" stroke-width="1">` +
    `<line x1="${x}" x2="${x}" y1="${yLo}" y2="${yHi}"/>${cap(yLo)}${cap(yHi)}</g>`
  );
}

/** The SVG text. */
export function drawPlot(results) {
  const series = seriesOf(results);
  const all = series.flatMap((s) => s.points.flatMap((p) => [p.lo, p.hi]));
  const yLo = 10 ** Math.floor(Math.log10(Math.max(0.01, Math.min(...all))));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  // The x axis runs from the first measured size to the last: no empty decade after it.
  const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.services)))].sort((a, b) => a - b);
  const xFirst = sizes[0];
  const xLast = sizes[sizes.length - 1];
  const x = logScale([xFirst, xLast], [M.left + X_INSET, W - M.right - X_INSET]);
  const y = logScale([yLo, yHi], [H - M.bottom, M.top]);
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push("<title>kube-iptables and kube-proxy: sync time against number of services</title>");
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${M.left}" y="22" font-size="14" font-weight="bold">Sync time against services (ClusterIP × 10 endpoints), log–log</text>`,
  );
  // Grid and ticks: one per measured size, so the last tick is the last point.
  out.push('<g class="x-axis">');
  for (const v of sizes) {
    out.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#ddd"/>`);
    out.push(
      `<text class="tick" data-value="${v}" x="${x(v)}" y="${H - M.bottom + 16}" text-anchor="middle">${v.toLocaleString("en-US")}</text>`,
    );
  }
  out.push("</g>");
  for (let v = yLo; v <= yHi * 1.0001; v *= 10) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    out.push(
      `<text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${v >= 1 ? v.toLocaleString("en-US") : v}</text>`,
    );
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#333"/>`,
  );
  out.push(
    `<text x="${(M.left + W - M.right) / 2}" y="${H - M.bottom + 36}" text-anchor="middle">services</text>`,
  );
  out.push(
    `<text transform="translate(18 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">median time (ms)</text>`,
  );
  const lx = W - M.right + 14;
  series.forEach((s, i) => {
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : "";
    out.push(
      `<g class="series" data-label="${esc(s.label)}" data-source="${s.ours ? "ours" : "kube-proxy"}">`,
    );
    const pts = s.points.map((p) => `${x(p.services).toFixed(1)},${y(p.ms).toFixed(1)}`).join(" ");
    out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const p of s.points) {
      out.push(`<g class="point" data-services="${p.services}" data-ms="${p.ms}">`);
      if (p.hi > p.lo) out.push(whisker(x(p.services), y(p.lo), y(p.hi), s.color, p));
      out.push(marker(s.marker, x(p.services), y(p.ms), s.color));
      out.push("</g>");
    }
    out.push("</g>");
    const ly = M.top + 14 + i * 22;
    out.push(
      `<line x1="${lx}" x2="${lx + 26}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`,
    );
    out.push(marker(s.marker, lx + 13, ly, s.color));
    out.push(`<text x="${lx + 32}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  const notesY = M.top + 14 + series.length * 22 + 8;
  out.push(`<text class="whisker-note" x="${lx}" y="${notesY}" font-size="11" fill="#333">`);
  out.push(
    ...whiskerNote(series).map((line, i) => `<tspan x="${lx}" dy="${i === 0 ? 0 : 14}">${esc(line)}</tspan>`),
  );
  out.push("</text>");
  const note = `${results.machine.cpu}, ${results.machine.cores} cores, Node ${results.machine.node}, ${results.date.slice(0, 10)}, ${results.commit}${results.dirty ? "+dirty" : ""}`;
  const load = results.machine.loadAverage.start[0].toFixed(1);
  out.push(
    `<text x="${M.left}" y="${H - 36}" font-size="10" fill="#555">${esc(`ours: ${note}; load average ${load} at start`)}</text>`,
  );
  out.push(`<text class="caption" x="${M.left}" y="${H - 22}" font-size="10" fill="#555">`);
  out.push(
    ...KUBE_PROXY_SOURCE.map(
      (line, i) => `<tspan x="${M.left}" dy="${i === 0 ? 0 : 13}">${esc(line)}</tspan>`,
    ),
  );
  out.push("</text>");
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(readFileSync(join(BENCH_DIR, "results.json"), "utf8"));
  writeFileSync(join(BENCH_DIR, "scaling.svg"), drawPlot(results));
}
