// Hand-made node dumps in the style of real clusters (kubeadm + Docker + Flannel, k3s with
// Flannel and kube-router's network policies, kind, Calico, Weave, OpenShift SDN) for the tracer
// tests. kube-proxy's part is generated from one small cluster (one LoadBalancer Service, an
// endpoint on this node and one on another), printed as iptables-save prints it; each network
// plugin's chains are then added where that plugin puts them (its jumps first or last in the
// built-in chains). Names and comments imitate the plugins; nothing is copied from a real node.
import { formatSave } from "../src/format/save.js";
import { generateState } from "../src/iptables/output/rules.js";
import { modelFromInput } from "../src/kube/to-model.js";
import type { ClusterInput } from "../src/kube/types.js";

/** One node's dump and the facts a trace of it needs. */
export interface NodeDump {
  /** The style of node. */
  readonly name: string;
  /** The iptables-save text. */
  readonly save: string;
  /** The node's address. */
  readonly nodeIP: string;
  /** A pod on this node (the client) and the interface its packets arrive on. */
  readonly pod: { readonly ip: string; readonly inInterface: string };
  /** The Service's endpoint on this node and the one on another node. */
  readonly localEndpoint: string;
  readonly remoteEndpoint: string;
  /** The interfaces the routes to the two endpoints leave by (for `routes` / `--route`). */
  readonly routes: readonly { readonly destination: string; readonly interface: string }[];
}

/** The Service: default/web:http, cluster IP 10.96.100.10:80, node port 30080, LB 203.0.113.50. */
export const SERVICE = {
  clusterIP: "10.96.100.10",
  port: 80,
  nodePort: 30080,
  lb: "203.0.113.50",
  target: 8080,
};

function kubeProxySave(clusterCIDR: string, nodeIP: string, local: string, remote: string): string {
  const input = {
    config: {
      ipFamily: "IPv4",
      hostname: "node-a",
      nodeIPs: [nodeIP],
      detectLocal: { mode: "ClusterCIDR", cidrs: [clusterCIDR] },
      masqueradeBit: 14,
    },
    services: [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "web", namespace: "default" },
        spec: {
          type: "LoadBalancer",
          clusterIP: SERVICE.clusterIP,
          clusterIPs: [SERVICE.clusterIP],
          ports: [
            {
              name: "http",
              port: SERVICE.port,
              protocol: "TCP",
              targetPort: SERVICE.target,
              nodePort: SERVICE.nodePort,
            },
          ],
          selector: { app: "web" },
        },
        status: { loadBalancer: { ingress: [{ ip: SERVICE.lb }] } },
      },
    ],
    endpointSlices: [
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "web-x1", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
        addressType: "IPv4",
        endpoints: [
          { addresses: [local], conditions: { ready: true }, nodeName: "node-a" },
          { addresses: [remote], conditions: { ready: true }, nodeName: "node-b" },
        ],
        ports: [{ name: "http", port: SERVICE.target, protocol: "TCP" }],
      },
    ],
  };
  return formatSave(generateState(modelFromInput(input as unknown as ClusterInput)));
}

/** What a plugin adds to one table: chains, jumps first or last in built-in chains, its own rules. */
interface TableAdditions {
  readonly chains?: readonly string[];
  readonly first?: Readonly<Record<string, readonly string[]>>;
  readonly last?: Readonly<Record<string, readonly string[]>>;
  readonly rules?: readonly string[];
  readonly policies?: Readonly<Record<string, string>>;
}

const BUILTIN: Readonly<Record<string, readonly string[]>> = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
};

/** Splices a plugin's rules into a save text, table by table. */
function withPlugin(save: string, additions: Readonly<Record<string, TableAdditions>>): string {
  let text = save;
  for (const [table, add] of Object.entries(additions)) {
    if (!text.includes(`*${table}\n`)) {
      const decl = (BUILTIN[table] ?? []).map((c) => `:${c} ACCEPT [0:0]`);
      text = `*${table}\n${decl.join("\n")}\nCOMMIT\n${text}`;
    }
    const start = text.indexOf(`*${table}\n`);
    const end = text.indexOf("COMMIT\n", start);
    let lines = text
      .slice(start, end)
      .split("\n")
      .filter((l) => l !== "");
    for (const [chain, policy] of Object.entries(add.policies ?? {}))
      lines = lines.map((l) => (l.startsWith(`:${chain} `) ? `:${chain} ${policy} [0:0]` : l));
    const lastDecl = lines.reduce((at, l, i) => (l.startsWith(":") ? i : at), 0);
    lines.splice(lastDecl + 1, 0, ...(add.chains ?? []).map((c) => `:${c} - [0:0]`));
    for (const [chain, rules] of Object.entries(add.first ?? {})) {
      const at = lines.findIndex((l) => l.startsWith(`-A ${chain} `));
      const firstRule = lines.findIndex((l) => l.startsWith("-A "));
      lines.splice(at >= 0 ? at : firstRule >= 0 ? firstRule : lines.length, 0, ...rules);
    }
    for (const [chain, rules] of Object.entries(add.last ?? {})) {
      const at = lines.reduce((found, l, i) => (l.startsWith(`-A ${chain} `) ? i : found), -1);
      const firstRule = lines.findIndex((l) => l.startsWith("-A "));
      lines.splice(at >= 0 ? at + 1 : firstRule >= 0 ? firstRule : lines.length, 0, ...rules);
    }
    lines.push(...(add.rules ?? []));
    text = `${text.slice(0, start)}${lines.join("\n")}\n${text.slice(end)}`;
  }
  return `# Generated by iptables-save v1.8.9 (nf_tables) on Tue Nov 24 10:00:00 2026\n${text}`;
}

const FLANNEL_POSTRTG = (cidr: string, subnet: string): string[] => [
  `-A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment "flanneld masq" -j RETURN`,
  `-A FLANNEL-POSTRTG -s ${subnet} -d ${cidr} -m comment --comment "flanneld masq" -j RETURN`,
  `-A FLANNEL-POSTRTG -s ${cidr} -d ${subnet} -m comment --comment "flanneld masq" -j RETURN`,
  `-A FLANNEL-POSTRTG ! -s ${cidr} -d ${subnet} -m comment --comment "flanneld masq" -j RETURN`,
  `-A FLANNEL-POSTRTG -s ${cidr} ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE --random-fully`,
  `-A FLANNEL-POSTRTG ! -s ${cidr} -d ${cidr} -m comment --comment "flanneld masq" -j MASQUERADE --random-fully`,
];

const FLANNEL_FWD = (cidr: string): string[] => [
  `-A FLANNEL-FWD -s ${cidr} -m comment --comment "flanneld forward" -j ACCEPT`,
  `-A FLANNEL-FWD -d ${cidr} -m comment --comment "flanneld forward" -j ACCEPT`,
];

/** kubeadm with Docker as the container runtime and Flannel (pods on cni0, Docker's own bridge beside). */
function kubeadmDocker(): NodeDump {
  const cidr = "10.244.0.0/16";
  const base = kubeProxySave(cidr, "192.168.1.10", "10.244.1.21", "10.244.2.21");
  const save = withPlugin(base, {
    filter: {
      policies: { FORWARD: "DROP" },
      chains: [
        "DOCKER",
        "DOCKER-ISOLATION-STAGE-1",
        "DOCKER-ISOLATION-STAGE-2",
        "DOCKER-USER",
        "FLANNEL-FWD",
      ],
      last: {
        FORWARD: [
          "-A FORWARD -j DOCKER-USER",
          "-A FORWARD -j DOCKER-ISOLATION-STAGE-1",
          "-A FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
          "-A FORWARD -o docker0 -j DOCKER",
          "-A FORWARD -i docker0 ! -o docker0 -j ACCEPT",
          "-A FORWARD -i docker0 -o docker0 -j ACCEPT",
          `-A FORWARD -m comment --comment "flanneld forward" -j FLANNEL-FWD`,
        ],
      },
      rules: [
        "-A DOCKER -d 172.17.0.2/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport 5000 -j ACCEPT",
        "-A DOCKER-ISOLATION-STAGE-1 -i docker0 ! -o docker0 -j DOCKER-ISOLATION-STAGE-2",
        "-A DOCKER-ISOLATION-STAGE-1 -j RETURN",
        "-A DOCKER-ISOLATION-STAGE-2 -o docker0 -j DROP",
        "-A DOCKER-ISOLATION-STAGE-2 -j RETURN",
        "-A DOCKER-USER -j RETURN",
        ...FLANNEL_FWD(cidr),
      ],
    },
    nat: {
      chains: ["DOCKER", "FLANNEL-POSTRTG"],
      last: {
        PREROUTING: ["-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER"],
        OUTPUT: ["-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER"],
        POSTROUTING: [
          "-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE",
          `-A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG`,
        ],
      },
      rules: [
        "-A DOCKER -i docker0 -j RETURN",
        "-A DOCKER ! -i docker0 -p tcp -m tcp --dport 5000 -j DNAT --to-destination 172.17.0.2:5000",
        ...FLANNEL_POSTRTG(cidr, "10.244.1.0/24"),
      ],
    },
  });
  return {
    name: "kubeadm+docker+flannel",
    save,
    nodeIP: "192.168.1.10",
    pod: { ip: "10.244.1.5", inInterface: "cni0" },
    localEndpoint: "10.244.1.21",
    remoteEndpoint: "10.244.2.21",
    routes: [
      { destination: "10.244.1.0/24", interface: "cni0" },
      { destination: "10.244.0.0/16", interface: "flannel.1" },
    ],
  };
}

/** k3s: Flannel (cni0, flannel.1) and kube-router's network policy chains with ipsets. */
function k3s(): NodeDump {
  const cidr = "10.42.0.0/16";
  const base = kubeProxySave(cidr, "192.168.1.20", "10.42.0.21", "10.42.1.21");
  const podChain = "KUBE-POD-FW-4BSNA7LNAHBJSKG2";
  const policy = "KUBE-NWPLCY-CB7EJ6CVN6DGQVHA";
  const save = withPlugin(base, {
    filter: {
      chains: [
        "FLANNEL-FWD",
        "KUBE-ROUTER-FORWARD",
        "KUBE-ROUTER-INPUT",
        "KUBE-ROUTER-OUTPUT",
        podChain,
        policy,
      ],
      first: {
        INPUT: [`-A INPUT -m comment --comment "kube-router netpol - 4IA2OSFRMVNDXBVV" -j KUBE-ROUTER-INPUT`],
        FORWARD: [
          `-A FORWARD -m comment --comment "kube-router netpol - TEMCG2JMHZYE7H7T" -j KUBE-ROUTER-FORWARD`,
        ],
        OUTPUT: [
          `-A OUTPUT -m comment --comment "kube-router netpol - VEAAIY32XVBHCSCY" -j KUBE-ROUTER-OUTPUT`,
        ],
      },
      last: { FORWARD: [`-A FORWARD -m comment --comment "flanneld forward" -j FLANNEL-FWD`] },
      rules: [
        `-A KUBE-ROUTER-FORWARD -m comment --comment "rule to explicitly ACCEPT traffic that comply to network policies" -m mark --mark 0x20000/0x20000 -j ACCEPT`,
        `-A KUBE-ROUTER-FORWARD -d 10.42.0.21/32 -m comment --comment "rule to jump traffic destined to POD name:web-1 namespace: default to chain ${podChain}" -j ${podChain}`,
        `-A KUBE-ROUTER-FORWARD -d 10.42.0.21/32 -m physdev --physdev-is-bridged -m comment --comment "rule to jump traffic destined to POD name:web-1 namespace: default to chain ${podChain}" -j ${podChain}`,
        `-A KUBE-ROUTER-INPUT -d 10.43.0.0/16 -m comment --comment "allow traffic to primary/secondary cluster IP range" -j RETURN`,
        `-A KUBE-ROUTER-INPUT -p tcp -m comment --comment "allow LOCAL TCP traffic to node ports" -m addrtype --dst-type LOCAL -m multiport --dports 30000:32767 -j RETURN`,
        `-A KUBE-ROUTER-OUTPUT -m comment --comment "rule to explicitly ACCEPT traffic that comply to network policies" -m mark --mark 0x20000/0x20000 -j ACCEPT`,
        `-A ${podChain} -m comment --comment "rule for stateful firewall for pod" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
        `-A ${podChain} -d 10.42.0.21/32 -m comment --comment "rule to permit the traffic traffic to pods when source is the pod's local node" -m addrtype --src-type LOCAL -j ACCEPT`,
        `-A ${podChain} -m comment --comment "run through nw policy allow-web" -j ${policy}`,
        `-A ${podChain} -m comment --comment "rule to log dropped traffic POD name:web-1 namespace: default" -m mark ! --mark 0x10000/0x10000 -m limit --limit 10/min --limit-burst 10 -j NFLOG --nflog-group 100`,
        `-A ${podChain} -m comment --comment "rule to REJECT traffic destined for POD name:web-1 namespace: default" -m mark ! --mark 0x10000/0x10000 -j REJECT --reject-with icmp-port-unreachable`,
        `-A ${podChain} -j MARK --set-xmark 0x0/0x10000`,
        `-A ${podChain} -m comment --comment "set mark to ACCEPT traffic that comply to network policies" -j MARK --set-xmark 0x20000/0x20000`,
        `-A ${policy} -m set --match-set KUBE-SRC-3HVNBEXTFKIFXQ2Q src -m set --match-set KUBE-DST-AZDM3MGTAXAYBS3Q dst -m comment --comment "rule to ACCEPT traffic from source pods to dest pods selected by policy name allow-web namespace default" -j MARK --set-xmark 0x10000/0x10000`,
        `-A ${policy} -m mark --mark 0x10000/0x10000 -j RETURN`,
        ...FLANNEL_FWD(cidr),
      ],
    },
    nat: {
      chains: ["FLANNEL-POSTRTG"],
      first: { POSTROUTING: [`-A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG`] },
      rules: FLANNEL_POSTRTG(cidr, "10.42.0.0/24"),
    },
  });
  return {
    name: "k3s",
    save,
    nodeIP: "192.168.1.20",
    pod: { ip: "10.42.0.5", inInterface: "cni0" },
    localEndpoint: "10.42.0.21",
    remoteEndpoint: "10.42.1.21",
    routes: [
      { destination: "10.42.0.0/24", interface: "cni0" },
      { destination: "10.42.0.0/16", interface: "flannel.1" },
    ],
  };
}

/** kind: kindnet (a veth per pod, no bridge), its masquerade agent, Docker's embedded DNS rules. */
function kind(): NodeDump {
  const cidr = "10.244.0.0/16";
  const base = kubeProxySave(cidr, "172.18.0.2", "10.244.0.21", "10.244.1.21");
  const save = withPlugin(base, {
    nat: {
      chains: ["DOCKER_OUTPUT", "DOCKER_POSTROUTING", "KIND-MASQ-AGENT"],
      first: {
        PREROUTING: ["-A PREROUTING -d 172.18.0.1/32 -j DOCKER_OUTPUT"],
        OUTPUT: ["-A OUTPUT -d 172.18.0.1/32 -j DOCKER_OUTPUT"],
        POSTROUTING: ["-A POSTROUTING -d 172.18.0.1/32 -j DOCKER_POSTROUTING"],
      },
      last: {
        POSTROUTING: [
          `-A POSTROUTING -m addrtype ! --dst-type LOCAL -m comment --comment "kind-masq-agent: ensure nat POSTROUTING directs all non-LOCAL destination traffic to our custom KIND-MASQ-AGENT chain" -j KIND-MASQ-AGENT`,
        ],
      },
      rules: [
        "-A DOCKER_OUTPUT -d 172.18.0.1/32 -p tcp -m tcp --dport 53 -j DNAT --to-destination 127.0.0.11:41235",
        "-A DOCKER_OUTPUT -d 172.18.0.1/32 -p udp -m udp --dport 53 -j DNAT --to-destination 127.0.0.11:52811",
        "-A DOCKER_POSTROUTING -s 127.0.0.11/32 -p tcp -m tcp --sport 41235 -j SNAT --to-source 172.18.0.1:53",
        "-A DOCKER_POSTROUTING -s 127.0.0.11/32 -p udp -m udp --sport 52811 -j SNAT --to-source 172.18.0.1:53",
        `-A KIND-MASQ-AGENT -d ${cidr} -m comment --comment "kind-masq-agent: local traffic is not subject to MASQUERADE" -j RETURN`,
        `-A KIND-MASQ-AGENT -m comment --comment "kind-masq-agent: outbound traffic is subject to MASQUERADE (must be last in chain)" -j MASQUERADE`,
      ],
    },
  });
  return {
    name: "kind",
    save,
    nodeIP: "172.18.0.2",
    pod: { ip: "10.244.0.5", inInterface: "veth3c5a6b1e" },
    localEndpoint: "10.244.0.21",
    remoteEndpoint: "10.244.1.21",
    routes: [
      { destination: "10.244.0.21/32", interface: "vethb81f0a22" },
      { destination: "10.244.1.0/24", interface: "eth0" },
    ],
  };
}

/** Calico (iptables data plane): raw, mangle, filter and nat chains, workload interfaces cali*, ipsets. */
function calico(): NodeDump {
  const cidr = "10.244.0.0/16";
  const base = kubeProxySave(cidr, "192.168.1.30", "10.244.1.21", "10.244.2.21");
  const wlIn = "cali1a2b3c4d5e6";
  const wlOut = "cali9f8e7d6c5b4";
  const c = (id: string) => `-m comment --comment "cali:${id}"`;
  const save = withPlugin(base, {
    raw: {
      chains: [
        "cali-OUTPUT",
        "cali-PREROUTING",
        "cali-from-host-endpoint",
        "cali-rpf-skip",
        "cali-to-host-endpoint",
      ],
      first: {
        PREROUTING: [`-A PREROUTING ${c("6gwbT8clXdHdC1b1")} -j cali-PREROUTING`],
        OUTPUT: [`-A OUTPUT ${c("tVnHkvAo15HuiPy0")} -j cali-OUTPUT`],
      },
      rules: [
        `-A cali-OUTPUT ${c("njdnLwYeGqBJyh3K")} -j MARK --set-xmark 0x0/0xf0000`,
        `-A cali-OUTPUT ${c("rz86uTUcEZAfFsh7")} -j cali-to-host-endpoint`,
        `-A cali-OUTPUT ${c("pN0F5zD0b8yf9W1Z")} -m mark --mark 0x10000/0x10000 -j ACCEPT`,
        `-A cali-PREROUTING ${c("XFX5xbM8B9qR10JG")} -j MARK --set-xmark 0x0/0xf0000`,
        `-A cali-PREROUTING -i cali+ ${c("EWMPb0zVROM-woQp")} -j MARK --set-xmark 0x40000/0x40000`,
        `-A cali-PREROUTING ${c("PWuxTAIaFCtsg5Qa")} -m mark --mark 0x40000/0x40000 -j cali-rpf-skip`,
        `-A cali-PREROUTING ${c("fSSbGND7dgyemWU7")} -m mark --mark 0x40000/0x40000 -m rpfilter --validmark --invert -j DROP`,
        `-A cali-PREROUTING ${c("ImU0-4Rl2WoOI9Ou")} -m mark --mark 0x0/0x40000 -j cali-from-host-endpoint`,
        `-A cali-PREROUTING ${c("lV4V2MPoMBf0hl9T")} -m mark --mark 0x10000/0x10000 -j ACCEPT`,
      ],
    },
    mangle: {
      chains: ["cali-PREROUTING", "cali-from-host-endpoint"],
      first: { PREROUTING: [`-A PREROUTING ${c("6gwbT8clXdHdC1b1")} -j cali-PREROUTING`] },
      rules: [
        `-A cali-PREROUTING ${c("6BJqBjBC7crtA-7-")} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
        `-A cali-PREROUTING ${c("KX7AGNd6rMcDUai6")} -m mark --mark 0x10000/0x10000 -j ACCEPT`,
        `-A cali-PREROUTING ${c("wNH7KsA3ILKJBsY9")} -j cali-from-host-endpoint`,
        `-A cali-PREROUTING ${c("ihPWUCrUXdcjX1bD")} -m comment --comment "Host endpoint policy accepted packet." -m mark --mark 0x10000/0x10000 -j ACCEPT`,
      ],
    },
    filter: {
      chains: [
        "cali-FORWARD",
        "cali-cidr-block",
        "cali-from-hep-forward",
        "cali-from-wl-dispatch",
        `cali-fw-${wlIn}`,
        "cali-pi-_allow-web",
        "cali-pro-kns.default",
        "cali-to-hep-forward",
        "cali-to-wl-dispatch",
        `cali-tw-${wlOut}`,
      ],
      first: { FORWARD: [`-A FORWARD ${c("wUHhoiAYhphO9Mso")} -j cali-FORWARD`] },
      last: {
        FORWARD: [
          `-A FORWARD ${c("S93hcgKJrXEqnTfs")} -m comment --comment "Policy explicitly accepted packet." -m mark --mark 0x10000/0x10000 -j ACCEPT`,
          `-A FORWARD ${c("mp77cMpurHhyjLrM")} -j MARK --set-xmark 0x10000/0x10000`,
        ],
      },
      rules: [
        `-A cali-FORWARD ${c("vjrMJCRpqwy5oRoX")} -j MARK --set-xmark 0x0/0xe0000`,
        `-A cali-FORWARD ${c("A_sPAO0mcxbT9mOV")} -m mark --mark 0x0/0x10000 -j cali-from-hep-forward`,
        `-A cali-FORWARD -i cali+ ${c("8ZoYfO5HKXWbB3pk")} -j cali-from-wl-dispatch`,
        `-A cali-FORWARD -o cali+ ${c("jdEuaPBe14V2hutn")} -j cali-to-wl-dispatch`,
        `-A cali-FORWARD ${c("12bc6HljsMKsmfr-")} -j cali-to-hep-forward`,
        `-A cali-FORWARD ${c("NOSxoaGx8OIstr1z")} -j cali-cidr-block`,
        `-A cali-from-wl-dispatch -i ${wlIn} ${c("Ck2XEh5Pg3RZ2wMo")} -g cali-fw-${wlIn}`,
        `-A cali-from-wl-dispatch ${c("lGHeZbkcqRmlhR79")} -m comment --comment "Unknown interface" -j DROP`,
        `-A cali-fw-${wlIn} ${c("Ejv4JXLkPyglOYDf")} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
        `-A cali-fw-${wlIn} ${c("ytbbl2JvVJ1JhjWL")} -m conntrack --ctstate INVALID -j DROP`,
        `-A cali-fw-${wlIn} ${c("1Y5AXsDJ1QcLCPhM")} -j MARK --set-xmark 0x0/0x10000`,
        `-A cali-fw-${wlIn} -p udp ${c("LOqzgLY1alRcDvGQ")} -m comment --comment "Drop VXLAN encapped packets originating in workloads" -m multiport --dports 4789 -j DROP`,
        `-A cali-fw-${wlIn} ${c("cmKTVaKJR9Jb7YdW")} -j cali-pro-kns.default`,
        `-A cali-fw-${wlIn} ${c("Cy6gq4kP2mDy9q1T")} -m comment --comment "Return if profile accepted" -m mark --mark 0x10000/0x10000 -j RETURN`,
        `-A cali-fw-${wlIn} ${c("TVUnbQ5uyC7Fzhpt")} -m comment --comment "Drop if no profiles matched" -j DROP`,
        `-A cali-pro-kns.default ${c("7PSI8hFcbwhyKlHm")} -j MARK --set-xmark 0x10000/0x10000`,
        `-A cali-pro-kns.default ${c("pSUrNnEh6HxEa_Cb")} -m mark --mark 0x10000/0x10000 -j RETURN`,
        `-A cali-to-wl-dispatch -o ${wlOut} ${c("7lVmpEJ_ZsDJNY71")} -g cali-tw-${wlOut}`,
        `-A cali-to-wl-dispatch ${c("IV0Ta3XQfuJ6LCrK")} -m comment --comment "Unknown interface" -j DROP`,
        `-A cali-tw-${wlOut} ${c("0Bl9PQMtN48xFtHn")} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
        `-A cali-tw-${wlOut} ${c("T0QxvB9TRLj6WFkV")} -m conntrack --ctstate INVALID -j DROP`,
        `-A cali-tw-${wlOut} ${c("T2GfdkbgoHkbt5Ic")} -j MARK --set-xmark 0x0/0x10000`,
        `-A cali-tw-${wlOut} ${c("XwxYRG6AuTLplxIM")} -m comment --comment "Start of policies" -j MARK --set-xmark 0x0/0x20000`,
        `-A cali-tw-${wlOut} ${c("1pSXcJLw1RKvr7Jf")} -m mark --mark 0x0/0x20000 -j cali-pi-_allow-web`,
        `-A cali-tw-${wlOut} ${c("hEmKIPd0cICpP9CY")} -m comment --comment "Return if policy accepted" -m mark --mark 0x10000/0x10000 -j RETURN`,
        `-A cali-tw-${wlOut} ${c("R2AgGWHnVJ4Elk1W")} -m comment --comment "Drop if no policies passed packet" -m mark --mark 0x0/0x20000 -j DROP`,
        `-A cali-pi-_allow-web -p tcp ${c("wBwNNgUgKaVdPYG0")} -m comment --comment "Policy default/default.allow-web ingress" -m set --match-set cali40s:Y8hnMRvcoTWYHFmJuvl2xQA src -m multiport --dports 8080 -j MARK --set-xmark 0x10000/0x10000`,
        `-A cali-pi-_allow-web ${c("9XMAZpkP6ZgMiPmi")} -m mark --mark 0x10000/0x10000 -j RETURN`,
      ],
    },
    nat: {
      chains: [
        "cali-OUTPUT",
        "cali-POSTROUTING",
        "cali-PREROUTING",
        "cali-fip-dnat",
        "cali-fip-snat",
        "cali-nat-outgoing",
      ],
      first: {
        PREROUTING: [`-A PREROUTING ${c("6gwbT8clXdHdC1b1")} -j cali-PREROUTING`],
        OUTPUT: [`-A OUTPUT ${c("tVnHkvAo15HuiPy0")} -j cali-OUTPUT`],
        POSTROUTING: [`-A POSTROUTING ${c("O3lYWMrLQYEMJtB5")} -j cali-POSTROUTING`],
      },
      rules: [
        `-A cali-OUTPUT ${c("GBTAv2p5CwevEyJm")} -j cali-fip-dnat`,
        `-A cali-POSTROUTING ${c("Z-c7XtVd2Bq7s_hA")} -j cali-fip-snat`,
        `-A cali-POSTROUTING ${c("nYKhEzDlr11Jccal")} -j cali-nat-outgoing`,
        `-A cali-POSTROUTING -o vxlan.calico ${c("e9dnSgSVNmIcpVhP")} -m addrtype ! --src-type LOCAL --limit-iface-out -m addrtype --src-type LOCAL -j MASQUERADE --random-fully`,
        `-A cali-PREROUTING ${c("r6XmIziWUJsdOK6Z")} -j cali-fip-dnat`,
        `-A cali-nat-outgoing ${c("flqWnvo8yq4ULQLa")} -m set --match-set cali40masq-ipam-pools src -m set ! --match-set cali40all-ipam-pools dst -j MASQUERADE --random-fully`,
      ],
    },
  });
  return {
    name: "calico",
    save,
    nodeIP: "192.168.1.30",
    pod: { ip: "10.244.1.5", inInterface: wlIn },
    localEndpoint: "10.244.1.21",
    remoteEndpoint: "10.244.2.21",
    routes: [
      { destination: "10.244.1.5/32", interface: wlIn },
      { destination: "10.244.1.21/32", interface: wlOut },
      { destination: "10.244.0.0/16", interface: "vxlan.calico" },
    ],
  };
}

/** Weave Net: the weave bridge, its network policy controller's chains and ipsets, its NAT chain. */
function weave(): NodeDump {
  const cidr = "10.32.0.0/12";
  const base = kubeProxySave(cidr, "192.168.1.40", "10.32.0.21", "10.40.0.21");
  const note = `-m comment --comment "NOTE: this must go before '-j KUBE-FORWARD'"`;
  const ingressSet = "weave-4vtqMI+kx/2]jD%_c0S%thO%V";
  const egressSet = "weave-s_+ChJId4Uy_$}G;WdH|~TK)I";
  const save = withPlugin(base, {
    filter: {
      policies: { FORWARD: "DROP" },
      chains: [
        "WEAVE-NPC",
        "WEAVE-NPC-DEFAULT",
        "WEAVE-NPC-EGRESS",
        "WEAVE-NPC-EGRESS-ACCEPT",
        "WEAVE-NPC-EGRESS-CUSTOM",
        "WEAVE-NPC-EGRESS-DEFAULT",
        "WEAVE-NPC-INGRESS",
      ],
      first: {
        FORWARD: [
          `-A FORWARD -i weave ${note} -j WEAVE-NPC-EGRESS`,
          `-A FORWARD -o weave ${note} -j WEAVE-NPC`,
          "-A FORWARD -o weave -m state --state NEW -j NFLOG --nflog-group 86",
          "-A FORWARD -o weave -j DROP",
          "-A FORWARD -i weave ! -o weave -j ACCEPT",
          "-A FORWARD -o weave -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
        ],
      },
      rules: [
        "-A WEAVE-NPC -m state --state RELATED,ESTABLISHED -j ACCEPT",
        "-A WEAVE-NPC -d 224.0.0.0/4 -j ACCEPT",
        "-A WEAVE-NPC -m physdev --physdev-out vethwe-bridge --physdev-is-bridged -j ACCEPT",
        "-A WEAVE-NPC -m state --state NEW -j WEAVE-NPC-DEFAULT",
        "-A WEAVE-NPC -m state --state NEW -j WEAVE-NPC-INGRESS",
        `-A WEAVE-NPC-DEFAULT -m set --match-set ${ingressSet} dst -m comment --comment "DefaultAllow ingress isolation for namespace: default" -j ACCEPT`,
        "-A WEAVE-NPC-EGRESS -m state --state RELATED,ESTABLISHED -j ACCEPT",
        "-A WEAVE-NPC-EGRESS -m physdev --physdev-in vethwe-bridge --physdev-is-bridged -j RETURN",
        "-A WEAVE-NPC-EGRESS -m addrtype --dst-type LOCAL -j RETURN",
        "-A WEAVE-NPC-EGRESS -d 224.0.0.0/4 -j RETURN",
        "-A WEAVE-NPC-EGRESS -m state --state NEW -j WEAVE-NPC-EGRESS-DEFAULT",
        "-A WEAVE-NPC-EGRESS -m state --state NEW -m mark ! --mark 0x40000/0x40000 -j WEAVE-NPC-EGRESS-CUSTOM",
        "-A WEAVE-NPC-EGRESS -m state --state NEW -m mark ! --mark 0x40000/0x40000 -j NFLOG --nflog-group 86",
        "-A WEAVE-NPC-EGRESS -m mark ! --mark 0x40000/0x40000 -j DROP",
        "-A WEAVE-NPC-EGRESS-ACCEPT -j MARK --set-xmark 0x40000/0x40000",
        `-A WEAVE-NPC-EGRESS-DEFAULT -m set --match-set ${egressSet} src -m comment --comment "DefaultAllow egress isolation for namespace: default" -j WEAVE-NPC-EGRESS-ACCEPT`,
        `-A WEAVE-NPC-EGRESS-DEFAULT -m set --match-set ${egressSet} src -m comment --comment "DefaultAllow egress isolation for namespace: default" -j RETURN`,
      ],
    },
    nat: {
      chains: ["WEAVE"],
      first: { POSTROUTING: ["-A POSTROUTING -j WEAVE"] },
      rules: [
        "-A WEAVE -m physdev --physdev-out vethwe-bridge --physdev-is-bridged -j RETURN",
        `-A WEAVE -s ${cidr} -d 224.0.0.0/4 -j RETURN`,
        `-A WEAVE ! -s ${cidr} -d ${cidr} -j MASQUERADE`,
        `-A WEAVE -s ${cidr} ! -d ${cidr} -j MASQUERADE`,
      ],
    },
  });
  return {
    name: "weave",
    save,
    nodeIP: "192.168.1.40",
    pod: { ip: "10.32.0.5", inInterface: "weave" },
    localEndpoint: "10.32.0.21",
    remoteEndpoint: "10.40.0.21",
    routes: [{ destination: cidr, interface: "weave" }],
  };
}

/** OpenShift SDN: tun0, its firewall and masquerade chains. */
function openshift(): NodeDump {
  const cidr = "10.128.0.0/14";
  const base = kubeProxySave(cidr, "192.168.1.50", "10.128.0.21", "10.129.0.21");
  const save = withPlugin(base, {
    filter: {
      chains: ["OPENSHIFT-ADMIN-OUTPUT-RULES", "OPENSHIFT-FIREWALL-ALLOW", "OPENSHIFT-FIREWALL-FORWARD"],
      first: {
        INPUT: [`-A INPUT -m comment --comment "firewall overrides" -j OPENSHIFT-FIREWALL-ALLOW`],
        FORWARD: [
          `-A FORWARD -i tun0 ! -o tun0 -m comment --comment "administrator overrides" -j OPENSHIFT-ADMIN-OUTPUT-RULES`,
          `-A FORWARD -m comment --comment "firewall overrides" -j OPENSHIFT-FIREWALL-FORWARD`,
        ],
      },
      rules: [
        `-A OPENSHIFT-FIREWALL-ALLOW -p udp -m udp --dport 4789 -m comment --comment "VXLAN incoming" -j ACCEPT`,
        `-A OPENSHIFT-FIREWALL-ALLOW -i tun0 -m comment --comment "from SDN to localhost" -j ACCEPT`,
        `-A OPENSHIFT-FIREWALL-ALLOW -i docker0 -m comment --comment "from docker to localhost" -j ACCEPT`,
        `-A OPENSHIFT-FIREWALL-FORWARD -s ${cidr} -m comment --comment "attempted resend after connection close" -m conntrack --ctstate INVALID -j DROP`,
        `-A OPENSHIFT-FIREWALL-FORWARD -d ${cidr} -m comment --comment "forward traffic from SDN" -j ACCEPT`,
        `-A OPENSHIFT-FIREWALL-FORWARD -s ${cidr} -m comment --comment "forward traffic to SDN" -j ACCEPT`,
      ],
    },
    nat: {
      chains: ["OPENSHIFT-MASQUERADE", "OPENSHIFT-MASQUERADE-2"],
      first: {
        POSTROUTING: [
          `-A POSTROUTING -m comment --comment "rules for masquerading OpenShift traffic" -j OPENSHIFT-MASQUERADE`,
        ],
      },
      rules: [
        `-A OPENSHIFT-MASQUERADE -s ${cidr} -m comment --comment "masquerade pod-to-external traffic" -j OPENSHIFT-MASQUERADE-2`,
        `-A OPENSHIFT-MASQUERADE-2 -d ${cidr} -m comment --comment "masquerade pod-to-external traffic" -j RETURN`,
        `-A OPENSHIFT-MASQUERADE-2 -j MASQUERADE`,
      ],
    },
  });
  return {
    name: "openshift-sdn",
    save,
    nodeIP: "192.168.1.50",
    pod: { ip: "10.128.0.5", inInterface: "tun0" },
    localEndpoint: "10.128.0.21",
    remoteEndpoint: "10.129.0.21",
    routes: [{ destination: cidr, interface: "tun0" }],
  };
}

/** Every node dump, by name. */
export const NODE_DUMPS: readonly NodeDump[] = [
  kubeadmDocker(),
  k3s(),
  kind(),
  calico(),
  weave(),
  openshift(),
];
