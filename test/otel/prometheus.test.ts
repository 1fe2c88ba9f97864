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

/** The scrape, and each reportkit_reports_total sample as its labels and value. */
async function scrape() {
  const response = await fetch(`${origin}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  // Each sample as its labels (in any order) and value; otel_scope_name is the exporter's own.
  const samples = text
    .split("\n")
    .filter((line) => line.startsWith("reportkit_reports_total{"))
    .map((line) => {
      const labels: Record<string, string> = Object.fromEntries(
        [...line.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value]),
      );
      return { ...labels, value: Number(line.split(" ").at(-1)) };
    });
  return { text, samples };
}

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

  const { text, samples } = await scrape();
  const scope = { otel_scope_name: "@reportkit/otel" };
  expect(samples).toHaveLength(4);
  expect(samples).toEqual(
    expect.arrayContaining([
      {
        ...scope,
        reportkit_kind: "delivery",
        reportkit_outcome: "acknowledged",
        reportkit_report_outcome: "delivered",
        value: 1,
      },
      {
        ...scope,
        reportkit_kind: "delivery",
        reportkit_outcome: "duplicate",
        reportkit_report_outcome: "delivered",
        value: 1,
      },
      {
        ...scope,
        reportkit_kind: "call",
        reportkit_outcome: "failed",
        reportkit_error_code: "handler_failed",
        reportkit_report_outcome: "answered",
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

it("counts delivery reports by what their status says, a failure by its reason, and never by the status itself: the delivery rate alert's numbers", async () => {
  const statuses = [
    "DELIVRD",
    "DELIVRD",
    "DELIVRD",
    "UNDELIV",
    "DLT-REJECTED",
    "MOB-OFF",
    "ENROUTE",
    "TIMEOUT-DLR",
    "SOMETHING-NEW-42",
  ];
  // Acknowledged delivery reports by their report outcome and reason, before and after.
  const tally = async () => {
    const { samples } = await scrape();
    const counted = new Map<string, number>();
    for (const sample of samples as Record<string, string | number>[]) {
      if (sample.reportkit_kind !== "delivery" || sample.reportkit_outcome !== "acknowledged") {
        continue;
      }
      const key = `${sample.reportkit_report_outcome}/${sample.reportkit_report_reason ?? ""}`;
      counted.set(key, (counted.get(key) ?? 0) + Number(sample.value));
    }
    return counted;
  };
  const before = await tally();
  for (const [i, status] of statuses.entries()) {
    expect((await send({ ...SAMPLE_DLR, id: `alert-${i}:1`, status })).status).toBe(200);
  }
  const after = await tally();
  const added = Object.fromEntries(
    [...after].map(([key, value]) => [key, value - (before.get(key) ?? 0)]).filter(([, n]) => n),
  );
  expect(added).toEqual({
    "delivered/": 3,
    "undelivered/network": 1,
    "undelivered/dlt": 1,
    "undelivered/handset": 1,
    "pending/": 1,
    "unknown/unknown": 2,
  });
  // docs/operating.md's alert: delivered over everything but pending, here 3 of 8.
  const sum = (pick: (key: string) => boolean) =>
    Object.entries(added).reduce((total, [key, n]) => (pick(key) ? total + Number(n) : total), 0);
  const rate = sum((k) => k.startsWith("delivered/")) / sum((k) => !k.startsWith("pending/"));
  expect(rate).toBe(3 / 8);
  const { text } = await scrape();
  expect(text).not.toContain("SOMETHING-NEW-42");
  expect(text).not.toContain("DLT-REJECTED");
});
