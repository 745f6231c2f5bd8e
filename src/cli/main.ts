/**
 * The `kube-iptables` command. Exit codes: 0 success, 1 usage error, 2 bad input.
 *
 * @module
 */
import { DEFAULT_PROFILE, PROFILE_NAMES } from "../model/profiles.js";
import { runDiff } from "./diff.js";
import { runGenerate } from "./generate.js";
import { writeErr, writeOut } from "./io.js";
import { runTrace } from "./trace.js";
import { EXIT_USAGE, UsageError } from "./usage.js";

const HELP = `kube-iptables — the iptables rules kube-proxy (iptables mode) installs on a node

Usage:
  kube-iptables generate FILE|DIR|- [...] [--format save|restore|json] [node options]
  kube-iptables diff OLD NEW [--format summary|restore] [--all-chains] [node options]
  kube-iptables trace FILE|DIR [...] --src IP[:PORT] --dst IP:PORT --proto tcp|udp|sctp
                [--from pod|node|external] [--in-interface IF] [--node-ip IP ...] [--format text|json] [--brief]
                [--out-interface IF] [--route CIDR=IF ...]
  kube-iptables --help | --version

FILE is a cluster file ({config, services, endpointSlices}, JSON or YAML) or Kubernetes objects
as 'kubectl get svc,endpointslices -A -o json' (or -o yaml) prints them: Lists, ServiceLists,
EndpointSliceLists or single objects, also several in a row (YAML documents, or JSON documents
one after another). UTF-8, or UTF-16 with a byte order mark. '-' reads stdin. generate also
takes several FILEs (say, a cluster file with the config and the kubectl output), read as one:
their objects one after another, at most one config, problems named 'FILE: path: message'; a
directory stands for its .json, .yaml and .yml files, as with 'kubectl apply -f DIR'; a
side of diff may be such a directory too.

generate options:
  --format save|restore|json   save: what iptables-save prints once the rules are loaded into an
                               empty kernel (default); restore: what kube-proxy hands to
                               iptables-restore; json: the rule set as data
  --family IPv4|IPv6|both      the proxier's family (default: config.ipFamily, else IPv4); both
                               prints the IPv4 text, then the IPv6 text, each after a '#' line
  --profile ${PROFILE_NAMES.join("|")}
                               the kube-proxy release whose layout to print (default ${DEFAULT_PROFILE})
  --strict                     fail on any invalid Service or EndpointSlice (exit 2, no output)
                               instead of leaving it out with a message on stderr
  --current DUMP               the node's 'iptables-save' (or 'ip6tables-save') output: its
                               per-service nat chains that no Service uses any more are
                               declared and deleted (-X), as kube-proxy's full sync does; one
                               family only

node options (override the cluster file's config; defaults in brackets):
  --hostname NAME              kube-proxy's node name; endpoints on it are local [""]
  --node-ip IP                 a node address, primary first; repeatable []
  --cluster-cidr CIDR          detect local traffic by source CIDR (ClusterCIDR mode); repeatable
  --node-cidr CIDR             detect local traffic by the node's pod CIDR (NodeCIDR mode)
  --bridge-interface NAME      detect local traffic by input bridge (BridgeInterface mode)
  --interface-name-prefix P    detect local traffic by input interface prefix
  --no-detect-local            no local traffic detection [the default without a config]
  --masquerade-bit N           mark bit for masquerading, 0-31 [14]
  --masquerade-all             masquerade all traffic to cluster IPs [off]
  --nodeport-addresses LIST    comma-separated CIDRs, or 'primary' [every local address];
                               from v1.37 also 'localhost' and 'all', mixed with CIDRs
  --no-localhost-nodeports     node ports do not answer on 127.0.0.0/8 [they do]
  --zone ZONE                  the node's topology.kubernetes.io/zone label
  --random-fully               the iptables binary supports --random-fully [off]
  --conntrack-tcp-be-liberal   nf_conntrack_tcp_be_liberal is set [off]
  --no-external-ips            the AllowServiceExternalIPs gate is off (v1.36+): no rules for
                               Services' externalIPs [on]

diff: OLD and NEW are each a cluster file or a rules text (iptables-restore input or an
iptables-save dump, detected). summary (default) lists what changed per Service; restore prints
the delta that turns OLD's kernel state into NEW's with 'iptables-restore --noflush'. With a
node's dump (or any rules text) on either side, only kube-proxy's chains are compared
(--all-chains compares every chain): against a cluster file, what kube-proxy would change on that
node; between two dumps, what it changed (a note names the other chains that differ).

trace: every outcome of one packet (DNAT destination, masquerade, accept/reject/drop) with its
exact probability from the kernel's fixed-point statistic values, and the rules it passed. FILE
is a cluster file or a rules text (an iptables-save dump of a node); several files or a
directory are read as one cluster, as generate reads them.
  --from pod|node|external     where the packet comes from [pod]: the nat PREROUTING or OUTPUT
                               entry, and the default input interface
  --in-interface IF            the packet's input interface, for -i matches [cbr0 from a pod,
                               eth0 from outside, none from the node]
  --out-interface IF           the interface routes leave by, for -o matches [unknown: each
                               outcome that depends on it names the condition, both ways]
  --route CIDR=IF              the route to CIDR leaves by IF (repeat; longest prefix wins)
  --node-ip IP                 the node's addresses; an outcome that depends on whether an
                               address is the node's, none being given, exits 2 with a note
  --brief                      outcomes only, without the rules each path passed

Exit status: 0 success, 1 usage error, 2 invalid input (messages on stderr as 'path: message').
`;

/**
 * Runs the CLI with the given arguments and returns the exit code.
 *
 * @example
 * process.exitCode = await main(["generate", "cluster.yaml", "--format", "restore"]);
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "--help":
      case "-h":
      case "help":
        writeOut(HELP);
        return command === undefined ? EXIT_USAGE : 0;
      case "--version":
        writeOut("kube-iptables 0.1.0\n");
        return 0;
      case "generate":
        return await runGenerate(rest);
      case "diff":
        return await runDiff(rest);
      case "trace":
        return await runTrace(rest);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      writeErr(`kube-iptables: ${e.message}`);
      writeErr("Try 'kube-iptables --help'.");
      return EXIT_USAGE;
    }
    throw e;
  }
}
