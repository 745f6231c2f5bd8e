#!/usr/bin/env node
// Copies the fixtures the tests and benchmarks read from ../shared (when it is there) into
// test/fixtures/, gzipping every JSON file over 64 KiB. A fresh clone has no ../shared and
// uses the vendored copy as it is.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const shared = resolve(root, "..", "shared");
if (!existsSync(shared)) {
  console.log("no ../shared here: keeping the vendored test/fixtures as they are");
  process.exit(0);
}
const target = join(root, "test", "fixtures");
const folders = [
  ["fixtures/kube-proxy", "kube-proxy"],
  ["fixtures/kube-proxy-sequences", "kube-proxy-sequences"],
  ["fixtures/kube-proxy-v1.22", "kube-proxy-v1.22"],
  // Already gzipped (.json.gz): copied as they are.
  ["fixtures/kube-proxy-nft", "kube-proxy-nft"],
  ["fixtures/iptables-save", "iptables-save"],
  ["fixtures/bench", "bench"],
  ["seeds", "seeds"],
];
let count = 0;
function copyTree(from, to) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) {
      copyTree(src, join(to, name));
      continue;
    }
    if (name.endsWith(".json") && statSync(src).size > 64 * 1024) {
      writeFileSync(join(to, `${name}.gz`), gzipSync(readFileSync(src), { level: 9 }));
    } else {
      copyFileSync(src, join(to, name));
    }
    count++;
  }
}
for (const [from, to] of folders) {
  rmSync(join(target, to), { recursive: true, force: true });
  copyTree(join(shared, from), join(target, to));
}
console.log(`refreshed ${count} fixture files into test/fixtures/`);
