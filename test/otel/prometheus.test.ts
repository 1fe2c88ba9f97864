// The metrics as Prometheus scrapes them: a real Prometheus exporter on an Express app's
// /metrics, read over HTTP after reports went through the receiver.
import type { AddressInfo } from "node:net";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { webhookReceiver } from "@reportkit/express";
import { otelTelemetry } from "@reportkit/otel";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

let origin: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const app = express();
  app.use(
    webhookReceiver({
      path: "/webhooks",
      secret: TOKEN,
      logger: false,
      telemetry: otelTelemetry({ meterProvider }),
      onDelivery() {},
      onCall() {
        throw new Error("no calls today");
      },
    }),
  );
  app.get("/metrics", (req, res) => exporter.getMetricsRequestHandler(req, res));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await meterProvider.shutdown();
  };
});

afterAll(() => close?.());

function send(body: object, token = TOKEN) {
  return fetch(`${origin}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

it("a Prometheus scrape finds reportkit_reports_total by kind, outcome and error code, and the handler duration histogram (reportkit_handler_duration, in seconds)", async () => {
  const statuses = [];
  statuses.push((await send(SAMPLE_DLR)).status);
  statuses.push((await send(SAMPLE_DLR)).status);
  statuses.push((await send(SAMPLE_CALL)).status);
  statuses.push((await send(SAMPLE_DLR, "not-the-token-at-all")).status);
  statuses.push((await send(SAMPLE_DLR, "not-the-token-at-all")).status);
  expect(statuses).toEqual([200, 200, 500, 401, 401]);

  const scrape = await fetch(`${origin}/metrics`);
  expect(scrape.status).toBe(200);
  const text = await scrape.text();
  // Each sample as its labels (in any order) and value; otel_scope_name is the exporter's own.
  const samples = text
    .split("\n")
    .filter((line) => line.startsWith("reportkit_reports_total{"))
    .map((line) => {
      const labels = Object.fromEntries(
        [...line.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value]),
      );
      return { ...labels, value: Number(line.split(" ").at(-1)) };
    });
  const scope = { otel_scope_name: "@reportkit/otel" };
  expect(samples).toHaveLength(4);
  expect(samples).toEqual(
    expect.arrayContaining([
      { ...scope, reportkit_kind: "delivery", reportkit_outcome: "acknowledged", value: 1 },
      { ...scope, reportkit_kind: "delivery", reportkit_outcome: "duplicate", value: 1 },
      {
        ...scope,
        reportkit_kind: "call",
        reportkit_outcome: "failed",
        reportkit_error_code: "handler_failed",
        value: 1,
      },
      { ...scope, reportkit_outcome: "refused", reportkit_error_code: "unauthorized", value: 2 },
    ]),
  );
  expect(text).toContain("# TYPE reportkit_reports_total counter");
  expect(text).toContain("# TYPE reportkit_handler_duration histogram");
  expect(text).toMatch(/^reportkit_handler_duration_count\{reportkit_kind="delivery"[^}]*\} 1$/m);
  expect(text).toMatch(/^reportkit_handler_duration_count\{reportkit_kind="call"[^}]*\} 1$/m);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(String(SAMPLE_DLR.mobile));
});
