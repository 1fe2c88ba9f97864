// The OpenTelemetry SDK: traces with the span of each report printed on the console, metrics
// read by a Prometheus exporter that server.ts serves on /metrics. server.ts imports this, so it
// runs before server.ts's own code, where otelTelemetry() picks up the global providers. (With
// the HTTP instrumentation, load it with `node --import` instead, so it patches node:http before
// Express loads; reportkit's spans then nest under the request's.) In production, swap the
// console for an OTLP exporter (@opentelemetry/exporter-trace-otlp-http) and keep the rest.
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

const resource = resourceFromAttributes({ "service.name": "sms-reports" });

// The active span follows async calls, so spans made in a handler nest under reportkit's.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const tracerProvider = new BasicTracerProvider({
  resource,
  spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
});
trace.setGlobalTracerProvider(tracerProvider);

// No server of its own (port 9464 by default): server.ts serves the scrape on its /metrics.
export const prometheus = new PrometheusExporter({ preventServerStart: true });
const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
metrics.setGlobalMeterProvider(meterProvider);

/** Flushes and stops both providers: the last thing before the process ends. */
export async function shutdownTelemetry(): Promise<void> {
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
}
