import type { Report } from "@reportkit/core";
import type { ReportQueue, TraceCarrier } from "@reportkit/core/adapter";
import { Queue } from "bullmq";
import {
  connected,
  describeClient,
  isCluster,
  producerClient,
  queueNameOf,
  queuePrefixOf,
  type RedisClient,
  type RedisConnection,
} from "./connection.js";
import { distinctLines } from "./distinct-lines.js";
import {
  BACKOFF_TYPE,
  JOB_ATTEMPTS_CEILING,
  KEEP_COMPLETED_SECONDS,
  type ReportJobData,
} from "./job-data.js";
import { reportJobId } from "./job-id.js";

export interface BullmqQueueOptions {
  /**
   * Where Redis is: a redis:// URL, `{ host, port }` (ioredis options), a Redis Cluster's nodes
   * (`{ cluster: ["redis://h1:7000", …] }`), or an ioredis `Redis` or `Cluster`.
   */
  connection: RedisConnection;
  /** The BullMQ queue; the worker must use the same. Default "reportkit". */
  queueName?: string;
  /**
   * BullMQ's key prefix; the worker must use the same. Default "bull" on one Redis, and
   * "{<queueName>}" on a Redis Cluster, where it must hold a hash tag (every key of the queue
   * on one slot).
   */
  prefix?: string;
  /**
   * Called with Redis connection errors (the receiver answers 503 `queue_unavailable` for the
   * reports it cannot add meanwhile). Default: one line on stderr per new error message.
   */
  onError?: (error: Error) => void;
}

/** A `ReportQueue` on BullMQ, for the receiver's `queue` option. */
export interface BullmqReportQueue extends ReportQueue {
  /** The BullMQ queue name. */
  readonly name: string;
  /** One PING round trip to Redis, for `receiver.health()`; rejects, naming Redis, when unreachable. */
  ping(): Promise<void>;
  /** Closes the queue (and the Redis client, if reportkit made it). */
  close(): Promise<void>;
}

/**
 * A BullMQ queue for the receiver's `queue` option: each report becomes a job, named by its type,
 * whose id is derived from the report's dedupe key, so a provider retry adds no second job.
 * `enqueue` resolves once Redis acknowledged the add, and rejects at once while Redis is
 * unreachable (no offline queue), so the provider gets 503 and retries later. Completed jobs
 * are kept 2 hours (the provider's retry window and a margin), failed jobs until retried.
 *
 * @example
 * import { bullmqQueue } from "@reportkit/bullmq";
 * import { webhookReceiver } from "@reportkit/express";
 *
 * const queue = bullmqQueue({ connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
 * app.use(webhookReceiver({ path: "/webhooks", queue }));
 */
export function bullmqQueue(options: BullmqQueueOptions): BullmqReportQueue {
  const where = "bullmqQueue(options)";
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`reportkit bullmq: ${where} needs an options object with \`connection\`.`);
  }
  if (options.onError !== undefined && typeof options.onError !== "function") {
    throw new TypeError(`reportkit bullmq: ${where}: \`onError\` must be a function.`);
  }
  const name = queueNameOf(options.queueName, where);
  const prefix = queuePrefixOf(options.prefix, name, options.connection, where);
  const { client, owned } = producerClient(options.connection, where);
  const onError = options.onError ?? distinctLines("reportkit bullmq queue");
  const queue = new Queue<ReportJobData>(name, { connection: client, prefix });
  // An 'error' event without a listener would throw; a connection error must never crash the
  // host: enqueue reports it to the receiver as a rejection.
  queue.on("error", onError);
  if (owned) client.on("error", () => {});
  let closing: Promise<void> | undefined;

  return {
    name,
    async enqueue(
      report: Report,
      key: string | undefined,
      meta?: { trace?: TraceCarrier },
    ): Promise<void> {
      if (closing !== undefined) throw new Error(`reportkit bullmq: queue "${name}" is closed.`);
      await connected(client);
      try {
        await queue.add(
          report.type,
          meta?.trace === undefined
            ? { report, dedupeKey: key ?? null }
            : { report, dedupeKey: key ?? null, trace: meta.trace },
          {
            ...(key === undefined ? {} : { jobId: reportJobId(key) }),
            attempts: JOB_ATTEMPTS_CEILING,
            backoff: { type: BACKOFF_TYPE },
            removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
            removeOnFail: false,
          },
        );
      } catch (cause) {
        // The connection can drop after `connected` said ready and before the add went out:
        // ioredis then refuses the command ("Stream isn't writeable ..."). Said as what it is.
        if (connectionLost(client)) {
          const why = cause instanceof Error ? `: ${cause.message}` : "";
          throw new Error(`reportkit bullmq: ${describeClient(client)} is unreachable${why}.`, {
            cause,
          });
        }
        throw cause;
      }
    },
    async ping(): Promise<void> {
      if (closing !== undefined) throw new Error(`reportkit bullmq: queue "${name}" is closed.`);
      await connected(client);
      try {
        await client.ping();
      } catch (cause) {
        const why = cause instanceof Error ? `: ${cause.message}` : "";
        throw new Error(`reportkit bullmq: ${describeClient(client)} is unreachable${why}.`, {
          cause,
        });
      }
    },
    close() {
      closing ??= (async () => {
        await queue.close();
        if (owned) await client.quit().catch(() => client.disconnect());
      })();
      return closing;
    },
  };
}

/** Whether the client has no connection to write on (its status may still say "ready"). */
function connectionLost(client: RedisClient): boolean {
  if (isCluster(client)) return client.status !== "ready";
  return client.status !== "ready" || client.stream?.writable !== true;
}
