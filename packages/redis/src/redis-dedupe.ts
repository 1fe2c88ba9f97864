import type { ClaimResult, DedupeStore, ResolvedClusterNodes } from "@reportkit/core/adapter";
import { Cluster, Redis } from "ioredis";
import { CLAIM, COMPLETE, DONE, LEASE_PREFIX, RELEASE, RESOLVE } from "./lua-scripts.js";
import { type RedisDedupeOptions, resolveRedisDedupeOptions } from "./redis-dedupe-options.js";
import { journalKeys, journalOn, RESOLVED_TTL_MS, type RedisJournal } from "./redis-journal.js";

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
  readonly journal: Omit<RedisJournal, "close">;
  /**
   * One PING round trip (to every master of a Redis Cluster), for `receiver.health()`; rejects,
   * naming Redis, when it is unreachable.
   */
  ping(): Promise<void>;
  /**
   * Closes the connection the store opened from `url` (a borrowed `client` stays open: it is
   * yours to close). Later calls reject.
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
 *   token: process.env.REPORTKIT_TOKEN,
 *   dedupe: redisDedupe({ url: process.env.REDIS_URL }),
 *   onDelivery: (report, ctx) => console.log(ctx.dedupeKey, report.status),
 * });
 */
export function redisDedupe(options: RedisDedupeOptions): RedisDedupeStore {
  const config = resolveRedisDedupeOptions(options);
  const { prefix, ttlMs, leaseMs, timeoutMs, journalPrefix } = config;
  const journalEntry = journalKeys(journalPrefix).entry;
  let lastError: Error | undefined;
  const { connection } = config;
  const owned = !("client" in connection);
  const onError = (error: Error) => {
    lastError = error;
  };
  const client =
    "client" in connection
      ? connection.client
      : "cluster" in connection
        ? openCluster(connection.cluster, onError)
        : openClient(connection.url, onError);
  // A connection error seen before the last successful connect says nothing about now.
  if (owned) client.on("ready", () => (lastError = undefined));
  // A borrowed Cluster knows its nodes only once connected: described when a message needs it.
  const address = () => ("address" in connection ? connection.address : describeClient(client));
  const where = isCluster(client) ? "Redis Cluster" : "Redis";
  let closed = false;
  const whenConnected = connectionWaiter(client, timeoutMs);

  async function call<T>(what: string, command: () => Promise<T>): Promise<T> {
    if (closed) throw new Error(`redisDedupe: ${what} after close(); the store is closed.`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no reply within ${timeoutMs} ms (timeoutMs)`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([whenConnected().then(command), timedOut]);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      // The connection's own last error says why (a refused connection, a wrong password)
      // better than the command's "Stream isn't writeable".
      const reason =
        client.status !== "ready" && lastError !== undefined
          ? `${message}; not connected: ${lastError.message}`
          : message;
      throw new Error(`redisDedupe: ${what} failed on ${where} at ${address()} (${reason}).`, {
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    name: "redis",
    leaseMs,
    ttlMs,
    prefix,
    async ping(): Promise<void> {
      await call("ping", () => pingEvery(client));
    },
    journal: journalOn(client, journalPrefix, call),
    claim(key: string, owner: string): Promise<ClaimResult> {
      return call("claim", async () => {
        const reply = await CLAIM.run(client, prefix + key, [
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
      await call("complete", () =>
        isCluster(client)
          ? client
              .set(prefix + key, DONE, "PX", ttlMs)
              .then(() => RESOLVE.run(client, journalEntry(key), [String(RESOLVED_TTL_MS)]))
          : COMPLETE.run(
              client,
              [prefix + key, journalEntry(key)],
              [String(ttlMs), String(RESOLVED_TTL_MS)],
            ),
      );
    },
    async release(key: string, owner: string): Promise<void> {
      await call("release", () => RELEASE.run(client, prefix + key, [LEASE_PREFIX + owner]));
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (!owned) return;
      if (client.status === "ready") {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          await Promise.race([
            client.quit(),
            new Promise((r) => (timer = setTimeout(r, timeoutMs))),
          ]);
        } catch {
          // Closing anyway, just below.
        } finally {
          clearTimeout(timer);
        }
      }
      client.disconnect();
    },
  };
}

/**
 * The store's own connection, set to fail fast: no offline queue (a command while
 * disconnected rejects at once instead of waiting for a reconnect), no retry or resend of a
 * command cut off mid-flight (a late claim would hold a lease nobody completes), and a
 * reconnect every second at most, so processing resumes soon after Redis is back.
 */
function openClient(url: string, onError: (error: Error) => void): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  // Without a listener ioredis prints every failed reconnect; the store reports the last one
  // in the rejection of the call that needed the connection instead.
  client.on("error", onError);
  return client;
}

/**
 * The same fail-fast settings for a Redis Cluster: on every node, and for the cluster itself
 * (no offline queue; it looks for the nodes again every second at most).
 */
function openCluster(cluster: ResolvedClusterNodes, onError: (error: Error) => void): Cluster {
  const client = new Cluster(cluster.nodes, {
    enableOfflineQueue: false,
    clusterRetryStrategy: (times) => Math.min(times * 100, 1000),
    redisOptions: {
      ...cluster.redisOptions,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    },
  });
  client.on("error", onError);
  return client;
}

/**
 * PING; on a cluster, PING to the master of every slot range (each holds some reports' keys),
 * named from the cluster's slot map, so a master that went away fails the check even after the
 * client dropped its connection.
 */
async function pingEvery(client: Redis | Cluster): Promise<void> {
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

/** By ioredis's own flag, not `instanceof`: the caller's ioredis may be another copy. */
function isCluster(client: Redis | Cluster): client is Cluster {
  return client.isCluster;
}

/** Where a borrowed client points, for messages: scheme, host and port only. */
function describeClient(client: Redis | Cluster): string {
  if (!isCluster(client)) {
    return `redis://${client.options.host ?? "127.0.0.1"}:${client.options.port ?? 6379}`;
  }
  const nodes = client.nodes("master").map((node) => `${node.options.host}:${node.options.port}`);
  return nodes.length === 0 ? "its startup nodes" : `redis://${nodes.join(",")}`;
}

/**
 * Waits while a connection attempt is under way (the first one, right after start-up), so the
 * first reports are not refused only because the socket was still opening; at once otherwise.
 * Concurrent calls share one wait (one pair of listeners on the client, however many calls).
 */
function connectionWaiter(client: Redis | Cluster, timeoutMs: number): () => Promise<void> {
  let waiting: Promise<void> | undefined;
  return () => {
    if (client.status !== "connecting" && client.status !== "connect") return Promise.resolve();
    waiting ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        client.off("ready", done);
        client.off("close", done);
        waiting = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      client.once("ready", done);
      client.once("close", done);
    });
    return waiting;
  };
}
