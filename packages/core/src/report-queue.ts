import type { Report } from "./schemas.js";

/**
 * Where a receiver in queue mode puts each report instead of running a handler: it answers
 * 202 once `enqueue` resolved, and 503 `queue_unavailable` when it rejects or does not resolve
 * within the receiver's `deadlineMs`.
 *
 * `enqueue` must resolve only once the report is stored durably. `key` is the report's dedupe
 * key (see `dedupeKey`), or undefined for a report without one: adding a report under a key
 * that is already queued or processed must add nothing and still resolve, so a provider retry
 * is answered 202 again without a second job.
 */
export interface ReportQueue {
  enqueue(report: Report, key: string | undefined): Promise<void>;
}
