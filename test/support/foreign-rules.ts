// Other programs' rules on a node (Docker-like chains, a stale kube-proxy chain one of them still
// uses), and a way to add them to save text: what a node's dump holds besides kube-proxy's
// rules, for the tests that start the sync engine from a dump.

/** Chains and rule lines to add, per table. */
export type Extra = Record<string, { chains: string[]; rules: string[] }>;

/** A stale endpoint chain that nothing uses (left from an earlier sync). */
export const STALE = "KUBE-SEP-AAAAAAAAAAAAAAAA";
/** A stale endpoint chain that a Docker rule still jumps to: it must be kept. */
export const PINNED = "KUBE-SEP-BBBBBBBBBBBBBBBB";

/**
 * Docker-like chains and rules, one of them jumping to {@link PINNED}. On a node where
 * kube-proxy never ran (`kube` false) the pinned chain cannot use KUBE-MARK-MASQ.
 */
export function foreign(family: "IPv4" | "IPv6", kube = true): Extra {
  const [addr, pinned] =
    family === "IPv4" ? ["198.18.5.5/32", "198.18.7.7/32"] : ["fd00:5::5/128", "fd00:7::7/128"];
  return {
    filter: {
      chains: ["DOCKER"],
      rules: [
        "-A FORWARD -j DOCKER",
        `-A DOCKER -d ${addr} ! -i docker0 -o docker0 -p tcp -m tcp --dport 80 -j ACCEPT`,
      ],
    },
    nat: {
      chains: ["DOCKER", PINNED],
      rules: [
        "-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER",
        "-A DOCKER -i docker0 -j RETURN",
        `-A DOCKER -d ${pinned} -j ${PINNED}`,
        `-A ${PINNED} -j ${kube ? "KUBE-MARK-MASQ" : "RETURN"}`,
      ],
    },
  };
}

/** The {@link STALE} chain, unused. */
export const STALE_CHAIN: Extra = { nat: { chains: [STALE], rules: [`-A ${STALE} -j KUBE-MARK-MASQ`] } };

/** Just the built-in chains of filter and nat, as iptables-save prints them when they are empty. */
export const EMPTY_TABLES =
  "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n" +
  "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n";

/** Adds chains and rules to save text: declarations after the table's last one, rules at its end. */
export function inject(save: string, extra: Extra): string {
  const out: string[] = [];
  let table = "";
  const lines = save.split("\n");
  lines.forEach((line, i) => {
    if (line.startsWith("*")) table = line.slice(1);
    if (line === "COMMIT") for (const r of extra[table]?.rules ?? []) out.push(r);
    out.push(line);
    if (line.startsWith(":") && !(lines[i + 1] ?? "").startsWith(":"))
      for (const c of extra[table]?.chains ?? []) out.push(`:${c} - [0:0]`);
  });
  return out.join("\n");
}
