import { randomUUID } from "node:crypto";
import type { Report } from "@reportkit/core";
import { reportFromJson } from "@reportkit/core";
import {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_JOURNAL_RETENTION_MS,
  distinctLines,
  type JournalRecord,
  type JournalRequest,
  maskDigits,
  phoneKeysOf,
  type ReportOutcome,
  type ReportSpan,
  redactRequest,
  traceOf,
} from "@reportkit/core/adapter";
import { postgresInbox } from "@reportkit/postgres";
import { connection, DEFAULT_TIMEOUT_MS } from "@reportkit/postgres/connection";
import type PgBoss from "pg-boss";
import { asError, bossOn, bossReady, clientDb, poolDb } from "./boss-db.js";
import { progressOf, type StoredReportJobData, withProgress } from "./job-data.js";
import { CALL_TIMEOUT_MS, queueNameOf, schemaOf } from "./queue-options.js";
import { reportJobs } from "./report-jobs.js";
import { type NextRun, nextRun } from "./schedule.js";
import {
  type CreateWorkerOptions,
  type ReportJobContext,
  readWorkerOptions,
  type WorkerContext,
} from "./worker-options.js";

export interface ReportWorker {
  /** Stops taking jobs and resolves once the running handlers finished. */
  close(): Promise<void>;
  /** One round trip to Postgres, for a health check; rejects, naming Postgres, when unreachable. */
  ping(): Promise<void>;
}

/** Connections besides the handlers' own: a fetch, a job's rewrite, a duplicate's completion. */
const SPARE_CONNECTIONS = 3;

/**
 * A worker for the reports a receiver in queue mode added with `pgBossQueue`: each job's report
 * is handed to its kind's handler (`onDelivery`, `onCall`, `onUnsubscribe`, `onEvent`) inside a transaction of the Postgres inbox (`ctx.tx`)
 * that also marks the report processed and completes its job, so your writes, the mark and the
 * job commit together: a job run again after a crash finds the mark and completes without
 * running the handler. A handler that throws is retried on the worker's schedule (`retry`), for
 * a day by default, then its job is kept as failed (`reportkit queue failed`) and the report
 * put in the inbox's failure journal (`reportkit journal list`, `reportkit replay`). A handler
 * that throws `RetryLater` parks the report: it runs again later without counting as a failure,
 * for an hour at most (`parking`).
 *
 * @example
 * import { RetryLater } from "@reportkit/core";
 * import { createWorker } from "@reportkit/pg-boss";
 *
 * const worker = createWorker({
 *   connectionString: process.env.DATABASE_URL,
 *   async onDelivery(report, ctx) {
 *     const { rowCount } = await ctx.tx.query("UPDATE messages SET status = $1 WHERE id = $2", [
 *       report.status,
 *       report.id,
 *     ]);
 *     if (rowCount === 0) throw new RetryLater(`message ${report.id} is not stored yet`);
 *   },
 * });
 * process.on("SIGTERM", () => worker.close());
 */
export function createWorker(options: CreateWorkerOptions): ReportWorker {
  const who = "createWorker";
  const {
    handle,
    onErrorOption,
    onParkedOption,
    concurrency,
    pollingIntervalMs,
    stalledIntervalMs,
    receiverPath,
    schedule,
    telemetry,
    inboxOptions,
  } = readWorkerOptions(options);
  // What the worker journals is redacted as the receiver's journal is (`inbox.journalBodies`).
  const redactedJournal = inboxOptions.journalBodies === "redacted";
  const name = queueNameOf(options.queueName, who);
  const connectionError = distinctLines("reportkit worker");
  const db = connection(who, options, concurrency + SPARE_CONNECTIONS);
  const inbox = postgresInbox({ ...inboxOptions, pool: db.pool });
  // The longest a handler's transaction lives (Postgres ends it past the lease): a job active
  // longer than that and a second has lost its worker.
  const handlerBoundMs = inbox.leaseMs + inbox.timeoutMs;
  const expireInSeconds = Math.min(23 * 3600, Math.ceil(handlerBoundMs / 1000) + 1);
  const settings = {
    schema: schemaOf(options.schema, who),
    // Completed jobs as long as BullMQ's (a provider's retry finds its job), failed ones as
    // long as their journal entries.
    keep: {
      completedMs: DEFAULT_DEDUPE_TTL_MS,
      failedMs: inboxOptions.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS,
    },
    onError: connectionError,
  };
  const boss = bossOn(db, settings);
  const ready = bossReady(db, settings, boss, name, expireInSeconds);
  const jobs = reportJobs(db, boss, settings.schema, name, expireInSeconds);
  const fetchDb = poolDb(db, "fetching jobs", CALL_TIMEOUT_MS);

  const failed = (error: Error, job: ReportJobContext, then: string) => {
    if (onErrorOption !== undefined) return onErrorOption(error, job);
    console.error(
      `reportkit worker: job ${job.jobId} attempt ${job.attempt} failed: ${error.message} (${then})`,
    );
  };
  const parked = (reason: Error, job: ReportJobContext, delayMs: number) => {
    if (onParkedOption !== undefined) return onParkedOption(reason, job, delayMs);
    console.error(
      `reportkit worker: job ${job.jobId} parked: ${reason.message} (runs again in ${delayMs} ms)`,
    );
  };
  const lost = (error: unknown) =>
    onErrorOption === undefined ? connectionError(asError(error)) : onErrorOption(asError(error));

  /** One job: its report processed (or parked, or failed) and its job settled. */
  async function run(job: PgBoss.JobWithMetadata<StoredReportJobData>): Promise<void> {
    const data: StoredReportJobData = job.data ?? {};
    const progress = progressOf(data);
    const key = typeof data.dedupeKey === "string" ? data.dedupeKey : null;
    const queuedAt = new Date(typeof data.queuedAt === "string" ? data.queuedAt : job.createdOn);
    const context: ReportJobContext = {
      jobId: job.id,
      dedupeKey: key,
      // A run pg-boss itself put back (its worker died) counts as an attempt that failed.
      attempt: progress.failures + job.retryCount + 1,
      queuedAt,
    };
    let report: Report;
    try {
      report = reportFromJson(data.report);
    } catch (error) {
      // Retrying cannot repair the data: kept as failed at once, for a person to look at.
      const reason = asError(error).message;
      await jobs.keepFailed(job.id, data, reason).catch(lost);
      failed(asError(error), context, "kept as failed: the job holds no report");
      return;
    }
    const span = telemetry?.startReport(report.type, report.status, traceOf(data.trace));
    const ended = await attempt(job, data, report, context, span);
    span?.end(ended.outcome, ended.errorType);
  }

  async function attempt(
    job: PgBoss.JobWithMetadata<StoredReportJobData>,
    data: StoredReportJobData,
    report: Report,
    context: ReportJobContext,
    span: ReportSpan | undefined,
  ): Promise<{ outcome: ReportOutcome; errorType?: string }> {
    // A report without a dedupe key is claimed under its job's id: a run of the same job after
    // a crash still finds it processed.
    const claimKey = context.dedupeKey ?? `job:${job.id}`;
    const owner = randomUUID();
    let claimed: ClaimResult;
    try {
      claimed = await inbox.claim(claimKey, owner);
    } catch (error) {
      lost(error);
      // Postgres is down or slow: the job runs again later, this attempt not counted (when
      // even that cannot be written, pg-boss puts the job back once its expiry passed).
      await jobs.rewrite(job.id, data, schedule.retry.delayMs).catch(() => {});
      return { outcome: "unavailable", errorType: "dedupe_unavailable" };
    }
    if (claimed === "done") {
      await jobs.complete(job.id).catch(lost);
      return { outcome: "duplicate" };
    }
    if (claimed === "busy") {
      // Another worker still runs this report (its job expired under it): look again later.
      await jobs.rewrite(job.id, data, inbox.lockTimeoutMs).catch(lost);
      return { outcome: "in_progress", errorType: "in_progress" };
    }
    const { tx } = inbox.scope(owner);
    const started = performance.now();
    try {
      const ctx: WorkerContext = { ...context, tx };
      await bounded(
        span === undefined ? handle(report, ctx) : span.run(() => handle(report, ctx)),
        handlerBoundMs,
      );
    } catch (error) {
      span?.handlerDuration((performance.now() - started) / 1000);
      await inbox.release(claimKey, owner);
      return after(job, data, report, context, error);
    }
    span?.handlerDuration((performance.now() - started) / 1000);
    try {
      // The job completes in the report's transaction: with the mark, or not at all.
      await boss.complete(name, job.id, {}, { db: clientDb(tx, inbox.timeoutMs) });
    } catch (error) {
      await inbox.release(claimKey, owner);
      return after(job, data, report, context, error);
    }
    try {
      await inbox.complete(claimKey, owner);
    } catch (error) {
      // Not committed: nothing of the handler's was recorded.
      return after(job, data, report, context, error);
    }
    return { outcome: "acknowledged" };
  }

  /** The job's next run after an attempt that did not process its report. */
  async function after(
    job: PgBoss.JobWithMetadata<StoredReportJobData>,
    data: StoredReportJobData,
    report: Report,
    context: ReportJobContext,
    thrown: unknown,
  ): Promise<{ outcome: ReportOutcome; errorType?: string }> {
    const next: NextRun = nextRun(schedule, progressOf(data), thrown, Date.now());
    const carried = withProgress(data, next.progress);
    if (next.kind === "parked") {
      await jobs.rewrite(job.id, carried, next.delayMs).catch(lost);
      parked(asError(thrown), context, next.delayMs);
      return { outcome: "parked" };
    }
    if (next.kind === "retried") {
      await jobs.rewrite(job.id, carried, next.delayMs).catch(lost);
      failed(next.error, context, `runs again in ${next.delayMs} ms`);
      return { outcome: "failed", errorType: "handler_failed" };
    }
    try {
      await inbox.journal.record(
        await journalRecord(report, context, next.error, receiverPath, redactedJournal),
      );
    } catch (error) {
      // Not journaled: not given up yet. The next failure tries again.
      lost(error);
      await jobs.rewrite(job.id, carried, schedule.retry.maxDelayMs).catch(lost);
      failed(next.error, context, "not journaled; runs again later");
      return { outcome: "failed", errorType: "handler_failed" };
    }
    await jobs.keepFailed(job.id, carried, next.error.message).catch(lost);
    failed(next.error, context, "kept as failed, and in the failure journal");
    return { outcome: "failed", errorType: "handler_failed" };
  }

  // --- the loop: fetch what free slots can take, run it, look again ---------------------------
  const running = new Set<Promise<void>>();
  let stopping = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number | undefined) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function loop(): Promise<void> {
    while (!stopping) {
      const free = concurrency - running.size;
      if (free === 0) {
        await pause(undefined); // until a report is done
        continue;
      }
      let fetched: PgBoss.JobWithMetadata<StoredReportJobData>[] = [];
      try {
        await ready.ensure();
        fetched = await boss.fetch<StoredReportJobData>(name, {
          batchSize: free,
          includeMetadata: true,
          db: fetchDb,
        });
      } catch (error) {
        lost(error);
      }
      for (const job of fetched) {
        const done: Promise<void> = run(job)
          .catch(lost)
          .finally(() => {
            running.delete(done);
            if (running.size === concurrency - 1) wake?.();
          });
        running.add(done);
      }
      if (fetched.length < free && !stopping) await pause(pollingIntervalMs);
    }
  }
  const looping = loop();

  let maintaining = false;
  const maintenance = setInterval(() => {
    if (maintaining) return;
    maintaining = true;
    ready
      .ensure()
      .then(() => boss.maintain())
      .catch(lost)
      .finally(() => {
        maintaining = false;
      });
  }, stalledIntervalMs);
  maintenance.unref?.();

  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        stopping = true;
        clearInterval(maintenance);
        wake?.();
        await looping;
        await Promise.all([...running]);
        await inbox.close();
        await db.end();
      })();
      return closing;
    },
    async ping() {
      await db.query("ping", "SELECT 1", [], DEFAULT_TIMEOUT_MS);
    },
  };
}

/**
 * The report as the worker journals it: its fields as the provider sends them, for replay;
 * `redacted`, without its phone numbers, by the receiver's rule.
 */
async function journalRecord(
  report: Report,
  context: ReportJobContext,
  error: Error,
  receiverPath: string,
  redacted: boolean,
): Promise<JournalRecord> {
  const request: JournalRequest = {
    method: "POST",
    url: receiverPath,
    contentType: "application/json",
    body: JSON.stringify(report.raw),
    bodyEncoding: "utf8",
  };
  const message = `${error.message} (attempt ${context.attempt})`;
  return {
    key: context.dedupeKey ?? `job:${context.jobId}`,
    kind: report.type,
    status: "failed",
    request: redacted
      ? await redactRequest(request, {
          numbers: true,
          phoneKeys: phoneKeysOf(undefined),
          secrets: [],
        })
      : request,
    error: { code: "handler_failed", message: redacted ? maskDigits(message) : message },
    at: new Date(),
  };
}

/** `work`, or a rejection once `ms` passed: a handler that never settles frees its slot. */
async function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the handler did not settle within ${ms} ms (the inbox's leaseMs and timeoutMs): its transaction was ended`,
          ),
        ),
      ms,
    );
  });
  work.catch(() => {});
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
