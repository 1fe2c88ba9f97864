import type { CallReport, DeliveryReport, Report } from "@reportkit/core";
import { reportFromJson, type Telemetry, type TraceCarrier } from "@reportkit/core/adapter";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import { queueNameOf, queuePrefixOf, type RedisConnection, workerClient } from "./connection.js";
import { distinctLines } from "./distinct-lines.js";
import { JOB_ATTEMPTS_CEILING, type StoredReportJobData } from "./job-data.js";

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
   * Traces and metrics (`otelTelemetry()` from @reportkit/otel): each job's attempt gets a span
   * linked to the receiver's span that queued it, and is counted (`acknowledged` or `failed`).
   */
  telemetry?: Telemetry;
  /**
   * Called when an attempt failed (with the job's context) and with Redis connection errors
   * (without). Default: one line on stderr.
   */
  onError?: (error: Error, job?: ReportJobContext) => void;
}

export interface ReportWorker {
  /** Stops taking jobs and resolves once the running handlers finished. */
  close(): Promise<void>;
}

const DEFAULTS = {
  concurrency: 1,
  attempts: 5,
  backoff: { type: "exponential", delay: 1000 },
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
} as const;

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
  const where = "createWorker(options)";
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`reportkit bullmq: ${where} needs an options object.`);
  }
  const { onDelivery, onCall } = options;
  for (const [name, fn] of [
    ["onDelivery", onDelivery],
    ["onCall", onCall],
    ["onError", options.onError],
  ] as const) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`reportkit bullmq: ${where}: \`${name}\` must be a function.`);
    }
  }
  if (onDelivery === undefined && onCall === undefined) {
    throw new TypeError(
      `reportkit bullmq: ${where}: give at least one handler, \`onDelivery(report)\` or \`onCall(report)\`.`,
    );
  }
  const concurrency = wholeNumber(
    options.concurrency,
    DEFAULTS.concurrency,
    1,
    1000,
    "concurrency",
  );
  const attempts = wholeNumber(
    options.attempts,
    DEFAULTS.attempts,
    1,
    JOB_ATTEMPTS_CEILING,
    "attempts",
  );
  const delayFor = backoffOf(options.backoff ?? DEFAULTS.backoff);
  const lockDuration = wholeNumber(
    options.lockDurationMs,
    DEFAULTS.lockDurationMs,
    100,
    2 ** 31,
    "lockDurationMs",
  );
  const stalledInterval = wholeNumber(
    options.stalledIntervalMs,
    DEFAULTS.stalledIntervalMs,
    100,
    2 ** 31,
    "stalledIntervalMs",
  );
  const { telemetry } = options;
  if (
    telemetry !== undefined &&
    (typeof telemetry !== "object" ||
      telemetry === null ||
      typeof telemetry.startReport !== "function")
  ) {
    throw new TypeError(
      `reportkit bullmq: ${where}: \`telemetry\` must be a Telemetry, e.g. otelTelemetry() from @reportkit/otel.`,
    );
  }
  const name = queueNameOf(options.queueName, where);
  const prefix = queuePrefixOf(options.prefix, name, options.connection, where);
  const { client, owned } = workerClient(options.connection, where);
  const connectionError = distinctLines("reportkit worker");
  const onError = options.onError ?? defaultOnError(attempts, connectionError);

  async function process(job: Job<StoredReportJobData>): Promise<void> {
    const context = contextOf(job);
    let report: Report;
    try {
      report = reportFromJson(job.data.report);
    } catch (error) {
      // Retrying cannot repair the data: straight to failed, for a person to look at.
      throw new UnrecoverableError((error as Error).message);
    }
    if (telemetry === undefined) return handle(report, context);
    const span = telemetry.startReport(report.type, report.status, traceOf(job.data.trace));
    const started = performance.now();
    try {
      await span.run(() => handle(report, context));
    } catch (error) {
      span.handlerDuration((performance.now() - started) / 1000);
      span.end("failed", "handler_failed");
      throw error;
    }
    span.handlerDuration((performance.now() - started) / 1000);
    span.end("acknowledged");
  }

  async function handle(report: Report, context: ReportJobContext): Promise<void> {
    if (report.type === "delivery") {
      if (onDelivery === undefined) throw missingHandler("onDelivery", "delivery");
      await onDelivery(report, context);
    } else {
      if (onCall === undefined) throw missingHandler("onCall", "call");
      await onCall(report, context);
    }
  }

  const worker = new Worker<StoredReportJobData>(name, process, {
    connection: client,
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
  if (owned) client.on("error", () => {});
  let closing: Promise<void> | undefined;

  return {
    close() {
      closing ??= (async () => {
        await worker.close();
        if (owned) await client.quit().catch(() => client.disconnect());
      })();
      return closing;
    },
  };
}

/** The trace context a job carries: string values only, or none. */
function traceOf(trace: unknown): TraceCarrier | undefined {
  if (typeof trace !== "object" || trace === null) return undefined;
  const carrier: TraceCarrier = {};
  for (const [name, value] of Object.entries(trace)) {
    if (typeof value === "string") carrier[name] = value;
  }
  return carrier;
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

function missingHandler(name: string, type: string): UnrecoverableError {
  return new UnrecoverableError(
    `reportkit worker: a ${type} report, and this worker has no \`${name}\` handler: add one, then put the job back with \`reportkit queue retry\`.`,
  );
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

function wholeNumber(value: unknown, fallback: number, min: number, max: number, name: string) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(
      `reportkit bullmq: createWorker(options): \`${name}\` must be a whole number from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return value;
}

/** The delay before attempt n+1, after n failed attempts. */
function backoffOf(backoff: WorkerBackoff): (attemptsMade: number) => number {
  const invalid = () =>
    new TypeError(
      `reportkit bullmq: createWorker(options): \`backoff\` must be a delay in ms or { type: "fixed" | "exponential", delay, jitter? }, got ${JSON.stringify(backoff)}.`,
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
