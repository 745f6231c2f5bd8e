/**
 * The incremental engine: fed the current Services and EndpointSlices again and again, it keeps
 * one proxier's view (per-Service fingerprints of the family-filtered ports and endpoints), the
 * memoized rules of every service port, and the kernel state its deltas produce, so that an
 * update costs in proportion to what changed rather than to the cluster.
 *
 * @module
 */

import { formatRestore } from "../format/restore.js";
import { nodePortsTailRules } from "../generate/base-chains.js";
import { createContext, type GenerationContext, LARGE_CLUSTER_ENDPOINTS } from "../generate/context.js";
import { assemblePayload, stateAfterFullSync } from "../generate/rules.js";
import type { RuleSet } from "../ir/types.js";
import { resolveConfig } from "../kube/config.js";
import { endpointsByPort, portKey } from "../kube/endpoints.js";
import { servicePortsOf } from "../kube/service-ports.js";
import { modelPolicies } from "../kube/to-model.js";
import type { EndpointSlice, ProxyConfigInput, Service } from "../kube/types.js";
import type { IPFamily, ProxyConfig, ServicePort } from "../model/types.js";
import { servicePortName } from "../naming/chain-names.js";
import { buildEntry, compareEntries, type PortEntry } from "./blocks.js";
import { buildDelta, type PortChange, zeroCounts } from "./delta.js";
import { PortOrder } from "./order.js";
import { ClusterIndex } from "./tracker.js";

/** Options of {@link createSync}. */
export interface SyncOptions {
  /** The family of this proxier, overriding `config.ipFamily`. */
  readonly family?: IPFamily;
}

/** What one update did. */
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
  /** Whether this was the first update (the delta is then the full payload). */
  readonly initial: boolean;
}

/** The outcome of one update. */
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
}

/** A stateful incremental generator of one proxier (one family). */
export interface Sync {
  /**
   * Takes the current Services and EndpointSlices (pass unchanged objects as the same
   * references, as an informer cache does; a changed object must be a new object) and returns
   * the new rules, state and delta.
   */
  update(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): SyncResult;
  /** The kernel state the deltas so far produce (before any update: the jumps alone). */
  readonly state: RuleSet;
  /** The resolved node settings. */
  readonly config: ProxyConfig;
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let done = false;
  return () => {
    if (!done) {
      value = make();
      done = true;
    }
    return value as T;
  };
}

function portId(port: ServicePort): string {
  return `${servicePortName(port.namespace, port.name, port.portName)}\u0000${port.protocol}`;
}

/** The kernel before kube-proxy's first sync: built-in chains, its jump targets and the jumps. */
function initialState(family: IPFamily): RuleSet {
  return stateAfterFullSync({ family, tables: [] });
}

/**
 * Creates an incremental engine for one node and family. Stateful but free of side effects: it
 * does no I/O and never mutates its inputs.
 *
 * @param config - The node's settings, as in a cluster file's `config` (defaults filled in).
 * @example
 * const sync = createSync({ hostname: "node-a" });
 * sync.update(services, slices).deltaText;                 // the full payload, first
 * sync.update(servicesWithOneChange, slices).deltaText;   // "*nat\n…\nCOMMIT\n": that change only
 */
export function createSync(config?: ProxyConfigInput, options: SyncOptions = {}): Sync {
  const resolved = resolveConfig(config, options.family === undefined ? {} : { ipFamily: options.family });
  const policies = modelPolicies(resolved);
  const family = resolved.ipFamily;
  const normalCtx = createContext({ config: resolved, servicePorts: [] });
  const largeCtx: GenerationContext = { ...normalCtx, largeClusterMode: true };
  const tailLengths = [0, 0, 0, 0, nodePortsTailRules(normalCtx).length, 0];
  const index = new ClusterIndex();
  const portsOfService = new Map<string, string[]>();
  const entries = new Map<string, PortEntry>();
  let order = PortOrder.empty();
  let totals = [0, 0, 0, 0, 0, 0];
  let totalEndpoints = 0;
  let largeMode = false;
  let synced = false;
  let currentState: () => RuleSet = lazy(() => initialState(family));

  function update(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): SyncResult {
    const dirty = index.apply(services, endpointSlices);
    // 1. The proxier's view of each touched Service; a port counts as changed only if it did.
    const removedIds: string[] = [];
    const pending: { id: string; port: ServicePort; fingerprint: string }[] = [];
    for (const key of dirty) {
      const service = index.service(key);
      let ports =
        service === undefined ? [] : servicePortsOf(service, family, undefined, policies.honorIPMode);
      if (ports.length > 0) {
        const byPort = endpointsByPort(index.slicesOf(key), family, resolved.hostname, policies.duplicates);
        ports = ports.map((p) => {
          const list = byPort.get(portKey(p.portName, p.protocol));
          return list === undefined ? p : { ...p, endpoints: list };
        });
      }
      const ids: string[] = [];
      for (const port of ports) {
        const id = portId(port);
        if (ids.includes(id)) continue;
        ids.push(id);
        const fingerprint = JSON.stringify(port);
        const entry = entries.get(id);
        if (entry !== undefined && entry.fingerprint === fingerprint) continue;
        totalEndpoints += port.endpoints.length - (entry?.port.endpoints.length ?? 0);
        pending.push({ id, port, fingerprint });
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
      const entry = buildEntry(p.id, p.port, p.fingerprint, ctx);
      built++;
      fresh.add(p.id);
      entries.set(p.id, entry);
      if (old === undefined) added.push(entry);
      else replaced.set(p.id, old);
    }
    if (modeChanged) {
      for (const [id, old] of entries) {
        if (fresh.has(id)) continue;
        const entry = buildEntry(id, old.port, old.fingerprint, ctx);
        built++;
        entries.set(id, entry);
        replaced.set(id, old);
      }
    }
    const portsChanged = replaced.size;

    // 3. The new generation order (copy on write: earlier results keep their snapshot).
    const touched = added.length + removed.length + replaced.size;
    if (touched > 0) {
      const replacements = [...replaced.keys()].map((id) => entries.get(id) as PortEntry);
      order =
        touched * 16 > order.entries.length
          ? PortOrder.of([...entries.values()])
          : order.with(removed, replacements, added);
    }

    // 4. The delta.
    const counts = zeroCounts();
    let delta: RuleSet;
    const snapshot = order;
    if (!synced) {
      delta = firstDelta(ctx, snapshot.entries, family);
      counts.chainsCreated = snapshot.entries.reduce((n, e) => n + e.chains.size, 0);
      totals = snapshot.totals();
    } else if (touched > 0) {
      const lengths = totals.map((t, s) => t + (tailLengths[s] as number));
      // Each change at its index in the new order; a removed port where it would sort, before
      // the port now at that index.
      const located: { at: number; rank: number; old: PortEntry | null; next: PortEntry | null }[] = [];
      removed.sort(compareEntries);
      for (const old of removed) located.push({ at: snapshot.indexOf(old), rank: 0, old, next: null });
      for (const next of added) located.push({ at: snapshot.indexOf(next), rank: 1, old: null, next });
      for (const [id, old] of replaced) {
        const next = entries.get(id) as PortEntry;
        located.push({ at: snapshot.indexOf(next), rank: 1, old, next });
      }
      located.sort((x, y) => x.at - y.at || x.rank - y.rank);
      const starts = snapshot.prefixSums(located.map((l) => l.at));
      const changes: PortChange[] = located.map((l, i) => ({
        old: l.old,
        next: l.next,
        start: starts[i] as number[],
      }));
      delta = buildDelta(family, changes, lengths, counts);
      const nextTotals = totals.slice();
      for (const c of changes) {
        for (let s = 0; s < nextTotals.length; s++) {
          nextTotals[s] = (nextTotals[s] as number) + (c.next?.counts[s] ?? 0) - (c.old?.counts[s] ?? 0);
        }
      }
      totals = nextTotals;
    } else {
      delta = { family, tables: [] };
    }
    const initial = !synced;
    synced = true;

    const ruleSet = lazy(() =>
      assemblePayload(
        ctx,
        snapshot.entries.map((e) => e.rules),
      ),
    );
    const state = touched > 0 || initial ? lazy(() => stateAfterFullSync(ruleSet())) : currentState;
    currentState = state;
    const deltaText = delta.tables.length === 0 ? "" : formatRestore(delta);
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
      delta,
      deltaText,
      stats,
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

/**
 * The first delta: the full payload, without declaring the chains the kernel already has (the
 * jump targets, which are empty until now).
 */
function firstDelta(ctx: GenerationContext, order: readonly PortEntry[], family: IPFamily): RuleSet {
  const payload = assemblePayload(
    ctx,
    order.map((e) => e.rules),
  );
  const existing = initialState(family);
  return {
    family,
    tables: payload.tables.map((table) => {
      const have = new Set(
        existing.tables.find((t) => t.name === table.name)?.chains.map((c) => c.name) ?? [],
      );
      return { ...table, chains: table.chains.filter((c) => !have.has(c.name)) };
    }),
  };
}
