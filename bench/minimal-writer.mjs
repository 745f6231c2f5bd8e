// The yardstick of issue 21: the shortest honest loop that writes the restore text kube-proxy
// writes for the bench's ClusterIP models (test/fixtures/bench/bench-clusterip-*.json.gz), byte
// for byte what `generateRestoreText` writes for them. It uses the mandated js-sha256 and
// base32-encode for the chain names and nothing else: no code of ours, no validation, no
// general case. The bench (`minimal-writer` case, and the `restore vs yardstick` alternation of
// run.mjs) times it cold beside the library; test/bench-minimal-writer.test.ts keeps it equal to
// the library on small models so that it cannot drift.
//
// What it assumes of the model (checked up front by `minimalWriterRefusal`; a model that breaks
// one is refused, never written differently):
// - the config the bench models carry: IPv4, profile v1.30, detect-local ClusterCIDR with one
//   CIDR, masqueradeAll off, no --random-fully, no conntrack tcp-be-liberal, localhost node
//   ports on, no nodePortAddresses (so the filter/nat head and tail are fixed text but for the
//   masquerade mark and the CIDR);
// - every service port is ClusterIP only: protocol tcp, no node port, external IPs, load
//   balancer or health check, no session affinity, both traffic policies Cluster, no
//   trafficDistribution;
// - every port has 1 to 2047 endpoints, all ready (so serving, not terminating), IPv4, without
//   topology hints, sorted by `ip:port` with no duplicate (the model keeps them so);
// - more than 1,000 endpoints in all: kube-proxy's large-cluster mode, where no endpoint's rule
//   carries a comment;
// - names are printable ASCII (what the API server lets through for these fields).
// From these, each port is one KUBE-SERVICES jump, a KUBE-SVC chain (masquerade rule, then one
// statistic jump per endpoint), and a KUBE-SEP chain per endpoint; ports are written in
// `ns/name:port` byte order, as kube-proxy's sorted walk does.
import base32Encode from "base32-encode";
import { sha256 } from "js-sha256/build/sha256.min.mjs";

const head = new Uint8Array(10);
const NO_PADDING = { padding: false };

/** kube-proxy's chain hash: base32 (RFC 4648, no padding) of the first 10 bytes of SHA-256. */
export function hash(text) {
  const digest = sha256.array(text);
  for (let i = 0; i < 10; i++) head[i] = digest[i];
  return base32Encode(head, "RFC4648", NO_PADDING);
}

const PRINTABLE = /^[\x20-\x21\x23-\x7e]*$/; // printable ASCII but the double quote
const IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Why the minimal writer cannot write this model (the first assumption it breaks, with where),
 * or `null` when it can.
 */
export function minimalWriterRefusal(model) {
  const c = model.config;
  if (c.ipFamily !== "IPv4") return `config.ipFamily is ${c.ipFamily}, not IPv4`;
  if (c.profile !== "v1.30") return `config.profile is ${c.profile}, not v1.30`;
  if (c.detectLocal.mode !== "ClusterCIDR" || c.detectLocal.cidrs.length !== 1)
    return "config.detectLocal is not ClusterCIDR with one CIDR";
  if (c.masqueradeAll) return "config.masqueradeAll is on";
  if (c.hasRandomFully) return "config.hasRandomFully is on";
  if (c.conntrackTCPBeLiberal) return "config.conntrackTCPBeLiberal is on";
  if (!c.localhostNodePorts) return "config.localhostNodePorts is off";
  if (c.nodePortAddresses.length !== 0) return "config.nodePortAddresses is not empty";
  if (!Number.isInteger(c.masqueradeBit) || c.masqueradeBit < 0 || c.masqueradeBit > 31)
    return "config.masqueradeBit is not a bit number";
  const ports = model.servicePorts;
  let total = 0;
  for (let i = 0; i < ports.length; i++) total += ports[i].endpoints.length;
  if (total <= 1000) return `${total} endpoints in all: not kube-proxy's large-cluster mode (over 1,000)`;
  for (let i = 0; i < ports.length; i++) {
    const p = ports[i];
    const at = `servicePorts[${i}]`;
    if (p.protocol !== "tcp") return `${at}: protocol ${p.protocol}, not tcp`;
    if (p.nodePort !== 0 || p.externalIPs.length !== 0 || p.loadBalancerVIPs.length !== 0)
      return `${at}: not ClusterIP only`;
    if (p.loadBalancerSourceRanges.length !== 0 || p.healthCheckNodePort !== 0)
      return `${at}: load balancer settings`;
    if (p.stickyMaxAgeSeconds !== 0) return `${at}: session affinity`;
    if (p.externalPolicyLocal || p.internalPolicyLocal) return `${at}: a Local traffic policy`;
    if (p.trafficDistribution !== "") return `${at}: trafficDistribution`;
    if (!IPV4.test(p.clusterIP)) return `${at}: cluster IP ${p.clusterIP} is not IPv4`;
    if (!PRINTABLE.test(p.namespace) || !PRINTABLE.test(p.name) || !PRINTABLE.test(p.portName))
      return `${at}: a name that is not printable ASCII`;
    const eps = p.endpoints;
    if (eps.length === 0 || eps.length >= 2048) return `${at}: ${eps.length} endpoints (1 to 2047 only)`;
    for (let j = 0; j < eps.length; j++) {
      const e = eps[j];
      if (!e.ready || !e.serving || e.terminating) return `${at}.endpoints[${j}]: not ready`;
      if (e.zoneHints.length !== 0 || e.nodeHints.length !== 0)
        return `${at}.endpoints[${j}]: topology hints`;
      if (!IPV4.test(e.ip) || e.endpoint !== `${e.ip}:${e.port}`) return `${at}.endpoints[${j}]: not IPv4`;
      if (j > 0 && !(eps[j - 1].endpoint < e.endpoint)) return `${at}.endpoints[${j}]: out of order`;
    }
  }
  return null;
}

/** The restore text of a model the writer accepts; throws, saying why, for any other model. */
export function minimalRestoreText(model) {
  const refusal = minimalWriterRefusal(model);
  if (refusal !== null) throw new Error(`minimal writer: ${refusal}`);
  return writeMinimalRestoreText(model);
}

// Go's %0.10f of 1/k, once per k: toFixed agrees with it for every k below 2048 (the first tie).
const probabilities = [];
/** kube-proxy's `--probability` text for the statistic rule of an endpoint with `k` left. */
export function probability(k) {
  let text = probabilities[k];
  if (text === undefined) {
    text = (1 / k).toFixed(10);
    probabilities[k] = text;
  }
  return text;
}

/**
 * The timed loop: the restore text of a model that `minimalWriterRefusal` accepts, unchecked
 * (the bench checks once, untimed; `minimalRestoreText` checks every time).
 */
export function writeMinimalRestoreText(model) {
  const notLocal = `! -s ${model.config.detectLocal.cidrs[0]}`;
  const keyed = sortedPorts(model);

  // One flat string per port and section, joined at the end: `+=` alone would leave trees of
  // small strings for the final join to walk (twice the time, measured).
  const declarations = new Array(keyed.length);
  const rules = new Array(keyed.length);
  for (let i = 0; i < keyed.length; i++) {
    const { name, p } = keyed[i];
    const svc = `KUBE-SVC-${hash(`${name}tcp`)}`;
    const match = `-m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${p.clusterIP} --dport ${p.port}`;
    const eps = p.endpoints;
    const n = eps.length;
    const decl = [`:${svc} - [0:0]\n`];
    const svcRules = [
      `-A KUBE-SERVICES ${match} -j ${svc}\n`,
      `-A ${svc} ${match} ${notLocal} -j KUBE-MARK-MASQ\n`,
    ];
    const sepRules = [];
    for (let j = 0; j < n; j++) {
      const e = eps[j];
      const sep = `KUBE-SEP-${hash(`${name}tcp${e.endpoint}`)}`;
      decl.push(`:${sep} - [0:0]\n`);
      svcRules.push(
        j < n - 1
          ? `-A ${svc} -m statistic --mode random --probability ${probability(n - j)} -j ${sep}\n`
          : `-A ${svc} -j ${sep}\n`,
      );
      sepRules.push(
        `-A ${sep} -s ${e.ip} -j KUBE-MARK-MASQ\n-A ${sep} -m tcp -p tcp -j DNAT --to-destination ${e.endpoint}\n`,
      );
    }
    declarations[i] = decl.join("");
    rules[i] = svcRules.join("") + sepRules.join("");
  }
  return payload(model, declarations, rules);
}

/** The ports with their `ns/name:port` names, in kube-proxy's order (those names as bytes; always tcp here). */
export function sortedPorts(model) {
  const keyed = model.servicePorts.map((p) => ({
    name: p.portName === "" ? `${p.namespace}/${p.name}` : `${p.namespace}/${p.name}:${p.portName}`,
    p,
  }));
  keyed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return keyed;
}

/** The whole payload: the fixed head and tail around the ports' declarations and rules (one string per port each). */
export function payload(model, declarations, rules) {
  const mark = `0x${(2 ** model.config.masqueradeBit).toString(16).padStart(8, "0")}`;
  return (
    "*filter\n" +
    ":KUBE-SERVICES - [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n:KUBE-FORWARD - [0:0]\n" +
    ":KUBE-NODEPORTS - [0:0]\n:KUBE-PROXY-FIREWALL - [0:0]\n:KUBE-FIREWALL - [0:0]\n" +
    '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n' +
    "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n" +
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT\n` +
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n' +
    "COMMIT\n*nat\n" +
    ":KUBE-SERVICES - [0:0]\n:KUBE-NODEPORTS - [0:0]\n:KUBE-POSTROUTING - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n" +
    declarations.join("") +
    `-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN\n` +
    `-A KUBE-POSTROUTING -j MARK --xor-mark ${mark}\n` +
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE\n' +
    `-A KUBE-MARK-MASQ -j MARK --or-mark ${mark}\n` +
    rules.join("") +
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n' +
    "COMMIT\n"
  );
}

/**
 * The writer's model read straight from a cluster file's Kubernetes objects, with nothing checked:
 * what the CLI's lower bound (the `minimal` kind of bench/cli-floor.mjs) writes from. It reads only
 * what the bench's ClusterIP models use (each Service's cluster IP and TCP ports, each slice's
 * ready endpoints' first address and its ports by name, the masquerade bit and the one cluster
 * CIDR); bench/cli-floor.mjs compares its bytes with the CLI's on every round.
 */
export function minimalModelOf(input) {
  const endpointsOf = new Map();
  for (const slice of input.endpointSlices) {
    const key = `${slice.metadata.namespace}/${slice.metadata.labels["kubernetes.io/service-name"]}`;
    let list = endpointsOf.get(key);
    if (list === undefined) {
      list = [];
      endpointsOf.set(key, list);
    }
    for (const port of slice.ports)
      for (const e of slice.endpoints) {
        if (e.conditions?.ready === false) continue;
        const ip = e.addresses[0];
        // Kept endpoints are ready, so serving and not terminating: what the required writer's
        // plan (bench/required-writer.mjs) reads.
        list.push({
          portName: port.name ?? "",
          ip,
          endpoint: `${ip}:${port.port}`,
          ready: true,
          serving: true,
          terminating: false,
          isLocal: e.nodeName === input.config.hostname,
        });
      }
  }
  const servicePorts = [];
  for (const svc of input.services) {
    const all = endpointsOf.get(`${svc.metadata.namespace}/${svc.metadata.name}`) ?? [];
    for (const port of svc.spec.ports) {
      const portName = port.name ?? "";
      const endpoints = all.filter((e) => e.portName === portName);
      endpoints.sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
      servicePorts.push({
        namespace: svc.metadata.namespace,
        name: svc.metadata.name,
        portName,
        clusterIP: svc.spec.clusterIP,
        port: port.port,
        endpoints,
      });
    }
  }
  const { masqueradeBit = 14, detectLocal } = input.config;
  return { config: { masqueradeBit, detectLocal }, servicePorts };
}
