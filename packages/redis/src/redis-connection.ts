// One way to Redis for reportkit's Redis packages (this package's store and journal, and
// @reportkit/bullmq's queue, worker and tools): the one option shape for "a Redis" checked
// once, before any client is made; a client opened with the caller's settings, or the user's
// own borrowed and never closed; one bounded wait for readiness; and every failure said as a
// StoreError naming the address (scheme, host and port: never a user name or password).
import { reasonOf, StoreError, shown } from "@reportkit/core/adapter";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import {
  type RedisClusterNode,
  type ResolvedClusterNodes,
  resolveClusterNodes,
} from "./redis-nodes.js";

/**
 * Where Redis is: a URL (`redis://127.0.0.1:6379`, `rediss://…` for TLS), ioredis options
 * (`{ host, port, password, … }`), a Redis Cluster's nodes (`{ cluster: ["redis://h1:7000",
 * …] }`, or `{ host, port }` entries), or an ioredis `Redis` or `Cluster` you made (it is then
 * borrowed: used with its own options, never closed by reportkit).
 */
export type RedisConnection =
  | string
  | RedisOptions
  | { readonly cluster: readonly RedisClusterNode[] }
  | Redis
  | Cluster;

/** A connection reportkit holds: one Redis, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * The settings of a store's own connection, to fail fast: no offline queue (a command while
 * disconnected rejects at once instead of waiting for a reconnect), no retry or resend of a
 * command cut off mid-flight (a late claim would hold a lease nobody completes), and a
 * reconnect every second at most, so work resumes soon after Redis is back.
 */
export const FAIL_FAST: Readonly<RedisOptions> = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (times) => Math.min(times * 100, 1000),
};

/**
 * The keys `redisDedupe` and `redisJournal` took before `connection`, each with its fix. A
 * URL given to the old key is never shown (it may hold a password).
 */
export const RENAMED_CONNECTION_OPTIONS = {
  url: 'pass `connection: "redis://…"` (the same URL)',
  cluster: "pass `connection: { cluster: [the same nodes] }`",
  client: "pass your ioredis client as `connection` (reportkit never closes it)",
} as const;

/** A `connection` option, checked: what it points at, before any client is made. */
export interface CheckedConnection {
  /** Whether it is a Redis Cluster (BullMQ's key prefix depends on it). */
  readonly isCluster: boolean;
  /**
   * The client: one opened with `settings` (ioredis options; on a cluster `enableOfflineQueue`
   * and `retryStrategy` apply to the cluster, the rest to every node), or the user's own as it
   * is.
   */
  open(settings: Readonly<RedisOptions>): RedisHandle;
}

/** A client and what every caller does with it. */
export interface RedisHandle {
  readonly client: RedisClient;
  /** Whether reportkit opened the client (and so closes it). */
  readonly owned: boolean;
  /** "Redis at redis://127.0.0.1:6379", "Redis Cluster at redis://h1:7000,h2:7000": for messages. */
  where(): string;
  /**
   * Resolves once the client is ready to take commands (at once when it is). While a
   * connection attempt is under way (the first one, right after start-up) it waits for it, at
   * most `timeoutMs`, one wait however many callers; a client that lost its connection is not
   * waited for: waiting for a reconnection would only hold a provider's request. Rejects with
   * a StoreError "<who>: <what> failed on Redis at <address> (<why>)."
   */
  ready(what: string, timeoutMs: number): Promise<void>;
  /** `cause` as a StoreError for `what`, with the connection's own last error while it is down. */
  failure(what: string, cause: unknown): StoreError;
  /** `ready`, then `command`, the whole bounded by `timeoutMs`; a failure as `failure(what, …)`. */
  call<T>(what: string, timeoutMs: number, command: () => Promise<T>): Promise<T>;
  /** Closes a client reportkit opened (QUIT, at most `timeoutMs`, then disconnect); never a borrowed one. */
  close(timeoutMs: number): Promise<void>;
}

type Target =
  | { readonly kind: "url"; readonly url: string }
  | { readonly kind: "options"; readonly options: RedisOptions }
  | { readonly kind: "cluster"; readonly cluster: ResolvedClusterNodes }
  | { readonly kind: "client"; readonly client: RedisClient };

const EXAMPLE = `e.g. "redis://127.0.0.1:6379", { host: "127.0.0.1", port: 6379 }, { cluster: ["redis://10.0.0.1:7000", …] } or an ioredis client`;

/**
 * Checks a `connection` option once, when the store or queue is made.
 * @throws TypeError naming `who` (the factory), saying what it takes; never echoing a URL.
 *
 * @example
 * const redis = checkConnection(options.connection, "redisDedupe").open(FAIL_FAST);
 * await redis.call("claim", 1000, () => redis.client.set(key, "lease", "PX", 60_000, "NX"));
 */
export function checkConnection(connection: unknown, who: string): CheckedConnection {
  const target = targetOf(connection, who);
  return {
    isCluster: target.kind === "cluster" || (target.kind === "client" && isCluster(target.client)),
    open: (settings) => handleOf(target, who, settings),
  };
}

function targetOf(connection: unknown, who: string): Target {
  if (connection === undefined) {
    throw new TypeError(`${who}: give \`connection\`, where Redis is: ${EXAMPLE}.`);
  }
  if (typeof connection === "string") {
    let url: URL;
    try {
      url = new URL(connection);
    } catch {
      throw new TypeError(
        `${who}: \`connection\` is not a URL; give it with its scheme, e.g. "redis://127.0.0.1:6379".`,
      );
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
      // Only the scheme is shown: the rest of the string may hold a password.
      throw new TypeError(
        `${who}: \`connection\` must be a redis:// or rediss:// (TLS) URL, got the scheme "${url.protocol.slice(0, -1)}".`,
      );
    }
    return { kind: "url", url: connection };
  }
  if (typeof connection !== "object" || connection === null || Array.isArray(connection)) {
    throw new TypeError(
      `${who}: \`connection\` must be where Redis is, ${EXAMPLE}; got ${shown(connection)}.`,
    );
  }
  if (isClient(connection)) return { kind: "client", client: connection };
  if ("cluster" in connection) {
    return { kind: "cluster", cluster: resolveClusterNodes(connection.cluster, who) };
  }
  if ("url" in connection) {
    throw new TypeError(
      `${who}: \`connection.url\` is no ioredis option: give the URL itself, \`connection: "redis://…"\`.`,
    );
  }
  return { kind: "options", options: connection as RedisOptions };
}

/** An ioredis client, by what BullMQ checks too (the caller's ioredis may be another copy). */
function isClient(value: object): value is RedisClient {
  const client = value as Record<string, unknown>;
  return ["connect", "disconnect", "duplicate"].every((name) => typeof client[name] === "function");
}

/** By ioredis's own flag, not `instanceof`: the caller's ioredis may be another copy. */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

function open(target: Exclude<Target, { kind: "client" }>, settings: RedisOptions): RedisClient {
  switch (target.kind) {
    case "url":
      return new Redis(target.url, { ...settings, lazyConnect: false });
    case "options":
      return new Redis({ ...target.options, ...settings, lazyConnect: false });
    case "cluster": {
      const { enableOfflineQueue, retryStrategy, ...nodeSettings } = settings;
      return new Cluster(target.cluster.nodes, {
        ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
        ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
        redisOptions: { ...target.cluster.redisOptions, ...nodeSettings },
      });
    }
  }
}

function handleOf(target: Target, who: string, settings: Readonly<RedisOptions>): RedisHandle {
  const client = target.kind === "client" ? target.client : open(target, settings);
  const owned = target.kind !== "client";
  let lastError: Error | undefined;
  if (owned) {
    // Without a listener ioredis prints every failed reconnect; the last one says, in the
    // rejection of the call that needed the connection, why it is down. A connection error
    // seen before the last successful connect says nothing about now.
    client.on("error", (error: Error) => {
      lastError = error;
    });
    client.on("ready", () => {
      lastError = undefined;
    });
  }
  const where = () =>
    describeRedis(client, target.kind === "cluster" ? target.cluster.address : undefined);
  const down = () => new Error(lastError === undefined ? "not connected" : reasonOf(lastError));
  let waiting: Promise<void> | undefined;

  function failure(what: string, cause: unknown): StoreError {
    if (cause instanceof StoreError) return cause;
    const reason = reasonOf(cause);
    // The connection's own last error says why (a refused connection, a wrong password)
    // better than the command's "Stream isn't writeable".
    const why =
      client.status !== "ready" && lastError !== undefined && reason !== reasonOf(lastError)
        ? `${reason}; not connected: ${reasonOf(lastError)}`
        : reason;
    return new StoreError(who, what, where(), cause, why);
  }

  function connectionAttempt(timeoutMs: number): Promise<void> {
    waiting ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        client.off("ready", onReady);
        client.off("error", onError);
        client.off("close", onClose);
        client.off("end", onClose);
        waiting = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      const onReady = () => settle();
      const onError = (error: Error) => {
        lastError = error;
        settle(error);
      };
      const onClose = () => settle(down());
      const timer = setTimeout(
        () => settle(new Error(`no connection within ${timeoutMs} ms`)),
        timeoutMs,
      );
      client.on("ready", onReady);
      client.on("error", onError);
      client.on("close", onClose);
      client.on("end", onClose);
    });
    return waiting;
  }

  function ready(what: string, timeoutMs: number): Promise<void> {
    const status = client.status;
    // "wait": a borrowed client made with lazyConnect, which connects on its first command.
    if (status === "ready" || status === "wait") return Promise.resolve();
    const attempt =
      status === "connecting" || status === "connect"
        ? connectionAttempt(timeoutMs)
        : Promise.reject(down());
    return attempt.catch((cause: unknown) => {
      throw failure(what, cause);
    });
  }

  return {
    client,
    owned,
    where,
    ready,
    failure,
    async call<T>(what: string, timeoutMs: number, command: () => Promise<T>): Promise<T> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no reply within ${timeoutMs} ms (timeoutMs)`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([ready(what, timeoutMs).then(command), timedOut]);
      } catch (cause) {
        throw failure(what, cause);
      } finally {
        clearTimeout(timer);
      }
    },
    async close(timeoutMs: number): Promise<void> {
      if (!owned) return;
      if (client.status === "ready") {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          await Promise.race([
            client.quit(),
            new Promise((done) => {
              timer = setTimeout(done, timeoutMs);
            }),
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
 * Where a client points, for messages: "Redis at redis://host:port" (rediss:// with TLS, the
 * socket's path for a Unix socket), "Redis Cluster at redis://h1:p1,h2:p2". Never a user name
 * or password. `clusterAddress`: the startup nodes of a cluster reportkit opened, known
 * before it connects.
 */
export function describeRedis(client: RedisClient, clusterAddress?: string): string {
  if (isCluster(client)) {
    if (clusterAddress !== undefined) return `Redis Cluster at ${clusterAddress}`;
    const scheme = client.options.redisOptions?.tls === undefined ? "redis" : "rediss";
    const nodes = client.nodes("master").map((node) => hostPort(node.options));
    return nodes.length === 0
      ? "a Redis Cluster (no node connected yet)"
      : `Redis Cluster at ${scheme}://${nodes.join(",")}`;
  }
  const { path, tls } = client.options;
  if (path) return `Redis at ${path}`;
  return `Redis at ${tls === undefined ? "redis" : "rediss"}://${hostPort(client.options)}`;
}

function hostPort(options: { host?: string; port?: number }): string {
  const host = options.host ?? "127.0.0.1";
  return `${host.includes(":") ? `[${host}]` : host}:${options.port ?? 6379}`;
}
