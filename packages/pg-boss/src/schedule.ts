// When a report runs again: the worker's own schedule, not pg-boss's (whose delays are whole
// seconds from a formula of its own). A failed attempt waits on an exponential backoff, for
// `retry.forMs` after the first failure (a day by default: an afternoon's outage and a night
// are outlasted, where the provider gives up after 90 minutes); a handler's "not yet"
// (RetryLater) waits on a backoff of its own, without counting as a failure, for
// `parking.limitMs` after the first one, and is a failure like any other after that.
import { isRetryLater } from "@reportkit/core";
import { backoff, type ParkingOptions, parkAgain } from "@reportkit/core/adapter";
import type { JobProgress } from "./job-data.js";

/** How failed attempts are retried. */
export interface RetryOptions {
  /** The wait after the first failure, in ms; it doubles after each one. Default 1000. */
  delayMs?: number;
  /** The longest wait between two attempts, in ms. Default 3,600,000 (an hour). */
  maxDelayMs?: number;
  /**
   * How long after its first failure a report is still retried, in ms; the first failure
   * after that keeps its job as failed and the report in the failure journal. Default
   * 86,400,000 (24 hours).
   */
  forMs?: number;
}

export const DEFAULT_RETRY: Readonly<Required<RetryOptions>> = {
  delayMs: 1000,
  maxDelayMs: 60 * 60 * 1000,
  forMs: 24 * 60 * 60 * 1000,
};

/** What becomes of a report after an attempt that did not process it. */
export type NextRun =
  | { readonly kind: "parked"; readonly delayMs: number; readonly progress: JobProgress }
  | {
      readonly kind: "retried";
      readonly delayMs: number;
      readonly progress: JobProgress;
      readonly error: Error;
    }
  | { readonly kind: "given-up"; readonly progress: JobProgress; readonly error: Error };

export interface Schedule {
  readonly retry: Readonly<Required<RetryOptions>>;
  readonly parking: Readonly<Required<ParkingOptions>>;
}

/** The next run of a report whose attempt threw `thrown` at `now` (ms since the epoch). */
export function nextRun(
  schedule: Schedule,
  progress: JobProgress,
  thrown: unknown,
  now: number,
): NextRun {
  const { retry, parking } = schedule;
  let error = thrown instanceof Error ? thrown : new Error(String(thrown));
  if (isRetryLater(thrown)) {
    const next = parkAgain(parking, progress, thrown, now);
    if (!("error" in next)) {
      return { kind: "parked", delayMs: next.delayMs, progress: { ...progress, ...next.parked } };
    }
    error = next.error;
  }
  const firstFailedAt = progress.firstFailedAt ?? now;
  const failed: JobProgress = { ...progress, failures: progress.failures + 1, firstFailedAt };
  if (now - firstFailedAt >= retry.forMs) return { kind: "given-up", progress: failed, error };
  return {
    kind: "retried",
    delayMs: backoff(retry.delayMs, progress.failures, retry.maxDelayMs),
    progress: failed,
    error,
  };
}
