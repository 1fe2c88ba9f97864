// reportkit's Telemetry on the OpenTelemetry API: a messaging "process" span per report, a
// counter of reports by kind and outcome (refusals included), and the handler's duration.
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type Link,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { classifyCallStatus, classifyDeliveryStatus, type ReportKind } from "@reportkit/core";
import type { ReportOutcome, ReportSpan, Telemetry, TraceCarrier } from "@reportkit/core/adapter";
import { carrierOf, spanContextOf } from "./trace-context.js";

export interface OtelTelemetryOptions {
  /** Where spans go. Default: the global tracer provider (what the OpenTelemetry SDK registers). */
  tracerProvider?: TracerProvider;
  /** Where measurements go. Default: the global meter provider. */
  meterProvider?: MeterProvider;
}

/** The instrumentation scope's name: what a backend shows as the library that made the data. */
export const INSTRUMENTATION_NAME = "@reportkit/otel";
/**
 * The counter of reports: every identified report by outcome (and a delivery's or a call's by
 * what its status says, a failed delivery by its reason), and every refused request.
 */
export const REPORTS_METRIC = "reportkit.reports";
/** The histogram of handler durations, in seconds. */
export const HANDLER_DURATION_METRIC = "reportkit.handler.duration";

type Kind = ReportKind;

interface Instruments {
  reports: Counter;
  duration: Histogram;
}

// Outcomes that mean the report was not processed here and now, and not because of a retry.
// "parked" is none of them: the handler said "not yet" (RetryLater), and the report waits.
const ERROR_OUTCOMES: ReadonlySet<ReportOutcome> = new Set(["failed", "timeout", "unavailable"]);

/**
 * reportkit's telemetry on OpenTelemetry, for the `telemetry` option of `createReceiver`, of
 * every adapter and of `createWorker`. Each report reportkit identified gets a span named
 * `process reportkit.delivery` or `process reportkit.call` (kind CONSUMER, a child of the active
 * context, so it nests under the framework's HTTP span; the handler runs inside it), and is
 * counted in `reportkit.reports` by `reportkit.kind` and `reportkit.outcome`, and, for a
 * delivery or a call, by what its status says: `reportkit.report.outcome` (delivered,
 * undelivered, pending, unknown; answered, unanswered) and a failed delivery's
 * `reportkit.report.reason` (dlt, handset, network, …), from the status table; refused requests
 * are counted as outcome `refused` with `reportkit.error.code`. Handler durations go to the
 * `reportkit.handler.duration` histogram, in seconds. No phone number, token or body is ever
 * put in an attribute, and no label is unbounded: only kinds, outcomes, reasons and error
 * codes (the status itself is on the span only).
 *
 * @example
 * import { webhookReceiver } from "@reportkit/express";
 * import { otelTelemetry } from "@reportkit/otel";
 *
 * // After the OpenTelemetry SDK started (it registers the global providers):
 * const receiver = webhookReceiver({ telemetry: otelTelemetry() });
 */
export function otelTelemetry(options: OtelTelemetryOptions = {}): Telemetry {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "otelTelemetry(options): pass an options object ({ tracerProvider?, meterProvider? }) or nothing for the global providers.",
    );
  }
  const { tracerProvider, meterProvider } = options;
  if (tracerProvider !== undefined && typeof tracerProvider.getTracer !== "function") {
    throw new TypeError(
      "otelTelemetry(options): `tracerProvider` must be an OpenTelemetry TracerProvider (with getTracer).",
    );
  }
  if (meterProvider !== undefined && typeof meterProvider.getMeter !== "function") {
    throw new TypeError(
      "otelTelemetry(options): `meterProvider` must be an OpenTelemetry MeterProvider (with getMeter).",
    );
  }
  // The global tracer provider is a proxy that finds the SDK's once registered, so a tracer
  // taken now is good later; the global meter provider is not a proxy: it is looked up again
  // until it changes, so otelTelemetry() may be called before the SDK starts.
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME);
  let provider: MeterProvider | undefined;
  let instruments: Instruments | undefined;
  const measure = (): Instruments => {
    const current = meterProvider ?? metrics.getMeterProvider();
    if (instruments === undefined || current !== provider) {
      provider = current;
      instruments = instrumentsOf(current);
    }
    return instruments;
  };

  return {
    startReport(kind, status, link) {
      return new OtelReportSpan(tracer, measure(), kind, status, link);
    },
    refused(code, kind) {
      const attributes: Attributes = {
        "reportkit.outcome": "refused",
        "reportkit.error.code": code,
      };
      if (kind !== undefined) attributes["reportkit.kind"] = kind;
      measure().reports.add(1, attributes);
    },
  };
}

function instrumentsOf(meterProvider: MeterProvider): Instruments {
  const meter = meterProvider.getMeter(INSTRUMENTATION_NAME);
  return {
    reports: meter.createCounter(REPORTS_METRIC, {
      unit: "{report}",
      description:
        "Reports received: each identified report by its outcome, each refused request as outcome refused with its error code.",
    }),
    duration: meter.createHistogram(HANDLER_DURATION_METRIC, {
      unit: "s",
      description: "How long the report handlers took.",
      advice: {
        explicitBucketBoundaries: [
          0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
        ],
      },
    }),
  };
}

/** One report's span. A class, not a closure per report: the hot path makes one object. */
class OtelReportSpan implements ReportSpan {
  readonly #span: Span;
  readonly #context: Context;
  readonly #kind: Kind;
  readonly #instruments: Instruments;
  /** What the status says (its outcome, a failure's reason), the same on the span and the counter. */
  readonly #said: Attributes;
  #ended = false;

  constructor(
    tracer: Tracer,
    instruments: Instruments,
    kind: Kind,
    status: string | null,
    link: TraceCarrier | undefined,
  ) {
    const destination = `reportkit.${kind}`;
    const attributes: Attributes = {
      "messaging.system": "reportkit",
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.destination.name": destination,
      "reportkit.kind": kind,
    };
    // A provider status is a short code (DELIVRD, ANSWER); anything longer is not one.
    if (typeof status === "string" && status.length <= 64) {
      attributes["reportkit.report.status"] = status;
    }
    this.#said = statusAttributes(kind, status);
    Object.assign(attributes, this.#said);
    const linked = spanContextOf(link);
    const links: Link[] | undefined = linked === undefined ? undefined : [{ context: linked }];
    const parent = context.active();
    this.#span = tracer.startSpan(
      `process ${destination}`,
      { kind: SpanKind.CONSUMER, attributes, ...(links === undefined ? {} : { links }) },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
    this.#kind = kind;
    this.#instruments = instruments;
  }

  run<R>(fn: () => R): R {
    return context.with(this.#context, fn);
  }

  handlerDuration(seconds: number): void {
    this.#instruments.duration.record(seconds, { "reportkit.kind": this.#kind });
  }

  end(outcome: ReportOutcome, errorType?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    span.setAttribute("reportkit.outcome", outcome);
    const attributes: Attributes = {
      "reportkit.kind": this.#kind,
      "reportkit.outcome": outcome,
      ...this.#said,
    };
    if (errorType !== undefined) {
      span.setAttribute("error.type", errorType);
      attributes["reportkit.error.code"] = errorType;
    }
    if (ERROR_OUTCOMES.has(outcome)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorType ?? outcome });
    }
    span.end();
    this.#instruments.reports.add(1, attributes);
  }

  carrier(): TraceCarrier {
    return carrierOf(this.#span.spanContext());
  }
}

/**
 * What a delivery's or a call's status says, as bounded labels read from wire's status table:
 * `reportkit.report.outcome` (delivered, undelivered, pending, unknown; answered, unanswered,
 * unknown) and, for a failed delivery, `reportkit.report.reason` (dlt, handset, network,
 * recipient, account, content, expired, unknown). Never the status itself: a sender may push any
 * text there, and a label of it would have no bound.
 */
function statusAttributes(kind: Kind, status: string | null): Attributes {
  if (status === null || (kind !== "delivery" && kind !== "call")) return {};
  if (kind === "call") return { "reportkit.report.outcome": classifyCallStatus(status).outcome };
  const { outcome, reason } = classifyDeliveryStatus(status);
  return reason === null
    ? { "reportkit.report.outcome": outcome }
    : { "reportkit.report.outcome": outcome, "reportkit.report.reason": reason };
}
