// The playground's computations without the page (the browser test covers the page): the
// example cluster, a pasted IPv6 dump read in its family, node options over the input's config,
// problems with their place, and the trace form's packet.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compute, frontendOf, type NodeOptions, packetOf, trace } from "../../playground/src/engine.js";
import { add, formatFraction, ZERO } from "../../src/trace/index.js";
import { kubeProxyVector } from "../support/corpora.js";
import { ROOT } from "../support/run-cli.js";

const EXAMPLE = readFileSync(join(ROOT, "examples", "cluster.yaml"), "utf8");
const NONE: NodeOptions = { hostname: "", nodeIPs: "", clusterCIDR: "", profile: "", family: "" };

describe("the playground's engine", () => {
  it("reads the example cluster: rules in both forms, its service ports, a trace that sums to 1", () => {
    const c = compute(EXAMPLE, NONE);
    expect(c.problems).toEqual([]);
    expect(c.form).toBe("cluster");
    expect(c.servicePorts).toContain("kube-system/kube-dns:dns");
    expect(c.restore).toMatch(/^\*filter\n/);
    expect(c.save).toContain("-A KUBE-SERVICES -d 10.96.0.10/32 -p udp");
    expect(c.nodeIPs).toEqual(["10.210.40.172"]);
    const frontend = frontendOf(c.state as NonNullable<typeof c.state>, "kube-system/kube-dns:dns");
    expect(frontend).toEqual({ destination: "10.96.0.10:53", protocol: "udp" });
    const result = trace(
      c.state as NonNullable<typeof c.state>,
      packetOf("10.244.1.7", frontend?.destination as string, "udp", "pod"),
      c.nodeIPs,
    );
    expect(result.outcomes.map((o) => o.dnat?.address).sort()).toEqual(["10.244.0.5", "10.244.2.21"]);
    expect(formatFraction(result.outcomes.reduce((s, o) => add(s, o.probability), ZERO))).toBe("1.000000000");
  });

  it("applies the node options over the input's config", () => {
    const c = compute(EXAMPLE, { ...NONE, clusterCIDR: "10.128.0.0/14", nodeIPs: "198.18.0.2, 198.18.0.3" });
    expect(c.save).toContain("! -s 10.128.0.0/14");
    expect(c.save).not.toContain("! -s 10.244.0.0/16");
    expect(c.nodeIPs).toEqual(["198.18.0.2", "198.18.0.3"]);
  });

  it("reads an ip6tables-save dump as IPv6 without being told", () => {
    const v = kubeProxyVector("kube-proxy", "feature-ipv6-clusterip-nodeport");
    const c = compute(v.expected.save, NONE);
    expect(c.problems).toEqual([]);
    expect(c.form).toBe("save");
    expect(c.state?.family).toBe("IPv6");
    const frontend = frontendOf(c.state as NonNullable<typeof c.state>, c.servicePorts[0] as string);
    expect(frontend?.destination).toMatch(/^\[[0-9a-f:]+\]:\d+$/);
    expect(packetOf("fd00::7", frontend?.destination as string, "tcp", "external").destination).not.toMatch(
      /\[/,
    );
  });

  it("names the place of a problem: a path in objects, a line in rules text", () => {
    const objects = compute(
      "services:\n  - kind: Service\n    metadata: {name: web}\n    spec: {ports: [{port: 70000}]}\n",
      NONE,
    );
    // As generate does without --strict: the invalid Service is left out, with a message.
    expect(objects.servicePorts).toEqual([]);
    expect(objects.problems.map((p) => p.text).join("\n")).toMatch(/services\[0\]\.spec\.ports\[0\]\.port/);
    const rules = compute(
      "*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -p tcp --dport 99999 -j ACCEPT\nCOMMIT\n",
      NONE,
    );
    expect(rules.problems[0]).toMatchObject({ line: 3 });
    expect(rules.problems[0]?.text).toMatch(/^input:3:\d+: /);
  });

  it("refuses a destination without a port", () => {
    expect(() => packetOf("10.0.0.1", "10.96.0.10", "tcp", "pod")).toThrow(/IP:PORT/);
  });
});
