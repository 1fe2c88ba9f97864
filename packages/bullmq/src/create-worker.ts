import {
  type CallReport,
  type DeliveryReport,
  type EventReport,
  isRetryLater,
  type Report,
  reportFromJson,
  type UnsubscribeReport,
} from "@reportkit/core";
import {
  DEFAULT_PARKING,
  distinctLines,
  msGroup,
  type ParkingOptions,
  parkAgain,
  readOptions,
  type Telemetry,
  traceOf,
  workerDispatch,
} from "@reportkit/core/adapter";
import { checkConnection, type RedisConnection } from "@reportkit/redis/connection";
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import { JOB_ATTEMPTS_CEILING, type StoredReportJobData } from "./job-data.js";
import { CALL_TIMEOUT_MS, queueNameOf, queuePrefixOf } from "./queue-options.js";

/** What a worker's handler learns about the job besides the report. */
export interface ReportJobContext {
  /** The BullMQ job id ("rk-…" for a report with a dedupe key). */
  readonly jobId: string;
  /** The report's dedupe key (for your own idempotent writes), or null when it has none. */
  readonly dedupeKey: string | null;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  /** When the receiver queued the report. */
  readonly queuedAt: Date;
}

export type WorkerHandler<R> = (report: R, job: ReportJobContext) => unknown;

/** How long to wait before the next attempt: BullMQ's shape. A number is a fixed delay in ms. */
export type WorkerBackoff =
  | number
  | { type: "fixed" | "exponential"; delay: number; jitter?: number };

export interface CreateWorkerOptions {
  /**
   * Where Redis is: a redis:// URL, `{ host, port }` (ioredis options), a Redis Cluster's nodes
   * (`{ cluster: ["redis://h1:7000", …] }`), or an ioredis `Redis` or `Cluster`.
   */
  connection: RedisConnection;
  /** The BullMQ queue the receiver adds to. Default "reportkit". */
  queueName?: string;
  /** BullMQ's key prefix, the receiver's (`bullmqQueue`'s) one. */
  prefix?: string;
  /** Called with each SMS delivery report; the job completes once it returns/resolves. */
  onDelivery?: WorkerHandler<DeliveryReport>;
  /** Called with each call report; the job completes once it returns/resolves. */
  onCall?: WorkerHandler<CallReport>;
  /** Called with each opt-out; the job completes once it returns/resolves. */
  onUnsubscribe?: WorkerHandler<UnsubscribeReport>;
  /** Called with each other event; the job completes once it returns/resolves. */
  onEvent?: WorkerHandler<EventReport>;
  /** Reports handled at once by this process. Default 1. */
  concurrency?: number;
  /** Attempts per report before its job is kept as failed (see `reportkit queue`). Default 5. */
  attempts?: number;
  /** Delay before each retry. Default exponential from 1 s: 1 s, 2 s, 4 s, 8 s. */
  backoff?: WorkerBackoff;
  /**
   * How long a job stays locked to this process without a lock renewal. A process that dies
   * mid-job (kill -9, a crash) loses the lock after this, and another worker takes the job
   * over at its next stalled-jobs check. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose lock ran out. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /**
   * How reports whose handler threw `RetryLater` wait: moved to delayed and run again without
   * counting as a failed attempt, from `afterMs` (or `delayMs`) doubling up to `maxDelayMs`,
   * for `limitMs` after the first; past it a RetryLater is a failed attempt like any other.
   * Default: from 1 s, at most a minute apart, for an hour.
   */
  parking?: ParkingOptions;
  /**
   * Traces and metrics (`otelTelemetry()` from @reportkit/otel): each job's attempt gets a span
   * linked to the receiver's span that queued it, and is counted (`acknowledged` or `failed`).
   */
  telemetry?: Telemetry;
  /**
   * Called when an attempt failed (with the job's context) and with Redis connection errors
   * (without). Default: one line on stderr.
   */
  onError?: (error: Error, job?: ReportJobContext) => void;
  /** Called when a report was parked (RetryLater), with its wait. Default: one line on stderr. */
  onParked?: (reason: Error, job: ReportJobContext, delayMs: number) => void;
}

export interface ReportWorker {
  /** Stops taking jobs and resolves once the running handlers finished. */
  close(): Promise<void>;
}

const OPTION_NAMES: (keyof CreateWorkerOptions)[] = [
  "connection",
  "queueName",
  "prefix",
  "onDelivery",
  "onCall",
  "onUnsubscribe",
  "onEvent",
  "concurrency",
  "attempts",
  "backoff",
  "lockDurationMs",
  "stalledIntervalMs",
  "parking",
  "telemetry",
  "onError",
  "onParked",
];

/** Exponential from 1 s: 1 s, 2 s, 4 s, 8 s. */
const DEFAULT_BACKOFF: WorkerBackoff = { type: "exponential", delay: 1000 };

/**
 * A worker for the reports a receiver in queue mode added: each job's report is handed to
 * `onDelivery` or `onCall`, typed exactly as the synchronous receiver gives it (dates as `Date`,
 * `raw`). A handler that throws is retried with backoff; after `attempts` the job is kept as
 * failed, listed by `reportkit queue failed` and put back by `reportkit queue retry`. A process
 * that dies mid-job loses its lock, and another worker finishes the job.
 *
 * @example
 * import { createWorker } from "@reportkit/bullmq";
 *
 * const worker = createWorker({
 *   connection: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
 *   async onDelivery(report) {
 *     await db.deliveries.upsert(report.id, report.status, report.deliveredAt);
 *   },
 * });
 * process.on("SIGTERM", () => worker.close());
 */
export function createWorker(options: CreateWorkerOptions): ReportWorker {
  const who = "createWorker";
  const read = readOptions(who, options, {
    example: "createWorker({ connection, onDelivery(report) {} })",
    known: OPTION_NAMES,
  });
  const handle = workerDispatch<ReportJobContext>(
    who,
    options,
    (message) => new UnrecoverableError(message),
  );
  const onErrorOption = read.callback("onError");
  const onParkedOption = read.callback("onParked");
  const concurrency = read.wholeNumber("concurrency", 1, { min: 1, max: 1000 });
  const attempts = read.wholeNumber("attempts", 5, { min: 1, max: JOB_ATTEMPTS_CEILING });
  const delayFor = backoffOf(options.backoff ?? DEFAULT_BACKOFF);
  const longest = { min: 100, max: 2 ** 31 };
  const lockDuration = read.wholeNumber("lockDurationMs", 30_000, longest);
  const stalledInterval = read.wholeNumber("stalledIntervalMs", 30_000, longest);
  const parking = msGroup(who, "parking", options.parking, DEFAULT_PARKING);
  const { telemetry } = options;
  if (
    telemetry !== undefined &&
    (typeof telemetry !== "object" ||
      telemetry === null ||
      typeof telemetry.startReport !== "function")
  ) {
    throw new TypeError(
      `${who}: \`telemetry\` must be a Telemetry, e.g. otelTelemetry() from @reportkit/otel.`,
    );
  }
  const name = queueNameOf(options.queueName, who);
  const connection = checkConnection(options.connection, who);
  const prefix = queuePrefixOf(read, name, connection.isCluster);
  // BullMQ needs `maxRetriesPerRequest: null` for its blocking reads, and a worker simply
  // waits for Redis to come back.
  const redis = connection.open({ maxRetriesPerRequest: null });
  const connectionError = distinctLines("reportkit worker");
  const onError = onErrorOption ?? defaultOnError(attempts, connectionError);

  const onParked =
    onParkedOption ??
    ((reason: Error, job: ReportJobContext, delayMs: number) =>
      console.error(
        `reportkit worker: job ${job.jobId} parked: ${reason.message} (runs again in ${delayMs} ms)`,
      ));

  async function process(job: Job<StoredReportJobData>, token?: string): Promise<void> {
    const context = contextOf(job);
    let report: Report;
    try {
      report = reportFromJson(job.data.report);
    } catch (error) {
      // Retrying cannot repair the data: straight to failed, for a person to look at.
      throw new UnrecoverableError((error as Error).message);
    }
    const span = telemetry?.startReport(report.type, report.status, traceOf(job.data.trace));
    const started = performance.now();
    try {
      await (span === undefined
        ? handle(report, context)
        : span.run(() => handle(report, context)));
    } catch (error) {
      span?.handlerDuration((performance.now() - started) / 1000);
      if (!isRetryLater(error)) {
        span?.end("failed", "handler_failed");
        throw error;
      }
      const next = parkAgain(parking, parkedOf(job.data), error, Date.now());
      if ("error" in next) {
        span?.end("failed", "handler_failed");
        throw next.error;
      }
      // Parked: its parking kept in the job, the job moved to delayed, and DelayedError tells
      // BullMQ the attempt neither failed nor completed (attemptsMade stays as it was).
      await job.updateData({ ...job.data, ...next.parked });
      await job.moveToDelayed(Date.now() + next.delayMs, token);
      span?.end("parked");
      onParked(error, context, next.delayMs);
      throw new DelayedError();
    }
    span?.handlerDuration((performance.now() - started) / 1000);
    span?.end("acknowledged");
  }

  const worker = new Worker<StoredReportJobData>(name, process, {
    connection: redis.client,
    prefix,
    concurrency,
    lockDuration,
    stalledInterval,
    settings: {
      // The worker owns the retry policy (jobs carry only a ceiling): -1 means "no more
      // attempts", and BullMQ then keeps the job as failed with this attempt's error.
      backoffStrategy: (attemptsMade) => (attemptsMade >= attempts ? -1 : delayFor(attemptsMade)),
    },
  });
  worker.on("error", (error) => onError(error));
  worker.on("failed", (job, error) => {
    if (job !== undefined) onError(error, { ...contextOf(job), attempt: job.attemptsMade });
  });
  let closing: Promise<void> | undefined;

  return {
    close() {
      closing ??= (async () => {
        await worker.close();
        await redis.close(CALL_TIMEOUT_MS);
      })();
      return closing;
    },
  };
}

/** The parking a job carries, if it was parked before. */
function parkedOf(data: StoredReportJobData): { parkedSince?: number; parks?: number } {
  const { parkedSince, parks } = data;
  return {
    ...(typeof parkedSince === "number" && { parkedSince }),
    ...(typeof parks === "number" && { parks }),
  };
}

function contextOf(job: Job<StoredReportJobData>): ReportJobContext {
  const key = job.data.dedupeKey;
  return {
    jobId: String(job.id),
    dedupeKey: typeof key === "string" ? key : null,
    attempt: job.attemptsMade + 1,
    queuedAt: new Date(job.timestamp),
  };
}

function defaultOnError(
  attempts: number,
  connectionError: (error: Error) => void,
): (error: Error, job?: ReportJobContext) => void {
  return (error, job) => {
    if (job === undefined) return connectionError(error);
    const last = job.attempt >= attempts || error instanceof UnrecoverableError;
    console.error(
      `reportkit worker: job ${job.jobId} attempt ${job.attempt} of ${attempts} failed: ${error.message}${last ? " (kept as failed)" : ""}`,
    );
  };
}

/** The delay before attempt n+1, after n failed attempts. */
function backoffOf(backoff: WorkerBackoff): (attemptsMade: number) => number {
  const invalid = () =>
    new TypeError(
      `createWorker: \`backoff\` must be a delay in ms or { type: "fixed" | "exponential", delay, jitter? }, got ${JSON.stringify(backoff)}.`,
    );
  const spec: { type: string; delay: unknown; jitter?: unknown } =
    typeof backoff === "number" ? { type: "fixed", delay: backoff } : backoff;
  if (typeof spec !== "object" || spec === null) throw invalid();
  const { type, delay, jitter = 0 } = spec;
  if (type !== "fixed" && type !== "exponential") throw invalid();
  if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) throw invalid();
  if (typeof jitter !== "number" || !(jitter >= 0 && jitter <= 1)) throw invalid();
  return (attemptsMade) => {
    const full = type === "fixed" ? delay : 2 ** (attemptsMade - 1) * delay;
    return Math.round(full * (1 - jitter * Math.random()));
  };
}
