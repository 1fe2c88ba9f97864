// The OpenTelemetry SDK as a production service runs it, minus the network: tracer and meter
// providers, an async context manager (the handler runs with reportkit's span active), spans
// batched to an exporter and metrics read periodically by a reader, both exporters dropping
// what they get. What the "OpenTelemetry" rows measure is then reportkit's telemetry and the
// SDK's own recording, not an exporter's I/O.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

// ExportResultCode.SUCCESS (@opentelemetry/core): the export "succeeded", nothing was sent.
const SUCCESS = { code: 0 };

const noopSpanExporter = {
  export: (_spans, done) => done(SUCCESS),
  shutdown: () => Promise.resolve(),
  forceFlush: () => Promise.resolve(),
};

const noopMetricExporter = {
  export: (_metrics, done) => done(SUCCESS),
  shutdown: () => Promise.resolve(),
  forceFlush: () => Promise.resolve(),
};

/** Providers for otelTelemetry({ tracerProvider, meterProvider }). */
export function otelSdk() {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(noopSpanExporter)],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: noopMetricExporter,
        exportIntervalMillis: 10_000,
      }),
    ],
  });
  return { tracerProvider, meterProvider };
}
