import {
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type JournalBodies,
  type JournalLimits,
  journalLimits,
  readOptions,
} from "@reportkit/core/adapter";
import {
  type CheckedConnection,
  checkConnection,
  RENAMED_CONNECTION_OPTIONS,
  type RedisConnection,
} from "./redis-connection.js";
import { DEFAULT_JOURNAL_PREFIX } from "./redis-journal.js";

export interface RedisDedupeOptions {
  /**
   * Where Redis is: a `redis://` or `rediss://` URL (e.g. `rediss://user:pass@host:6380/2`),
   * ioredis options (`{ host, port, … }`), a Redis Cluster's nodes (`{ cluster:
   * ["redis://h1:7000", …] }`; a user name and password in the URLs apply to every node), or an
   * ioredis `Redis` or `Cluster` you already have. From a URL, options or nodes the store opens
   * its own connection (fail-fast settings, reconnecting by itself) and `close()` closes it; your
   * own client is borrowed, never closed (create it with `enableOfflineQueue: false` for a quick
   * 503 while Redis is down; whatever its settings, every store call gives up after
   * `timeoutMs`). On a cluster each report is one key, so each report's claim, completion and
   * release stay on one slot.
   */
  connection: RedisConnection;
  /** Put before every report's key. Default "reportkit:dedupe:". */
  prefix?: string;
  /**
   * How long a processed report is remembered, in ms. Default 2 h: the provider's retry
   * window (3 retries, 30 min apart) plus a margin.
   */
  ttlMs?: number;
  /**
   * How long a claim holds before it runs out by itself (a process killed mid-handler holds
   * nothing forever), in ms. Default 60 s: past the receiver's answer deadline, well before
   * the provider's next retry.
   */
  leaseMs?: number;
  /**
   * How long one store call may take before Redis counts as unreachable and the receiver
   * answers 503 `dedupe_unavailable`, in ms. Default 1000.
   */
  timeoutMs?: number;
  /** Put before the failure journal's keys. Default "reportkit:journal:". */
  journalPrefix?: string;
  /** How long a failed or refused journal entry is kept after it was last seen, in ms. Default 14 days. */
  journalRetentionMs?: number;
  /** How many journal entries are kept at most, the oldest dropped first. Default 100,000. */
  journalMaxEntries?: number;
  /** What the journal keeps of a body: "full" (default; replayable) or "redacted" (no phone numbers). */
  journalBodies?: JournalBodies;
}

export const DEFAULT_PREFIX = "reportkit:dedupe:";
export const DEFAULT_TIMEOUT_MS = 1000;

export interface RedisDedupeConfig {
  connection: CheckedConnection;
  prefix: string;
  ttlMs: number;
  leaseMs: number;
  timeoutMs: number;
  journalPrefix: string;
  journal: JournalLimits;
}

/** Checks `redisDedupe`'s options once, at factory time. @throws TypeError saying what and how. */
export function resolveRedisDedupeOptions(options: RedisDedupeOptions): RedisDedupeConfig {
  const read = readOptions("redisDedupe", options, {
    example: `redisDedupe({ connection: "redis://127.0.0.1:6379" })`,
    known: [
      "connection",
      "prefix",
      "ttlMs",
      "leaseMs",
      "timeoutMs",
      "journalPrefix",
      "journalRetentionMs",
      "journalMaxEntries",
      "journalBodies",
    ],
    renamed: RENAMED_CONNECTION_OPTIONS,
  });
  const ttlMs = read.positiveMs("ttlMs", DEFAULT_DEDUPE_TTL_MS);
  const leaseMs = read.positiveMs("leaseMs", DEFAULT_LEASE_MS);
  const timeoutMs = read.positiveMs("timeoutMs", DEFAULT_TIMEOUT_MS);
  if (leaseMs > ttlMs) {
    throw new TypeError(
      `redisDedupe: \`leaseMs\` (${leaseMs}) must not exceed \`ttlMs\` (${ttlMs}): a report is remembered at least as long as one attempt may hold it.`,
    );
  }
  const prefix = read.string("prefix", DEFAULT_PREFIX);
  const journalPrefix = read.string("journalPrefix", DEFAULT_JOURNAL_PREFIX);
  if (journalPrefix === prefix) {
    throw new TypeError(
      `redisDedupe: \`journalPrefix\` must differ from \`prefix\`, got ${JSON.stringify(prefix)} for both.`,
    );
  }
  const journal = journalLimits(read, "journal");
  const connection = checkConnection(options.connection, "redisDedupe");
  return { connection, prefix, ttlMs, leaseMs, timeoutMs, journalPrefix, journal };
}
