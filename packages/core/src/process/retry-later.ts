// A handler's "not yet" (the message a report is on is not stored yet, say): thrown, so that it
// reads the same in a receiver's handler and a worker's, and passes through the app's helpers.

/** Marks a RetryLater across copies of this package (two versions installed side by side). */
const BRAND = Symbol.for("@reportkit/core:RetryLater");

export interface RetryLaterOptions {
  /**
   * How long to wait before it runs again, in ms: a worker's backoff starts there; else it is the
   * reply's Retry-After (the provider waits 30 minutes anyway). Default: the parking backoff.
   */
  afterMs?: number;
}

/**
 * Thrown by a handler to park the report instead of failing it: a queue worker runs it again on
 * a backoff (no failed attempt) up to its parking limit; without a queue the provider gets 503
 * `parked` with Retry-After and retries. Logged and counted as "parked", never as "failed".
 *
 * @example
 * onDelivery: async (report, ctx) => {
 *   const message = await findMessage(ctx.tx, report.id);
 *   if (message === undefined) throw new RetryLater(`message ${report.id} is not stored yet`);
 *   await markStatus(ctx.tx, message, report);
 * }
 */
export class RetryLater extends Error {
  override readonly name = "RetryLater";
  readonly afterMs: number | undefined;
  readonly [BRAND] = true;

  constructor(reason: string, options?: RetryLaterOptions) {
    super(reason);
    const afterMs = options?.afterMs;
    if (afterMs !== undefined && (!Number.isSafeInteger(afterMs) || afterMs <= 0)) {
      throw new TypeError(
        `reportkit: RetryLater's \`afterMs\` must be a whole number of milliseconds above 0, got ${String(afterMs)}.`,
      );
    }
    this.afterMs = afterMs;
  }
}

/** Whether `error` is a RetryLater, from this copy of the package or another. */
export function isRetryLater(error: unknown): error is RetryLater {
  return (
    typeof error === "object" && error !== null && (error as { [BRAND]?: unknown })[BRAND] === true
  );
}
