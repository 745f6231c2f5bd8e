// bench/plot.mjs on a tiny made-up results object: every measured point carries its whisker, the
// resync series is drawn, the caption names where kube-proxy's figures come from, and the x axis
// ends at the last point.
import { DOMParser, type Element } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { drawPlot } from "../../bench/plot.mjs";

type Stats = { median: number; p95: number; n: number; min?: number; max?: number };

/** Samples → the stats run.mjs stores; `keepMinMax` false gives the older shape (median and p95). */
function stats(samples: number[], keepMinMax: boolean): Stats {
  const a = [...samples].sort((x, y) => x - y);
  const median = a[a.length >> 1] ?? 0;
  const p95 = a[a.length - 1] ?? 0;
  const base = { median, p95, n: a.length };
  return keepMinMax ? { ...base, min: a[0] ?? 0, max: p95 } : base;
}

function results(keepMinMax: boolean) {
  const one = (op: string, services: number, scale: number) => ({
    id: `${op}:bench-clusterip-${services}`,
    op,
    model: `bench-clusterip-${services}`,
    services,
    cold: {
      wall: stats(
        [3, 4, 6].map((v) => v * scale),
        keepMinMax,
      ),
      cpu: stats(
        [4, 5, 7].map((v) => v * scale),
        keepMinMax,
      ),
    },
    warm: {
      wall: stats(
        [1, 2, 5].map((v) => v * scale),
        keepMinMax,
      ),
      cpu: stats(
        [2, 3, 4].map((v) => v * scale),
        keepMinMax,
      ),
    },
  });
  return {
    date: "2026-01-02T03:04:05.000Z",
    commit: "abc1234",
    dirty: false,
    machine: { cpu: "Test CPU", cores: 2, node: "v20.0.0", loadAverage: { start: [0.5, 0.5, 0.5] } },
    cases: [
      one("restore", 1000, 10),
      one("restore", 5000, 50),
      one("resync", 1000, 2),
      one("resync", 5000, 9),
      one("update-endpoint", 1000, 0.1),
      one("update-endpoint", 5000, 0.2),
      // Not a ClusterIP scaling model: must not stretch the axis.
      { ...one("restore", 20000, 100), id: "restore:bench-mixed-20000", model: "bench-mixed-20000" },
    ],
  };
}

function parse(svg: string): Element {
  return new DOMParser().parseFromString(svg, "image/svg+xml").documentElement as unknown as Element;
}

const byClass = (root: Element, name: string): Element[] =>
  Array.from(root.getElementsByTagName("*")).filter((e) =>
    (e.getAttribute("class") ?? "").split(" ").includes(name),
  );

const seriesNamed = (root: Element, label: string): Element | undefined =>
  byClass(root, "series").find((s) => s.getAttribute("data-label") === label);

describe("bench/plot.mjs", () => {
  const svg = parse(drawPlot(results(true)));

  it("gives every point of our series a whisker from the samples' min to max", () => {
    const ours = byClass(svg, "series").filter((s) => s.getAttribute("data-source") === "ours");
    expect(ours.length).toBeGreaterThanOrEqual(4);
    for (const s of ours) {
      const points = byClass(s, "point");
      expect(points.map((p) => p.getAttribute("data-services"))).toEqual(["1000", "5000"]);
      for (const p of points) {
        const w = byClass(p, "whisker");
        expect(w).toHaveLength(1);
        expect(w[0]?.getAttribute("data-spread")).toBe("min–max");
        expect(Number(w[0]?.getAttribute("data-lo"))).toBeLessThan(Number(p.getAttribute("data-ms")));
        expect(Number(w[0]?.getAttribute("data-hi"))).toBeGreaterThan(Number(p.getAttribute("data-ms")));
      }
    }
    const cold = seriesNamed(svg, "ours: model → restore, cold");
    const w5000 = byClass(byClass(cold as Element, "point")[1] as Element, "whisker")[0];
    expect([w5000?.getAttribute("data-lo"), w5000?.getAttribute("data-hi")]).toEqual(["150", "300"]);
    expect(byClass(svg, "whisker-note")[0]?.textContent).toContain("min–max");
  });

  it("falls back to median–p95 whiskers, and says so, for results without min and max", () => {
    const old = parse(drawPlot(results(false)));
    const cold = seriesNamed(old, "ours: model → restore, cold") as Element;
    const w = byClass(cold, "whisker").map((e) => [e.getAttribute("data-lo"), e.getAttribute("data-hi")]);
    expect(w).toEqual([
      ["40", "60"],
      ["200", "300"],
    ]);
    expect(byClass(old, "whisker-note")[0]?.textContent).toContain("median to p95");
  });

  it("draws the resync through a reused generator from the resync cases", () => {
    const resync = seriesNamed(svg, "ours: resync, reused generator");
    expect(resync).toBeDefined();
    const ms = byClass(resync as Element, "point").map((p) => Number(p.getAttribute("data-ms")));
    expect(ms).toEqual([2 * 2, 2 * 9]);
  });

  it("names the source of kube-proxy's figures in a caption", () => {
    const caption = byClass(svg, "caption")[0]?.textContent ?? "";
    expect(caption).toContain("test/fixtures/kube-proxy/README.md");
    expect(caption).toContain("v1.30.5");
    expect(caption).toContain("syncProxyRules");
  });

  it("ends the x axis at the last point", () => {
    const ticks = byClass(svg, "tick");
    const last = ticks[ticks.length - 1];
    expect(last?.getAttribute("data-value")).toBe("5000");
    // kube-proxy's rows beyond what we measured are left out too.
    for (const s of byClass(svg, "series")) {
      const sizes = byClass(s, "point").map((p) => Number(p.getAttribute("data-services")));
      expect(Math.max(...sizes)).toBe(5000);
    }
    // The tick sits where the last points are drawn.
    const cold = seriesNamed(svg, "ours: model → restore, cold") as Element;
    const line = cold.getElementsByTagName("polyline")[0]?.getAttribute("points") ?? "";
    const lastX = line.split(" ").at(-1)?.split(",")[0];
    expect(Number(lastX)).toBeCloseTo(Number(last?.getAttribute("x")), 1);
  });
});
