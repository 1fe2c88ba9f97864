import { readOptions } from "../base/attorney.js";
import {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type DedupeStore,
} from "./dedupe-store.js";

export interface MemoryDedupeOptions {
  /** How long a processed report is remembered, in ms. Default 2 h (retries come for 90 min). */
  ttlMs?: number;
  /** The most keys kept, the least recently written dropped first. Default 100,000 (~24 MB of heap). */
  maxKeys?: number;
  /** How long a claim holds a report whose handler is still running, in ms. Default 60 s. */
  leaseMs?: number;
}

type Held = { readonly owner: string; readonly until: number };

/**
 * The default dedupe store: this process's memory, bounded (the least recently written keys go
 * first). Several instances share nothing through it: use `redisDedupe` or `postgresInbox`.
 *
 * @example
 * createReceiver({ dedupe: memoryDedupe({ ttlMs: 3 * 60 * 60_000 }), onDelivery });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const read = readOptions("memoryDedupe", options, {
    example: "memoryDedupe({ maxKeys: 100_000 })",
    known: ["ttlMs", "maxKeys", "leaseMs"],
  });
  const ttlMs = read.positiveMs("ttlMs", DEFAULT_DEDUPE_TTL_MS);
  const maxKeys = read.wholeNumber("maxKeys", 100_000);
  const leaseMs = read.positiveMs("leaseMs", DEFAULT_LEASE_MS);
  // In the order keys were written: a processed key holds when it expires, a claimed one its
  // owner and lease. At 100,000 keys of the provider's ids, about 24 MB of heap (docs/performance.md).
  const keys = new Map<string, number | Held>();
  // The oldest key is the next one this one iterator gives: every key before it is gone. A new
  // `keys.keys().next()` per eviction would step over every deleted entry still in V8's table
  // first: 11-20 µs a report once the store is full, against 0.7 with this.
  let oldest = keys.keys();

  function write(key: string, value: number | Held): void {
    keys.delete(key);
    if (keys.size >= maxKeys) {
      let next = oldest.next();
      if (next.done === true) {
        oldest = keys.keys();
        next = oldest.next();
      }
      keys.delete(next.value as string);
    }
    keys.set(key, value);
  }

  return {
    leaseMs,
    claim(key: string, owner: string): ClaimResult {
      const now = Date.now();
      const found = keys.get(key);
      if (typeof found === "number" && found > now) return "done";
      if (typeof found === "object" && found.until > now) return "busy";
      // New, or run out (a lease, or a done key past its TTL): claimed, as the newest.
      write(key, { owner, until: now + leaseMs });
      return "claimed";
    },
    complete(key: string, _owner: string): void {
      // Done whoever holds the claim now: the report was processed.
      write(key, Date.now() + ttlMs);
    },
    release(key: string, owner: string): void {
      const found = keys.get(key);
      if (typeof found === "object" && found.owner === owner) keys.delete(key);
    },
  };
}
