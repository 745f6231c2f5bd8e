// The save printers, one rule at a time, over every rule of a generated state (~320,000 at 10k
// services; kube-proxy's argument order) and of its save text read back (a node's dump;
// iptables-save's order): the general canonicalizer, the shape matcher + derived save layout (what formatSave,
// the diff and generateSaveText run), the layout filled from known (shape, values) (what a writer
// runs), and, when the tree still has it, the old quick twin (src/ir/save-quick.ts). Also the
// parser's validity check: the matcher against the old quick check. Internals are not exported,
// so the sources are bundled here with esbuild. CPU time (user + system), cases alternating per
// round, medians; per rule in ns.
//   node bench/shapes-printers.mjs [--rounds 7] [--model bench-clusterip-10000] [--src src]
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { readClusterInput } from "./load.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    model: { type: "string", default: "bench-clusterip-10000" },
    src: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "..", "src") },
  },
});
const src = resolve(values.src);
const first = (...paths) => paths.map((p) => join(src, p)).find((p) => existsSync(p));
const from = (what, ...paths) => {
  const path = first(...paths);
  return path === undefined ? "" : `export { ${what} } from ${JSON.stringify(path)};\n`;
};
const entry =
  from("matchSaveLine, matchShape, matchFamilies", "iptables/shape/match.ts") +
  from("fastSaveLine", "iptables/shape/print.ts") +
  from("canonicalSaveLines", "iptables/shape/general.ts") +
  from("quickSaveLine", "ir/save-quick.ts", "iptables/save-quick.ts") +
  from("quickCheckRule", "ir/canonical-quick.ts", "iptables/canonical-quick.ts") +
  from("generateState", "generate/rules.ts", "iptables/output/rules.ts") +
  from("buildModel", "kube/to-model.ts") +
  from("resolveConfig", "kube/config.ts") +
  from("formatSave", "format/save.ts", "iptables/save.ts") +
  from("parseRules", "format/parse.ts", "iptables/parse.ts");
const dir = mkdtempSync(join(tmpdir(), "shapes-bench-"));
const out = join(dir, "lib.mjs");
await build({
  stdin: { contents: entry, resolveDir: src, loader: "ts" },
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outfile: out,
  mainFields: ["module", "main"],
  logLevel: "warning",
});
const lib = await import(pathToFileURL(out).href);

const input = readClusterInput(values.model);
const model = lib.buildModel(input.services, input.endpointSlices, lib.resolveConfig(input.config));
const state = lib.generateState(model);
const family = state.family;
const form = { family, backend: "nft" };
const rulesOf = (ruleSet) => ruleSet.tables.flatMap((t) => t.entries.filter((e) => e.kind === "rule"));
const orders = {
  "kube-proxy order": rulesOf(state),
  "iptables-save order": rulesOf(lib.parseRules(lib.formatSave(state)).ruleSet),
};
const general = (r) => lib.canonicalSaveLines(r.chain, r.args, family, "nft")[0];

function casesOf(rules) {
  const shaped = rules.map((r) => lib.matchShape(r.args, form));
  const cases = {
    general: () => {
      let n = 0;
      for (const r of rules) n += general(r).length;
      return n;
    },
    "matcher + layout": () => {
      let n = 0;
      for (const r of rules)
        n += (lib.matchSaveLine(`-A ${r.chain}`, r.args, 0, r.args.length, family, "nft") ?? general(r))
          .length;
      return n;
    },
    "layout from (shape, values)": () => {
      let n = 0;
      for (let i = 0; i < rules.length; i++) {
        const r = rules[i];
        const s = shaped[i];
        n += ((s === null ? null : lib.fastSaveLine(s.shape, r.chain, s.values, form)) ?? general(r)).length;
      }
      return n;
    },
    "parse check: matcher": () => {
      let n = 0;
      for (const r of rules) n += lib.matchFamilies(r.args, 0, r.args.length, 3, "nft");
      return n;
    },
  };
  if (lib.quickSaveLine !== undefined)
    cases["quick twin (save-quick)"] = () => {
      let n = 0;
      for (const r of rules)
        n += (lib.quickSaveLine(r.chain, r.args, 0, r.args.length, family) ?? general(r)).length;
      return n;
    };
  if (lib.quickCheckRule !== undefined)
    cases["parse check: quick twin"] = () => {
      let n = 0;
      for (const r of rules) n += lib.quickCheckRule(r.args, family === "IPv4");
      return n;
    };
  // Every printer prints the same text.
  const reference = cases.general();
  for (const [name, run] of Object.entries(cases))
    if (!name.startsWith("parse") && run() !== reference) throw new Error(`${name} prints another text`);
  return { cases, shaped: shaped.filter((s) => s !== null).length };
}

const measured = {};
for (const [order, rules] of Object.entries(orders)) {
  const { cases, shaped } = casesOf(rules);
  const names = Object.keys(cases);
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      globalThis.gc?.();
      const c0 = process.cpuUsage();
      cases[name]();
      const c = process.cpuUsage(c0);
      cpu[name].push((c.user + c.system) / 1000);
    }
  }
  measured[order] = { rules: rules.length, shaped, cpu };
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
for (const [order, { rules, shaped, cpu }] of Object.entries(measured)) {
  console.log(
    `${values.model}, ${order}: ${rules} rules (${shaped} in a shape), ${family}; ${values.rounds} rounds, CPU medians`,
  );
  for (const [name, times] of Object.entries(cpu)) {
    const ms = median(times);
    console.log(
      `  ${name.padEnd(28)} ${ms.toFixed(1).padStart(8)} ms  ${((ms * 1e6) / rules).toFixed(0).padStart(5)} ns/rule`,
    );
  }
}
