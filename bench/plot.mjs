// bench/scaling.svg from bench/results.json: time against number of services, log-log, our
// model → restore text (cold and warm) beside kube-proxy's full sync, and our one-endpoint
// incremental update beside kube-proxy's partial sync. Plain SVG text, no dependency.
//   node bench/plot.mjs   (run.mjs calls drawPlot itself)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KUBE_PROXY, mid } from "./kube-proxy.mjs";
import { BENCH_DIR } from "./load.mjs";

const W = 760;
const H = 480;
const M = { left: 70, right: 230, top: 40, bottom: 56 };
const X_RANGE = [500, 100000];

const CLUSTERIP = [
  "bench-clusterip-1000",
  "bench-clusterip-5000",
  "bench-clusterip-10000",
  "bench-clusterip-50000",
];

function logScale([lo, hi], [a, b]) {
  const l0 = Math.log10(lo);
  const l1 = Math.log10(hi);
  // One decimal is finer than a pixel and keeps the file readable.
  return (v) => Math.round((a + ((Math.log10(v) - l0) / (l1 - l0)) * (b - a)) * 10) / 10;
}

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** The series to draw: `{ label, color, dash, marker, points: [[services, ms]] }`. */
function seriesOf(results) {
  const find = (op, model) =>
    results.cases.find((c) => c.op === op && c.model === model && c.skip === undefined);
  const ours = (op, mode, label, color, dash, marker, kind = "wall") => ({
    label,
    color,
    dash,
    marker,
    points: CLUSTERIP.map((m) => find(op, m))
      .filter(Boolean)
      .map((c) => [c.services, c[mode][kind].median]),
  });
  const kp = (key, label, color, dash, marker) => ({
    label,
    color,
    dash,
    marker,
    points: [
      [1000, mid(KUBE_PROXY["1k"][key])],
      [5000, mid(KUBE_PROXY["5k"][key])],
      [10000, mid(KUBE_PROXY["10k"][key])],
      [50000, mid(KUBE_PROXY["50k"][key])],
    ],
  });
  const series = [
    kp("full", "kube-proxy full sync", "#c0392b", "", "square"),
    ours("restore", "cold", "ours: model → restore, cold", "#1f5fbf", "", "circle"),
    ours("restore", "warm", "ours: model → restore, warm", "#1f5fbf", "6 4", "circle"),
    // CPU time: on a shared machine the wall-time lines above mostly measure the neighbours.
    ours("restore", "warm", "ours: … warm, CPU time", "#7f9fdf", "1 3", "circle", "cpu"),
    kp("partial", "kube-proxy partial sync", "#c0392b", "2 3", "square"),
    ours("update-endpoint", "warm", "ours: one endpoint, warm", "#2e8b57", "2 3", "diamond"),
  ];
  return series.filter((s) => s.points.length > 0);
}

function marker(kind, x, y, color) {
  if (kind === "square") return `<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="${color}"/>`;
  if (kind === "diamond")
    return `<path d="M${x} ${y - 5}L${x + 5} ${y}L${x} ${y + 5}L${x - 5} ${y}Z" fill="${color}"/>`;
  return `<circle cx="${x}" cy="${y}" r="4" fill="${color}"/>`;
}

/** The SVG text. */
export function drawPlot(results) {
  const series = seriesOf(results);
  const all = series.flatMap((s) => s.points.map((p) => p[1]));
  const yLo = 10 ** Math.floor(Math.log10(Math.max(0.01, Math.min(...all))));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const x = logScale(X_RANGE, [M.left, W - M.right]);
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
  // Grid and ticks: one line per decade.
  for (let v = 1000; v <= X_RANGE[1]; v *= 10) {
    out.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#ddd"/>`);
    out.push(
      `<text x="${x(v)}" y="${H - M.bottom + 16}" text-anchor="middle">${v.toLocaleString("en-US")}</text>`,
    );
  }
  for (let v = yLo; v <= yHi * 1.0001; v *= 10) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    out.push(
      `<text x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${v >= 1 ? v.toLocaleString("en-US") : v}</text>`,
    );
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#333"/>`,
  );
  out.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 14}" text-anchor="middle">services</text>`);
  out.push(
    `<text transform="translate(18 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">median time (ms)</text>`,
  );
  series.forEach((s, i) => {
    const pts = s.points.map(([sv, ms]) => `${x(sv).toFixed(1)},${y(ms).toFixed(1)}`).join(" ");
    out.push(
      `<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""}/>`,
    );
    for (const [sv, ms] of s.points) out.push(marker(s.marker, x(sv), y(ms), s.color));
    const ly = M.top + 14 + i * 22;
    const lx = W - M.right + 14;
    out.push(
      `<line x1="${lx}" x2="${lx + 26}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""}/>`,
    );
    out.push(marker(s.marker, lx + 13, ly, s.color));
    out.push(`<text x="${lx + 32}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  const note = `${results.machine.cpu}, ${results.machine.cores} cores, Node ${results.machine.node}, ${results.date.slice(0, 10)}, ${results.commit}${results.dirty ? "+dirty" : ""}`;
  const load = results.machine.loadAverage.start[0].toFixed(1);
  out.push(
    `<text x="${M.left}" y="${H - 2}" font-size="10" fill="#555">${esc(`${note}; load average ${load} at start`)}</text>`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(readFileSync(join(BENCH_DIR, "results.json"), "utf8"));
  writeFileSync(join(BENCH_DIR, "scaling.svg"), drawPlot(results));
}
