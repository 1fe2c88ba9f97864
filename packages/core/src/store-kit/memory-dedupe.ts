import {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
} from "./dedupe-store.js";
import { KeyTable } from "./key-table.js";
import { readOptions } from "./option-checks.js";

export interface MemoryDedupeOptions {
  /** How long a processed report is remembered, in ms. Default 2 h: the provider's 90-minute retry window plus a margin. */
  ttlMs?: number;
  /** The most keys kept (reports processed or being processed); past it the least recently written go first. Default 100,000 (4.5 MB once full). */
  maxKeys?: number;
  /** How long a claim holds a report whose handler is still running, in ms. Default 60 s. */
  leaseMs?: number;
}

/**
 * The default dedupe store: this process's memory, bounded (the least recently written keys go
 * first) and synchronous, so it adds no await to a request. It protects one instance; several
 * instances behind one URL share nothing through it: use `redisDedupe` from @reportkit/redis.
 *
 * Keys are kept as a 96-bit hash (see KeyTable): the default 100,000 take 4.5 MB once that
 * many reports came in within `ttlMs`. A key is written when it is claimed;
 * completing its claim marks it done in place, for `ttlMs` from the claim.
 *
 * @example
 * createReceiver({ token, onDelivery, dedupe: memoryDedupe({ ttlMs: 3 * 60 * 60_000 }) });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const read = readOptions("memoryDedupe", options, {
    example: "memoryDedupe({ maxKeys: 100_000 })",
    known: ["ttlMs", "maxKeys", "leaseMs"],
  });
  const ttlMs = read.positiveMs("ttlMs", DEFAULT_DEDUPE_TTL_MS);
  const maxKeys = read.wholeNumber("maxKeys", 100_000);
  const leaseMs = read.positiveMs("leaseMs", DEFAULT_LEASE_MS);
  const epoch = Date.now();
  const keys = new KeyTable(maxKeys);

  return {
    leaseMs,
    claim(key: string, owner: string): ClaimResult {
      const at = Date.now() - epoch;
      const entry = keys.find(key);
      if (entry === -1) {
        keys.add(key, at + leaseMs, owner); // the usual case: a report not seen before
        return "claimed";
      }
      if (keys.expiresAt(entry) > at) return keys.owner(entry) === undefined ? "done" : "busy";
      // Expired (a lease run out, or a done key past its TTL): claimed anew, as the newest.
      keys.remove(entry);
      keys.add(key, at + leaseMs, owner);
      return "claimed";
    },
    complete(key: string, _owner: string): void {
      // Done whoever holds the claim now: the report was processed.
      const entry = keys.find(key);
      if (entry !== -1 && keys.owner(entry) !== undefined) {
        // Counted from the claim, whose time the lease holds: no second clock read.
        keys.update(entry, keys.expiresAt(entry) - leaseMs + ttlMs);
        return;
      }
      if (entry !== -1) keys.remove(entry);
      keys.add(key, Date.now() - epoch + ttlMs);
    },
    release(key: string, owner: string): void {
      const entry = keys.find(key);
      if (entry !== -1 && keys.owner(entry) === owner) keys.remove(entry);
    },
  };
}
