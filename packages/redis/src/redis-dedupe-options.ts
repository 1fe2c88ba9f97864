import {
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  type RedisClusterNode,
  type ResolvedClusterNodes,
  resolveClusterNodes,
} from "@reportkit/core/adapter";
import type { Cluster, Redis } from "ioredis";
import { DEFAULT_JOURNAL_PREFIX } from "./redis-journal.js";

export interface RedisDedupeOptions {
  /**
   * Where Redis listens, e.g. `redis://127.0.0.1:6379` or `rediss://user:pass@host:6380/2`.
   * The store opens its own connection (fail-fast settings, reconnecting by itself) and
   * `close()` closes it. Give one of `url`, `cluster` or `client`.
   */
  url?: string;
  /**
   * A Redis Cluster's nodes (some or all of them): `redis://host:port` URLs (`rediss://` for
   * TLS; a user name and password in them apply to every node) or `{ host, port }`. The store
   * opens its own `Cluster` connection, as for `url`. Each report is one key, so each report's
   * claim, completion and release stay on one slot.
   */
  cluster?: readonly RedisClusterNode[];
  /**
   * An ioredis client (`Redis`) or `Cluster` you already have. The store borrows it: `close()`
   * leaves it open. For a quick 503 while Redis is down, create it with
   * `enableOfflineQueue: false`; whatever its settings, every store call gives up after
   * `timeoutMs`.
   */
  client?: Redis | Cluster;
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
}

export const DEFAULT_PREFIX = "reportkit:dedupe:";
export const DEFAULT_TIMEOUT_MS = 1000;

export interface RedisDedupeConfig {
  connection:
    | { url: string; address: string }
    | { cluster: ResolvedClusterNodes; address: string }
    | { client: Redis | Cluster };
  prefix: string;
  ttlMs: number;
  leaseMs: number;
  timeoutMs: number;
  journalPrefix: string;
}

const OPTION_NAMES = new Set([
  "url",
  "cluster",
  "client",
  "prefix",
  "ttlMs",
  "leaseMs",
  "timeoutMs",
  "journalPrefix",
]);

/** Checks `redisDedupe`'s options once, at factory time. @throws TypeError saying what and how. */
export function resolveRedisDedupeOptions(options: RedisDedupeOptions): RedisDedupeConfig {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "redisDedupe: pass an options object, e.g. redisDedupe({ url: 'redis://127.0.0.1:6379' }).",
    );
  }
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name)) {
      throw new TypeError(
        `redisDedupe: unknown option \`${name}\`; the options are ${[...OPTION_NAMES].join(", ")}.`,
      );
    }
  }
  const ttlMs = positiveMs("ttlMs", options.ttlMs, DEFAULT_DEDUPE_TTL_MS);
  const leaseMs = positiveMs("leaseMs", options.leaseMs, DEFAULT_LEASE_MS);
  const timeoutMs = positiveMs("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS);
  if (leaseMs > ttlMs) {
    throw new TypeError(
      `redisDedupe: \`leaseMs\` (${leaseMs}) must not exceed \`ttlMs\` (${ttlMs}): a report is remembered at least as long as one attempt may hold it.`,
    );
  }
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== "string") {
    throw new TypeError(`redisDedupe: \`prefix\` must be a string, got ${typeof prefix}.`);
  }
  const journalPrefix = options.journalPrefix ?? DEFAULT_JOURNAL_PREFIX;
  if (typeof journalPrefix !== "string" || journalPrefix === prefix) {
    throw new TypeError(
      `redisDedupe: \`journalPrefix\` must be a string other than \`prefix\`, got ${JSON.stringify(journalPrefix)}.`,
    );
  }
  return { connection: connection(options), prefix, ttlMs, leaseMs, timeoutMs, journalPrefix };
}

function connection(options: RedisDedupeOptions): RedisDedupeConfig["connection"] {
  const { url, client, cluster } = options;
  const given = [url, cluster, client].filter((value) => value !== undefined).length;
  if (given > 1) {
    throw new TypeError(
      "redisDedupe: give one of `url`, `cluster` or `client` (with `client` the store uses yours as it is).",
    );
  }
  if (cluster !== undefined) {
    const resolved = resolveClusterNodes(cluster, "redisDedupe");
    return { cluster: resolved, address: resolved.address };
  }
  if (client !== undefined) {
    if (
      typeof client !== "object" ||
      client === null ||
      typeof client.evalsha !== "function" ||
      typeof client.set !== "function"
    ) {
      throw new TypeError(
        "redisDedupe: `client` must be an ioredis client or Cluster, e.g. new Redis('redis://127.0.0.1:6379', { enableOfflineQueue: false }).",
      );
    }
    return { client };
  }
  if (url === undefined) {
    throw new TypeError(
      "redisDedupe: give `url` (e.g. 'redis://127.0.0.1:6379'), `cluster` (a Redis Cluster's nodes) or `client` (an ioredis client or Cluster).",
    );
  }
  if (typeof url !== "string") {
    throw new TypeError(`redisDedupe: \`url\` must be a string, got ${typeof url}.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(
      "redisDedupe: `url` is not a URL; give it with its scheme, e.g. 'redis://127.0.0.1:6379'.",
    );
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new TypeError(
      `redisDedupe: \`url\` must start with redis:// or rediss:// (TLS), got the scheme ${parsed.protocol}`,
    );
  }
  // Only scheme, host and port ever appear in messages: never a user name or password.
  return { url, address: `${parsed.protocol}//${parsed.host}` };
}

function positiveMs(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(
      `redisDedupe: \`${name}\` must be a whole number of milliseconds above 0, got ${String(value)}.`,
    );
  }
  return value;
}
