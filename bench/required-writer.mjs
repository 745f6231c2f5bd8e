// The yardstick plus what the house requires of any generator, and nothing more: the bound under
// issue 21's library target (cold `generateRestoreText` ≤ 1.15 × the minimal writer). It writes
// the minimal writer's bytes for the same models (test/package/bench-minimal-writer.test.ts), with
// the same hashing, templates and payload, and adds only the three things the minimal writer may
// skip and the library may not:
// - the guard (DESIGN.md: nothing a user can put in a name changes the structure of the text,
//   "whichever path built the model"): every string of the model that is written is tested for a
//   line feed, a carriage return or a NUL, one regular-expression test each;
// - the plan (issue 21, "The shape to reach" 1: a plan per service port, computed from the
//   model, which the writers turn into rules): the port's endpoints sorted into the lists its
//   chains use (ready ones for the cluster chain, serving-terminating ones when none is ready,
//   the node's own for a Local policy), and the writing reads the plan's list;
// - memoized names (DESIGN.md, "Chain names and per-service rules are memoized"): a port's SEP
//   names are remembered with its endpoints, for the next generation to find.
// Each is the cheapest form we know of its job. `ab:requirements` (bench/cases.mjs) times it cold
// beside the minimal writer; if the quotient is over 1.15, no generator that keeps these three
// can meet the target.
import { hash, payload, probability, sortedPorts } from "./minimal-writer.mjs";

const UNSAFE = /[\n\r\0]/;

/** Throws unless `value` can be written (the guard). */
function guard(value) {
  if (UNSAFE.test(value)) throw new Error(`${JSON.stringify(value)} cannot be written into rules text`);
}

/**
 * The port's plan: which endpoints its cluster chain balances over, and, for a Local policy, its
 * local chain. The cheapest form: one pass over the endpoints (which the guard needs anyway), and
 * when every endpoint is ready the cluster list is the port's own list, not a copy. The bench's
 * models are ClusterIP only with Cluster policies, so `local` is never sorted out here.
 */
export function planOf(port, guarded) {
  const eps = port.endpoints;
  let allReady = true;
  for (let j = 0; j < eps.length; j++) {
    const e = eps[j];
    if (guarded) {
      guard(e.ip);
      guard(e.endpoint);
    }
    if (!e.ready) allReady = false;
  }
  const local = port.internalPolicyLocal || port.externalPolicyLocal ? eps.filter((e) => e.isLocal) : NONE;
  if (allReady) return { cluster: eps, local, hasEndpoints: eps.length > 0 };
  let cluster = eps.filter((e) => e.ready);
  if (cluster.length === 0) cluster = eps.filter((e) => e.serving && e.terminating);
  return { cluster, local, hasEndpoints: cluster.length > 0 };
}

const NONE = [];

// Port name → its SEP chain names and the endpoints they were made for, index for index.
const remembered = new Map();

/**
 * The restore text of a model that `minimalWriterRefusal` accepts, with the guard, the plan and
 * memoized names. Options for the CLI's bound, where less is required: `checked` (the input
 * passed the API server's checks, which let no unsafe character through: no guard) and
 * `memo: false` (a one-shot process need not remember names).
 */
export function writeRequiredRestoreText(model, { checked = false, memo = true } = {}) {
  const guarded = !checked;
  const notLocal = `! -s ${model.config.detectLocal.cidrs[0]}`;
  if (guarded) guard(notLocal);
  const keyed = sortedPorts(model);
  const declarations = new Array(keyed.length);
  const rules = new Array(keyed.length);
  for (let i = 0; i < keyed.length; i++) {
    const { name, p } = keyed[i];
    if (guarded) {
      guard(name);
      guard(p.clusterIP);
    }
    const plan = planOf(p, guarded);
    const eps = plan.cluster;
    const n = eps.length;
    // The cheapest memory: the plan's own endpoint list (the model does not change under it) and
    // one array of names beside it; a list that is not the one remembered is named afresh.
    let names = memo ? remembered.get(name) : undefined;
    if (memo && (names === undefined || names.endpoints !== eps)) {
      names = { endpoints: eps, sep: new Array(n) };
      remembered.set(name, names);
    }
    const known = names?.sep;
    const svc = `KUBE-SVC-${hash(`${name}tcp`)}`;
    const match = `-m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${p.clusterIP} --dport ${p.port}`;
    const decl = [`:${svc} - [0:0]\n`];
    const svcRules = [
      `-A KUBE-SERVICES ${match} -j ${svc}\n`,
      `-A ${svc} ${match} ${notLocal} -j KUBE-MARK-MASQ\n`,
    ];
    const sepRules = [];
    for (let j = 0; j < n; j++) {
      const e = eps[j];
      let sep = known?.[j];
      if (sep === undefined) {
        sep = `KUBE-SEP-${hash(`${name}tcp${e.endpoint}`)}`;
        if (known !== undefined) known[j] = sep;
      }
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

/** How many ports have names remembered (for the test: the memo is real). */
export function rememberedPorts() {
  return remembered.size;
}

export { checkClusterObjects } from "./api-checks.mjs";
