// W3C Trace Context (`traceparent`, `tracestate`) written into a queued job and read back by the
// worker, by hand: the OpenTelemetry API's propagation is a no-op until an SDK registers a
// propagator, and a job's link must not depend on whether the app did.
import {
  createTraceState,
  isSpanContextValid,
  type SpanContext,
  TraceFlags,
} from "@opentelemetry/api";
import type { TraceCarrier } from "@reportkit/core/adapter";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The carrier of a span's context: `traceparent`, and `tracestate` when there is one. */
export function carrierOf(spanContext: SpanContext): TraceCarrier {
  if (!isSpanContextValid(spanContext)) return {};
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  const carrier: TraceCarrier = {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
  };
  const state = spanContext.traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

/** The span context a carrier holds, or undefined when it holds none (or a malformed one). */
export function spanContextOf(carrier: TraceCarrier | undefined): SpanContext | undefined {
  const parent = carrier?.traceparent;
  if (typeof parent !== "string") return undefined;
  const match = TRACEPARENT.exec(parent.trim().toLowerCase());
  if (match === null) return undefined;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  const state = carrier?.tracestate;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(typeof state === "string" && state !== "" ? { traceState: createTraceState(state) } : {}),
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
