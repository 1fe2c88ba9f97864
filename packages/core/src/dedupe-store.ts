/**
 * What a claim on a report's key found:
 * - "claimed": the caller now holds the key (for the store's lease) and runs the handler;
 * - "done": the report was processed before, within the store's TTL: acknowledge, do not run;
 * - "busy": another attempt holds the lease and may still be running: answer non-2xx.
 */
export type ClaimResult = "claimed" | "done" | "busy";

/**
 * Where a receiver remembers which reports it processed, so that a provider retry of a report
 * already handled is acknowledged without running the handler again.
 *
 * The protocol: `claim` before the handler (atomically: of two concurrent claims exactly one
 * gets "claimed"); `complete` once the handler succeeded (the key is then "done" for the
 * store's TTL, whoever holds it); `release` once it failed (only if `owner` still holds the
 * key, so an attempt whose lease ran out never frees another's claim). A lease runs out by
 * itself, so a process killed mid-handler holds nothing forever.
 *
 * Every method may return a promise. A rejection means the store is unreachable: the
 * receiver then answers 503 `dedupe_unavailable`, never 2xx.
 */
export interface DedupeStore {
  /** How long a claim holds before it runs out by itself, in milliseconds. */
  readonly leaseMs: number;
  claim(key: string, owner: string): ClaimResult | Promise<ClaimResult>;
  complete(key: string, owner: string): void | Promise<void>;
  release(key: string, owner: string): void | Promise<void>;
}

/** The provider retries 3 times, 30 minutes apart: 90 minutes from the first attempt. */
export const PROVIDER_RETRY_WINDOW_MS = 3 * 30 * 60_000;
/** Default TTL of a "done" key: the retry window plus 30 minutes for late or slow attempts. */
export const DEFAULT_DEDUPE_TTL_MS = PROVIDER_RETRY_WINDOW_MS + 30 * 60_000;
/** Default lease: well past the answer deadline (8 s), well before the next retry (30 min). */
export const DEFAULT_LEASE_MS = 60_000;
