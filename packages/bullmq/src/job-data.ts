import type { Report } from "@reportkit/core";
import { DEFAULT_DEDUPE_TTL_MS, type TraceCarrier } from "@reportkit/core/adapter";

/** What a reportkit job carries: the report (dates as ISO strings once stored) and its key. */
export interface ReportJobData {
  report: Report;
  dedupeKey: string | null;
  /** The enqueuing span's W3C trace context, when the receiver has telemetry. */
  trace?: TraceCarrier;
}

/** The job data as a worker reads it back from Redis: JSON, to be checked and revived. */
export interface StoredReportJobData {
  report: unknown;
  dedupeKey?: unknown;
  trace?: unknown;
  /** Set by the worker once the report was parked (RetryLater): see parking.ts. */
  parkedSince?: unknown;
  parks?: unknown;
}

/**
 * Attempts stored on each job. The worker's `attempts` option decides when to give up (its
 * backoff strategy answers "no more" then); this is only the ceiling BullMQ checks first, so the
 * retry policy lives in one place, the worker, and can change without touching queued jobs.
 */
export const JOB_ATTEMPTS_CEILING = 1000;

/** The backoff type of reportkit jobs: computed by the worker's own strategy. */
export const BACKOFF_TYPE = "reportkit";

/**
 * Completed jobs are kept (by age) for the dedupe TTL: the provider's whole retry window plus a
 * margin, so a retry of a processed report finds its job and adds nothing.
 */
export const KEEP_COMPLETED_SECONDS = Math.ceil(DEFAULT_DEDUPE_TTL_MS / 1000);
