export {
  HANDLER_DURATION_METRIC,
  INSTRUMENTATION_NAME,
  type OtelTelemetryOptions,
  otelTelemetry,
  REPORTS_METRIC,
} from "./otel-telemetry.js";
