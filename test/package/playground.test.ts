/// <reference lib="dom" />
// The playground in a real browser (Debian's chromium, driven by puppeteer-core; no download):
// built with `npm run build:playground`'s builder, served on 127.0.0.1, loaded, and used as a
// person would: the example cluster on first load, a node's dump pasted, a service port chosen,
// a packet traced and drawn. A screenshot goes to the test's output directory
// (PLAYGROUND_SCREENSHOTS, else test/.output/).
import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeProxyVector } from "../support/corpora.js";
import { ROOT } from "../support/run-cli.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OUTPUT = process.env.PLAYGROUND_SCREENSHOTS ?? join(ROOT, "test", ".output");

let server: Server;
let browser: Browser;
let page: Page;
let url: string;

beforeAll(async () => {
  const { buildPlayground } = (await import(join(ROOT, "playground", "build.mjs"))) as {
    buildPlayground: (o: { quiet: boolean }) => Promise<Record<string, number>>;
  };
  const { servePlayground } = (await import(join(ROOT, "playground", "serve.mjs"))) as {
    servePlayground: (port: number) => Promise<Server>;
  };
  await buildPlayground({ quiet: true });
  server = await servePlayground(0);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root (CI), chromium runs only without its sandbox.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => {
    throw e;
  });
  await page.goto(url, { waitUntil: "networkidle0" });
  // Everything the page loads comes from the page's own origin.
  for (const r of requests) expect(r.startsWith(url)).toBe(true);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function nodesInPicture(): Promise<number> {
  await page.waitForSelector("#picture svg g.node", { timeout: 20_000 });
  return page.$$eval("#picture svg g.node", (gs) => gs.length);
}

describe("the playground", () => {
  it("shows the example cluster on first load: rules, service ports, a picture", async () => {
    expect(await page.$eval("#input", (t) => (t as HTMLTextAreaElement).value)).toMatch(/hostname: k8s1/);
    const ports = await page.$$eval("#services option", (os) => os.map((o) => o.textContent));
    expect(ports).toContain("kube-system/kube-dns:dns");
    expect(await page.$eval("#restore", (p) => p.textContent)).toMatch(/^\*filter\n/);
    expect(await page.$eval("#save", (p) => p.textContent)).toMatch(
      /-A KUBE-SERVICES -d 10\.96\.0\.10\/32 -p udp/,
    );
    expect(await nodesInPicture()).toBeGreaterThan(3);
    // The trace form is filled with the selected service port's cluster IP.
    expect(await page.$eval("#dst", (i) => (i as HTMLInputElement).value)).toMatch(
      /^\d+\.\d+\.\d+\.\d+:\d+$/,
    );
  });

  it("reads a pasted dump, draws the chosen service port, and traces a packet on it", async () => {
    const v = kubeProxyVector("kube-proxy", "feature-clusterip-3-endpoints");
    await page.$eval(
      "#input",
      (t, text) => {
        const area = t as HTMLTextAreaElement;
        area.value = text;
        area.dispatchEvent(new Event("input"));
      },
      v.expected.save,
    );
    await page.waitForFunction(() => document.querySelector("#form")?.textContent?.includes("save form"), {
      timeout: 20_000,
    });
    expect(await page.$eval("#save", (p) => p.textContent)).toBe(v.expected.save);
    const ports = await page.$$eval("#services option", (os) => os.map((o) => o.value));
    expect(ports).toHaveLength(1);
    await page.waitForFunction(
      () => document.querySelectorAll("#picture svg g[data-kind=endpoint]").length === 3,
      {
        timeout: 20_000,
      },
    );
    await page.$eval("#src", (i) => {
      (i as HTMLInputElement).value = "10.244.0.99";
    });
    await page.click("#trace button[type=submit]");
    await page.waitForSelector("#picture svg g.edge[data-traced=true]", { timeout: 20_000 });
    const outcomes = await page.$$eval("#outcomes li", (ls) => ls.map((l) => l.textContent ?? ""));
    expect(outcomes).toHaveLength(3);
    for (const o of outcomes) expect(o).toMatch(/ → \d+\.\d+\.\d+\.\d+:\d+ {2}p=0\.33333333\d/);
    const tracedDnats = await page.$$eval(
      "#picture svg g.node[data-action=dnat][data-traced=true]",
      (gs) => gs.length,
    );
    expect(tracedDnats).toBe(3);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "playground.png"), fullPage: false });
    expect(existsSync(join(OUTPUT, "playground.png"))).toBe(true);
  });

  it("shows where the input is wrong", async () => {
    await page.$eval("#input", (t) => {
      const area = t as HTMLTextAreaElement;
      area.value = "*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -p tcp --dport 99999 -j ACCEPT\nCOMMIT\n";
      area.dispatchEvent(new Event("input"));
    });
    await page.waitForSelector("#problems li", { visible: true, timeout: 20_000 });
    expect(await page.$eval("#problems", (p) => p.textContent)).toMatch(/^input:3:30: invalid port/);
    // A click on the problem selects its line in the input.
    await page.click("#problems li");
    const selected = await page.$eval("#input", (t) => {
      const area = t as HTMLTextAreaElement;
      return area.value.slice(area.selectionStart, area.selectionEnd);
    });
    expect(selected).toBe("-A PREROUTING -p tcp --dport 99999 -j ACCEPT");
    await page.$eval("#input", (t) => {
      const area = t as HTMLTextAreaElement;
      area.value =
        "services:\n  - kind: Service\n    metadata: {name: web, namespace: default}\n    spec: {clusterIP: 10.96.0.10, ports: [{port: 70000}]}\n";
      area.dispatchEvent(new Event("input"));
    });
    await page.waitForFunction(
      () => /services\[0\]/.test(document.querySelector("#problems")?.textContent ?? ""),
      {
        timeout: 20_000,
      },
    );
    expect(await page.$eval("#problems", (p) => p.textContent)).toMatch(
      /services\[0\]\.spec\.ports\[0\]\.port/,
    );
  });
});
