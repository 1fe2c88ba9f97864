import { type RedisClusterNode, resolveClusterNodes } from "@reportkit/core/adapter";
import { Cluster, Redis, type RedisOptions } from "ioredis";

/**
 * Where Redis is: a URL (`redis://127.0.0.1:6379`, `rediss://…` for TLS), ioredis options
 * (`{ host, port, password, … }`), a Redis Cluster's nodes (`{ cluster: ["redis://h1:7000",
 * …] }`, or `{ host, port }` entries), or an ioredis `Redis` or `Cluster` you made (it is then
 * shared, not closed by reportkit, and keeps its own options).
 */
export type RedisConnection =
  | string
  | RedisOptions
  | { cluster: readonly RedisClusterNode[] }
  | Redis
  | Cluster;

/** A connection reportkit holds: one Redis, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** The default queue name: the receiver and the worker must use the same one. */
export const DEFAULT_QUEUE_NAME = "reportkit";

export interface OwnedClient {
  readonly client: RedisClient;
  /** Whether reportkit made the client (and so closes it). */
  readonly owned: boolean;
}

/**
 * The client for adding jobs: no offline queue, so a command issued while Redis is down fails
 * at once instead of waiting (unbounded) for a reconnection; the receiver answers 503 then and
 * the provider retries later.
 */
export function producerClient(connection: RedisConnection, where: string): OwnedClient {
  return makeClient(connection, where, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
}

/**
 * The client for a worker: BullMQ needs `maxRetriesPerRequest: null` for its blocking reads,
 * and a worker should simply wait for Redis to come back.
 */
export function workerClient(connection: RedisConnection, where: string): OwnedClient {
  return makeClient(connection, where, { maxRetriesPerRequest: null });
}

function makeClient(
  connection: RedisConnection,
  where: string,
  options: RedisOptions,
): OwnedClient {
  if (connection instanceof Redis || connection instanceof Cluster) {
    return { client: connection, owned: false };
  }
  if (typeof connection === "string") {
    if (!/^rediss?:\/\//.test(connection)) {
      throw new TypeError(
        `reportkit bullmq: ${where}: \`connection\` must be a redis:// or rediss:// URL, { host, port } or an ioredis client, got "${connection}".`,
      );
    }
    return { client: new Redis(connection, { ...options, lazyConnect: false }), owned: true };
  }
  if (typeof connection !== "object" || connection === null) {
    throw new TypeError(
      `reportkit bullmq: ${where}: give \`connection\`: a redis:// URL, { host, port } or an ioredis client.`,
    );
  }
  if ("cluster" in connection) {
    const cluster = resolveClusterNodes(connection.cluster, `reportkit bullmq: ${where}`);
    const { enableOfflineQueue, ...nodeOptions } = options;
    const client = new Cluster(cluster.nodes, {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...cluster.redisOptions, ...nodeOptions },
    });
    return { client, owned: true };
  }
  return { client: new Redis({ ...connection, ...options }), owned: true };
}

/** By ioredis's own flag, not `instanceof`: the caller's ioredis may be another copy. */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/**
 * BullMQ's key prefix. Every key of a queue is "<prefix>:<queue name>:…", and BullMQ's Lua
 * scripts touch several of them at once, so on a Redis Cluster they must all hash to one slot:
 * the prefix (or the queue name) must hold a hash tag. The default there is "{<queue name>}"
 * (each queue on one slot, different queues spread over the cluster); on one Redis "bull".
 */
export function queuePrefixOf(
  prefix: unknown,
  queueName: string,
  connection: RedisConnection,
  where: string,
): string {
  const cluster = isClusterConnection(connection);
  if (prefix === undefined) {
    if (!cluster) return "bull";
    prefix = `{${queueName}}`;
  }
  if (typeof prefix !== "string" || prefix === "") {
    throw new TypeError(
      `reportkit bullmq: ${where}: \`prefix\` must be a non-empty string, got ${JSON.stringify(prefix)}.`,
    );
  }
  if (cluster && !hasHashTag(`${prefix}:${queueName}`)) {
    throw new TypeError(
      `reportkit bullmq: ${where}: on a Redis Cluster every key of a queue must be on one slot, so \`prefix\` needs a hash tag, e.g. "{${queueName}}" (got ${JSON.stringify(prefix)}); the receiver, the worker and \`reportkit queue\` must use the same.`,
    );
  }
  return prefix;
}

/** Whether the connection is to a Redis Cluster (known before any client is made). */
function isClusterConnection(connection: RedisConnection): boolean {
  if (typeof connection !== "object" || connection === null) return false;
  if (connection instanceof Redis || connection instanceof Cluster) return isCluster(connection);
  return "cluster" in connection;
}

/** Whether Redis Cluster hashes `key` by a tag: a "{", later a "}", something between. */
function hasHashTag(key: string): boolean {
  const open = key.indexOf("{");
  if (open === -1) return false;
  const close = key.indexOf("}", open + 1);
  return close > open + 1;
}

/** Validates a queue name once (BullMQ forbids ":" in it; Redis keys are built from it). */
export function queueNameOf(queueName: unknown, where: string): string {
  if (queueName === undefined) return DEFAULT_QUEUE_NAME;
  if (typeof queueName !== "string" || queueName === "" || queueName.includes(":")) {
    throw new TypeError(
      `reportkit bullmq: ${where}: \`queueName\` must be a non-empty string without ":", got ${JSON.stringify(queueName)}.`,
    );
  }
  return queueName;
}

/** "redis at host:port" (or "redis cluster at h1:p1,…") for messages, never a password. */
export function describeClient(client: RedisClient): string {
  if (isCluster(client)) {
    const nodes = client.nodes("master").map((n) => `${n.options.host}:${n.options.port}`);
    return nodes.length === 0 ? "the redis cluster" : `redis cluster at ${nodes.join(",")}`;
  }
  const { host, port, path } = client.options;
  return path ? `redis at ${path}` : `redis at ${host ?? "127.0.0.1"}:${port ?? 6379}`;
}

/**
 * Resolves when the client is connected. Before the first connection it waits for it (or the
 * next connection error); once it has been connected and lost the connection it rejects at
 * once: waiting for a reconnection would only hold the provider's request until its timeout.
 */
export function connected(client: RedisClient): Promise<void> {
  const status = client.status;
  if (status === "ready") return Promise.resolve();
  if (status === "end" || status === "close" || status === "reconnecting") {
    return Promise.reject(new Error(`reportkit bullmq: ${describeClient(client)} is unreachable.`));
  }
  // One wait per connection attempt, shared by every request that arrives meanwhile.
  let pending = connecting.get(client);
  if (pending === undefined) {
    pending = new Promise<void>((resolve, reject) => {
      const settle = () => {
        connecting.delete(client);
        client.off("ready", onReady);
        client.off("error", onFailure);
        client.off("end", onFailure);
      };
      const onReady = () => {
        settle();
        resolve();
      };
      const onFailure = (error?: Error) => {
        settle();
        const why = error?.message === undefined ? "" : `: ${error.message}`;
        reject(new Error(`reportkit bullmq: ${describeClient(client)} is unreachable${why}.`));
      };
      client.once("ready", onReady);
      client.once("error", onFailure);
      client.once("end", onFailure);
    });
    connecting.set(client, pending);
  }
  return pending;
}

const connecting = new WeakMap<RedisClient, Promise<void>>();
