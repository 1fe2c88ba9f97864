import { Redis, type RedisOptions } from "ioredis";

/**
 * Where Redis is: a URL (`redis://127.0.0.1:6379`, `rediss://…` for TLS), ioredis options
 * (`{ host, port, password, … }`), or an ioredis client you made (it is then shared, not closed
 * by reportkit, and keeps its own options).
 */
export type RedisConnection = string | RedisOptions | Redis;

/** The default queue name: the receiver and the worker must use the same one. */
export const DEFAULT_QUEUE_NAME = "reportkit";

export interface OwnedClient {
  readonly client: Redis;
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

function makeClient(connection: RedisConnection, where: string, options: RedisOptions) {
  if (connection instanceof Redis) return { client: connection, owned: false };
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
  return { client: new Redis({ ...connection, ...options }), owned: true };
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

/** "redis://host:port" for messages, never a password. */
export function describeClient(client: Redis): string {
  const { host, port, path } = client.options;
  return path ? `redis at ${path}` : `redis at ${host ?? "127.0.0.1"}:${port ?? 6379}`;
}

/**
 * Resolves when the client is connected. Before the first connection it waits for it (or the
 * next connection error); once it has been connected and lost the connection it rejects at
 * once: waiting for a reconnection would only hold the provider's request until its timeout.
 */
export function connected(client: Redis): Promise<void> {
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

const connecting = new WeakMap<Redis, Promise<void>>();
