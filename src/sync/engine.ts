/**
 * The incremental engine: fed the current Services and EndpointSlices again and again, it keeps
 * one proxier's view (each Service's family-filtered ports and endpoints, compared field by
 * field), the memoized block of every service port, and the kernel state its deltas produce, so
 * that an update costs in proportion to what changed rather than to the cluster.
 *
 * @module
 */

import { KubeIptablesError, type Problem } from "../errors.js";
import {
  applyRestore,
  assemblePayload,
  createContext,
  formatRestore,
  type GenerationContext,
  joinPayload,
  LARGE_CLUSTER_ENDPOINTS,
  nodePortsTailRules,
  samePort,
  stateAfterFullSync,
} from "../iptables/index.js";
import type { RuleSet } from "../ir/types.js";
import { resolveConfig } from "../kube/config.js";
import { endpointsByPort } from "../kube/endpoints.js";
import { servicePortsOf } from "../kube/service-ports.js";
import { modelPolicies } from "../kube/to-model.js";
import type { EndpointSlice, ProxyConfigInput, Service } from "../kube/types.js";
import type { IPFamily, ProxyConfig, ServicePort } from "../model/types.js";
import { servicePortName } from "../naming/chain-names.js";
import { adoptionDelta, stateWith, stateWithout } from "./adopt.js";
import { buildEntry, compareEntries, type PortEntry } from "./blocks.js";
import { buildDelta, type PortChange, zeroCounts } from "./delta.js";
import { NO_PROBLEMS, ObjectChecks } from "./object-checks.js";
import { PortOrder } from "./order.js";
import { ClusterIndex } from "./tracker.js";

/**
 * Options of {@link createSync}.
 *
 * @example
 * createSync({ hostname: "node-a" }, { family: "IPv6", validate: true });
 */
export interface SyncOptions {
  /** The family of this proxier, overriding `config.ipFamily`. */
  readonly family?: IPFamily;
  /**
   * What the node's kernel holds now: a state as `parseRules` reads `iptables-save` output (only
   * `-A` rules; the filter and nat tables matter, others are left alone). The first update's
   * delta then turns exactly this into the desired rules, leaving other programs' chains and
   * rules as they are. Without it, the first update assumes a kernel that holds nothing but
   * kube-proxy's jumps and their (empty) target chains.
   */
  readonly current?: RuleSet;
  /**
   * Check each Service and EndpointSlice when it first appears, as `validateClusterInput` checks
   * one object, and leave out those with errors (reported in {@link SyncResult.problems}), as
   * `prepareCluster` does. Checks between objects (two Services of one name) are not made. Off by
   * default: objects from an informer cache were checked by the API server already.
   */
  readonly validate?: boolean;
}

/**
 * What one update did.
 *
 * @example
 * const { stats } = sync.update(services, endpointSlices);
 * stats.portsChanged // service ports whose rules changed in this update
 */
export interface SyncStats {
  /** Services whose objects or slices were new or gone (and so were looked at again). */
  readonly servicesExamined: number;
  /** Service ports that appeared. */
  readonly portsAdded: number;
  /** Service ports that went away. */
  readonly portsRemoved: number;
  /** Service ports whose view changed. */
  readonly portsChanged: number;
  /** Per-service-port blocks generated (the rest were reused). */
  readonly blocksBuilt: number;
  /** Chains the delta creates. */
  readonly chainsCreated: number;
  /** Chains the delta flushes and writes again. */
  readonly chainsRewritten: number;
  /** Per-service chains the delta edits rule by rule. */
  readonly chainsEdited: number;
  /** Chains the delta deletes. */
  readonly chainsDeleted: number;
  /** Rules the delta writes (`-A`, `-I`). */
  readonly rulesWritten: number;
  /** Rules the delta deletes (`-D`). */
  readonly rulesDeleted: number;
  /** Whether the rules are in large-cluster mode (more than 1000 endpoints). */
  readonly largeClusterMode: boolean;
  /** Whether this update crossed the large-cluster threshold. */
  readonly modeChanged: boolean;
  /**
   * Whether this was the first update (the delta is then the full payload, or, started from
   * `current`, what turns the node's rules into the desired ones).
   */
  readonly initial: boolean;
}

/**
 * The outcome of one update.
 *
 * @example
 * const result = createSync({ hostname: "node-a" }).update(services, endpointSlices);
 * result.deltaText // for iptables-restore --noflush
 * result.state     // the kernel state afterwards
 */
export interface SyncResult {
  /** The full payload kube-proxy would write for this cluster (built on first access). */
  readonly ruleSet: RuleSet;
  /** The kernel state after the delta (built on first access). */
  readonly state: RuleSet;
  /** The `iptables-restore --noflush` payload from the previous state to this one. */
  readonly delta: RuleSet;
  /** The delta as text; `""` when nothing changed. */
  readonly deltaText: string;
  /** What the update did. */
  readonly stats: SyncStats;
  /**
   * With `validate`: the errors of the objects left out of this update, with paths into its
   * lists (`services[3].spec.ports[0].port`), for as long as such an object is there; else empty.
   */
  readonly problems: readonly Problem[];
}

/**
 * A stateful incremental generator of one proxier (one family).
 *
 * @example
 * const sync: Sync = createSync({ hostname: "node-a" });
 * sync.update(services, endpointSlices).deltaText; // the full payload, first
 * sync.update(services, changedSlices).deltaText;  // only what changed
 */
export interface Sync {
  /**
   * Takes the current Services and EndpointSlices (pass unchanged objects as the same
   * references, as an informer cache does; a changed object must be a new object, and so must a
   * changed array: an array edited in place since the last update compares equal to itself,
   * and copying every list on every update to guard against it would cost more than the update
   * itself at 50,000 Services) and returns the new rules, state and delta. The objects are read
   * as the API server stores them, as `buildModel` reads them, not validated, unless the engine
   * was created with `validate` (a port of 70000 would make a delta `iptables-restore` refuses).
   */
  update(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): SyncResult;
  /** The kernel state the deltas so far produce (before any update: `current`, or the jumps alone). */
  readonly state: RuleSet;
  /** The resolved node settings. */
  readonly config: ProxyConfig;
}

// Computed on first call; `make` (and all it holds, e.g. a node's full dump) is let go then.
function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let pending: (() => T) | null = make;
  return () => {
    if (pending !== null) {
      value = pending();
      pending = null;
    }
    return value as T;
  };
}

function portId(port: ServicePort): string {
  return `${servicePortName(port.namespace, port.name, port.portName)}\u0000${port.protocol}`;
}

/** The kernel before kube-proxy's first sync: built-in chains, its jump targets and the jumps. */
function initialState(ctx: GenerationContext): RuleSet {
  return stateAfterFullSync({ family: ctx.family, tables: [] }, ctx.traits);
}

/** Checks that `current` is a state of this family: a typed error naming what is wrong. */
function checkCurrent(current: RuleSet, family: IPFamily): void {
  const problems: Problem[] = [];
  if (current.family !== family)
    problems.push({
      code: "INVALID_VALUE",
      path: "current.family",
      message: `${current.family} rules for an ${family} proxier`,
      severity: "error",
    });
  current.tables.forEach((t, ti) => {
    t.entries.forEach((e, ei) => {
      if (e.kind === "rule" && e.op === "-A") return;
      problems.push({
        code: "INVALID_VALUE",
        path: `current.tables[${ti}].entries[${ei}]`,
        message: `${e.op} ${e.chain}: a state holds only -A rules (parse iptables-save output)`,
        severity: "error",
      });
    });
  });
  if (problems.length > 0) throw new KubeIptablesError(problems);
}

/**
 * Creates an incremental engine for one node and family. Stateful but free of side effects: it
 * does no I/O and never mutates its inputs.
 *
 * @param config - The node's settings, as in a cluster file's `config` (defaults filled in).
 * @param options - The family, `current`: the node's rules to start from, and `validate`.
 * @throws KubeIptablesError when `options.current` is not a state of the proxier's family.
 * @example
 * const sync = createSync({ hostname: "node-a" });
 * sync.update(services, slices).deltaText;                 // the full payload, first
 * sync.update(servicesWithOneChange, slices).deltaText;   // "*nat\n…\nCOMMIT\n": that change only
 * @example
 * // A restarted proxier: start from what the node holds (iptables-save output).
 * const node = createSync({ hostname: "node-a" }, { current: parseRulesOrThrow(dump, { family: "IPv4" }) });
 * node.update(services, slices).deltaText; // only what differs from the dump; Docker's rules untouched
 */
export function createSync(config?: ProxyConfigInput, options: SyncOptions = {}): Sync {
  const resolved = resolveConfig(config, options.family === undefined ? {} : { ipFamily: options.family });
  const policies = modelPolicies(resolved);
  const family = resolved.ipFamily;
  const normalCtx = createContext({ config: resolved, servicePorts: [] });
  const largeCtx: GenerationContext = { ...normalCtx, largeClusterMode: true };
  const tailLengths = [0, 0, 0, 0, nodePortsTailRules(normalCtx).length, 0];
  const index = new ClusterIndex();
  const checks = options.validate === true ? new ObjectChecks(resolved.profile) : null;
  const portsOfService = new Map<string, string[]>();
  const entries = new Map<string, PortEntry>();
  let order = PortOrder.empty();
  let totals = [0, 0, 0, 0, 0, 0];
  let totalEndpoints = 0;
  let largeMode = false;
  let synced = false;
  // The node's rules to start from, until the first update has used them.
  let start = options.current;
  if (start !== undefined) checkCurrent(start, family);
  const given = start;
  let currentState: () => RuleSet = given === undefined ? lazy(() => initialState(normalCtx)) : () => given;
  // Started from a node's state: what of it stays whatever the payload (set by the first update).
  let rest: (() => RuleSet) | null = null;

  function update(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): SyncResult {
    const checked = checks?.accept(services, endpointSlices);
    const dirty = index.apply(checked?.services ?? services, checked?.endpointSlices ?? endpointSlices);
    // 1. The proxier's view of each touched Service; a port counts as changed only if it did.
    const removedIds: string[] = [];
    const pending: { id: string; port: ServicePort }[] = [];
    for (const key of dirty) {
      const service = index.service(key);
      let ports =
        service === undefined
          ? []
          : servicePortsOf(service, family, undefined, policies.honorIPMode, policies.externalIPs);
      if (ports.length > 0) {
        const byPort = endpointsByPort(index.slicesOf(key), family, resolved.hostname, policies.duplicates);
        ports = ports.map((p) => {
          const list = byPort.of(p.portName, p.protocol);
          return list === undefined ? p : { ...p, endpoints: list };
        });
      }
      const ids: string[] = [];
      for (const port of ports) {
        const id = portId(port);
        if (ids.includes(id)) continue;
        ids.push(id);
        const entry = entries.get(id);
        if (entry !== undefined && samePort(entry.port, port)) continue;
        totalEndpoints += port.endpoints.length - (entry?.port.endpoints.length ?? 0);
        pending.push({ id, port });
      }
      for (const id of portsOfService.get(key) ?? []) {
        if (ids.includes(id)) continue;
        removedIds.push(id);
        totalEndpoints -= entries.get(id)?.port.endpoints.length ?? 0;
      }
      if (ids.length === 0) portsOfService.delete(key);
      else portsOfService.set(key, ids);
    }
    const nowLarge = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
    const modeChanged = nowLarge !== largeMode;
    largeMode = nowLarge;
    const ctx = nowLarge ? largeCtx : normalCtx;

    // 2. New blocks for what changed (for everything when the mode flipped: comments change).
    const replaced = new Map<string, PortEntry>(); // id → old entry, for changed ports
    const added: PortEntry[] = [];
    const removed: PortEntry[] = [];
    let built = 0;
    for (const id of removedIds) {
      const old = entries.get(id);
      if (old === undefined) continue;
      entries.delete(id);
      removed.push(old);
    }
    const fresh = new Set<string>();
    for (const p of pending) {
      const old = entries.get(p.id);
      const entry = buildEntry(p.id, p.port, ctx);
      built++;
      fresh.add(p.id);
      entries.set(p.id, entry);
      if (old === undefined) added.push(entry);
      else replaced.set(p.id, old);
    }
    if (modeChanged) {
      for (const [id, old] of entries) {
        if (fresh.has(id)) continue;
        const entry = buildEntry(id, old.port, ctx);
        built++;
        entries.set(id, entry);
        replaced.set(id, old);
      }
    }
    const portsChanged = replaced.size;

    // 3. The new generation order (persistent: earlier results keep their snapshot).
    const touched = added.length + removed.length + replaced.size;
    if (touched > 0) {
      const replacements = [...replaced.keys()].map((id) => entries.get(id) as PortEntry);
      order =
        touched * 16 > order.size
          ? PortOrder.of([...entries.values()])
          : order.with(removed, replacements, added);
    }

    // 4. The delta.
    const counts = zeroCounts();
    let delta: () => RuleSet;
    // The delta as text, when it is made as text (the first delta from an empty kernel).
    let deltaText: string | null = null;
    const snapshot = order;
    let firstPayload: RuleSet | null = null;
    if (!synced) {
      const all = snapshot.toArray();
      if (start === undefined) {
        // The full payload, joined from the blocks' text; rules only if a caller asks.
        const have = predeclaredChains(ctx);
        deltaText = joinPayload(
          ctx,
          all,
          (e) => e.text,
          {},
          (table, chain) => have[table].has(chain),
        );
        delta = lazy(() => firstDelta(ctx, all));
        counts.chainsCreated = all.reduce((n, e) => n + e.text.natChains.length, 0);
      } else {
        const payload = assemblePayload(
          ctx,
          all.map((e) => e.rules),
        );
        const node = start;
        const adoption = adoptionDelta(node, payload, ctx.traits);
        const adopted = adoption.delta;
        delta = () => adopted;
        Object.assign(counts, adoption.counts);
        firstPayload = payload;
        const after = lazy(() => applyRestore(node, adoption.delta, { noflush: true }));
        rest = lazy(() => stateWithout(after(), payload));
        start = undefined;
      }
      totals = snapshot.totals();
    } else if (touched > 0) {
      const lengths = totals.map((t, s) => t + (tailLengths[s] as number));
      // Each change at its position in the new order; a removed port where it would sort, before
      // the port now at that index.
      const located: { at: number; rank: number; change: PortChange }[] = [];
      removed.sort(compareEntries);
      for (const old of removed) {
        const { at, start } = snapshot.position(old.id);
        located.push({ at, rank: 0, change: { old, next: null, start } });
      }
      for (const next of added) {
        const { at, start } = snapshot.position(next.id);
        located.push({ at, rank: 1, change: { old: null, next, start } });
      }
      for (const [id, old] of replaced) {
        const next = entries.get(id) as PortEntry;
        const { at, start } = snapshot.position(id);
        located.push({ at, rank: 1, change: { old, next, start } });
      }
      located.sort((x, y) => x.at - y.at || x.rank - y.rank);
      const changes = located.map((l) => l.change);
      const edits = buildDelta(family, changes, lengths, counts);
      delta = () => edits;
      const nextTotals = totals.slice();
      for (const c of changes) {
        for (let s = 0; s < nextTotals.length; s++) {
          nextTotals[s] = (nextTotals[s] as number) + (c.next?.counts[s] ?? 0) - (c.old?.counts[s] ?? 0);
        }
      }
      totals = nextTotals;
    } else {
      const none: RuleSet = { family, tables: [] };
      delta = () => none;
    }
    const initial = !synced;
    synced = true;

    const made = firstPayload;
    const ruleSet =
      made !== null
        ? () => made
        : lazy(() =>
            assemblePayload(
              ctx,
              snapshot.toArray().map((e) => e.rules),
            ),
          );
    const kept = rest;
    const state =
      touched > 0 || initial
        ? lazy(() =>
            kept === null ? stateAfterFullSync(ruleSet(), ctx.traits) : stateWith(kept(), ruleSet()),
          )
        : currentState;
    currentState = state;
    if (deltaText === null) {
      const made = delta();
      deltaText = made.tables.length === 0 ? "" : formatRestore(made);
    }
    const stats: SyncStats = {
      servicesExamined: dirty.size,
      portsAdded: added.length,
      portsRemoved: removed.length,
      portsChanged,
      blocksBuilt: built,
      chainsCreated: counts.chainsCreated,
      chainsRewritten: counts.chainsRewritten,
      chainsEdited: counts.chainsEdited,
      chainsDeleted: counts.chainsDeleted,
      rulesWritten: counts.inserted,
      rulesDeleted: counts.deleted,
      largeClusterMode: nowLarge,
      modeChanged,
      initial,
    };
    return {
      get ruleSet(): RuleSet {
        return ruleSet();
      },
      get state(): RuleSet {
        return state();
      },
      get delta(): RuleSet {
        return delta();
      },
      deltaText,
      stats,
      problems: checked?.problems ?? NO_PROBLEMS,
    };
  }

  return {
    update,
    get state(): RuleSet {
      return currentState();
    },
    config: resolved,
  };
}

/** The chains the kernel has before kube-proxy's first sync (built-in, and its jump targets). */
function predeclaredChains(ctx: GenerationContext): Record<"filter" | "nat", ReadonlySet<string>> {
  const existing = initialState(ctx);
  const of = (name: string) =>
    new Set(existing.tables.find((t) => t.name === name)?.chains.map((c) => c.name) ?? []);
  return { filter: of("filter"), nat: of("nat") };
}

/**
 * The first delta: the full payload, without declaring the chains the kernel already has (the
 * jump targets, which are empty until now).
 */
function firstDelta(ctx: GenerationContext, order: readonly PortEntry[]): RuleSet {
  const payload = assemblePayload(
    ctx,
    order.map((e) => e.rules),
  );
  const have = predeclaredChains(ctx);
  return {
    family: ctx.family,
    tables: payload.tables.map((table) => {
      const existing: ReadonlySet<string> = have[table.name as "filter" | "nat"] ?? new Set<string>();
      return { ...table, chains: table.chains.filter((c) => !existing.has(c.name)) };
    }),
  };
}
