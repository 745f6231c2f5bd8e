// bench/required-diff.mjs, the lower bound under issue 21's `diff DUMP CLUSTER` target, must write
// the library's save text (from a plan per port) and decide what the library decides: which of
// kube-proxy's chains differ between a node's dump and the cluster, whatever else the dump holds.
import { describe, expect, it } from "vitest";
import { minimalModelOf } from "../../bench/minimal-writer.mjs";
import { differingChains, writeRequiredSaveText } from "../../bench/required-diff.mjs";
import {
  type ClusterInput,
  type ClusterModel,
  diffRules,
  formatSave,
  generateRules,
  generateSaveText,
  generateState,
  kubeProxyChainsOf,
  modelFromKubernetes,
  parseRulesOrThrow,
} from "../../src/index.js";
import { bench1000, SMALL } from "./bench-clusters.js";

/** The chains the library's diff finds, as the CLI compares them (kube-proxy's own), sorted. */
function libraryDiffering(dump: string, model: ClusterModel): Record<string, string[]> {
  const diff = diffRules(parseRulesOrThrow(dump), generateState(model), {
    chains: kubeProxyChainsOf(generateRules(model)),
  });
  return Object.fromEntries(diff.tables.map((t) => [t.name, t.chains.map((c) => c.chain).sort()]));
}

/** The bound's answer for a dump against a cluster, sorted. */
function boundDiffering(dump: string, input: ClusterInput): Record<string, string[]> {
  const found = differingChains(dump, writeRequiredSaveText(minimalModelOf(input)));
  return Object.fromEntries(Object.entries(found).map(([table, chains]) => [table, [...chains].sort()]));
}

/** Both answers, which must agree. */
function bothDiffering(dump: string, input: ClusterInput): Record<string, string[]> {
  const bound = boundDiffering(dump, input);
  expect(bound).toEqual(libraryDiffering(dump, modelFromKubernetes(input)));
  return bound;
}

const nodeDump = (input: ClusterInput): string => formatSave(generateState(modelFromKubernetes(input)));

/** The first endpoint of the first slice moves to another address. */
function moveOneEndpoint(input: ClusterInput): ClusterInput {
  const slices = input.endpointSlices as unknown as { endpoints: { addresses: string[] }[] }[];
  const [first, ...rest] = slices;
  if (first === undefined) throw new Error("no slices");
  const [ep, ...eps] = first.endpoints;
  if (ep === undefined) throw new Error("no endpoints");
  const moved = { ...first, endpoints: [{ ...ep, addresses: ["10.250.0.1"] }, ...eps] };
  return { ...input, endpointSlices: [moved, ...rest] } as unknown as ClusterInput;
}

/** A chain of the dump's nat table (the n-th of that prefix in the text's order). */
function chainOf(dump: string, prefix: string, n = 0): string {
  const names = [...dump.matchAll(new RegExp(`^:(${prefix}\\S+) `, "gm"))].map((m) => m[1] as string);
  const name = names[n];
  if (name === undefined) throw new Error(`no chain ${prefix}… ${n}`);
  return name;
}

const lines = (dump: string): string[] => dump.split("\n");
const isOf = (chain: string) => (line: string) =>
  line.startsWith(`:${chain} `) || line.startsWith(`-A ${chain} `);

/** The dump with `add` inserted before the first line `before` accepts. */
function insertBefore(dump: string, before: (line: string) => boolean, add: string[]): string {
  const all = lines(dump);
  const at = all.findIndex(before);
  if (at < 0) throw new Error("no such line");
  all.splice(at, 0, ...add);
  return all.join("\n");
}

describe("bench/required-diff.mjs: the save text", () => {
  it("writes generateSaveText's bytes, from the raw objects and from the library's model", () => {
    for (const input of [SMALL, bench1000()]) {
      const text = generateSaveText(modelFromKubernetes(input));
      expect(writeRequiredSaveText(minimalModelOf(input)).text).toBe(text);
      expect(writeRequiredSaveText(modelFromKubernetes(input)).text).toBe(text);
    }
  });

  it("writes from its plan: an endpoint that is not ready gets no chain, as in the library", () => {
    const model = modelFromKubernetes(SMALL);
    const ports = model.servicePorts.map((p) =>
      p.name === "big"
        ? {
            ...p,
            endpoints: p.endpoints.map((e, i) => (i === 0 ? { ...e, ready: false, serving: false } : e)),
          }
        : p,
    );
    const changed = { ...model, servicePorts: ports };
    const { text } = writeRequiredSaveText(changed);
    expect(text.match(/ -j DNAT /g)).toHaveLength(3 * 2 + 1 + 12 + 7 * 2 + 2 + 999);
    expect(text).toBe(generateSaveText(changed));
  });

  it("knows where each chain is: the declarations it indexes are the text's", () => {
    const { text, tables } = writeRequiredSaveText(minimalModelOf(SMALL));
    const declared = [...text.matchAll(/^\*(\w+)\n|^:(\S+) (\S+) /gm)];
    const seen: string[] = [];
    for (const m of declared) if (m[2] !== undefined) seen.push(`${m[2]} ${m[3]}`);
    const indexed = [...tables.values()].flatMap((t) => t.names.map((n, k) => `${n} ${t.policies[k]}`));
    expect(indexed).toEqual(seen);
  });
});

describe("bench/required-diff.mjs: which of kube-proxy's chains differ", () => {
  it("finds nothing on the node's own dump", () => {
    for (const input of [SMALL, bench1000()]) expect(bothDiffering(nodeDump(input), input)).toEqual({});
  });

  it("finds the chains one moved endpoint changes: its SVC chain, the old SEP, the new SEP", () => {
    const found = bothDiffering(nodeDump(SMALL), moveOneEndpoint(SMALL));
    expect(Object.keys(found)).toEqual(["nat"]);
    const nat = found.nat ?? [];
    expect(nat.filter((c) => c.startsWith("KUBE-SVC-"))).toHaveLength(2); // web has two ports
    expect(nat.filter((c) => c.startsWith("KUBE-SEP-"))).toHaveLength(4);
  });

  it("finds a chain the dump lacks, and the chain that jumped to it", () => {
    const dump = nodeDump(SMALL);
    const gone = chainOf(dump, "KUBE-SEP-", 5);
    const jump = lines(dump).find((l) => l.endsWith(` -j ${gone}`));
    const svc = jump?.split(" ")[1] ?? "";
    expect(svc).toMatch(/^KUBE-SVC-/);
    const without = lines(dump)
      .filter((l) => !isOf(gone)(l) && l !== jump)
      .join("\n");
    expect(bothDiffering(without, SMALL)).toEqual({ nat: [gone, svc].sort() });
  });

  it("finds a chain whose rules the dump holds otherwise: edited, or one more", () => {
    const dump = nodeDump(SMALL);
    const sep = chainOf(dump, "KUBE-SEP-", 7);
    const edited = lines(dump)
      .map((l) => (l.startsWith(`-A ${sep} `) && l.includes("DNAT") ? l.replace(/:(\d+)$/, ":9999") : l))
      .join("\n");
    expect(edited).not.toBe(dump);
    expect(bothDiffering(edited, SMALL)).toEqual({ nat: [sep] });
    const svc = chainOf(dump, "KUBE-SVC-", 2);
    const longer = insertBefore(dump, (l) => l.startsWith(`-A ${svc} `), [
      `-A ${svc} -m comment --comment "added" -j KUBE-MARK-MASQ`,
    ]);
    expect(bothDiffering(longer, SMALL)).toEqual({ nat: [svc] });
  });

  it("leaves other programs' chains alone (Docker, a mangle table, counters on built-in chains)", () => {
    let dump = nodeDump(SMALL).replace(":PREROUTING ACCEPT [0:0]", ":PREROUTING ACCEPT [5120:307200]");
    dump = insertBefore(dump, (l) => l === ":KUBE-MARK-MASQ - [0:0]", [":DOCKER - [0:0]"]);
    dump = insertBefore(dump, (l) => l.startsWith("-A PREROUTING "), [
      "-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
    ]);
    dump = insertBefore(dump, (l) => l.startsWith("-A KUBE-MARK-MASQ "), ["-A DOCKER -i docker0 -j RETURN"]);
    dump = insertBefore(dump, (l) => l === ":KUBE-EXTERNAL-SERVICES - [0:0]", [":DOCKER-USER - [0:0]"]);
    dump = insertBefore(dump, (l) => l.startsWith("-A FORWARD "), ["-A FORWARD -j DOCKER-USER"]);
    dump = insertBefore(dump, (l) => l.startsWith("-A KUBE-FIREWALL "), ["-A DOCKER-USER -j RETURN"]);
    dump = `*mangle\n:PREROUTING ACCEPT [0:0]\n:KUBE-IPTABLES-HINT - [0:0]\nCOMMIT\n${dump}`;
    expect(bothDiffering(dump, SMALL)).toEqual({});
  });

  it("finds a stale chain of kube-proxy's that the cluster no longer has", () => {
    const dump = nodeDump(SMALL);
    const stale = "KUBE-SVC-AAAAAAAAAAAAAAAA";
    const sep = chainOf(dump, "KUBE-SEP-");
    let changed = insertBefore(dump, (l) => l.startsWith(":KUBE-SVC-"), [`:${stale} - [0:0]`]);
    changed = insertBefore(changed, (l) => l.startsWith("-A KUBE-SERVICES "), [`-A ${stale} -j ${sep}`]);
    expect(bothDiffering(changed, SMALL)).toEqual({ nat: [stale] });
  });

  it("reads chains listed in another order as the same chains", () => {
    const dump = nodeDump(SMALL);
    const svc = chainOf(dump, "KUBE-SVC-", 4);
    const rest = lines(dump).filter((l) => !isOf(svc)(l));
    const own = lines(dump).filter(isOf(svc));
    let moved = insertBefore(rest.join("\n"), (l) => l === ":KUBE-MARK-MASQ - [0:0]", own.slice(0, 1));
    moved = insertBefore(moved, (l) => l.startsWith("-A KUBE-MARK-MASQ "), own.slice(1));
    expect(moved).not.toBe(dump);
    expect(bothDiffering(moved, SMALL)).toEqual({});
    // The filter table after the nat table.
    const [filter, nat] = dump.split(/(?<=COMMIT\n)/);
    expect(bothDiffering(`${nat}${filter}`, SMALL)).toEqual({});
  });

  it("reads a chain declared again as iptables-nft-restore does: the same chain", () => {
    const dump = nodeDump(SMALL);
    const sep = chainOf(dump, "KUBE-SEP-", 3);
    const before = insertBefore(dump, (l) => l.startsWith(":KUBE-SVC-"), [`:${sep} - [0:0]`]);
    expect(bothDiffering(before, SMALL)).toEqual({});
    const after = insertBefore(dump, (l) => l.startsWith("-A KUBE-SERVICES "), [`:${sep} - [0:0]`]);
    expect(bothDiffering(after, SMALL)).toEqual({});
  });

  it("reads a chain's rules given in two runs as one list, in the order given", () => {
    const dump = nodeDump(SMALL);
    const sep = chainOf(dump, "KUBE-SEP-", 9);
    const [first, second] = lines(dump).filter((l) => l.startsWith(`-A ${sep} `));
    if (first === undefined || second === undefined) throw new Error("a SEP chain has two rules");
    const rest = lines(dump).filter((l) => l !== second);
    const split = insertBefore(rest.join("\n"), (l) => l.startsWith("-A KUBE-SERVICES "), [second]);
    expect(bothDiffering(split, SMALL)).toEqual({});
    const swapped = insertBefore(
      lines(dump)
        .filter((l) => l !== first)
        .join("\n"),
      (l) => l.startsWith("-A KUBE-SERVICES "),
      [first],
    );
    expect(bothDiffering(swapped, SMALL)).toEqual({ nat: [sep] });
  });

  it("agrees with the library on dumps edited at random: a rule dropped, doubled or moved a line", () => {
    const dump = nodeDump(SMALL);
    const all = lines(dump);
    const rules = all.flatMap((l, i) => (l.startsWith("-A ") ? [i] : []));
    let seed = 21;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let differing = 0;
    for (let round = 0; round < 40; round++) {
      const edited = [...all];
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = rules[random(rules.length)] as number;
        const line = edited[at] as string;
        const kind = random(3);
        if (kind === 0) edited.splice(at, 1);
        else if (kind === 1) edited.splice(at, 0, line);
        else if (edited[at + 1]?.startsWith("-A ")) edited.splice(at, 2, edited[at + 1] as string, line);
      }
      if (Object.keys(bothDiffering(edited.join("\n"), SMALL)).length > 0) differing++;
    }
    // (A line moved within its chain's run between equal neighbours changes nothing.)
    expect(differing).toBeGreaterThan(30);
  });

  it("refuses, with the line, a structure iptables-restore refuses", () => {
    const dump = nodeDump(SMALL);
    const written = writeRequiredSaveText(minimalModelOf(SMALL));
    const sep = chainOf(dump, "KUBE-SEP-");
    const cases: [string, RegExp][] = [
      [
        insertBefore(dump, (l) => l.startsWith("-A KUBE-MARK-MASQ "), ["-A NOPE -j ACCEPT"]),
        /NOPE is not declared/,
      ],
      [dump.replace(/COMMIT\n$/, ""), /nat: missing COMMIT/],
      [dump.replace(`:${sep} - [0:0]\n`, ""), /is not declared/],
    ];
    for (const [bad, why] of cases) {
      expect(() => differingChains(bad, written)).toThrow(why);
      expect(() => parseRulesOrThrow(bad)).toThrow();
    }
  });
});
