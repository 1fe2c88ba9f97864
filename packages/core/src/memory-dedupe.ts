import {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
} from "./dedupe-store.js";

export interface MemoryDedupeOptions {
  /** How long a processed report is remembered, in ms. Default 2 h: the provider's 90-minute retry window plus a margin. */
  ttlMs?: number;
  /** The most keys kept; past it the least recently used go first. Default 100,000 (about 15 MB of heap). */
  maxKeys?: number;
  /** How long a claim holds a report whose handler is still running, in ms. Default 60 s. */
  leaseMs?: number;
}

/** A key whose handler may still be running: who holds it, until when (ms since `epoch`). */
interface Lease {
  readonly owner: string;
  readonly expiresAt: number;
}

/**
 * A key's state: a Lease while claimed; once done, only when it expires, in ms since the
 * store's epoch (for the first 12 days a small integer V8 stores inline, where an object and
 * a full timestamp per key would cost about 50 bytes more each, times maxKeys).
 */
type Entry = Lease | number;

/**
 * The default dedupe store: this process's memory, bounded (least recently used keys go first)
 * and synchronous, so it adds no await to a request. It protects one instance; several
 * instances behind one URL share nothing through it: use `redisDedupe` from @reportkit/redis.
 *
 * Memory: a default key (about 60 characters) costs about 150 bytes with the map's slot, so
 * the default 100,000 keys take about 15 MB of heap once that many reports came in within
 * `ttlMs`; a receiver's memory grows to that and stays there. Lower `maxKeys` to bound it.
 *
 * @example
 * createReceiver({ token, onDelivery, dedupe: memoryDedupe({ ttlMs: 3 * 60 * 60_000 }) });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const ttlMs = positive(options.ttlMs, DEFAULT_DEDUPE_TTL_MS, "ttlMs");
  const maxKeys = positive(options.maxKeys, 100_000, "maxKeys");
  const leaseMs = positive(options.leaseMs, DEFAULT_LEASE_MS, "leaseMs");
  const epoch = Date.now();
  // A Map iterates in insertion order: re-inserting on every write keeps it least-recent first.
  const entries = new Map<string, Entry>();
  // The key written last: writing it again needs no move to the end (no delete, no hole).
  let newest: string | undefined;
  // One iterator kept across evictions. A fresh `keys()` would start at the front and step over
  // every hole earlier deletes left there until the map compacts itself: at 100,000 keys, most
  // of a request's time. This one stays past them (V8 carries it across a compaction).
  let oldest: Iterator<string> | undefined;

  /** Writes the key as the most recent. Its own earlier slot, if any, is dropped first. */
  function put(key: string, entry: Entry): void {
    // The key written last is already at the end: set overwrites it in place. Any other is
    // deleted first (a no-op for a new key, and no dearer than asking `has`).
    if (key !== newest) entries.delete(key);
    entries.set(key, entry);
    newest = key;
    if (entries.size > maxKeys) evictOldest();
  }

  function evictOldest(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      oldest ??= entries.keys();
      const next = oldest.next();
      if (next.done !== true) {
        entries.delete(next.value);
        return;
      }
      oldest = undefined; // ran to the end: start again from the front
    }
  }

  function now(): number {
    return Date.now() - epoch;
  }

  return {
    leaseMs,
    claim(key: string, owner: string): ClaimResult {
      // A key built by concatenation is a tree of pieces (and holds the report's id string);
      // reading a character makes V8 flatten it into one string in place, so the map keeps
      // about 50 bytes less per key, and hashes it in one pass.
      key.charCodeAt(0);
      const at = now();
      const entry = entries.get(key);
      if (entry !== undefined) {
        if (typeof entry === "number") {
          if (entry > at) return "done";
        } else if (entry.expiresAt > at) return "busy";
      }
      if (entry === undefined) {
        // A new key, the usual case: appended, without the delete put would try.
        entries.set(key, { owner, expiresAt: at + leaseMs });
        newest = key;
        if (entries.size > maxKeys) evictOldest();
      } else put(key, { owner, expiresAt: at + leaseMs });
      return "claimed";
    },
    complete(key: string, _owner: string): void {
      put(key, now() + ttlMs);
    },
    release(key: string, owner: string): void {
      const entry = entries.get(key);
      if (entry !== undefined && typeof entry !== "number" && entry.owner === owner) {
        entries.delete(key);
      }
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
