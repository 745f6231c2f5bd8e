// The lower bound under issue 21's `diff DUMP CLUSTER` target (a 10k-service node, ≤ 2 s CPU):
// the part of that command that any implementation must do, each step in the cheapest form we
// know, deciding what the CLI decides (which of kube-proxy's chains differ; on the node's own
// dump, none). If it is over the limit, nothing that does at least as much can meet it.
//
// What any `diff DUMP CLUSTER` must do, and what this does of it:
// 1. read the cluster file and JSON.parse it;
// 2. `checkClusterObjects` (bench/api-checks.mjs, re-exported by required-writer.mjs): the API
//    server's checks of every field the objects hold;
// 3. the cluster's rules in save form, written from a plan per port (issue 21: plan → writers):
//    `writeRequiredSaveText`, the save-text yardstick (bench/minimal-save-writer.mjs) with the
//    required restore writer's plan (`planOf`, bench/required-writer.mjs), byte for byte
//    `generateSaveText` on the bench's models (test/package/bench-required-diff.test.ts). It
//    notes, as it writes, where each chain's declaration and rules are: the comparison needs
//    them, and the writer knows them for the price of a length;
// 4. read the dump file (UTF-8 decoded, as the CLI reads it);
// 5. `differingChains`: read the dump's structure as far as the comparison needs and compare,
//    chain by chain, kube-proxy's chains on both sides, as the CLI does (built-in chains and
//    other programs' chains are not compared; a kube-proxy chain only on one side differs).
//    The chains that the written text's order puts next are tried first, a doubling span of
//    them at a time while the dump holds their text byte for byte (a cursor), then one, then the
//    chain of that name (a lookup), so any order, extra, missing or changed chain is handled.
//
// What it leaves out (each is work the CLI does, so leaving it out keeps this a lower bound):
// - validation of the dump's lines that are not byte for byte the cluster's own (a rule of
//   Docker, CNI, a changed rule): they are not tokenized, their options not checked as
//   iptables-restore checks them; only their structure is (a known line kind, a declared chain,
//   a name of 1 to 28 characters, a policy, COMMIT). The node's own dump has no such line.
//   The cluster's own lines need no validation (our text is valid), nor their
//   jump targets while the dump declares every chain they jump to: one that lacks such a chain
//   is refused by the CLI (iptables-restore cannot load the jump) and not here;
// - the model: the writer reads the parsed objects straight (`minimalModelOf`), for the bench's
//   model shape only (ClusterIP, tcp, ready endpoints, large-cluster mode);
// - the family guess from the dump's addresses (the cluster's IPv4 is taken);
// - sparing a stale chain that another program's rule still jumps to (the CLI leaves it out of
//   the comparison: `sparingReferenced`); here it differs. Absent from the bench's dumps;
// - the summary or delta text (the CLI prints "no changes" here; the bound returns the chains);
// - iptables-restore input forms other than iptables-save's (`-N`, `-I`, `-P` lines, a table
//   twice, counters on rules): refused here, read by the CLI.
import { readFileSync } from "node:fs";
import { nameOrder, savedProbability } from "./minimal-save-writer.mjs";
import { hash, minimalModelOf, sortedPorts } from "./minimal-writer.mjs";
import { checkClusterObjects, planOf } from "./required-writer.mjs";

/**
 * Steps 1–5: which of kube-proxy's chains differ between the node's dump and the cluster, per
 * table (`{}` when none does).
 */
export function requiredDiff(dumpPath, clusterPath) {
  const written = writtenCluster(clusterPath);
  const dump = readFileSync(dumpPath, "utf8");
  return differingChains(dump, written);
}

// Steps 1–3. The parsed objects are not kept past the model (the CLI does not keep them either):
// the garbage collector then has less to trace while the text is written.
function writtenCluster(path) {
  const input = JSON.parse(readFileSync(path, "utf8"));
  checkClusterObjects(input);
  return writeRequiredSaveText(minimalModelOf(input));
}

// ---------------------------------------------------------------------------------------------
// Step 3: the save text with a plan per port, and where each chain is in it.

/**
 * One table as it is written: its chains in the text's order (built-in chains first, then by
 * name, as iptables-save lists them), each chain's declaration and rules.
 */
class TableWriter {
  constructor(name) {
    this.name = name;
    this.names = [];
    this.policies = [];
    this.runLengths = [];
    this.declarations = [];
    this.rules = [];
    this.chunk = [];
  }

  /** The next chain: its policy (`-` for a chain of ours) and its rules' text. */
  chain(name, policy, rules) {
    this.names.push(name);
    this.policies.push(policy);
    this.runLengths.push(rules.length);
    this.declarations.push(`:${name} ${policy} [0:0]\n`);
    if (rules.length === 0) return;
    // Joined a few hundred at a time, as printed (minimal-save-writer.mjs: a third cheaper than
    // one join at the end).
    this.chunk.push(rules);
    if (this.chunk.length === 256) this.flush();
  }

  flush() {
    this.rules.push(this.chunk.join(""));
    this.chunk.length = 0;
  }

  /** The table's text, and its index with offsets from `at`, where the text will be. */
  finish(at) {
    this.flush();
    const { names, policies, runLengths } = this;
    const n = names.length;
    // Chain k's declaration is text[declAt[k], declAt[k + 1]), its rules text[runAt[k], runAt[k + 1]).
    const declAt = new Int32Array(n + 1);
    const runAt = new Int32Array(n + 1);
    let pos = at + this.name.length + 2;
    for (let k = 0; k < n; k++) {
      declAt[k] = pos;
      pos += names[k].length + policies[k].length + 9; // ":" NAME " " POLICY " [0:0]\n"
    }
    declAt[n] = pos;
    for (let k = 0; k < n; k++) {
      runAt[k] = pos;
      pos += runLengths[k];
    }
    runAt[n] = pos;
    const text = `*${this.name}\n${this.declarations.join("")}${this.rules.join("")}COMMIT\n`;
    return { text, table: new WrittenTable(this.name, names, policies, runLengths, declAt, runAt) };
  }
}

/** Where each chain of one table is in the written text, in the text's order. */
class WrittenTable {
  constructor(name, names, policies, runLengths, declAt, runAt) {
    this.name = name;
    this.names = names;
    this.policies = policies;
    this.runLengths = runLengths;
    this.declAt = declAt;
    this.runAt = runAt;
    this.byName = null;
  }

  /** The index of the chain of this name, or -1 (a map made only when the order is left). */
  find(name) {
    if (this.byName === null) {
      this.byName = new Map();
      for (let k = 0; k < this.names.length; k++) this.byName.set(this.names[k], k);
    }
    return this.byName.get(name) ?? -1;
  }
}

/**
 * The cluster's save text (byte for byte `generateSaveText` for a model `minimalWriterRefusal`
 * accepts), written from a plan per port, and `tables`: where each chain is in it. The model is
 * the checked cluster's (`checkClusterObjects`): no guard, and a one-shot process keeps no names.
 */
export function writeRequiredSaveText(model) {
  const mark = `0x${(2 ** model.config.masqueradeBit).toString(16)}`;
  const notLocal = `! -s ${model.config.detectLocal.cidrs[0]}`;
  const keyed = sortedPorts(model);
  const sepNames = [];
  const sepEndpoints = [];
  const svcNames = new Array(keyed.length);
  const svcRules = new Array(keyed.length);
  const jumps = new Array(keyed.length + 1);
  for (let i = 0; i < keyed.length; i++) {
    const { name, p } = keyed[i];
    // The plan: which endpoints the cluster chain balances over (required-writer.mjs).
    const plan = planOf(p, false);
    if (!plan.hasEndpoints) throw new Error(`${name}: no endpoints (outside the writer's models)`);
    const eps = plan.cluster;
    const n = eps.length;
    const svc = `KUBE-SVC-${hash(`${name}tcp`)}`;
    const dest = `-d ${p.clusterIP}/32 -p tcp -m comment --comment "${name} cluster IP" -m tcp --dport ${p.port}`;
    jumps[i] = `-A KUBE-SERVICES ${dest} -j ${svc}\n`;
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
  jumps[keyed.length] =
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n';

  const filter = new TableWriter("filter");
  filter.chain(
    "INPUT",
    "ACCEPT",
    "-A INPUT -j KUBE-FIREWALL\n" +
      '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
      '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS\n' +
      '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES\n',
  );
  filter.chain(
    "FORWARD",
    "ACCEPT",
    '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
      '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD\n' +
      '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n' +
      '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES\n',
  );
  filter.chain(
    "OUTPUT",
    "ACCEPT",
    "-A OUTPUT -j KUBE-FIREWALL\n" +
      '-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL\n' +
      '-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n',
  );
  filter.chain("KUBE-EXTERNAL-SERVICES", "-", "");
  filter.chain(
    "KUBE-FIREWALL",
    "-",
    '-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n',
  );
  filter.chain(
    "KUBE-FORWARD",
    "-",
    "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n" +
      `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${mark}/${mark} -j ACCEPT\n` +
      '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n',
  );
  filter.chain("KUBE-NODEPORTS", "-", "");
  filter.chain("KUBE-PROXY-FIREWALL", "-", "");
  filter.chain("KUBE-SERVICES", "-", "");

  const nat = new TableWriter("nat");
  nat.chain(
    "PREROUTING",
    "ACCEPT",
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n',
  );
  nat.chain("INPUT", "ACCEPT", "");
  nat.chain(
    "OUTPUT",
    "ACCEPT",
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n',
  );
  nat.chain(
    "POSTROUTING",
    "ACCEPT",
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING\n',
  );
  nat.chain("KUBE-MARK-MASQ", "-", `-A KUBE-MARK-MASQ -j MARK --set-xmark ${mark}/${mark}\n`);
  nat.chain("KUBE-NODEPORTS", "-", "");
  nat.chain(
    "KUBE-POSTROUTING",
    "-",
    `-A KUBE-POSTROUTING -m mark ! --mark ${mark}/${mark} -j RETURN\n` +
      `-A KUBE-POSTROUTING -j MARK --set-xmark ${mark}/0x0\n` +
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE\n',
  );
  // The SEP chains in name order (numeric keys from the hash: minimal-save-writer.mjs), each
  // printed when its turn comes.
  const sepOrder = nameOrder(sepNames, "KUBE-SEP-".length);
  for (let i = 0; i < sepOrder.length; i++) {
    const k = sepOrder[i];
    const chain = sepNames[k];
    const e = sepEndpoints[k];
    nat.chain(
      chain,
      "-",
      `-A ${chain} -s ${e.ip}/32 -j KUBE-MARK-MASQ\n-A ${chain} -p tcp -m tcp -j DNAT --to-destination ${e.endpoint}\n`,
    );
  }
  nat.chain("KUBE-SERVICES", "-", jumps.join(""));
  const svcOrder = nameOrder(svcNames, "KUBE-SVC-".length);
  for (let i = 0; i < svcOrder.length; i++) {
    const k = svcOrder[i];
    nat.chain(svcNames[k], "-", svcRules[k]);
  }

  const f = filter.finish(0);
  const t = nat.finish(f.text.length);
  return {
    text: f.text + t.text,
    tables: new Map([
      ["filter", f.table],
      ["nat", t.table],
    ]),
  };
}

// ---------------------------------------------------------------------------------------------
// Step 5: the dump's structure, and the comparison chain by chain.

// kube-proxy's per-service chains (profile v1.30), which it owns on a node even when the cluster
// no longer has them (a stale one differs). Its fixed chains are those the written text declares.
const SERVICE_CHAIN_PREFIXES = ["KUBE-SVC-", "KUBE-SVL-", "KUBE-EXT-", "KUBE-FW-", "KUBE-SEP-"];
function isServicePortChain(table, chain) {
  if (table !== "nat") return false;
  for (const prefix of SERVICE_CHAIN_PREFIXES) if (chain.startsWith(prefix)) return true;
  return false;
}

/** Whether `a` from `at` holds `length` characters of `b` from `from`, without copying either. */
function sameAt(a, at, b, from, length) {
  if (at + length > a.length) return false;
  // Two slices compared whole: a slice of a flat string longer than 12 characters is a view
  // into it, not a copy, and equality compares memory (startsWith goes character by
  // character, nine times slower, measured).
  return a.slice(at, at + length) === b.slice(from, from + length);
}

/**
 * How far from chain `first` the dump at `pos` holds the written text, chain by chain: the
 * largest j such that the dump's text from `pos` is written chains first…j-1's parts
 * (`at[k]` to `at[k + 1]`), byte for byte. The span grows by doubling, and falls back to one
 * chain after a miss, so a long equal stretch costs a few comparisons of memory and a changed
 * chain at most twice its stretch.
 */
function matchedUpTo(dump, pos, text, at, first, n) {
  const base = at[first];
  let matched = first;
  let step = 1;
  while (matched < n) {
    const j = Math.min(matched + step, n);
    const from = at[matched];
    if (sameAt(dump, pos + (from - base), text, from, at[j] - from)) {
      matched = j;
      step *= 2;
    } else if (step === 1) break;
    else step = 1;
  }
  return matched;
}

/** `sameAt` for a few characters (a declaration): a loop allocates nothing. */
function sameShortAt(a, at, b, from, length) {
  if (at + length > a.length) return false;
  for (let i = 0; i < length; i++) if (a.charCodeAt(at + i) !== b.charCodeAt(from + i)) return false;
  return true;
}

/** Whether the line at `pos` appends to `chain` (`-A CHAIN ` or `-A CHAIN` at the line's end). */
function appendsTo(dump, pos, chain) {
  if (!dump.startsWith("-A ", pos) || !dump.startsWith(chain, pos + 3)) return false;
  const c = dump.charCodeAt(pos + 3 + chain.length);
  return c === 32 || c === 10 || Number.isNaN(c);
}

/** The end of the run of lines from `pos` (which is one) that append to `chain`. */
function endOfRun(dump, pos, chain) {
  let at = pos;
  do {
    const nl = dump.indexOf("\n", at);
    at = nl < 0 ? dump.length : nl + 1;
  } while (at < dump.length && appendsTo(dump, at, chain));
  return at;
}

function lineEnd(dump, pos) {
  const nl = dump.indexOf("\n", pos);
  return nl < 0 ? dump.length : nl;
}

function refuse(dump, pos, message) {
  let line = 1;
  for (let i = dump.indexOf("\n"); i >= 0 && i < pos; i = dump.indexOf("\n", i + 1)) line++;
  throw new Error(`line ${line}: ${message}`);
}

/** A dump's table being read, against the written table of that name (or none). */
class OpenTable {
  constructor(name, written) {
    this.name = name;
    this.written = written;
    const n = written?.names.length ?? 0;
    this.declared = new Uint8Array(n);
    this.differs = new Uint8Array(n);
    // Where the dump's run of each written chain starts (+1; 0: none yet), and its other runs.
    this.runStart = new Int32Array(n);
    this.runEnd = new Int32Array(n);
    this.split = null;
    this.declCursor = 0;
    this.runCursor = 0;
    // Chains the written table lacks: name → whether the chain is kube-proxy's (stale).
    this.others = new Map();
  }
}

/**
 * Which of kube-proxy's chains differ between a node's iptables-save dump and the written
 * cluster (`writeRequiredSaveText`): `{ table: [chain, …] }`, empty when none does. Throws, with
 * the line, at a structure iptables-restore refuses (see the head of this file for what is not
 * checked).
 */
export function differingChains(dump, written) {
  const text = written.text;
  const found = {};
  const seen = new Set();
  const length = dump.length;
  let table = null;
  let pos = 0;
  while (pos < length) {
    const c = dump.charCodeAt(pos);
    if (c === 45 /* - */) {
      if (table === null) refuse(dump, pos, "a rule outside of a table");
      pos = readRun(dump, pos, table, text);
    } else if (c === 58 /* : */) {
      if (table === null) refuse(dump, pos, "a chain outside of a table");
      pos = readDeclaration(dump, pos, table, text);
    } else if (c === 42 /* * */) {
      if (table !== null) refuse(dump, pos, `table ${table.name}: missing COMMIT`);
      const end = lineEnd(dump, pos);
      const name = dump.slice(pos + 1, end);
      if (name !== "filter" && name !== "nat" && name !== "mangle" && name !== "raw" && name !== "security")
        refuse(dump, pos, `unable to initialize table '${name}'`);
      if (seen.has(name)) refuse(dump, pos, `table ${name} twice (not iptables-save's form)`);
      seen.add(name);
      table = new OpenTable(name, written.tables.get(name));
      pos = end + 1;
    } else if (c === 67 /* C */ && dump.startsWith("COMMIT", pos) && lineEnd(dump, pos) === pos + 6) {
      if (table === null) refuse(dump, pos, "COMMIT outside of a table");
      close(dump, table, text, found);
      table = null;
      pos += 7;
    } else if (c === 35 /* # */ || c === 10) {
      pos = lineEnd(dump, pos) + 1;
    } else refuse(dump, pos, "not a line of iptables-save's form");
  }
  if (table !== null) refuse(dump, length, `table ${table.name}: missing COMMIT`);
  // A written table the dump lacks: every chain of kube-proxy's in it differs.
  for (const [name, w] of written.tables)
    if (!seen.has(name))
      for (let k = 0; k < w.names.length; k++) if (w.policies[k] === "-") add(found, name, w.names[k]);
  return found;
}

function add(found, table, chain) {
  let list = found[table];
  if (list === undefined) {
    list = [];
    found[table] = list;
  }
  list.push(chain);
}

/** A `:CHAIN POLICY [p:b]` line; returns where the next line starts. */
function readDeclaration(dump, pos, table, text) {
  const w = table.written;
  let k = -1;
  if (w !== null && w !== undefined) {
    const d = table.declCursor;
    const n = w.names.length;
    // The next chains in the written order, whole lines at a time while they are the same.
    const j = d < n ? matchedUpTo(dump, pos, text, w.declAt, d, n) : d;
    if (j > d) {
      for (let c = d; c < j; c++) table.declared[c] = 1;
      table.declCursor = j;
      return pos + (w.declAt[j] - w.declAt[d]);
    }
    // The next chain, compared up to its counters (`:NAME POLICY `), which iptables-restore
    // does not read.
    if (d < n && sameShortAt(dump, pos, text, w.declAt[d], w.names[d].length + w.policies[d].length + 3))
      k = d;
  }
  const end = lineEnd(dump, pos);
  if (k < 0) {
    // Another line: its name and policy read and checked as iptables-restore checks their place.
    const space = dump.indexOf(" ", pos);
    const nameEnd = space < 0 || space > end ? end : space;
    const name = dump.slice(pos + 1, nameEnd);
    if (name.length === 0 || name.length > 28) refuse(dump, pos, `invalid chain name '${name}'`);
    const policyEnd = dump.indexOf(" ", nameEnd + 1);
    const policy =
      nameEnd >= end ? "" : dump.slice(nameEnd + 1, policyEnd < 0 || policyEnd > end ? end : policyEnd);
    if (policy === "") refuse(dump, pos, "policy invalid");
    k = w === null || w === undefined ? -1 : w.find(name);
    if (k < 0) {
      // (Declared again: iptables-nft-restore, the CLI's default backend, lets it be.)
      table.others.set(name, isServicePortChain(table.name, name));
      return end + 1;
    }
    const builtin = w.policies[k] !== "-";
    if (builtin ? policy !== "ACCEPT" && policy !== "DROP" : policy !== "-")
      refuse(dump, pos, `policy ${policy} for chain ${name}`);
  }
  // (Declared again: iptables-nft-restore, the CLI's default backend, lets it be.)
  table.declared[k] = 1;
  table.declCursor = k + 1;
  return end + 1;
}

/** A run of `-A` lines of one chain, from `pos`; returns where the next line starts. */
function readRun(dump, pos, table, text) {
  if (dump.charCodeAt(pos + 1) !== 65 || dump.charCodeAt(pos + 2) !== 32)
    refuse(dump, pos, "not a line of iptables-save's form");
  const w = table.written;
  if (w !== null && w !== undefined) {
    // The next written chains with rules: where the dump's text is theirs, byte for byte, so
    // are its runs (each line names its chain). The last one's run ends there unless its next
    // line follows.
    const n = w.names.length;
    let r = table.runCursor;
    while (r < n && w.runLengths[r] === 0) r++;
    const j = r < n ? matchedUpTo(dump, pos, text, w.runAt, r, n) : r;
    if (j > r) {
      const shift = pos - w.runAt[r];
      let last = r;
      for (let k = r; k < j; k++)
        if (w.runLengths[k] > 0) {
          noteRun(dump, table, k, w.runAt[k] + shift, w.runAt[k + 1] + shift);
          last = k;
        }
      let end = w.runAt[j] + shift;
      if (end < dump.length && appendsTo(dump, end, w.names[last])) {
        end = endOfRun(dump, end, w.names[last]);
        table.differs[last] = 1;
        if (table.split === null || !table.split.has(last)) table.runEnd[last] = end;
        else table.split.get(last)[table.split.get(last).length - 1][1] = end;
      }
      table.runCursor = j;
      return end;
    }
  }
  const lineStop = lineEnd(dump, pos);
  const space = dump.indexOf(" ", pos + 3);
  const name = dump.slice(pos + 3, space < 0 || space > lineStop ? lineStop : space);
  const end = endOfRun(dump, pos, name);
  const k = w === null || w === undefined ? -1 : w.find(name);
  if (k < 0) {
    // Not the cluster's chain: only its place is checked (see the head of the file).
    if (!table.others.has(name)) refuse(dump, pos, `chain ${name} is not declared`);
    return end;
  }
  if (end - pos !== w.runLengths[k] || !sameAt(dump, pos, text, w.runAt[k], end - pos)) table.differs[k] = 1;
  noteRun(dump, table, k, pos, end);
  table.runCursor = k + 1;
  return end;
}

/** The dump's run of written chain k, from `start` to `end`: declared, and its first or not. */
function noteRun(dump, table, k, start, end) {
  if (table.declared[k] !== 1) refuse(dump, start, `chain ${table.written.names[k]} is not declared`);
  if (table.runStart[k] !== 0) {
    // A second run of the chain (iptables-save never prints one; iptables-restore reads it):
    // its rules are compared whole when the table closes.
    table.split ??= new Map();
    let runs = table.split.get(k);
    if (runs === undefined) {
      runs = [[table.runStart[k] - 1, table.runEnd[k]]];
      table.split.set(k, runs);
    }
    runs.push([start, end]);
  } else {
    table.runStart[k] = start + 1;
    table.runEnd[k] = end;
  }
}

/** At COMMIT: the written table's chains of kube-proxy's that the dump lacks or holds otherwise. */
function close(dump, table, text, found) {
  const w = table.written;
  for (const [name, stale] of table.others) if (stale) add(found, table.name, name);
  if (w === null || w === undefined) return;
  if (table.split !== null)
    for (const [k, runs] of table.split) {
      const rules = runs.map(([from, to]) => dump.slice(from, to)).join("");
      table.differs[k] = rules === text.slice(w.runAt[k], w.runAt[k] + w.runLengths[k]) ? 0 : 1;
    }
  const { names, policies, runLengths } = w;
  const { declared, differs, runStart } = table;
  for (let k = 0; k < names.length; k++) {
    if (policies[k] !== "-") continue; // a built-in chain: not kube-proxy's, not compared
    if (declared[k] === 0 || differs[k] === 1 || (runStart[k] === 0 && runLengths[k] > 0))
      add(found, table.name, names[k]);
  }
}
