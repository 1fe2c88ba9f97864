// A receiver in queue mode (every adapter) with @reportkit/bullmq on a real redis-server, and a
// real worker: 202 only once the job is in Redis, one job per report however often it is sent,
// 503 while Redis is down, and nothing acknowledged lost across a Redis restart.
import { bullmqQueue, createWorker, reportJobId } from "@reportkit/bullmq";
import { defaultDedupeKey, parseReport } from "@reportkit/core";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";
import { ADAPTERS, push, type QueueApp, startQueueApp } from "./servers.js";

const quiet = () => {};

function keyOf(payload: Record<string, unknown>): string {
  const parsed = parseReport(payload);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return defaultDedupeKey(parsed.report) ?? "";
}

describe.runIf(requireRedisServer("receiver-queue.test.ts"))("queue mode, every adapter", () => {
  let redis: RedisServer;
  let admin: Redis;
  const open: { close(): Promise<unknown> }[] = [];
  const closeLater = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    open.push(thing);
    return thing;
  };

  beforeAll(async () => {
    redis = await startRedisServer({ appendOnly: true });
    admin = new Redis(redis.url);
    admin.on("error", () => {}); // Redis is stopped on purpose below.
  });
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.close();
  });

  async function app(adapter: (typeof ADAPTERS)[number], queueName: string) {
    const queue = closeLater(bullmqQueue({ connection: redis.url, queueName, onError: quiet }));
    const server: QueueApp = closeLater(await startQueueApp(adapter, queue));
    return { queue, url: server.url };
  }

  describe.each(ADAPTERS)("%s", (adapter) => {
    it("answers 202 queued only once the job is in Redis, and the worker gets it typed", async () => {
      const queueName = `accept-${adapter}`;
      const { url } = await app(adapter, queueName);
      const jobKey = `bull:${queueName}:${reportJobId(keyOf(SAMPLE_DLR))}`;
      expect(await admin.exists(jobKey)).toBe(0);
      expect(await push(url, SAMPLE_DLR)).toEqual({
        status: 202,
        body: { ok: true, queued: true },
      });
      // Read at once, on another connection: the add was acknowledged before the 202.
      expect(await admin.exists(jobKey)).toBe(1);
      const seen: unknown[] = [];
      closeLater(
        createWorker({
          connection: redis.url,
          queueName,
          onDelivery: (report) => void seen.push(report),
        }),
      );
      await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
      expect(seen[0]).toMatchObject({
        type: "delivery",
        id: SAMPLE_DLR.id,
        // The wall-clock time read in the receiver's zone (the provider's, by default).
        deliveredAt: new Date("2021-04-09T16:27:51+05:30"),
        raw: SAMPLE_DLR,
      });
    });

    it("adds one job for the same report sent 10 times; the handler runs once", async () => {
      const queueName = `dedupe-${adapter}`;
      const { url } = await app(adapter, queueName);
      const answers = [
        ...(await Promise.all(Array.from({ length: 5 }, () => push(url, SAMPLE_CALL)))),
      ];
      for (let i = 0; i < 5; i++) answers.push(await push(url, SAMPLE_CALL));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
      const jobs = closeLater(new Queue(queueName, { connection: { port: redis.port } }));
      expect(await jobs.getJobCounts("waiting", "completed")).toEqual({ waiting: 1, completed: 0 });
      let calls = 0;
      closeLater(createWorker({ connection: redis.url, queueName, onCall: () => void calls++ }));
      await vi.waitFor(
        async () => expect(await jobs.getJobCounts("completed")).toEqual({ completed: 1 }),
        { timeout: 10_000 },
      );
      // The provider's retry after it was processed: 202 again, nothing added.
      expect((await push(url, SAMPLE_CALL)).status).toBe(202);
      expect(await jobs.getJobCounts("waiting", "completed")).toEqual({ waiting: 0, completed: 1 });
      expect(calls).toBe(1);
    });

    it("answers 503 queue_unavailable while Redis is down, never 2xx, and 202 once it is back", async () => {
      const queueName = `down-${adapter}`;
      const { url } = await app(adapter, queueName);
      expect((await push(url, SAMPLE_DLR)).status).toBe(202);
      await redis.stop();
      try {
        for (const payload of [SAMPLE_DLR, SAMPLE_CALL]) {
          const answer = await push(url, payload);
          expect(answer.status).toBe(503);
          expect(answer.body).toMatchObject({ ok: false, error: { code: "queue_unavailable" } });
        }
      } finally {
        await redis.start();
      }
      await vi.waitFor(async () => expect((await push(url, SAMPLE_CALL)).status).toBe(202), {
        timeout: 10_000,
        interval: 100,
      });
      expect(await admin.exists(`bull:${queueName}:${reportJobId(keyOf(SAMPLE_CALL))}`)).toBe(1);
    });
  });

  it("processes all of 1,000 acknowledged reports after a redis-server restart (appendonly)", async () => {
    const queueName = "restart";
    const { url } = await app("express", queueName);
    const ids = Array.from({ length: 1000 }, (_, i) => `restart-${i}:1`);
    const statuses: number[] = [];
    for (let start = 0; start < ids.length; start += 25) {
      const batch = ids.slice(start, start + 25);
      const answers = await Promise.all(batch.map((id) => push(url, { ...SAMPLE_DLR, id })));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses.filter((s) => s === 202)).toHaveLength(1000);

    await redis.stop();
    await redis.start();

    const processed = new Set<string>();
    let calls = 0;
    closeLater(
      createWorker({
        connection: redis.url,
        queueName,
        concurrency: 16,
        onDelivery(report) {
          calls++;
          processed.add(report.id);
        },
      }),
    );
    await vi.waitFor(() => expect(processed.size).toBe(1000), { timeout: 60_000, interval: 200 });
    expect([...processed].sort()).toEqual([...ids].sort());
    expect(calls).toBe(1000);
  }, 120_000);
});
