// A parked report's wait: how a handler's "not yet" (RetryLater) is run again without counting
// as a failed attempt, up to the parking limit; past it, the RetryLater is a failure like any
// other (retried on the worker's backoff, then kept as failed).
import type { RetryLater } from "@reportkit/core";

/** How reports whose handler threw RetryLater wait. */
export interface ParkingOptions {
  /**
   * How long after the first RetryLater a report may stay parked, in ms; after that a
   * RetryLater counts as a failed attempt. Default 3,600,000 (an hour).
   */
  limitMs?: number;
  /** The first wait when RetryLater names no `afterMs`, in ms; it doubles each time. Default 1000. */
  delayMs?: number;
  /** The longest wait between two runs of a parked report, in ms. Default 60,000. */
  maxDelayMs?: number;
}

export const DEFAULT_PARKING: Readonly<Required<ParkingOptions>> = {
  limitMs: 60 * 60 * 1000,
  delayMs: 1000,
  maxDelayMs: 60 * 1000,
};

/** Where a report stands in its parking: carried in its job's data from run to run. */
export interface Parked {
  /** When the handler first said "not yet" (ms since the epoch). */
  readonly parkedSince: number;
  /** How many times it was parked. */
  readonly parks: number;
}

/**
 * The report's next wait after `retryLater` at `now`, and its parking after it; or the error
 * it fails with, past the limit.
 */
export function parkAgain(
  parking: Readonly<Required<ParkingOptions>>,
  before: Partial<Parked>,
  retryLater: RetryLater,
  now: number,
): { delayMs: number; parked: Parked } | { error: Error } {
  const parkedSince = before.parkedSince ?? now;
  const parks = before.parks ?? 0;
  if (now - parkedSince >= parking.limitMs) {
    return {
      error: new Error(
        `${retryLater.message} (parked since ${new Date(parkedSince).toISOString()}, past the parking limit of ${parking.limitMs} ms)`,
      ),
    };
  }
  const start = retryLater.afterMs ?? parking.delayMs;
  const delayMs = Math.min(Math.max(start, parking.maxDelayMs), start * 2 ** Math.min(parks, 52));
  return { delayMs, parked: { parkedSince, parks: parks + 1 } };
}
