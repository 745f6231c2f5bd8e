// A detect-local CIDR of length 0 makes kube-proxy write `! -s 0.0.0.0/0`, which iptables-restore
// refuses on the nf_tables backend: the library refuses it as a config problem, from the input's
// config and from prepareCluster's overrides alike, instead of failing while printing.
import { describe, expect, test } from "vitest";
import { prepareCluster } from "../src/kube/from-kubernetes.js";
import type { ClusterInput } from "../src/kube/types.js";
import { validateClusterInput } from "../src/kube/validate.js";

const services = [
  {
    metadata: { name: "web", namespace: "default" },
    spec: { clusterIP: "10.96.0.10", ports: [{ name: "http", port: 80 }] },
  },
];

function errors(problems: readonly { severity: string; path: string; message: string }[]): string[] {
  return problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

describe("a /0 detect-local CIDR", () => {
  test.each([
    ["ClusterCIDR", ["0.0.0.0/0"], "config.detectLocal.cidrs[0]", "0.0.0.0/0"],
    ["NodeCIDR", ["::/0"], "config.detectLocal.cidrs[0]", "::/0"],
    ["ClusterCIDR", ["fd00:10::/64", "000.000.000.000/00"], "config.detectLocal.cidrs[1]", "0.0.0.0/0"],
  ])("%s %j is refused at %s", (mode, cidrs, path, printed) => {
    const input = { config: { detectLocal: { mode, cidrs } }, services } as unknown as ClusterInput;
    const { model, problems } = prepareCluster(input);
    expect(model).toBeNull();
    const found = errors(problems);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`${path}: `);
    expect(found[0]).toContain(`(! -s ${printed})`);
    expect(errors(validateClusterInput(input))).toEqual(found);
  });

  test("an unused /0 (not the first CIDR of its family) is accepted", () => {
    const input = {
      config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["10.0.0.0/8", "0.0.0.0/0"] } },
      services,
    } as unknown as ClusterInput;
    expect(errors(validateClusterInput(input))).toEqual([]);
  });

  test("a /0 in prepareCluster's config overrides is refused at options.config", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { detectLocal: { mode: "ClusterCIDR", cidrs: ["0.0.0.0/0"] } },
    });
    expect(model).toBeNull();
    expect(errors(problems)).toEqual([
      `options.config.detectLocal.cidrs[0]: "0.0.0.0/0" covers every IPv4 address: the rule kube-proxy would write for it (! -s 0.0.0.0/0) is refused by iptables-restore on the nf_tables backend; give the pods' CIDR`,
    ]);
  });

  test("a mark bit out of range in the overrides is refused too", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { masqueradeBit: 40 },
    });
    expect(model).toBeNull();
    expect(errors(problems)).toEqual(["options.config.masqueradeBit: 40 is not a mark bit (0-31)"]);
  });

  test("valid overrides add no problem", () => {
    const { model, problems } = prepareCluster({ services } as unknown as ClusterInput, {
      config: { masqueradeBit: 15, detectLocal: { mode: "ClusterCIDR", cidrs: ["10.0.0.0/8"] } },
    });
    expect(model).not.toBeNull();
    expect(errors(problems)).toEqual([]);
  });
});
