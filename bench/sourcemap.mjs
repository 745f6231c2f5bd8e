// Minimal source-map reader: maps a generated (line, column) of dist/*.js to src/*.ts so that
// profiles point at the TypeScript we edit. No dependency: the VLQ "mappings" format is small.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...B64].map((c, i) => [c, i]));

function decodeSegment(text) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const d = DIGIT.get(c);
    value += (d & 31) << shift;
    if (d & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** Loads `file.js.map` and returns `lookup(line0, col0) → {source, line, column} | null` (0-based in, 1-based line out). */
export function loadSourceMap(jsFile) {
  const map = JSON.parse(readFileSync(`${jsFile}.map`, "utf8"));
  const root = resolve(dirname(jsFile), map.sourceRoot ?? "");
  const lines = [];
  let src = 0;
  let srcLine = 0;
  let srcCol = 0;
  for (const lineText of map.mappings.split(";")) {
    const segs = [];
    let col = 0;
    if (lineText !== "") {
      for (const segText of lineText.split(",")) {
        const s = decodeSegment(segText);
        col += s[0];
        if (s.length >= 4) {
          src += s[1];
          srcLine += s[2];
          srcCol += s[3];
          segs.push([col, src, srcLine, srcCol]);
        }
      }
    }
    lines.push(segs);
  }
  return (line0, col0) => {
    const segs = lines[line0];
    if (segs === undefined || segs.length === 0) return null;
    let best = segs[0];
    for (const s of segs) {
      if (s[0] > col0) break;
      best = s;
    }
    return { source: resolve(root, map.sources[best[1]]), line: best[2] + 1, column: best[3] + 1 };
  };
}
