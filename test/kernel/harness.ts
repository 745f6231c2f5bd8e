// Runs the real iptables binaries, but only ever inside a private network namespace that this
// harness creates with `unshare -n` for the duration of one command: the host's tables are never
// read or written, and the namespace (with everything loaded into it) disappears when the command
// exits. Every iptables binary below is started as `unshare -n …` (by `runInNamespace`, the
// `BATCH` script or `testShard`); keep it that way when adding helpers.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

/** An IP family, as in the model. */
export type Family = "IPv4" | "IPv6";
/** Which iptables implementation loads the rules. */
export type Backend = "nft" | "legacy";

/** Options of a kernel round trip. */
export interface KernelOptions {
  /** `IPv4` uses iptables, `IPv6` ip6tables. */
  readonly family: Family;
  /** `nft` (nf_tables) or `legacy` (x_tables). */
  readonly backend: Backend;
  /** Tables to read back, in this order; default: the `*table` blocks of the text, in text order. */
  readonly tables?: readonly string[];
}

/** What the kernel printed after loading a text. */
export interface SaveResult {
  /** `iptables-save -t T` of every table, concatenated, `#` lines removed. */
  readonly save: string;
  /** The same, one entry per table. */
  readonly byTable: Readonly<Record<string, string>>;
}

/** The outcome of one text of a batch: the saved tables, or the error iptables printed. */
export type BatchResult =
  | ({ readonly ok: true } & SaveResult)
  | { readonly ok: false; readonly error: string };

/** One text that `iptables-restore --test` refused. */
export interface TestFailure {
  /** Index of the text in the batch. */
  readonly index: number;
  /** The 1-based line within that text, when iptables named one. */
  readonly line: number | null;
  /** iptables' stderr. */
  readonly message: string;
}

const FAMILIES: readonly Family[] = ["IPv4", "IPv6"];
const BACKENDS: readonly Backend[] = ["nft", "legacy"];

// iptables lives in /usr/sbin, which is not on every PATH (e.g. a non-login shell of a CI user).
const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin`,
  LC_ALL: "C",
};

/** The binary for a family, backend and action, e.g. `ip6tables-legacy-restore`. */
export function binary(family: Family, backend: Backend, action: "restore" | "save"): string {
  return `${family === "IPv4" ? "iptables" : "ip6tables"}-${backend}-${action}`;
}

/** Whether `CI` is set to something truthy: then missing kernel access is a failure, not a skip. */
export function isCI(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

let probed: string | null | undefined;

/**
 * Why the kernel tests cannot run here, or `null` when they can: root, `unshare -n`, and a trivial
 * restore through all four binaries (v4/v6 × nft/legacy) inside a fresh namespace.
 *
 * Throws instead of returning a reason when {@link isCI}: CI must run these tests, so an
 * unprepared CI machine has to fail loudly rather than report a green, skipped suite.
 */
export function kernelSkipReason(): string | null {
  if (probed === undefined) probed = probe();
  if (probed !== null && isCI()) {
    throw new Error(`CI is set, so the kernel tests must run, but they cannot: ${probed}`);
  }
  return probed;
}

function probe(): string | null {
  if (process.platform !== "linux") return `needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "needs root (to create a network namespace with unshare -n)";
  const missing = [
    "unshare",
    ...FAMILIES.flatMap((f) => BACKENDS.flatMap((b) => [binary(f, b, "restore"), binary(f, b, "save")])),
  ].filter((bin) => spawnSync("sh", ["-c", `command -v ${bin}`], { env: ENV }).status !== 0);
  if (missing.length > 0)
    return `missing binaries: ${missing.join(", ")} (apt-get install iptables util-linux)`;
  // The legacy backend needs the x_tables modules, which newer kernels may lack: try each binary.
  const script = FAMILIES.flatMap((f) =>
    BACKENDS.map(
      (b) => `printf '*filter\\n:INPUT ACCEPT [0:0]\\nCOMMIT\\n' | ${binary(f, b, "restore")} || exit 1`,
    ),
  ).join("\n");
  const r = runInNamespace(script, [], null);
  if (r.status !== 0)
    return `cannot load rules in a private network namespace: ${r.stderr.trim() || `exit ${r.status}`}`;
  return null;
}

/** Runs a `sh` script in a fresh network namespace; `$1…` are `args`; the namespace dies with it. */
function runInNamespace(
  script: string,
  args: readonly string[],
  input: string | null,
  env: NodeJS.ProcessEnv = ENV,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync("unshare", ["-n", "sh", "-c", script, "sh", ...args], {
    env,
    input: input ?? "",
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (r.error) return { status: null, stdout: "", stderr: String(r.error) };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The table names of the `*table` lines of a restore or save text, in order, without repeats. */
export function tablesOf(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/^\*(\S+)$/gm)) {
    const name = m[1] as string;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Splits a save text into its `*table … COMMIT` blocks by table name (`#` lines dropped). */
export function splitTables(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current: string | null = null;
  let lines: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    if (line.startsWith("*")) {
      current = line.slice(1);
      lines = [];
    }
    if (current === null) continue;
    lines.push(line);
    if (line === "COMMIT") {
      out[current] = `${out[current] ?? ""}${lines.join("\n")}\n`;
      current = null;
    }
  }
  return out;
}

function checkedTables(text: string, tables: readonly string[] | undefined): readonly string[] {
  const list = tables ?? tablesOf(text);
  // Table names end up in a shell loop; allow nothing but the real names' alphabet.
  for (const t of list) if (!/^[a-z]+$/.test(t)) throw new Error(`not a table name: ${JSON.stringify(t)}`);
  return list;
}

function withoutComments(text: string): string {
  return text
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n");
}

// The body run inside the namespace: restore $3, then save each table in $4 (space separated),
// each table's output after a marker line so one stdout can be split back per table.
const LOAD_AND_SAVE = `
r=$1 s=$2 in=$3 tables=$4
"$r" -w 60 < "$in" || exit 3
for t in $tables; do echo "@@table $t"; "$s" -t "$t" || exit 4; done
`;

function parseMarked(stdout: string, tables: readonly string[]): SaveResult {
  const byTable: Record<string, string> = {};
  const parts = stdout.split(/^@@table (\S+)\n/m);
  for (let i = 1; i + 1 < parts.length; i += 2)
    byTable[parts[i] as string] = withoutComments(parts[i + 1] as string);
  return { save: tables.map((t) => byTable[t] ?? "").join(""), byTable };
}

/**
 * Loads `text` with `iptables-restore` into a fresh, empty network namespace and reads back each
 * table with `iptables-save -t`, `#` lines removed (the vectors' `expected.save` form).
 *
 * @throws Error with iptables' stderr when the restore or a save fails.
 * @example loadAndSave(vector.expected.full, { family: "IPv4", backend: "nft" }).save === vector.expected.save
 */
export function loadAndSave(text: string, options: KernelOptions): SaveResult {
  const tables = checkedTables(text, options.tables);
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-kernel-"));
  try {
    const file = join(dir, "rules");
    writeFileSync(file, text);
    const env = { ...ENV, XTABLES_LOCKFILE: join(dir, "xtables.lock") };
    const r = runInNamespace(
      LOAD_AND_SAVE,
      [
        binary(options.family, options.backend, "restore"),
        binary(options.family, options.backend, "save"),
        file,
        tables.join(" "),
      ],
      null,
      env,
    );
    if (r.status !== 0) {
      throw new Error(
        `${binary(options.family, options.backend, "restore")} failed (exit ${r.status}):\n${r.stderr}`,
      );
    }
    return parseMarked(r.stdout, tables);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// One shard of a batch: each file in its own namespace (isolation costs ~5 ms a file against a
// ~40 ms nft commit, and no state can leak from one model into the next). $3 is LOAD_AND_SAVE.
const BATCH = `
r=$1 s=$2 body=$3; shift 3
for base in "$@"; do
  unshare -n sh -c "$body" sh "$r" "$s" "$base.in" "$(cat "$base.tables")" > "$base.out" 2> "$base.err"
  echo $? > "$base.rc"
done
`;

function runAsync(
  cmd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input: string | null = null,
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: [input === null ? "ignore" : "pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    // iptables stops reading at the first bad line; the rest of stdin then has no reader.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
    child.on("error", (e) => resolve({ status: null, stderr: String(e) }));
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

/** Default shard count: twice the cores, at least 4; loads mostly wait on the kernel, not the CPU. */
function defaultShards(): number {
  return Math.max(4, 2 * availableParallelism());
}

/**
 * {@link loadAndSave} for many texts at once: writes them to a temp dir and runs a small shell
 * loop (one per shard, shards in parallel) that loads each into its own fresh namespace. Far
 * cheaper than one Node child process per text. Never throws for a refused text: its result
 * carries the error instead, so the caller can name the model.
 */
export async function loadAndSaveMany(
  texts: readonly string[],
  options: Omit<KernelOptions, "tables"> & { readonly tables?: readonly string[]; readonly shards?: number },
): Promise<BatchResult[]> {
  if (texts.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-batch-"));
  try {
    const bases = texts.map((text, i) => {
      const base = join(dir, String(i));
      writeFileSync(`${base}.in`, text);
      writeFileSync(`${base}.tables`, checkedTables(text, options.tables).join(" "));
      return base;
    });
    const shards = Math.min(options.shards ?? defaultShards(), bases.length);
    const runs = Array.from({ length: shards }, (_, k) => {
      const mine = bases.filter((_, i) => i % shards === k);
      // Legacy restores take the xtables lock; a lock file per shard keeps shards (and a real
      // kube-proxy on this host, if any) from waiting on each other. Namespaces are separate anyway.
      const env = { ...ENV, XTABLES_LOCKFILE: join(dir, `xtables-${k}.lock`) };
      const restore = binary(options.family, options.backend, "restore");
      const save = binary(options.family, options.backend, "save");
      return runAsync("sh", ["-c", BATCH, "sh", restore, save, LOAD_AND_SAVE, ...mine], env);
    });
    for (const r of await Promise.all(runs)) {
      if (r.status !== 0) throw new Error(`batch shell failed (exit ${r.status}): ${r.stderr}`);
    }
    return bases.map((base): BatchResult => {
      const rc = readFileSync(`${base}.rc`, "utf8").trim();
      if (rc !== "0") return { ok: false, error: `exit ${rc}: ${readFileSync(`${base}.err`, "utf8")}` };
      const tables = readFileSync(`${base}.tables`, "utf8").split(" ").filter(Boolean);
      return { ok: true, ...parseMarked(readFileSync(`${base}.out`, "utf8"), tables) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `iptables-restore --test` over many texts in few processes: the texts are concatenated
 * (each `*table … COMMIT` block is checked on its own), and when iptables stops at a line, the
 * text holding that line is recorded and the check resumes after it. Shards run in parallel:
 * both backends spend most of a check waiting on the kernel (~10 ms a table block), not on CPU.
 *
 * Note: nft's `--test` only parses (a jump to a missing chain passes); legacy's also resolves
 * targets. Neither changes any table; loads do that ({@link loadAndSaveMany}).
 */
export async function testRestore(
  texts: readonly string[],
  options: Omit<KernelOptions, "tables"> & { readonly shards?: number },
): Promise<TestFailure[]> {
  const restore = binary(options.family, options.backend, "restore");
  const dir = mkdtempSync(join(tmpdir(), "kube-iptables-test-"));
  try {
    const shards = Math.max(1, Math.min(options.shards ?? 8, texts.length));
    const size = Math.ceil(texts.length / shards);
    const runs = Array.from({ length: shards }, (_, k) =>
      testShard(texts, k * size, Math.min(texts.length, (k + 1) * size), restore, {
        ...ENV,
        XTABLES_LOCKFILE: join(dir, `xtables-${k}.lock`),
      }),
    );
    return (await Promise.all(runs)).flat();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks texts[from, to) in one namespace process per run, resuming after each failure. */
async function testShard(
  texts: readonly string[],
  from: number,
  to: number,
  restore: string,
  env: NodeJS.ProcessEnv,
): Promise<TestFailure[]> {
  const failures: TestFailure[] = [];
  let start = from;
  while (start < to) {
    // firstLine[i] is the 1-based line where text start+i begins in the concatenation.
    const firstLine: number[] = [];
    const chunk: string[] = [];
    let line = 1;
    for (let i = start; i < to; i++) {
      const raw = texts[i] as string;
      const text = raw.endsWith("\n") ? raw : `${raw}\n`;
      firstLine.push(line);
      line += text.split("\n").length - 1;
      chunk.push(text);
    }
    const r = await runAsync("unshare", ["-n", restore, "--test", "-w", "60"], env, chunk.join(""));
    if (r.status === 0) break;
    const m = /(?:Error occurred at line: |line )(\d+)/.exec(r.stderr);
    if (!m) {
      // No line to blame: report the rest of the shard as one failure rather than loop.
      failures.push({ index: start, line: null, message: r.stderr.trim() || `exit ${r.status}` });
      break;
    }
    const at = Number(m[1]);
    let k = firstLine.length - 1;
    while (k > 0 && (firstLine[k] as number) > at) k--;
    failures.push({ index: start + k, line: at - (firstLine[k] as number) + 1, message: r.stderr.trim() });
    start += k + 1;
  }
  return failures;
}
