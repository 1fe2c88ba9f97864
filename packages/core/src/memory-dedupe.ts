import {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
} from "./dedupe-store.js";

export interface MemoryDedupeOptions {
  /** How long a processed report is remembered, in ms. Default 2 h: the provider's 90-minute retry window plus a margin. */
  ttlMs?: number;
  /** The most keys kept; past it the least recently used go first. Default 100,000 (about 15 MB). */
  maxKeys?: number;
  /** How long a claim holds a report whose handler is still running, in ms. Default 60 s. */
  leaseMs?: number;
}

interface Entry {
  done: boolean;
  owner: string;
  expiresAt: number;
}

/**
 * The default dedupe store: this process's memory, bounded (least recently used keys go first)
 * and synchronous, so it adds no await to a request. It protects one instance; several
 * instances behind one URL share nothing through it: use `redisDedupe` from @reportkit/redis.
 *
 * @example
 * createReceiver({ token, onDelivery, dedupe: memoryDedupe({ ttlMs: 3 * 60 * 60_000 }) });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const ttlMs = positive(options.ttlMs, DEFAULT_DEDUPE_TTL_MS, "ttlMs");
  const maxKeys = positive(options.maxKeys, 100_000, "maxKeys");
  const leaseMs = positive(options.leaseMs, DEFAULT_LEASE_MS, "leaseMs");
  // A Map iterates in insertion order: re-inserting on every write keeps it least-recent first.
  const entries = new Map<string, Entry>();
  // One iterator for all evictions, not a fresh `entries.keys()` each time: a fresh one walks
  // from the start over every deleted slot the Map has not compacted yet (tens of µs per new
  // report once the store is full); this one steps past each slot once. It also meets
  // re-inserted keys again at their new place, so the order stays least recent first.
  let oldest = entries.keys();

  function put(key: string, entry: Entry): void {
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxKeys) {
      let next = oldest.next();
      if (next.done === true) {
        oldest = entries.keys();
        next = oldest.next();
      }
      entries.delete(next.value as string);
    }
  }

  return {
    leaseMs,
    claim(key: string, owner: string): ClaimResult {
      const now = Date.now();
      const entry = entries.get(key);
      if (entry !== undefined && entry.expiresAt > now) return entry.done ? "done" : "busy";
      put(key, { done: false, owner, expiresAt: now + leaseMs });
      return "claimed";
    },
    complete(key: string, owner: string): void {
      put(key, { done: true, owner, expiresAt: Date.now() + ttlMs });
    },
    release(key: string, owner: string): void {
      const entry = entries.get(key);
      if (entry !== undefined && !entry.done && entry.owner === owner) entries.delete(key);
    },
  };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(
      `reportkit: memoryDedupe({ ${name} }) must be a positive whole number, got ${String(value)}.`,
    );
  }
  return value;
}
