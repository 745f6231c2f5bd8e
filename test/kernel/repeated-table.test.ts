// A text that holds a table twice (two dumps pasted one after the other): iptables-restore
// replaces the table at each of its blocks, so the kernel keeps the last one. The CLI's reading
// of such a text (parseRulesFile) must print, in save form, what the real binaries leave.
import { describe, expect, it, vi } from "vitest";
import { parseRulesFile } from "../../src/cli/read-rules.js";
import { formatSave } from "../../src/index.js";
import { type Backend, kernelSkipReason, loadAndSave } from "./harness.js";

const skip = kernelSkipReason();

const BUILTINS = [
  ":PREROUTING ACCEPT [0:0]",
  ":INPUT ACCEPT [0:0]",
  ":OUTPUT ACCEPT [0:0]",
  ":POSTROUTING ACCEPT [0:0]",
];
/** An nft dump's nat table with a Service's DNAT, then a legacy dump's with Docker's chain only. */
const TWO_NATS = [
  "*nat",
  ...BUILTINS,
  ":KUBE-SERVICES - [0:0]",
  "-A PREROUTING -j KUBE-SERVICES",
  "-A KUBE-SERVICES -d 198.18.0.10/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 198.18.1.5:8080",
  "COMMIT",
  "*filter",
  ":INPUT ACCEPT [0:0]",
  ":FORWARD DROP [0:0]",
  ":OUTPUT ACCEPT [0:0]",
  "-A FORWARD -j ACCEPT",
  "COMMIT",
  "*nat",
  ...BUILTINS,
  ":DOCKER - [0:0]",
  "-A PREROUTING -j DOCKER",
  "-A DOCKER -i docker0 -j RETURN",
  "COMMIT",
  "",
].join("\n");

function readAsCli(text: string) {
  const notes: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((s) => notes.push(String(s)) > 0);
  try {
    return { parsed: parseRulesFile("two.save", text, { family: "IPv4" }), notes };
  } finally {
    spy.mockRestore();
  }
}

describe("a table given twice", () => {
  it("is read as its last block, with a note", () => {
    const { parsed, notes } = readAsCli(TWO_NATS);
    expect(parsed?.problems).toEqual([]);
    const nat = parsed?.ruleSet.tables.filter((t) => t.name === "nat") ?? [];
    expect(nat.map((t) => t.chains.map((c) => c.name))).toEqual([
      ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING", "DOCKER"],
    ]);
    expect(notes).toEqual([
      "kube-iptables: note: two.save holds the nat table 2 times (dumps pasted one after another?): read as iptables-restore loads it, each *nat block replacing the one before, so only the last counts here; iptables-nft's and iptables-legacy's tables are both active on a node: give each backend's dump on its own\n",
    ]);
  });

  describe.skipIf(skip !== null)("the real iptables-restore keeps the last block too", () => {
    it.each(["nft", "legacy"] as Backend[])("%s", (backend) => {
      const { parsed } = readAsCli(TWO_NATS);
      const kernel = loadAndSave(TWO_NATS, { family: "IPv4", backend, tables: ["filter", "nat"] });
      const ruleSet = parsed?.ruleSet ?? { family: "IPv4", tables: [] };
      expect(formatSave(ruleSet, { tables: ["filter", "nat"], backend })).toBe(kernel.save);
    });
  });
  if (skip !== null) it.skip(`kernel cases: ${skip}`, () => {});
});
