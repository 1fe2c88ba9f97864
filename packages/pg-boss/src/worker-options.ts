// What a worker is given: its handlers' types and its options, each read and checked once.
import type { CallReport, DeliveryReport, EventReport, UnsubscribeReport } from "@reportkit/core";
import {
  DEFAULT_PARKING,
  msGroup,
  type ParkingOptions,
  readOptions,
  type Telemetry,
  workerDispatch,
} from "@reportkit/core/adapter";
import type { PostgresInboxOptions, PostgresScope } from "@reportkit/postgres";
import type { ConnectionOptions } from "@reportkit/postgres/connection";
import { DEFAULT_RETRY, type RetryOptions, type Schedule } from "./schedule.js";

/** What a worker's handler learns about the job besides the report (and `tx`). */
export interface ReportJobContext {
  /** The pg-boss job id (a UUID derived from the dedupe key, for a report with one). */
  readonly jobId: string;
  /** The report's dedupe key (for your own idempotent writes), or null when it has none. */
  readonly dedupeKey: string | null;
  /** This attempt's number, from 1: parked runs do not count. */
  readonly attempt: number;
  /** When the receiver queued the report. */
  readonly queuedAt: Date;
}

/** A handler's second argument: the report's transaction (`tx`) and its job. */
export type WorkerContext = ReportJobContext & PostgresScope;

export type WorkerHandler<R> = (report: R, ctx: WorkerContext) => unknown;

/** The worker's inbox: `postgresInbox`'s options, on the worker's own connection. */
export type WorkerInboxOptions = Omit<PostgresInboxOptions, "pool" | "connectionString">;

export interface CreateWorkerOptions extends ConnectionOptions {
  /** The pg-boss queue the receiver adds to. Default "reportkit". */
  queueName?: string;
  /** pg-boss's schema, the receiver's (`pgBossQueue`'s) one. Default "pgboss". */
  schema?: string;
  /** Called with each SMS delivery report, in its transaction (`ctx.tx`); committed once it resolves. */
  onDelivery?: WorkerHandler<DeliveryReport>;
  /** Called with each call report, in its transaction (`ctx.tx`); committed once it resolves. */
  onCall?: WorkerHandler<CallReport>;
  /** Called with each opt-out, in its transaction (`ctx.tx`); committed once it resolves. */
  onUnsubscribe?: WorkerHandler<UnsubscribeReport>;
  /** Called with each other channel's event, in its transaction (`ctx.tx`); committed once it resolves. */
  onEvent?: WorkerHandler<EventReport>;
  /** Reports handled at once by this process (each holds a connection). Default 1. */
  concurrency?: number;
  /** How failed attempts are retried. Default: from 1 s, doubling, at most an hour apart, for 24 h. */
  retry?: RetryOptions;
  /** How reports whose handler threw RetryLater wait. Default: from 1 s, at most a minute apart, for an hour. */
  parking?: ParkingOptions;
  /** How long the worker waits before looking again when no job was ready, in ms. Default 1000. */
  pollingIntervalMs?: number;
  /**
   * How often this worker runs pg-boss's maintenance: jobs of a worker that died mid-report
   * (kill -9, a crash) are put back once their expiry passed (the inbox's `leaseMs` plus
   * `timeoutMs` and a second), and old ones archived. Default 30,000 ms.
   */
  stalledIntervalMs?: number;
  /** The inbox's settings (`postgresInbox`'s options: table, leaseMs, journal bounds, …). */
  inbox?: WorkerInboxOptions;
  /**
   * The receiver's path, kept with each report the worker gives up on, so that `reportkit
   * replay --to <origin>` sends it there. Default "/webhooks".
   */
  receiverPath?: string;
  /**
   * Traces and metrics (`otelTelemetry()` from @reportkit/otel): each attempt gets a span linked
   * to the receiver's span that queued the job, and is counted (`acknowledged`, `duplicate`,
   * `parked`, `failed`).
   */
  telemetry?: Telemetry;
  /**
   * Called when an attempt failed (with the job's context) and with connection errors
   * (without). Default: one line on stderr.
   */
  onError?: (error: Error, job?: ReportJobContext) => void;
  /** Called when a report was parked (RetryLater). Default: one line on stderr. */
  onParked?: (reason: Error, job: ReportJobContext, delayMs: number) => void;
}

const OPTION_NAMES: (keyof CreateWorkerOptions)[] = [
  "pool",
  "connectionString",
  "queueName",
  "schema",
  "onDelivery",
  "onCall",
  "onUnsubscribe",
  "onEvent",
  "concurrency",
  "retry",
  "parking",
  "pollingIntervalMs",
  "stalledIntervalMs",
  "inbox",
  "receiverPath",
  "telemetry",
  "onError",
  "onParked",
];

/** A worker's options read once: each checked, with its default; a TypeError names a wrong one. */
export function readWorkerOptions(options: CreateWorkerOptions) {
  const who = "createWorker";
  const read = readOptions(who, options, {
    example:
      "createWorker({ connectionString: process.env.DATABASE_URL, onDelivery(report, ctx) {} })",
    known: OPTION_NAMES,
  });
  const handle = workerDispatch<WorkerContext>(who, options);
  const onErrorOption = read.callback("onError");
  const onParkedOption = read.callback("onParked");
  const concurrency = read.wholeNumber("concurrency", 1, { min: 1, max: 1000 });
  const pollingIntervalMs = read.wholeNumber("pollingIntervalMs", 1000, { min: 10, max: 2 ** 31 });
  const stalledIntervalMs = read.wholeNumber("stalledIntervalMs", 30_000, {
    min: 1000,
    max: 2 ** 31,
  });
  const receiverPath = read.string("receiverPath", "/webhooks", { nonEmpty: true });
  if (!receiverPath.startsWith("/")) {
    throw new TypeError(
      `${who}: \`receiverPath\` must be a path starting with "/", e.g. "/webhooks"; got ${JSON.stringify(receiverPath)}.`,
    );
  }
  const schedule: Schedule = {
    retry: msGroup(who, "retry", options.retry, DEFAULT_RETRY),
    parking: msGroup(who, "parking", options.parking, DEFAULT_PARKING),
  };
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
  const inboxOptions = options.inbox ?? {};
  if (typeof inboxOptions !== "object" || inboxOptions === null) {
    throw new TypeError(
      `${who}: \`inbox\` must be postgresInbox's options (without pool or connectionString), e.g. { leaseMs: 120000 }.`,
    );
  }
  return {
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
  };
}
