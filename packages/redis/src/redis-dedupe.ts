import type { ClaimResult, DedupeStore, ReadableJournal } from "@reportkit/core/adapter";
import { storedKey } from "@reportkit/wire/internal";
import { CLAIM, COMPLETE, DONE, LEASE_PREFIX, RELEASE, RESOLVE } from "./lua-scripts.js";
import { FAIL_FAST, isCluster, type RedisClient } from "./redis-connection.js";
import { type RedisDedupeOptions, resolveRedisDedupeOptions } from "./redis-dedupe-options.js";
import { journalKeys, journalOn, RESOLVED_TTL_MS } from "./redis-journal.js";

/** A `DedupeStore` in Redis, shared by every receiver instance that points at the same server. */
export interface RedisDedupeStore extends DedupeStore {
  readonly leaseMs: number;
  /** How long a processed report is remembered, in ms. */
  readonly ttlMs: number;
  /** What every key starts with. */
  readonly prefix: string;
  /** "redis": what `receiver.health()` calls this store in its messages. */
  readonly name: "redis";
  /**
   * The failure journal in the same Redis: reports that could not be processed, for
   * `reportkit journal list` and `reportkit replay`. The receiver uses it unless `journal: false`.
   */
  readonly journal: Omit<ReadableJournal, "close">;
  /**
   * One PING round trip (to every master of a Redis Cluster), for `receiver.health()`; rejects,
   * naming Redis, when it is unreachable.
   */
  ping(): Promise<void>;
  /**
   * Closes the connection the store opened (a client you gave as `connection` stays open: it
   * is yours to close). Later calls reject.
   */
  close(): Promise<void>;
}

/**
 * A dedupe store in Redis, so that several instances of a service behind one URL process each
 * report once: pass it as the receiver's `dedupe` option.
 *
 * Claims are atomic (one Lua script: SET NX PX, else read whether the key is done), completes
 * are one SET with the TTL, releases are a compare-and-delete script that frees a key only for
 * the attempt that still holds it. Nothing polls. While Redis is unreachable every call rejects
 * within `timeoutMs` (the receiver then answers 503 `dedupe_unavailable` and the provider
 * retries later); the store's own connection reconnects by itself.
 *
 * @example
 * import { createReceiver } from "@reportkit/core";
 * import { redisDedupe } from "@reportkit/redis";
 *
 * const receiver = createReceiver({
 *   secret: process.env.REPORTKIT_SECRET,
 *   dedupe: redisDedupe({ connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }),
 *   onDelivery: (report, ctx) => console.log(ctx.dedupeKey, report.status),
 * });
 */
export function redisDedupe(options: RedisDedupeOptions): RedisDedupeStore {
  const config = resolveRedisDedupeOptions(options);
  const { prefix, ttlMs, leaseMs, timeoutMs, journalPrefix } = config;
  const journalEntry = journalKeys(journalPrefix).entry;
  const redis = config.connection.open(FAIL_FAST);
  const { client } = redis;
  let closed = false;

  function call<T>(what: string, command: () => Promise<T>): Promise<T> {
    if (closed) {
      return Promise.reject(new Error(`redisDedupe: ${what} after close(); the store is closed.`));
    }
    return redis.call(what, timeoutMs, command);
  }

  return {
    name: "redis",
    leaseMs,
    ttlMs,
    prefix,
    async ping(): Promise<void> {
      await call("ping", () => pingEvery(client));
    },
    journal: journalOn(client, journalPrefix, call, "redisDedupe.journal", config.journal),
    claim(key: string, owner: string): Promise<ClaimResult> {
      return call("claim", async () => {
        const reply = await CLAIM.run(client, prefix + (await storedKey(key)), [
          LEASE_PREFIX + owner,
          String(leaseMs),
        ]);
        if (reply === "claimed" || reply === "done" || reply === "busy") return reply;
        throw new Error(`unexpected reply to the claim script: ${String(reply)}`);
      });
    },
    async complete(key: string, _owner: string): Promise<void> {
      // Done whoever holds the key: the handler succeeded, even if this attempt's lease ran out.
      // An earlier failed attempt kept in the journal is marked resolved in the same step; on a
      // Redis Cluster the key and the journal (one slot of its own) are on different slots, so
      // in two steps there.
      await call("complete", async () => {
        const stored = await storedKey(key);
        return isCluster(client)
          ? client
              .set(prefix + stored, DONE, "PX", ttlMs)
              .then(() => RESOLVE.run(client, journalEntry(stored), [String(RESOLVED_TTL_MS)]))
          : COMPLETE.run(
              client,
              [prefix + stored, journalEntry(stored)],
              [String(ttlMs), String(RESOLVED_TTL_MS)],
            );
      });
    },
    async release(key: string, owner: string): Promise<void> {
      await call("release", async () =>
        RELEASE.run(client, prefix + (await storedKey(key)), [LEASE_PREFIX + owner]),
      );
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await redis.close(timeoutMs);
    },
  };
}

/**
 * PING; on a cluster, PING to the master of every slot range (each holds some reports' keys),
 * named from the cluster's slot map, so a master that went away fails the check even after the
 * client dropped its connection.
 */
async function pingEvery(client: RedisClient): Promise<void> {
  if (!isCluster(client) || client.status !== "ready") {
    await client.ping();
    return;
  }
  const connected = new Map(
    client.nodes("master").map((node) => [`${node.options.host}:${node.options.port}`, node]),
  );
  const masters = new Set<string>();
  for (const slot of client.slots) if (slot?.[0] !== undefined) masters.add(slot[0]);
  await Promise.all(
    [...masters].map(async (key) => {
      const node = connected.get(key);
      if (node === undefined) throw new Error(`node ${key} (serving slots) is not connected`);
      try {
        await node.ping();
      } catch (cause) {
        const message = cause instanceof Error ? cause.message : String(cause);
        throw new Error(`node ${key}: ${message}`, { cause });
      }
    }),
  );
}
