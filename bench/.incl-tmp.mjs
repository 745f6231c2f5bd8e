import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { relative } from "node:path";
import { loadSourceMap } from "./sourcemap.mjs";
import { ROOT } from "./load.mjs";
const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const maps = new Map();
function where(f) {
  if (!f.url.startsWith("file://")) return f.url || "(native)";
  const path = fileURLToPath(f.url);
  if (!maps.has(path)) { try { maps.set(path, loadSourceMap(path)); } catch { maps.set(path, null); } }
  const hit = maps.get(path)?.(f.lineNumber, f.columnNumber);
  return hit ? `${relative(ROOT, hit.source)}:${hit.line}` : `${relative(ROOT, path)}:${f.lineNumber + 1}`;
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = new Map();
for (const n of profile.nodes) keyOf.set(n.id, `${n.callFrame.functionName || "(anon)"} ${where(n.callFrame)}`);
const incl = new Map(); let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0; total += dt;
  const seen = new Set();
  for (let x = profile.samples[i]; x !== undefined; x = parent.get(x)) seen.add(keyOf.get(x));
  for (const k of seen) incl.set(k, (incl.get(k) ?? 0) + dt);
}
for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, +(process.argv[3] ?? 60)))
  console.log((us / 1000).toFixed(0).padStart(6), k);
