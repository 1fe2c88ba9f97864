// Instrumentation without a dependency: @reportkit/otel implements this interface; anything can.
import type { ReportKind } from "@reportkit/wire";
import type { ErrorCode } from "../reply/errors.js";

/** How one identified report ended, as counted and put on its span. */
export type ReportOutcome =
  | "acknowledged"
  | "duplicate"
  | "failed"
  | "timeout"
  | "in_progress"
  | "unavailable"
  | "parked"
  | "queued";

/** W3C trace context (`traceparent`, `tracestate`) carried from the enqueue to the worker. */
export type TraceCarrier = Record<string, string>;

/**
 * What the receiver tells about its reports (the `telemetry` option; `otelTelemetry()` from
 * @reportkit/otel): never a phone number, a token or a body.
 */
export interface Telemetry {
  /** A report was identified: its span starts, a child of the active context (`link`: a job's). */
  startReport(kind: ReportKind, status: string | null, link?: TraceCarrier): ReportSpan;
  /** A request refused before it became a report to process (401, 400, 413, …): counted. */
  refused(code: ErrorCode, kind: ReportKind | undefined): void;
  /** The webhook's verification was answered or refused: never counted as a report. */
  verification?(outcome: "answered" | "refused"): void;
}

/** One report's span and measurements. */
export interface ReportSpan {
  /** Runs the handler with this span active, so spans made inside it are its children. */
  run<R>(fn: () => R): R;
  handlerDuration(seconds: number): void;
  /** Ends the span and counts the report; `errorType` on failures. Called once. */
  end(outcome: ReportOutcome, errorType?: string): void;
  /** This span's trace context, to store with a queued job. */
  carrier(): TraceCarrier;
}
