import type { Report } from "@reportkit/core";
import {
  distinctLines,
  type ReportQueue,
  readOptions,
  type TraceCarrier,
} from "@reportkit/core/adapter";
import { checkConnection, type RedisConnection } from "@reportkit/redis/connection";
import { Queue } from "bullmq";
import {
  BACKOFF_TYPE,
  JOB_ATTEMPTS_CEILING,
  KEEP_COMPLETED_SECONDS,
  type ReportJobData,
} from "./job-data.js";
import { reportJobId } from "./job-id.js";
import { CALL_TIMEOUT_MS, PRODUCER, queueNameOf, queuePrefixOf } from "./queue-options.js";

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
  const who = "bullmqQueue";
  const read = readOptions(who, options, {
    example: `bullmqQueue({ connection: "redis://127.0.0.1:6379" })`,
    known: ["connection", "queueName", "prefix", "onError"],
  });
  const onError = read.callback("onError") ?? distinctLines("reportkit bullmq queue");
  const name = queueNameOf(options.queueName, who);
  const connection = checkConnection(options.connection, who);
  const prefix = queuePrefixOf(read, name, connection.isCluster);
  const redis = connection.open(PRODUCER);
  const queue = new Queue<ReportJobData>(name, { connection: redis.client, prefix });
  // An 'error' event without a listener would throw; a connection error must never crash the
  // host: enqueue reports it to the receiver as a rejection.
  queue.on("error", onError);
  let closing: Promise<void> | undefined;
  const closed = () => new Error(`${who}: queue "${name}" is closed.`);

  return {
    name,
    async enqueue(
      report: Report,
      key: string | undefined,
      meta?: { trace?: TraceCarrier },
    ): Promise<void> {
      if (closing !== undefined) throw closed();
      // A connection lost after it last said ready makes ioredis refuse the add ("Stream
      // isn't writeable"): said, like any failure, as what failed on which Redis.
      await redis.call("enqueue", CALL_TIMEOUT_MS, () =>
        queue.add(
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
        ),
      );
    },
    async ping(): Promise<void> {
      if (closing !== undefined) throw closed();
      await redis.call("ping", CALL_TIMEOUT_MS, () => redis.client.ping());
    },
    close() {
      closing ??= (async () => {
        await queue.close();
        await redis.close(CALL_TIMEOUT_MS);
      })();
      return closing;
    },
  };
}
