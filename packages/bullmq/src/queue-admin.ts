import { readOptions } from "@reportkit/core/adapter";
import { checkConnection, type RedisConnection } from "@reportkit/redis/connection";
import { type Job, Queue } from "bullmq";
import type { StoredReportJobData } from "./job-data.js";
import { CALL_TIMEOUT_MS, PRODUCER, queueNameOf, queuePrefixOf } from "./queue-options.js";

export interface QueueAdminOptions {
  /** Where Redis is: as for `bullmqQueue` (a URL, options, a cluster's nodes, a client). */
  connection: RedisConnection;
  /** The BullMQ queue. Default "reportkit". */
  queueName?: string;
  /** BullMQ's key prefix, as for `bullmqQueue`. */
  prefix?: string;
}

/** A job that used up its attempts, as `reportkit queue failed` lists it. */
export interface FailedReportJob {
  readonly jobId: string;
  /** "delivery" or "call" (the job name). */
  readonly type: string;
  /** The delivery report's `id`, or the call report's `mid`; null when it has none. */
  readonly reportId: string | null;
  readonly attemptsMade: number;
  /** The last attempt's error message. */
  readonly failedReason: string;
  readonly failedAt: Date | null;
}

export interface QueueAdmin {
  /** The failed jobs, most recent first. */
  failed(): Promise<FailedReportJob[]>;
  /**
   * Puts one failed job back in the queue with a full set of attempts. Rejects when there is
   * no such job or it is not failed.
   */
  retry(jobId: string): Promise<void>;
  /** Puts every failed job back; resolves with how many. */
  retryAll(): Promise<number>;
  close(): Promise<void>;
}

const PAGE = 500;

/**
 * Looks after the jobs a worker gave up on: list them, put them back (what `reportkit queue
 * failed|retry` uses). Fails fast with "unreachable" when Redis is down.
 *
 * @example
 * const admin = queueAdmin({ connection: "redis://127.0.0.1:6379" });
 * for (const job of await admin.failed()) console.log(job.jobId, job.failedReason);
 * await admin.retryAll();
 * await admin.close();
 */
export function queueAdmin(options: QueueAdminOptions): QueueAdmin {
  const who = "queueAdmin";
  const read = readOptions(who, options, {
    example: `queueAdmin({ connection: "redis://127.0.0.1:6379" })`,
    known: ["connection", "queueName", "prefix"],
  });
  const name = queueNameOf(options.queueName, who);
  const connection = checkConnection(options.connection, who);
  const prefix = queuePrefixOf(read, name, connection.isCluster);
  const redis = connection.open(PRODUCER);
  const queue = new Queue<StoredReportJobData>(name, { connection: redis.client, prefix });
  queue.on("error", () => {});
  const call = <T>(what: string, command: () => Promise<T>) =>
    redis.call(what, CALL_TIMEOUT_MS, command);

  async function failedJobs(): Promise<Job<StoredReportJobData>[]> {
    const jobs: Job<StoredReportJobData>[] = [];
    for (let start = 0; ; start += PAGE) {
      const page = await call("reading the queue", () => queue.getFailed(start, start + PAGE - 1));
      jobs.push(...page.filter((job): job is Job<StoredReportJobData> => job !== undefined));
      if (page.length < PAGE) return jobs;
    }
  }

  async function retryJob(job: Job<StoredReportJobData>): Promise<void> {
    await call(`putting back job "${job.id}"`, () =>
      job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true }),
    );
  }

  return {
    async failed() {
      return (await failedJobs()).map(describeJob);
    },
    async retry(jobId) {
      const job = await call(`reading job "${jobId}"`, () => queue.getJob(jobId));
      if (job === undefined) {
        throw new Error(
          `${who}: no job "${jobId}" in queue "${name}"; \`reportkit queue failed\` lists the failed ones.`,
        );
      }
      const state = await call(`reading job "${jobId}"`, () => job.getState());
      if (state !== "failed") {
        throw new Error(
          `${who}: job "${jobId}" is ${state}, not failed; only failed jobs are put back.`,
        );
      }
      await retryJob(job);
    },
    async retryAll() {
      const jobs = await failedJobs();
      for (const job of jobs) await retryJob(job);
      return jobs.length;
    },
    async close() {
      await queue.close();
      await redis.close(CALL_TIMEOUT_MS);
    },
  };
}

function describeJob(job: Job<StoredReportJobData>): FailedReportJob {
  const report = job.data.report;
  const fields =
    typeof report === "object" && report !== null ? (report as Record<string, unknown>) : {};
  const id = job.name === "call" ? fields.mid : fields.id;
  return {
    jobId: String(job.id),
    type: job.name,
    reportId: typeof id === "string" ? id : null,
    attemptsMade: job.attemptsMade,
    failedReason: job.failedReason ?? "",
    failedAt: job.finishedOn === undefined ? null : new Date(job.finishedOn),
  };
}
