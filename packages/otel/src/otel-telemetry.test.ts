import { context, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createReceiver, type ReceiverRequest } from "@reportkit/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../../../test/fixtures/samples.js";
import { otelTelemetry } from "./index.js";
import { carrierOf, spanContextOf } from "./trace-context.js";

/** A reader the test collects from when it wants: no timer, no exporter. */
class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const PHONE = String(SAMPLE_DLR.mobile);
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  contextManager.disable();
  context.disable();
});

function sdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return { exporter, tracerProvider, meterProvider, reader };
}

async function reportCounts(reader: MetricReader): Promise<Record<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const counts: Record<string, number> = {};
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== "reportkit.reports") continue;
      expect(metric.descriptor.unit).toBe("{report}");
      for (const point of metric.dataPoints as DataPoint<number>[]) {
        const a = point.attributes;
        const label = [a["reportkit.kind"], a["reportkit.outcome"], a["reportkit.error.code"]]
          .filter((v) => v !== undefined)
          .join(" ");
        counts[label] = point.value;
      }
    }
  }
  return counts;
}

async function handlerDurations(reader: MetricReader): Promise<number> {
  const { resourceMetrics } = await reader.collect();
  let count = 0;
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== "reportkit.handler.duration") continue;
      expect(metric.descriptor.unit).toBe("s");
      for (const point of metric.dataPoints as DataPoint<Histogram>[]) count += point.value.count;
    }
  }
  return count;
}

function post(body: object | string, token = TOKEN): ReceiverRequest {
  return {
    method: "POST",
    url: "/webhooks",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

/** Runs `fn` inside a span standing for the framework's HTTP server span. */
function inHttpSpan<T>(tracer: Tracer, fn: () => Promise<T>): Promise<T> {
  const span = tracer.startSpan("POST /webhooks");
  return context.with(trace.setSpan(context.active(), span), fn).finally(() => span.end());
}

describe("otelTelemetry on a receiver", () => {
  it("gives each outcome its span and count; the handler's own span nests under the report's; no phone number, token or body in any attribute", async () => {
    const { exporter, tracerProvider, meterProvider, reader } = sdk();
    const tracer = tracerProvider.getTracer("app");
    let slowDone = false;
    const receiver = createReceiver({
      secret: TOKEN,
      deadlineMs: 100,
      telemetry: otelTelemetry({ tracerProvider, meterProvider }),
      logger: false,
      async onDelivery(report) {
        if (report.id === "fails:1") throw new Error(`database down for ${report.mobile}`);
        if (report.id === "slow:1") {
          await new Promise((resolve) => setTimeout(resolve, 400));
          slowDone = true;
          return;
        }
        // The user's own span: must be a child of reportkit's.
        tracer.startActiveSpan("db.save", (span) => span.end());
      },
    });
    const statuses: number[] = [];
    const send = async (request: ReceiverRequest) =>
      statuses.push((await inHttpSpan(tracer, () => receiver.handle(request))).status);

    await send(post(SAMPLE_DLR));
    await send(post(SAMPLE_DLR));
    await send(post({ ...SAMPLE_DLR, id: undefined, mobile: PHONE }));
    await send(post(SAMPLE_DLR, "wrong-token-0123456789"));
    await send(post({ ...SAMPLE_DLR, id: "fails:1" }));
    await send(post({ ...SAMPLE_DLR, id: "slow:1" }));
    expect(statuses).toEqual([200, 200, 400, 401, 500, 503]);

    const spans = exporter.getFinishedSpans();
    const reportSpans = spans.filter((s) => s.name.startsWith("process "));
    expect(reportSpans.map((s) => [s.name, s.attributes["reportkit.outcome"]])).toEqual([
      ["process reportkit.delivery", "acknowledged"],
      ["process reportkit.delivery", "duplicate"],
      ["process reportkit.delivery", "failed"],
      ["process reportkit.delivery", "timeout"],
    ]);
    const [acknowledged, , failed, timedOut] = reportSpans as ReadableSpan[];
    expect(acknowledged?.kind).toBe(1 + 3); // SpanKind.CONSUMER
    expect(acknowledged?.attributes).toEqual({
      "messaging.system": "reportkit",
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.destination.name": "reportkit.delivery",
      "reportkit.kind": "delivery",
      "reportkit.report.status": "DELIVRD",
      "reportkit.report.outcome": "delivered",
      "reportkit.outcome": "acknowledged",
    });
    expect(failed?.attributes["error.type"]).toBe("handler_failed");
    expect(failed?.status).toEqual({ code: 2, message: "handler_failed" });
    expect(timedOut?.attributes["error.type"]).toBe("handler_timeout");

    // Each report span is a child of its HTTP span; the handler's span a child of the report's.
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    for (const span of reportSpans) {
      expect(byId.get(span.parentSpanContext?.spanId ?? "")?.name).toBe("POST /webhooks");
    }
    const dbSave = spans.filter((s) => s.name === "db.save");
    expect(dbSave).toHaveLength(1);
    expect(dbSave[0]?.parentSpanContext?.spanId).toBe(acknowledged?.spanContext().spanId);

    expect(await reportCounts(reader)).toEqual({
      "delivery acknowledged": 1,
      "delivery duplicate": 1,
      "delivery refused invalid_report": 1,
      "refused unauthorized": 1,
      "delivery failed handler_failed": 1,
      "delivery timeout handler_timeout": 1,
    });
    // The slow handler is measured once it ended, after its 503.
    await vi.waitFor(() => expect(slowDone).toBe(true), { timeout: 10_000 });
    await vi.waitFor(async () => expect(await handlerDurations(reader)).toBe(3), {
      timeout: 10_000,
    });

    // Nothing identifying a person or a credential anywhere.
    const { resourceMetrics } = await reader.collect();
    const everything = JSON.stringify([
      spans.map((s) => [s.name, s.attributes, s.status, s.events]),
      resourceMetrics.scopeMetrics.map((s) => s.metrics.map((m) => m.dataPoints)),
    ]);
    expect(everything).not.toContain(PHONE);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("wrong-token");
    expect(everything).not.toContain("order-1234"); // the body's custom field
    expect(everything).not.toContain("database down");
  });

  it("counts the refusal of a call report by its kind once the kind is known, and a refusal before it without one", async () => {
    const { meterProvider, reader } = sdk();
    const receiver = createReceiver({
      secret: TOKEN,
      telemetry: otelTelemetry({ meterProvider }),
      logger: false,
      onDelivery() {},
    });
    await receiver.handle({ ...post(SAMPLE_DLR), method: "GET" });
    expect(await reportCounts(reader)).toEqual({ "refused method_not_allowed": 1 });
  });

  it("counts a parked report (a worker's RetryLater) as parked, its span not an error", async () => {
    const { exporter, tracerProvider, meterProvider, reader } = sdk();
    const telemetry = otelTelemetry({ tracerProvider, meterProvider });
    telemetry.startReport("delivery", "DELIVRD").end("parked");
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes["reportkit.outcome"]).toBe("parked");
    expect(span?.status.code).toBe(0); // SpanStatusCode.UNSET
    expect(await reportCounts(reader)).toEqual({ "delivery parked": 1 });
  });

  it("rejects options that are not providers, saying which", () => {
    expect(() => otelTelemetry({ tracerProvider: {} as never })).toThrow(
      "otelTelemetry(options): `tracerProvider` must be an OpenTelemetry TracerProvider (with getTracer).",
    );
    expect(() => otelTelemetry({ meterProvider: 1 as never })).toThrow(
      "otelTelemetry(options): `meterProvider` must be an OpenTelemetry MeterProvider (with getMeter).",
    );
  });
});

describe("trace context in a job", () => {
  it("writes a span's context as traceparent/tracestate and reads it back", () => {
    const { tracerProvider } = sdk();
    const span = tracerProvider.getTracer("t").startSpan("enqueue");
    const carrier = carrierOf(span.spanContext());
    expect(carrier.traceparent).toBe(
      `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    );
    expect(spanContextOf(carrier)).toMatchObject({
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      traceFlags: 1,
      isRemote: true,
    });
    span.end();
  });

  it("reads nothing from a missing or malformed carrier", () => {
    expect(spanContextOf(undefined)).toBeUndefined();
    expect(spanContextOf({ traceparent: "00-zz-1-01" })).toBeUndefined();
    expect(spanContextOf({ traceparent: `00-${"0".repeat(32)}-${"1".repeat(16)}-01` })).toBe(
      undefined,
    );
  });
});
