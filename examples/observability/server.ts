// An Express receiver that production can see: reportkit's spans and metrics through the
// OpenTelemetry SDK (telemetry.ts), Prometheus's scrape on /metrics, a health check for the
// load balancer on /health, and a graceful stop on SIGTERM.

import { webhookReceiver } from "@reportkit/express";
import { otelTelemetry } from "@reportkit/otel";
import express from "express";
import { prometheus, shutdownTelemetry } from "./telemetry.js";

const receiver = webhookReceiver({
  path: "/webhooks",
  // No `secret` here: it is read from REPORTKIT_SECRET. The global providers telemetry.ts set.
  telemetry: otelTelemetry(),
  onDelivery(report) {
    console.log(`delivery ${report.id}: ${report.status}`);
  },
  onCall(report) {
    console.log(`call ${report.mid}: ${report.status}, ${report.duration}s`);
  },
});

const app = express();
app.use(receiver);
// reportkit_reports_total{reportkit_kind,reportkit_outcome,reportkit_report_outcome,
// reportkit_report_reason,reportkit_error_code} and
// reportkit_handler_duration_seconds, as Prometheus scrapes them.
app.get("/metrics", (req, res) => prometheus.getMetricsRequestHandler(req, res));
app.get("/health", async (_req, res) => {
  const health = await receiver.health();
  res.status(health.ok ? 200 : 503).json(health);
});

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : process.env.PORT;
  console.log(`listening on http://127.0.0.1:${port}/webhooks`);
});

process.once("SIGTERM", async () => {
  await receiver.close(); // 503 shutting_down from now on; waits for the handlers in flight
  server.close();
  server.closeIdleConnections();
  await shutdownTelemetry();
  console.log("stopped");
});
