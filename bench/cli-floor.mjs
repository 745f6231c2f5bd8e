// The CLI as a user runs it, against the floor under it: `kube-iptables generate FILE` of the
// 10k × 10 model as a fresh `node` process (start-up, module loading, read, parse, validation,
// model, generation, write to a pipe), beside a process that only reads the same file and
// JSON.parses it. The kinds are run in turn (floor, restore, save, floor, …), so that a shared
// machine's drift falls on all of them alike; CPU time (user + system, start-up included) is
// the figure compared, wall time is shown beside it. Writes bench/cli-floor.json.
// Beside them run the lower bounds of the two targets ("minimal restore", "minimal save"): the
// floor, then the yardsticks (bench/minimal-writer.mjs, bench/minimal-save-writer.mjs) writing
// the same text straight from the parsed objects (no validation, no model of ours) to stdout;
// their bytes are held to the CLI's every round. A CLI that reads the file and hashes with the
// mandated libraries does at least that much. "required restore" adds what the house requires of
// any CLI: the API server's checks of every field the objects hold (api-checks.mjs), and the plan per port of
// bench/required-writer.mjs (no guard: the checks let no unsafe character through; no memory of
// names: the process ends). "required diff" is the lower bound under `diff DUMP CLUSTER` (≤ 2 s
// CPU): bench/required-diff.mjs on the node's own dump and the cluster file, beside "diff", the
// CLI's `diff DUMP CLUSTER` of the same files; both must say "no changes" every round.
//   node bench/cli-floor.mjs [--runs N] [--model NAME] [--pretty] [--old DIST_DIR]
//   node bench/cli-floor.mjs --breakdown [--runs N] [--model NAME] [--pretty]
// --pretty writes the model indented, as `kubectl get -o json` prints (37 MB instead of 19 MB
// for 10k × 10; the floor parses the same text); it does not write bench/cli-floor.json.
// --old adds an older build's restore and save (e.g. a copy of dist/ in node_modules/.cache/,
// where its bare imports resolve), run in the same turns: an A/B of the CLI end to end.
// --breakdown runs the CLI in processes of its own that time each stage in CPU ms (start-up,
// import, read, JSON.parse, validate + build, generate, write) and prints the medians; it does
// not write bench/cli-floor.json.
// Also run as a child of itself: `--child floor|minimal-restore|minimal-save|required-restore FILE`,
// `--child required-diff DUMP FILE`, `--child cli|breakdown DIST FILE [ARGS…]`.
// The child imports nothing but what it measures: the floor and the CLI pay the same start-up.

const CPU_MARK = "@@CPU ";
const STAGES_MARK = "@@STAGES ";

if (process.argv[2] === "--child") await child(process.argv.slice(3));
else await parent();

/** CPU ms of this process so far (user + system). */
function cpuNow() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function child([what, ...args]) {
  // The process's own CPU time since it started, written once it is done (stdout may be a pipe
  // still draining: the figure goes to stderr on exit).
  const writeErr = process.stderr.write.bind(process.stderr);
  process.on("exit", () => writeErr(`${CPU_MARK}${cpuNow()}\n`));
  if (what === "floor") {
    const { readFileSync } = await import("node:fs");
    JSON.parse(readFileSync(args[0], "utf8"));
    return;
  }
  if (what === "required-restore") {
    // The floor, the API server's checks (api-checks.mjs), then the yardstick with a plan per port
    // (bench/required-writer.mjs), and the write.
    const { readFileSync } = await import("node:fs");
    const { minimalModelOf } = await import("./minimal-writer.mjs");
    const { checkClusterObjects, writeRequiredRestoreText } = await import("./required-writer.mjs");
    const input = JSON.parse(readFileSync(args[0], "utf8"));
    checkClusterObjects(input);
    // Checked input needs no guard, and a one-shot process no memory of names: only the plan.
    process.stdout.write(writeRequiredRestoreText(minimalModelOf(input), { checked: true, memo: false }));
    return;
  }
  if (what === "required-diff") {
    // Read + parse, the checks, the save text with a plan per port, read the dump, compare
    // (bench/required-diff.mjs); prints what the CLI prints when nothing differs.
    const { requiredDiff } = await import("./required-diff.mjs");
    const found = requiredDiff(args[0], args[1]);
    const chains = Object.entries(found).flatMap(([table, list]) => list.map((c) => `${table} ${c}`));
    process.stdout.write(chains.length === 0 ? "no changes\n" : `${chains.join("\n")}\n`);
    return;
  }
  if (what === "minimal-restore" || what === "minimal-save") {
    // The lower bounds: the floor, then the yardstick's text straight from the parsed objects
    // (nothing validated, no model of ours) and the write. The parent compares their bytes with
    // the CLI's.
    const { readFileSync } = await import("node:fs");
    const { minimalModelOf, writeMinimalRestoreText } = await import("./minimal-writer.mjs");
    const { writeMinimalSaveText } = await import("./minimal-save-writer.mjs");
    const write = what === "minimal-save" ? writeMinimalSaveText : writeMinimalRestoreText;
    const input = JSON.parse(readFileSync(args[0], "utf8"));
    process.stdout.write(write(minimalModelOf(input)));
    return;
  }
  const [dist, ...argv] = args;
  const url = new URL(`file://${dist}/cli.js`).href;
  if (what === "cli") {
    const { main } = await import(url);
    process.exitCode = await main(argv);
    return;
  }
  // breakdown: the stages are told apart by what the CLI does at their borders, without a hook
  // in the CLI itself: the progress line it draws on a terminal ("reading FILE", "checking …",
  // "generating …"; stderr is made to look like one and the line is swallowed), JSON.parse of
  // the large text, and the write to stdout.
  const marks = [["start-up", cpuNow()]];
  const mark = (stage) => marks.push([stage, cpuNow()]);
  Object.assign(process.stderr, { isTTY: true, columns: 200 });
  process.stderr.write = (text, ...rest) => {
    if (typeof text !== "string" || !text.startsWith("\r")) return writeErr(text, ...rest);
    const stage = /^\r(?:kube-iptables: )?(reading|checking|generating)\b/.exec(text)?.[1];
    if (stage !== undefined && !marks.some(([s]) => s === stage)) mark(stage);
    return true;
  };
  const parse = JSON.parse;
  JSON.parse = (text, reviver) => {
    if (typeof text !== "string" || text.length < 1e6) return parse(text, reviver);
    mark("JSON.parse");
    try {
      return parse(text, reviver);
    } finally {
      mark("after JSON.parse");
    }
  };
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = (...a) => {
    mark("write");
    try {
      return stdoutWrite(...a);
    } finally {
      mark("after write");
    }
  };
  mark("import");
  const { main } = await import(url);
  mark("main");
  process.exitCode = await main(argv);
  mark("end");
  writeErr(`${STAGES_MARK}${JSON.stringify(marks)}\n`);
}

/**
 * The CPU ms of each stage from a child's marks: a stage runs from its mark to the next one.
 * Marks a build does not make (a CLI that draws no "checking" line) fold into the stage before.
 */
function stagesOf(marks) {
  const names = {
    "start-up": "node start-up",
    import: "import the CLI",
    main: "parse the arguments",
    reading: "read the file",
    "JSON.parse": "JSON.parse",
    "after JSON.parse": "shape the input",
    checking: "validate + build the model",
    generating: "generate",
    write: "write to stdout",
    "after write": "exit",
    end: "exit",
  };
  const out = {};
  let previous = 0;
  for (let i = 0; i < marks.length; i++) {
    const [stage, at] = marks[i];
    const name = i === 0 ? names[stage] : names[marks[i - 1][0]];
    if (i > 0) out[name] = (out[name] ?? 0) + (at - previous);
    else out[name] = at;
    previous = at;
  }
  return out;
}

async function parent() {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
  const { loadavg, tmpdir } = await import("node:os");
  const { dirname, join, resolve } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const { parseArgs } = await import("node:util");
  const { gunzipSync } = await import("node:zlib");
  const { libraryPath, loadLibrary, ROOT } = await import("./load.mjs");
  const { median, summarize } = await import("./stats.mjs");
  const SELF = fileURLToPath(import.meta.url);

  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      model: { type: "string", default: "bench-clusterip-10000" },
      old: { type: "string" },
      breakdown: { type: "boolean", default: false },
      pretty: { type: "boolean", default: false },
    },
  });
  const runs = Number(values.runs);
  const dist = dirname(libraryPath());
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-cli-floor-"));
  const file = join(dir, `${values.model}.json`);
  const raw = gunzipSync(readFileSync(join(ROOT, "test", "fixtures", "bench", `${values.model}.json.gz`)));
  writeFileSync(file, values.pretty ? `${JSON.stringify(JSON.parse(raw.toString("utf8")), null, 2)}\n` : raw);
  // The node's own dump (what kube-proxy's first sync leaves), for the diff kinds; the required
  // diff's save text is held to the library's once, here (the children compare verdicts).
  const dump = join(dir, `${values.model}.save`);
  if (!values.breakdown) {
    const lib = await loadLibrary();
    const { writeRequiredSaveText } = await import("./required-diff.mjs");
    const { minimalModelOf } = await import("./minimal-writer.mjs");
    const input = JSON.parse(raw.toString("utf8"));
    const model = lib.modelFromKubernetes(input);
    const text = lib.formatSave(lib.generateState(model));
    if (writeRequiredSaveText(minimalModelOf(input)).text !== text)
      throw new Error("the required diff's save text is not the library's");
    writeFileSync(dump, text);
  }
  const restore = ["generate", file, "--format", "restore"];
  const save = ["generate", file];
  const kinds = values.breakdown
    ? { restore: ["breakdown", dist, ...restore], save: ["breakdown", dist, ...save] }
    : {
        floor: ["floor", file],
        "minimal restore": ["minimal-restore", file],
        "minimal save": ["minimal-save", file],
        "required restore": ["required-restore", file],
        restore: ["cli", dist, ...restore],
        save: ["cli", dist, ...save],
        "required diff": ["required-diff", dump, file],
        diff: ["cli", dist, "diff", dump, file],
        ...(values.old === undefined
          ? {}
          : {
              "restore (old)": ["cli", resolve(values.old), ...restore],
              "save (old)": ["cli", resolve(values.old), ...save],
            }),
      };
  const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  const load = [loadavg()[0]];
  // The lower bounds' texts of this round (restore, save), held to the CLI's.
  const minimalText = {};
  try {
    for (let i = 0; i < runs; i++) {
      for (const [kind, args] of Object.entries(kinds)) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, [SELF, "--child", ...args], {
          cwd: ROOT,
          encoding: "utf8",
          maxBuffer: 256 * 1024 * 1024,
        });
        const wall = performance.now() - t0;
        const lines = r.stderr.split("\n");
        const line = lines.find((l) => l.startsWith(CPU_MARK));
        if (r.status !== 0 || line === undefined)
          throw new Error(`${kind} failed (${r.status}): ${r.stderr}`);
        if (kind.startsWith("minimal ")) minimalText[kind.slice("minimal ".length)] = r.stdout;
        if (kind === "required restore" && r.stdout !== minimalText.restore)
          throw new Error("the required restore kind and the minimal one wrote different text");
        if ((kind === "required diff" || kind === "diff") && r.stdout !== "no changes\n")
          throw new Error(`${kind} on the node's own dump: ${JSON.stringify(r.stdout.slice(0, 200))}`);
        if (minimalText[kind] !== undefined && r.stdout !== minimalText[kind])
          throw new Error(`the minimal ${kind} kind and the CLI wrote different text`);
        const stages = lines.find((l) => l.startsWith(STAGES_MARK));
        samples[kind].push({
          cpu: Number(line.slice(CPU_MARK.length)),
          wall,
          bytes: r.stdout.length,
          ...(stages === undefined ? {} : { stages: stagesOf(JSON.parse(stages.slice(STAGES_MARK.length))) }),
        });
      }
      load.push(loadavg()[0]);
      // Each round's CPU ms, kind by kind (the medians below hide how far rounds stray).
      console.log(
        `round ${i + 1}: ${Object.keys(kinds)
          .map((k) => `${k} ${samples[k][i].cpu.toFixed(0)}`)
          .join(", ")}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`load average (1 min) ${load.map((l) => l.toFixed(1)).join(" ")}`);
  if (values.breakdown) {
    for (const [kind, list] of Object.entries(samples)) {
      console.log(`${kind}: CPU ms, median of ${list.length} processes`);
      const names = [...new Set(list.flatMap((s) => Object.keys(s.stages)))];
      for (const name of names)
        console.log(
          `  ${name.padEnd(28)} ${median(list.map((s) => s.stages[name] ?? 0))
            .toFixed(0)
            .padStart(6)}`,
        );
      console.log(
        `  ${"total".padEnd(28)} ${median(list.map((s) => s.cpu))
          .toFixed(0)
          .padStart(6)}`,
      );
    }
    return;
  }
  const floor = median(samples.floor.map((s) => s.cpu));
  const result = { model: values.model, runs, date: new Date().toISOString(), loadAverage: load, cases: {} };
  for (const [kind, list] of Object.entries(samples)) {
    const cpus = list.map((s) => s.cpu);
    const cpu = summarize(cpus);
    const wall = summarize(list.map((s) => s.wall));
    // Each round's CPU ms too: a bound is read against its limit round by round (report.mjs).
    result.cases[kind] = { cpu, wall, ratio: cpu.median / floor, rounds: cpus };
    console.log(
      `${kind.padEnd(13)} cpu ${cpu.median.toFixed(0).padStart(5)} ms (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)})` +
        `  wall ${wall.median.toFixed(0).padStart(5)} ms  ${(cpu.median / floor).toFixed(2)}× the floor`,
    );
  }
  // An A/B or the indented text is not the published figure.
  if (values.old !== undefined || values.pretty) return;
  writeFileSync(join(ROOT, "bench", "cli-floor.json"), `${JSON.stringify(result, null, 2)}\n`);
  console.log("wrote bench/cli-floor.json");
}
