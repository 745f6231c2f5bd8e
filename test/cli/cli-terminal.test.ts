// The CLI at a terminal and in a pipeline: the progress line on stderr when it is a terminal
// (run under a pseudo-terminal with script(1)), nothing when it is not or with --quiet, and a
// reader that stops early (`| head`) ends the run quietly.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { createProgress, formatCount } from "../../src/cli/progress.js";
import { ROOT, runCli } from "../support/run-cli.js";

const BIN = join(ROOT, "bin", "kube-iptables.js");
const SERVICES = 2000;
let dir: string;
let big: string;

/** `n` ClusterIP Services, each with one endpoint: rules text far larger than a pipe's buffer. */
function bigCluster(n: number): string {
  const services = [];
  const endpointSlices = [];
  for (let i = 0; i < n; i++) {
    const name = `svc-${i}`;
    services.push({
      metadata: { name, namespace: "default" },
      spec: {
        clusterIP: `10.96.${i >> 8}.${i & 255}`,
        ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
      },
    });
    endpointSlices.push({
      metadata: { name: `${name}-x`, namespace: "default", labels: { "kubernetes.io/service-name": name } },
      addressType: "IPv4",
      endpoints: [{ addresses: [`10.244.${i >> 8}.${i & 255}`] }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    });
  }
  return JSON.stringify({ config: { hostname: "n1" }, services, endpointSlices });
}

/**
 * What a terminal shows after `output`: `\r` returns to the start of the line and later text
 * overwrites it, `\n` starts a new line. Trailing blanks are dropped.
 */
function screen(output: string): string[] {
  const lines = [""];
  let col = 0;
  for (const ch of output) {
    if (ch === "\r") col = 0;
    else if (ch === "\n") {
      lines.push("");
      col = 0;
    } else {
      const line = (lines.at(-1) as string).padEnd(col);
      lines[lines.length - 1] = line.slice(0, col) + ch + line.slice(col + 1);
      col++;
    }
  }
  const shown = lines.map((l) => l.trimEnd());
  while (shown.length > 1 && shown.at(-1) === "") shown.pop();
  return shown;
}

/** Runs `kube-iptables ARGS > out` under a pseudo-terminal: what its stderr drew there, and stdout. */
function underTerminal(args: string, out: string): { terminal: string; stdout: string } {
  const r = spawnSync("script", ["-qec", `'${process.execPath}' '${BIN}' ${args} > '${out}'`, "/dev/null"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.error !== undefined) throw r.error;
  return { terminal: r.stdout, stdout: readFileSync(out, "utf8") };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-iptables-terminal-"));
  big = join(dir, "big.json");
  writeFileSync(big, bigCluster(SERVICES));
});

describe("a writer slower than the reader", () => {
  test("(sleep; cat FILE) | generate -: stdin is read whole, not refused with EAGAIN", () => {
    const r = spawnSync(
      "bash",
      [
        "-c",
        `(sleep 0.5; cat examples/cluster.yaml) | '${process.execPath}' '${BIN}' generate - --format restore`,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(runCli(["generate", "examples/cluster.yaml", "--format", "restore"]).stdout);
  });
});

describe("a reader that stops early", () => {
  test("generate | head: no EPIPE trace, exit 0", () => {
    const r = spawnSync(
      "bash",
      ["-c", `'${process.execPath}' '${BIN}' generate '${big}' | head -n 1; echo "status \${PIPESTATUS[0]}"`],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.stdout).toBe("*filter\nstatus 0\n");
    expect(r.stderr).toBe("");
  });

  test("diff keeps its exit code (1: the sides differ) when its reader goes", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "diff", "examples/cluster.yaml", big, "--format", "restore"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // Close the read end of the pipe after the first chunk: the rest is written to no one.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(1);
  });
});

describe("progress on a terminal", () => {
  test("generate draws its stages on one line and clears it; stdout is untouched", () => {
    const out = join(dir, "generate.out");
    const { terminal, stdout } = underTerminal(`generate '${big}'`, out);
    const n = formatCount(SERVICES);
    expect(n).toBe("2,000");
    // A stage wider than the 80-column terminal (a long temporary path) is cut to 79 with "…".
    for (const stage of [
      `kube-iptables: reading ${big}…`,
      `kube-iptables: checking ${n} Services and ${n} EndpointSlices…`,
      `kube-iptables: generating IPv4 rules for ${n} service ports…`,
    ])
      expect(terminal).toContain(`\r${stage.length > 79 ? `${stage.slice(0, 78)}…` : stage}`);
    // One line, redrawn: no newline, and blank at the end.
    expect(terminal).not.toContain("\n");
    expect(screen(terminal)).toEqual([""]);
    expect(stdout).toBe(runCli(["generate", big]).stdout);
  });

  test("diff shows its stages; a message clears the line first and stands alone", () => {
    const { terminal } = underTerminal(`diff '${big}' examples/cluster.yaml`, join(dir, "diff.out"));
    // (The line is cut at the terminal's width, 80 columns here: the file's name may not fit.)
    expect(terminal).toContain("\rkube-iptables: generating the rules of /");
    expect(terminal).toContain("\rkube-iptables: comparing…");
    expect(screen(terminal)).toEqual([""]);
    const missing = join(dir, "missing.json");
    const failed = underTerminal(`diff '${big}' '${missing}'`, join(dir, "failed.out"));
    expect(failed.terminal).toContain("\rkube-iptables: reading");
    expect(screen(failed.terminal)).toEqual([`kube-iptables: ${missing}: no such file or directory`]);
  });

  test("--quiet (-q) draws nothing; neither does a stderr that is not a terminal", () => {
    expect(underTerminal(`generate -q '${big}'`, join(dir, "q.out")).terminal).toBe("");
    expect(underTerminal(`--quiet generate '${big}'`, join(dir, "quiet.out")).terminal).toBe("");
    const piped = runCli(["generate", big]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe("");
  });
});

describe("createProgress", () => {
  /** A stand-in for stderr. */
  function target(isTTY: boolean, columns?: number) {
    const written: string[] = [];
    return {
      written,
      write: (text: string) => written.push(text),
      isTTY,
      ...(columns === undefined ? {} : { columns }),
    };
  }

  test("nothing on a stream that is not a terminal, or when disabled", () => {
    for (const [t, enabled] of [
      [target(false), true],
      [target(true), false],
    ] as const) {
      const p = createProgress(t, enabled);
      p.show("reading x");
      p.clear();
      expect(t.written).toEqual([]);
    }
  });

  test("a shorter stage blanks the rest of the longer one; clear leaves the line blank", () => {
    const t = target(true, 80);
    const p = createProgress(t, true);
    p.show("checking 10,000 Services and 10,000 EndpointSlices");
    p.show("comparing");
    expect(screen(t.written.join(""))).toEqual(["kube-iptables: comparing…"]);
    p.clear();
    expect(screen(t.written.join(""))).toEqual([""]);
    const writes = t.written.length;
    p.clear(); // nothing shown: nothing to clear
    expect(t.written.length).toBe(writes);
  });

  test("a line wider than the terminal is cut, as a wrapped line cannot be redrawn", () => {
    const t = target(true, 30);
    createProgress(t, true).show(`reading ${"a".repeat(100)}.json`);
    const [line] = screen(t.written.join(""));
    expect(line).toHaveLength(29);
    expect(line?.endsWith("…")).toBe(true);
  });
});
