// Network namespaces for the data-plane tests: created, used and removed only by these tests.
// Every address is in 198.18.0.0/15 or fd00::/8; no namespace has a default route, so no packet
// can leave them.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { isIPv4, isIPv6 } from "node:net";
import type { IPFamily } from "../../src/index.js";

const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin`,
  LC_ALL: "C",
};

/** The only ranges the tests may address: 198.18.0.0/15 and fd00::/8 (first group fdXX). */
const ALLOWED_V4 = /^198\.(18|19)\.\d{1,3}\.\d{1,3}$/;
const ALLOWED_V6 = /^fd[0-9a-f]{2}:/i;

/** Throws unless `ip` is inside 198.18.0.0/15 or fd00::/8: a guard on every address the tests send to. */
export function assertTestAddress(ip: string): void {
  const ok = isIPv4(ip) ? ALLOWED_V4.test(ip) : isIPv6(ip) && ALLOWED_V6.test(ip);
  if (!ok) throw new Error(`refusing to address ${ip}: outside 198.18.0.0/15 and fd00::/8`);
}

/** Runs a command synchronously (bounded); throws with its stderr when it fails. */
export function run(cmd: string, args: readonly string[], input?: string, timeoutMs = 20_000): string {
  const r = spawnSync(cmd, args, {
    env: ENV,
    input: input ?? "",
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 1 << 28,
  });
  if (r.error) throw new Error(`${cmd} ${args.join(" ")}: ${String(r.error)}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Why the data-plane test of `family` cannot run here, or null. */
export function dataplaneSkipReason(family: IPFamily): string | null {
  if (process.platform !== "linux") return `needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "needs root (network namespaces)";
  if (family === "IPv6" && !existsSync("/proc/sys/net/ipv6")) return "IPv6 is disabled in this kernel";
  for (const bin of ["ip", family === "IPv4" ? "iptables-restore" : "ip6tables-restore"]) {
    if (spawnSync("sh", ["-c", `command -v ${bin}`], { env: ENV }).status !== 0)
      return `missing ${bin} (apt-get install iproute2 iptables)`;
  }
  const probe = `kitprobe${process.pid}`;
  const r = spawnSync("ip", ["netns", "add", probe], { env: ENV, encoding: "utf8", timeout: 10_000 });
  if (r.status !== 0) return `cannot create a network namespace: ${r.stderr.trim()}`;
  spawnSync("ip", ["netns", "del", probe], { env: ENV, timeout: 10_000 });
  return null;
}

/** Whether CI is set: then a data-plane test that cannot run is a failure. */
export function isCI(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/** Everything the test made, so that it can all be removed. */
export class Lab {
  readonly namespaces: string[] = [];
  readonly processes: ChildProcess[] = [];

  /** Creates a namespace with its loopback up. */
  addNamespace(name: string): string {
    run("ip", ["netns", "add", name]);
    this.namespaces.push(name);
    run("ip", ["-n", name, "link", "set", "lo", "up"]);
    return name;
  }

  /** Runs `ip` inside a namespace. */
  ip(ns: string, ...args: string[]): string {
    return run("ip", ["-n", ns, ...args]);
  }

  /** Sets sysctls (`key=value`) inside a namespace. */
  sysctl(ns: string, ...settings: string[]): void {
    for (const kv of settings) this.exec(ns, "sysctl", ["-qw", kv]);
  }

  /** Resolves once no IPv6 address in the namespace is tentative (DAD over); throws on a DAD failure. */
  async waitForIPv6Addresses(ns: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.ip(ns, "-6", "addr", "show", "dadfailed").trim() !== "")
        throw new Error(`duplicate address detection failed in ${ns}`);
      const tentative = this.ip(ns, "-6", "addr", "show", "tentative").trim();
      if (tentative === "") return;
      if (Date.now() > deadline) throw new Error(`addresses in ${ns} still tentative: ${tentative}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Runs a command inside a namespace. */
  exec(ns: string, cmd: string, args: readonly string[], input?: string, timeoutMs?: number): string {
    return run("ip", ["netns", "exec", ns, cmd, ...args], input, timeoutMs);
  }

  /** Starts a Node script in a namespace; resolves once it prints `ready`. */
  start(ns: string, script: string, args: readonly string[], timeoutMs = 15_000): Promise<ChildProcess> {
    const child = spawn("ip", ["netns", "exec", ns, process.execPath, "-e", script, ...args], {
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.processes.push(child);
    return new Promise((resolve, reject) => {
      let out = "";
      let err = "";
      const timer = setTimeout(
        () => reject(new Error(`server in ${ns} not ready after ${timeoutMs} ms: ${err}`)),
        timeoutMs,
      );
      child.stderr?.on("data", (d: Buffer) => {
        err += d.toString();
      });
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("ready")) {
          clearTimeout(timer);
          resolve(child);
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`server in ${ns} exited (${code}): ${err}`));
      });
    });
  }

  /** Kills every process (by the id it was started with) and deletes every namespace. Idempotent. */
  cleanup(): void {
    for (const p of this.processes.splice(0)) {
      if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    }
    for (const ns of this.namespaces.splice(0).reverse()) {
      spawnSync("ip", ["netns", "del", ns], { env: ENV, timeout: 10_000 });
    }
  }
}

/**
 * A TCP + UDP server on the wildcard address of one family ("0.0.0.0" or "::", IPv6 only, so peers
 * never show as ::ffff:…) that answers every connection or datagram with `NAME PEER-ADDRESS`;
 * exits by itself after a while.
 */
export const SERVER_SCRIPT = `
const net = require("net"), dgram = require("dgram");
const [name, tcpPorts, udpPort, lifeMs, host] = process.argv.slice(1);
const v6 = host === "::";
let pending = 0;
const ready = () => { if (--pending === 0) process.stdout.write("ready\\n"); };
for (const port of tcpPorts.split(",")) {
  pending++;
  net.createServer((s) => { s.on("error", () => {}); s.end(name + " " + s.remoteAddress + "\\n"); })
    .listen({ port: Number(port), host, ipv6Only: v6 }, ready);
}
pending++;
const u = dgram.createSocket({ type: v6 ? "udp6" : "udp4", ipv6Only: v6 });
u.on("message", (m, r) => u.send(name + " " + r.address, r.port, r.address));
u.bind(Number(udpPort), host, ready);
setTimeout(() => process.exit(0), Number(lifeMs)).unref();
setInterval(() => {}, 1 << 30);
`;

/** Makes N connections (TCP) or queries (UDP), C at a time, each with a timeout; prints one JSON array of replies or error codes. */
export const CLIENT_SCRIPT = `
const net = require("net"), dgram = require("dgram");
const { host, port, proto, n, concurrency, timeoutMs, deadlineMs } = JSON.parse(process.argv[1]);
const results = [];
const deadline = Date.now() + deadlineMs;
function tcp() {
  return new Promise((done) => {
    let data = "", finished = false;
    const s = net.connect({ host, port });
    const finish = (r) => { if (!finished) { finished = true; s.destroy(); done(r); } };
    s.setTimeout(timeoutMs, () => finish({ err: "ETIMEDOUT" }));
    s.on("data", (d) => { data += d; });
    s.on("end", () => finish({ ok: data.trim() }));
    s.on("error", (e) => finish({ err: e.code || String(e) }));
  });
}
function udp() {
  return new Promise((done) => {
    const s = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4");
    let finished = false;
    const finish = (r) => { if (!finished) { finished = true; clearTimeout(t); s.close(); done(r); } };
    const t = setTimeout(() => finish({ err: "ETIMEDOUT" }), timeoutMs);
    s.on("message", (m) => finish({ ok: m.toString().trim() }));
    s.on("error", (e) => finish({ err: e.code || String(e) }));
    s.send("q", port, host);
  });
}
let started = 0;
async function worker() {
  while (started < n && Date.now() < deadline) { started++; results.push(await (proto === "udp" ? udp() : tcp())); }
}
Promise.all(Array.from({ length: concurrency }, worker)).then(() => { process.stdout.write(JSON.stringify(results)); process.exit(0); });
`;
