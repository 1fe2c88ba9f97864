import type { Report } from "../report/schemas.js";
import type { TraceCarrier } from "./telemetry.js";

/**
 * Where a receiver in queue mode puts each report instead of running a handler: it answers 202
 * once `enqueue` resolved, 503 `queue_unavailable` when it rejects or misses `deadlineMs`.
 * `enqueue` resolves only once the report is stored durably. `key` is the report's dedupe key
 * (undefined without one): a key already queued or processed adds nothing and still resolves,
 * so a provider retry is answered 202 again without a second job.
 */
export interface ReportQueue {
  /** `trace`: the enqueuing span's trace context, for the worker's span to link to. */
  enqueue(report: Report, key: string | undefined, meta?: { trace?: TraceCarrier }): Promise<void>;
  /** The queue's name, for `health()` messages (`queue "reportkit": …`). */
  readonly name?: string;
  /** One round trip to the queue's store, for `receiver.health()`. */
  ping?(): Promise<void>;
  /** Closes what the queue created itself (a client from a URL), never what it was given. */
  close?(): Promise<void>;
}
