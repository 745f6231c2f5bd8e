// The save-text twin of the yardstick (bench/minimal-writer.mjs): the shortest honest loop that
// writes what `generateSaveText` writes (the kernel's iptables-save form) for the bench's
// ClusterIP models, with js-sha256 and base32-encode and nothing of ours. It takes the minimal
// writer's assumptions (checked by `minimalWriterRefusal`) and its hash, probability text and
// port order; test/package/bench-minimal-writer.test.ts keeps it byte-identical to the library.
// It is the yardstick under the CLI's save target: bench/cli-floor.mjs runs it as the "minimal
// save" kind (read, JSON.parse, this writer, write), beside the CLI's `generate`.
//
// The save form of these models: every table's chains declared in name order (built-in chains
// first), then each chain's rules, chain by chain in that order; kube-proxy's KUBE-SERVICES jumps
// keep their order, and its nodeports rule stays last.
import { hash, probability, sortedPorts } from "./minimal-writer.mjs";

// iptables-save's `--probability`: the kernel keeps round(p × 2^31) (half away from zero) and
// prints it back over 2^31 with 11 decimals, rounding the exact value half to even.
const TWO_31 = 2147483648;
const savedProbabilities = [];
export function savedProbability(k) {
  let text = savedProbabilities[k];
  if (text === undefined) {
    const x = Number(probability(k)) * TWO_31;
    let stored = Math.floor(x);
    if (x - stored >= 0.5) stored += 1;
    const scaled = BigInt(stored) * 100_000_000_000n;
    const d = BigInt(TWO_31);
    let q = scaled / d;
    const twice = (scaled % d) * 2n;
    if (twice > d || (twice === d && (q & 1n) === 1n)) q += 1n;
    const digits = q.toString().padStart(12, "0");
    text = `${digits.slice(0, -11)}.${digits.slice(-11)}`;
    savedProbabilities[k] = text;
  }
  return text;
}

// Chain-name order without comparing strings (a sort of 110,000 names by string comparison costs
// more than all the writing): the hash's first 6 characters as a number, each ranked in the ASCII
// order of the base32 alphabet ('2'–'7' sort before 'A'–'Z'), times 2^23, plus the index; one
// numeric sort of those keys, then the rare runs whose first 6 characters agree are ordered by
// the whole name.
const INDEX_SPAN = 2 ** 23;
const rank = (c) => (c < 65 ? c - 50 : c - 59);

/** The indices of `names` (chain names whose hash starts at `at`) in name order. */
export function nameOrder(names, at) {
  const keys = new Float64Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    let key = 0;
    for (let c = 0; c < 6; c++) key = key * 32 + rank(name.charCodeAt(at + c));
    keys[i] = key * INDEX_SPAN + i;
  }
  keys.sort();
  const order = new Array(names.length);
  for (let i = 0; i < keys.length; i++) order[i] = keys[i] % INDEX_SPAN;
  for (let i = 0; i < keys.length; ) {
    const prefix = Math.floor(keys[i] / INDEX_SPAN);
    let j = i + 1;
    while (j < keys.length && Math.floor(keys[j] / INDEX_SPAN) === prefix) j++;
    if (j - i > 1) {
      const run = order.slice(i, j).sort((a, b) => (names[a] < names[b] ? -1 : 1));
      for (let k = 0; k < run.length; k++) order[i + k] = run[k];
    }
    i = j;
  }
  return order;
}

/**
 * The chains' declarations and rules in name order; `rulesOf(i)` prints chain i's rules. They are
 * printed here, in order, and joined a few hundred at a time: text printed earlier and joined
 * after the sort would be walked again scattered over the heap (a third of the time, measured).
 */
function inNameOrder(names, rulesOf) {
  const order = nameOrder(names, "KUBE-SEP-".length);
  const declarations = [];
  const rules = [];
  const chunk = [];
  const flush = () => {
    rules.push(chunk.join(""));
    chunk.length = 0;
  };
  for (let i = 0; i < order.length; i++) {
    const k = order[i];
    declarations.push(`:${names[k]} - [0:0]\n`);
    chunk.push(rulesOf(k));
    if (chunk.length === 256) flush();
  }
  flush();
  return { declarations: declarations.join(""), rules: rules.join("") };
}

/** The save text of a model that `minimalWriterRefusal` accepts, unchecked. */
export function writeMinimalSaveText(model) {
  const mark = `0x${(2 ** model.config.masqueradeBit).toString(16)}`;
  const notLocal = `! -s ${model.config.detectLocal.cidrs[0]}`;
  const keyed = sortedPorts(model);
  // Every KUBE-SEP and KUBE-SVC chain's name, and its rules as one string.
  const sepNames = [];
  const sepEndpoints = [];
  const svcNames = new Array(keyed.length);
  const svcRules = new Array(keyed.length);
  const jumps = new Array(keyed.length);
  for (let i = 0; i < keyed.length; i++) {
    const { name, p } = keyed[i];
    const svc = `KUBE-SVC-${hash(`${name}tcp`)}`;
    const dest = `-d ${p.clusterIP}/32 -p tcp -m comment --comment "${name} cluster IP" -m tcp --dport ${p.port}`;
    jumps[i] = `-A KUBE-SERVICES ${dest} -j ${svc}\n`;
    const eps = p.endpoints;
    const n = eps.length;
    const rules = [`-A ${svc} ${notLocal} ${dest} -j KUBE-MARK-MASQ\n`];
    for (let j = 0; j < n; j++) {
      const e = eps[j];
      const sep = `KUBE-SEP-${hash(`${name}tcp${e.endpoint}`)}`;
      rules.push(
        j < n - 1
          ? `-A ${svc} -m statistic --mode random --probability ${savedProbability(n - j)} -j ${sep}\n`
          : `-A ${svc} -j ${sep}\n`,
      );
      sepNames.push(sep);
      sepEndpoints.push(e);
    }
    svcNames[i] = svc;
    svcRules[i] = rules.join("");
  }
  const sep = inNameOrder(sepNames, (k) => {
    const chain = sepNames[k];
    const e = sepEndpoints[k];
    return `-A ${chain} -s ${e.ip}/32 -j KUBE-MARK-MASQ\n-A ${chain} -p tcp -m tcp -j DNAT --to-destination ${e.endpoint}\n`;
  });
  const svc = inNameOrder(svcNames, (k) => svcRules[k]);

  return (
    "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n" +
    ":KUBE-EXTERNAL-SERVICES - [0:0]\n:KUBE-FIREWALL - [0:0]\n:KUBE-FORWARD - [0:0]\n" +
    ":KUBE-NODEPORTS - [0:0]\n:KUBE-PROXY-FIREWALL - [0:0]\n:KUBE-SERVICES - [0:0]\n" +
    "-A INPUT -j KUBE-FIREWALL\n" +
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
    '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS\n' +
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES\n' +
    '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
    '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD\n' +
    '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n' +
    '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES\n' +
    "-A OUTPUT -j KUBE-FIREWALL\n" +
    '-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
    '-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n' +
    '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n' +
    "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n" +
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT\n` +
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n' +
    "COMMIT\n*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n" +
    ":KUBE-MARK-MASQ - [0:0]\n:KUBE-NODEPORTS - [0:0]\n:KUBE-POSTROUTING - [0:0]\n" +
    sep.declarations +
    ":KUBE-SERVICES - [0:0]\n" +
    svc.declarations +
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n' +
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n' +
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING\n' +
    `-A KUBE-MARK-MASQ -j MARK --set-xmark ${mark}/${mark}\n` +
    `-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN\n` +
    `-A KUBE-POSTROUTING -j MARK --set-xmark ${mark}/0x0\n` +
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE\n' +
    sep.rules +
    jumps.join("") +
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n' +
    svc.rules +
    "COMMIT\n"
  );
}
