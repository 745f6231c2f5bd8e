// The tracer against the real kernel, for one IP family: our rules loaded into a "node" namespace
// between a client namespace and pod namespaces (see topology.ts), real TCP and UDP connections,
// and the kernel's choices compared with what the tracer listed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatSave } from "../../src/format/save.js";
import { generateState } from "../../src/iptables/output/rules.js";
import type { RuleSet } from "../../src/ir/types.js";
import { prepareCluster } from "../../src/kube/from-kubernetes.js";
import type { IPFamily } from "../../src/model/types.js";
import { type Packet, type TraceOutcome, type TraceResult, traceRules } from "../../src/trace/index.js";
import { labCluster } from "./cluster.js";
import { assertTestAddress, CLIENT_SCRIPT, dataplaneSkipReason, isCI, Lab, SERVER_SCRIPT } from "./netns.js";
import { chiSquarePValue } from "./stats.js";
import { buildTopology, labNames, nodeAddresses, PLANS } from "./topology.js";

type Reply = { ok: string } | { err: string };

/**
 * Declares the data-plane tests of `family`. Skipped (the title says why) without root, `ip` or
 * the family's iptables-restore; when CI is set, a failing test instead.
 */
export function dataplaneSuite(family: IPFamily): void {
  const title = `data plane (${family}): the kernel agrees with the tracer`;
  const reason = dataplaneSkipReason(family);
  if (reason !== null && isCI()) {
    describe(title, () => {
      it("can run (CI is set)", () => {
        throw new Error(`CI is set, so the ${family} data-plane test must run, but it cannot: ${reason}`);
      });
    });
    return;
  }

  const plan = PLANS[family];
  // Distinct prefixes per family: both files may run at once, and namespace names are global.
  const NS = labNames(`${family === "IPv4" ? "kit" : "k6t"}${process.pid % 100000}`);
  const NODE_ADDRESSES = nodeAddresses(plan);
  const VIP = plan.vips;
  const NODE_IP = plan.client.node;
  const lab = new Lab();
  const report: Record<string, unknown> = {};
  let state: RuleSet;

  function connect(
    ns: string,
    host: string,
    port: number,
    proto: "tcp" | "udp",
    n: number,
    timeoutMs = 2000,
  ) {
    assertTestAddress(host);
    const spec = { host, port, proto, n, concurrency: Math.min(n, 32), timeoutMs, deadlineMs: 40_000 };
    const out = lab.exec(
      ns,
      process.execPath,
      ["-e", CLIENT_SCRIPT, JSON.stringify(spec)],
      undefined,
      60_000,
    );
    return JSON.parse(out) as Reply[];
  }

  function trace(
    from: "external" | "pod",
    destination: string,
    port: number,
    protocol: "tcp" | "udp",
    affinity?: { chain: string },
  ): TraceResult {
    const packet: Packet = {
      source: from === "external" ? plan.client.peer : plan.podClient.peer,
      sourcePort: 40000,
      destination,
      destinationPort: port,
      protocol,
      from,
      inInterface: from === "external" ? "vc" : "vq",
    };
    const aff =
      affinity === undefined
        ? {}
        : { affinity: [{ client: packet.source, chain: affinity.chain, lastSeen: 100 }], now: 101 };
    return traceRules(state, packet, { nodeAddresses: NODE_ADDRESSES, ...aff });
  }

  /** Checks (a) only listed endpoints, (b) χ² fit, (c) masquerade ⇔ the server saw a node address. */
  function checkSpread(replies: readonly Reply[], result: TraceResult, n: number) {
    const accepted = result.outcomes.filter((o) => o.verdict === "accepted" && o.dnat !== null);
    const byAddress = new Map<string, TraceOutcome>(accepted.map((o) => [o.dnat?.address as string, o]));
    const counts: Record<string, number> = {};
    expect(replies.length).toBe(n);
    for (const r of replies) {
      if (!("ok" in r)) throw new Error(`a connection failed: ${r.err}`);
      const [pod, peer] = r.ok.split(" ");
      const podIP = plan.pods[NS.pods.indexOf(pod as string)] as string;
      const outcome = byAddress.get(podIP);
      expect(outcome, `landed on ${podIP}, which the tracer did not list`).toBeDefined();
      expect(
        NODE_ADDRESSES.includes(peer as string),
        `server saw ${peer}; tracer says masquerade=${outcome?.masquerade}`,
      ).toBe(outcome?.masquerade);
      counts[podIP] = (counts[podIP] ?? 0) + 1;
    }
    let chi2 = 0;
    for (const o of accepted) {
      const expected = (Number(o.probability.numerator) / Number(o.probability.denominator)) * n;
      const seen = counts[o.dnat?.address as string] ?? 0;
      chi2 += (seen - expected) ** 2 / expected;
    }
    return { counts, p: chiSquarePValue(chi2, accepted.length - 1) };
  }

  describe.skipIf(reason !== null)(reason === null ? title : `${title} (skipped: ${reason})`, () => {
    beforeAll(async () => {
      process.once("exit", () => lab.cleanup());
      try {
        const prepared = prepareCluster(labCluster(plan), { family, strict: true });
        if (prepared.model === null)
          throw new Error(prepared.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
        state = generateState(prepared.model);
        await buildTopology(lab, plan, NS);
        lab.exec(
          NS.node,
          family === "IPv4" ? "iptables-restore" : "ip6tables-restore",
          [],
          formatSave(state),
        );
        await Promise.all(
          NS.pods.map((pod) => lab.start(pod, SERVER_SCRIPT, [pod, "8080", "5353", "150000", plan.wildcard])),
        );
      } catch (e) {
        lab.cleanup();
        throw e;
      }
    });

    afterAll(() => {
      lab.cleanup();
      console.log(`dataplane ${family} ${JSON.stringify(report)}`);
    });

    it("cluster IP from outside: only traced endpoints, χ² fit, masquerade as traced", () => {
      const result = trace("external", VIP.web, 80, "tcp");
      expect(result.outcomes.every((o) => o.masquerade)).toBe(true);
      const n = 2000;
      const { counts, p } = checkSpread(connect(NS.client, VIP.web, 80, "tcp", n), result, n);
      report.clusterIP = { counts, p };
      expect(p).toBeGreaterThan(0.001);
    });

    it("node port from outside: only traced endpoints, χ² fit, masquerade as traced", () => {
      const result = trace("external", NODE_IP, 30080, "tcp");
      const n = 2000;
      const { counts, p } = checkSpread(connect(NS.client, NODE_IP, 30080, "tcp", n), result, n);
      report.nodePort = { counts, p };
      expect(p).toBeGreaterThan(0.001);
    });

    it("cluster IP from a pod: not masqueraded, as traced", () => {
      const result = trace("pod", VIP.web, 80, "tcp");
      expect(result.outcomes.some((o) => o.masquerade)).toBe(false);
      const n = 300;
      report.fromPod = checkSpread(connect(NS.podClient, VIP.web, 80, "tcp", n), result, n).counts;
    });

    it("UDP cluster IP: only traced endpoints", () => {
      const result = trace("external", VIP.dns, 53, "udp");
      const n = 300;
      report.udp = checkSpread(connect(NS.client, VIP.dns, 53, "udp", n), result, n).counts;
    });

    it("reject: refused as traced", () => {
      const result = trace("external", VIP.empty, 80, "tcp");
      expect(result.outcomes.map((o) => o.verdict)).toEqual(["rejected"]);
      // An ICMP error that arrives while connect() still holds the socket lock is dropped
      // (TcpExtLockDroppedIcmps; seen with IPv6): the SYN retransmitted after 1 s gets the refusal.
      const replies = connect(NS.client, VIP.empty, 80, "tcp", 3, 3000);
      expect(replies).toEqual([{ err: "ECONNREFUSED" }, { err: "ECONNREFUSED" }, { err: "ECONNREFUSED" }]);
    });

    it("drop: times out as traced", () => {
      const result = trace("external", NODE_IP, 30081, "tcp");
      expect(result.outcomes.map((o) => o.verdict)).toEqual(["dropped"]);
      const replies = connect(NS.client, NODE_IP, 30081, "tcp", 3, 1000);
      expect(replies).toEqual([{ err: "ETIMEDOUT" }, { err: "ETIMEDOUT" }, { err: "ETIMEDOUT" }]);
    });

    it("ClientIP affinity: repeat connections stick, as traced", () => {
      const first = connect(NS.client, VIP.sticky, 80, "tcp", 1)[0];
      if (first === undefined || !("ok" in first))
        throw new Error(`first connection failed: ${JSON.stringify(first)}`);
      const podIP = plan.pods[NS.pods.indexOf(first.ok.split(" ")[0] as string)] as string;
      const spread = trace("external", VIP.sticky, 80, "tcp");
      const chain = spread.outcomes.find((o) => o.dnat?.address === podIP)?.endpointChain;
      expect(chain).toBeTruthy();
      const sticky = trace("external", VIP.sticky, 80, "tcp", { chain: chain as string });
      expect(
        sticky.outcomes.map((o) => [o.dnat?.address, o.probability.numerator === o.probability.denominator]),
      ).toEqual([[podIP, true]]);
      const again = connect(NS.client, VIP.sticky, 80, "tcp", 50);
      const pods = new Set(again.map((r) => ("ok" in r ? r.ok.split(" ")[0] : r.err)));
      report.affinity = { pod: podIP, repeats: again.length, distinct: pods.size };
      expect([...pods]).toEqual([first.ok.split(" ")[0]]);
    });
  });
}
