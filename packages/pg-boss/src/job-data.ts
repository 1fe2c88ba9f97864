import type { Report } from "@reportkit/core";
import type { TraceCarrier } from "@reportkit/core/adapter";

/** Where a report stands in its retries and its parking: carried in its job from run to run. */
export interface JobProgress {
  /** Attempts that failed so far. */
  readonly failures: number;
  /** When the first of them failed (ms since the epoch): the retries last `retry.forMs` from it. */
  readonly firstFailedAt: number | undefined;
  /** When the handler first said "not yet" (ms since the epoch): parking lasts `parking.limitMs` from it. */
  readonly parkedSince: number | undefined;
  /** How many times it was parked. */
  readonly parks: number;
}

/** What a reportkit job carries: the report (dates as ISO strings once stored), its key, its progress. */
export interface ReportJobData {
  report: Report;
  dedupeKey: string | null;
  /** When the receiver queued it (ISO 8601): a job written again for its next run keeps it. */
  queuedAt: string;
  /** The enqueuing span's W3C trace context, when the receiver has telemetry. */
  trace?: TraceCarrier;
  failures?: number;
  firstFailedAt?: number;
  parkedSince?: number;
  parks?: number;
}

/** The job data as it is read back: JSON, to be checked and revived. */
export interface StoredReportJobData {
  report?: unknown;
  dedupeKey?: unknown;
  queuedAt?: unknown;
  trace?: unknown;
  failures?: unknown;
  firstFailedAt?: unknown;
  parkedSince?: unknown;
  parks?: unknown;
}

/** A new report's job data, as the receiver queues it. */
export function newJobData(
  report: Report,
  key: string | undefined,
  trace: TraceCarrier | undefined,
): ReportJobData {
  const data: ReportJobData = {
    report,
    dedupeKey: key ?? null,
    queuedAt: new Date().toISOString(),
  };
  if (trace !== undefined) data.trace = trace;
  return data;
}

/** The progress a job carries (none for a new one). */
export function progressOf(data: StoredReportJobData): JobProgress {
  return {
    failures: count(data.failures),
    firstFailedAt: instant(data.firstFailedAt),
    parkedSince: instant(data.parkedSince),
    parks: count(data.parks),
  };
}

/** `data` with `progress` in place of its own: what the job's next run carries. */
export function withProgress(
  data: StoredReportJobData,
  progress: JobProgress,
): StoredReportJobData {
  const { failures, firstFailedAt, parkedSince, parks, ...rest } = data;
  return {
    ...rest,
    ...(progress.failures > 0 && { failures: progress.failures }),
    ...(progress.firstFailedAt !== undefined && { firstFailedAt: progress.firstFailedAt }),
    ...(progress.parkedSince !== undefined && { parkedSince: progress.parkedSince }),
    ...(progress.parks > 0 && { parks: progress.parks }),
  };
}

/** The trace context a job carries: string values only, or none. */
export function traceOf(trace: unknown): TraceCarrier | undefined {
  if (typeof trace !== "object" || trace === null) return undefined;
  const carrier: TraceCarrier = {};
  for (const [name, value] of Object.entries(trace)) {
    if (typeof value === "string") carrier[name] = value;
  }
  return carrier;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function instant(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
