// The observability example as its users start it: reports go through the receiver, the
// Prometheus scrape on /metrics counts them by kind, outcome and error code, each report's span
// reaches the SDK's exporter, /health answers, and SIGTERM stops the process by itself.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../test/fixtures/samples.js";
import { type RunningExample, startExample } from "../../test/support/example-process.js";

let example: RunningExample;

beforeAll(async () => {
  example = await startExample(new URL(".", import.meta.url), "server.ts", {
    REPORTKIT_SECRET: TOKEN,
  });
});

afterAll(() => example?.stop());

function send(body: object, token = TOKEN) {
  return fetch(`${example.origin}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

it("is scraped by Prometheus: reportkit_reports_total by kind, outcome, the report's outcome and error code", async () => {
  const statuses = [
    (await send(SAMPLE_DLR)).status,
    (await send(SAMPLE_DLR)).status,
    (await send(SAMPLE_CALL)).status,
    (await send(SAMPLE_DLR, "a-rotated-token-nobody-told-us")).status,
  ];
  expect(statuses).toEqual([200, 200, 200, 401]);

  const scrape = await fetch(`${example.origin}/metrics`);
  expect(scrape.status).toBe(200);
  expect(scrape.headers.get("content-type")).toMatch(/^text\/plain/);
  const lines = (await scrape.text())
    .split("\n")
    .filter((line) => line.startsWith("reportkit_reports_total{"))
    .map((line) => line.replace(/otel_scope_name="[^"]*",?/, "").replace(/,}/, "}"))
    .sort();
  expect(lines).toEqual([
    'reportkit_reports_total{reportkit_kind="call",reportkit_outcome="acknowledged",reportkit_report_outcome="answered"} 1',
    'reportkit_reports_total{reportkit_kind="delivery",reportkit_outcome="acknowledged",reportkit_report_outcome="delivered"} 1',
    'reportkit_reports_total{reportkit_kind="delivery",reportkit_outcome="duplicate",reportkit_report_outcome="delivered"} 1',
    'reportkit_reports_total{reportkit_outcome="refused",reportkit_error_code="unauthorized"} 1',
  ]);
});

it("hands each report's span to the SDK's exporter (the console here), and answers /health", async () => {
  await vi.waitFor(
    () => {
      const spans = example.output().match(/name: 'process reportkit\.(delivery|call)'/g) ?? [];
      expect(spans).toHaveLength(3);
    },
    { timeout: 10_000 },
  );
  expect(example.output()).toContain("'reportkit.outcome': 'duplicate'");
  const health = await fetch(`${example.origin}/health`);
  expect(health.status).toBe(200);
  // The default memory store: always reachable.
  expect(await health.json()).toEqual({ ok: true, checks: { dedupe: { ok: true } } });
});

it("stops by itself on SIGTERM, after flushing its telemetry", async () => {
  await example.stop();
  expect(example.output()).toContain("stopped");
});
