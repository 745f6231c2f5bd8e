/**
 * Incremental generation: previous state + new Services and EndpointSlices → the new rules and
 * the minimal `iptables-restore --noflush` delta, regenerating only what changed.
 *
 * @module
 */
export { createSync, type Sync, type SyncOptions, type SyncResult, type SyncStats } from "./engine.js";
export { type IdentityChanges, identityChanges } from "./tracker.js";
