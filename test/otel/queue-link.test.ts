// Queue mode with telemetry on both sides, on a real Redis: the receiver's span (outcome
// queued) writes its trace context into the job, and the worker's span links to it.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { bullmqQueue, createWorker } from "@reportkit/bullmq";
import { createReceiver } from "@reportkit/core";
import { otelTelemetry } from "@reportkit/otel";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const run = requireRedisServer("test/otel/queue-link.test.ts");
const contextManager = new AsyncLocalStorageContextManager();

describe.runIf(run)("telemetry in queue mode", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    context.setGlobalContextManager(contextManager.enable());
    redis = await startRedisServer();
  });
  afterAll(async () => {
    contextManager.disable();
    context.disable();
    await redis?.close();
  });

  it("the worker's span links to the receiver's span that enqueued the job; the handler's span is its child", async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const queue = bullmqQueue({ connection: redis.url, queueName: "traced" });
    const receiver = createReceiver({
      secret: TOKEN,
      queue,
      telemetry: otelTelemetry({ tracerProvider }),
    });
    const reply = await receiver.handle({
      method: "POST",
      url: "/webhooks",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(SAMPLE_DLR),
    });
    expect(reply.status).toBe(202);

    const tracer = tracerProvider.getTracer("worker-app");
    const worker = createWorker({
      connection: redis.url,
      queueName: "traced",
      telemetry: otelTelemetry({ tracerProvider }),
      onDelivery() {
        tracer.startActiveSpan("crm.update", (span) => span.end());
      },
    });
    try {
      await vi.waitFor(
        () => expect(exporter.getFinishedSpans().map((s) => s.name)).toContain("crm.update"),
        { timeout: 15_000 },
      );
      await vi.waitFor(() => expect(exporter.getFinishedSpans()).toHaveLength(3), {
        timeout: 15_000,
      });
    } finally {
      await worker.close();
      await receiver.close();
    }
    const [enqueued, handler, processed] = exporter.getFinishedSpans();
    expect(enqueued?.name).toBe("process reportkit.delivery");
    expect(enqueued?.attributes["reportkit.outcome"]).toBe("queued");
    expect(processed?.name).toBe("process reportkit.delivery");
    expect(processed?.attributes["reportkit.outcome"]).toBe("acknowledged");
    expect(processed?.links.map((link) => link.context.spanId)).toEqual([
      enqueued?.spanContext().spanId,
    ]);
    expect(processed?.links[0]?.context.traceId).toBe(enqueued?.spanContext().traceId);
    expect(handler?.name).toBe("crm.update");
    expect(handler?.parentSpanContext?.spanId).toBe(processed?.spanContext().spanId);
  });
});
