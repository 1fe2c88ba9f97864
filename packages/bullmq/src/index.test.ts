// The package's pair as users import it: bullmqQueue's jobs processed by createWorker's
// workers, against a real redis-server (see test/support/redis-server.ts).
import { defaultDedupeKey, parseReport, type Report, RetryLater } from "@reportkit/core";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../test/fixtures/samples.js";
import {
  type RedisServer,
  requireRedisServer,
  startRedisServer,
} from "../../../test/support/redis-server.js";
import { bullmqQueue, createWorker, type ReportJobContext, reportJobId } from "./index.js";

function report(payload: Record<string, unknown>): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

const DLR = report(SAMPLE_DLR);
const CALL = report(SAMPLE_CALL);
const key = (r: Report) => defaultDedupeKey(r) ?? "";

describe.runIf(requireRedisServer("index.test.ts"))("bullmqQueue and createWorker", () => {
  let redis: RedisServer;
  let admin: Redis;
  let n = 0;
  let queueName: string;
  const closing: { close(): Promise<unknown> }[] = [];
  const close = <T extends { close(): Promise<unknown> }>(thing: T): T => {
    closing.push(thing);
    return thing;
  };
  const quiet = () => {};

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    admin.on("error", () => {}); // Redis is stopped on purpose below.
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.close();
  });
  // Each test gets its own queue; everything it opened is closed after it.
  beforeAll(() => {});
  afterEach(async () => {
    for (const thing of closing.splice(0).reverse()) await thing.close();
  });
  const fresh = () => {
    queueName = `test-${++n}`;
    return queueName;
  };
  const counts = () =>
    close(new Queue(queueName, { connection: { port: redis.port } })).getJobCounts(
      "waiting",
      "active",
      "completed",
      "failed",
      "delayed",
    );

  it("resolves enqueue only once the job is stored in Redis, under an id from the dedupe key", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const id = reportJobId(key(DLR));
    expect(id).toMatch(/^rk-[A-Za-z0-9_-]{43}$/);
    expect(await admin.exists(`bull:${queueName}:${id}`)).toBe(0);
    await queue.enqueue(DLR, key(DLR));
    expect(await admin.exists(`bull:${queueName}:${id}`)).toBe(1);
    expect(await admin.hget(`bull:${queueName}:${id}`, "name")).toBe("delivery");
  });

  it("gives the worker's handlers the typed report, dates as Dates, with its job context", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const seen: { report: Report; job: ReportJobContext }[] = [];
    close(
      createWorker({
        connection: redis.url,
        queueName,
        onDelivery: (report, job) => void seen.push({ report, job }),
        onCall: (report, job) => void seen.push({ report, job }),
      }),
    );
    await queue.enqueue(DLR, key(DLR));
    await queue.enqueue(CALL, key(CALL));
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    const delivery = seen.find((s) => s.report.type === "delivery");
    const call = seen.find((s) => s.report.type === "call");
    expect(delivery?.report).toEqual(DLR);
    expect(call?.report).toEqual(CALL);
    if (delivery?.report.type !== "delivery" || call?.report.type !== "call") throw new Error();
    expect(delivery.report.deliveredAt).toBeInstanceOf(Date);
    expect(delivery.report.deliveredAt?.getTime()).toBe(
      DLR.type === "delivery" ? DLR.deliveredAt?.getTime() : 0,
    );
    expect(call.report.startedAt).toBeInstanceOf(Date);
    expect(delivery.job).toMatchObject({
      jobId: reportJobId(key(DLR)),
      dedupeKey: key(DLR),
      attempt: 1,
    });
    expect(delivery.job.queuedAt).toBeInstanceOf(Date);
  });

  it("hands an opt-out and another channel's event to onUnsubscribe and onEvent", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const seen: string[] = [];
    close(
      createWorker({
        connection: redis.url,
        queueName,
        onUnsubscribe: (r) => void seen.push(`${r.type}:${r.receiver}`),
        onEvent: (r) => void seen.push(`${r.type}:${r.event}`),
      }),
    );
    const optOut = report({ id: "u-1", receiver: "917002088123", type: "sender", value: "Demo12" });
    const event = report({ event: "rcs:message:read", payload: { id: "e-1", status: "READ" } });
    await queue.enqueue(optOut, key(optOut));
    await queue.enqueue(event, key(event));
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 10_000 });
    expect(seen.sort()).toEqual(["event:rcs:message:read", "unsubscribe:917002088123"]);
  });

  it("adds one job for the same report sent 10 times, and the handler runs once", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    // Five at once, five one after another.
    await Promise.all(Array.from({ length: 5 }, () => queue.enqueue(DLR, key(DLR))));
    for (let i = 0; i < 5; i++) await queue.enqueue(DLR, key(DLR));
    expect(await counts()).toMatchObject({ waiting: 1 });
    let calls = 0;
    close(createWorker({ connection: redis.url, queueName, onDelivery: () => void calls++ }));
    await vi.waitFor(async () => expect(await counts()).toMatchObject({ completed: 1 }), {
      timeout: 15_000,
    });
    // A provider retry after it was processed: still nothing new (the completed job is kept).
    await queue.enqueue(DLR, key(DLR));
    expect(await counts()).toEqual({ waiting: 0, active: 0, completed: 1, failed: 0, delayed: 0 });
    expect(calls).toBe(1);
  });

  it("queues a report without a dedupe key under an id of BullMQ's own", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    await queue.enqueue(CALL, undefined);
    await queue.enqueue(CALL, undefined);
    expect(await counts()).toMatchObject({ waiting: 2 });
    const seen: ReportJobContext[] = [];
    close(
      createWorker({ connection: redis.url, queueName, onCall: (_r, job) => void seen.push(job) }),
    );
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 15_000 });
    expect(seen.map((j) => j.dedupeKey)).toEqual([null, null]);
  });

  it("retries a handler that fails twice, then processes the report once", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const attempts: number[] = [];
    let processed = 0;
    close(
      createWorker({
        connection: redis.url,
        queueName,
        backoff: { type: "exponential", delay: 50 },
        onError: quiet,
        onDelivery(_report, job) {
          attempts.push(job.attempt);
          if (attempts.length <= 2) throw new Error(`database down (${attempts.length})`);
          processed++;
        },
      }),
    );
    await queue.enqueue(DLR, key(DLR));
    await vi.waitFor(async () => expect(await counts()).toMatchObject({ completed: 1 }), {
      timeout: 10_000,
    });
    expect(attempts).toEqual([1, 2, 3]);
    expect(processed).toBe(1);
    expect(await counts()).toMatchObject({ failed: 0, delayed: 0, waiting: 0 });
  });

  it("keeps a job that exhausted its attempts as failed, with the last error", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const errors: string[] = [];
    let calls = 0;
    close(
      createWorker({
        connection: redis.url,
        queueName,
        attempts: 3,
        backoff: 20,
        onError: (error, job) => void errors.push(`${job?.attempt}: ${error.message}`),
        onDelivery() {
          calls++;
          throw new Error(`CRM refused (${calls})`);
        },
      }),
    );
    await queue.enqueue(DLR, key(DLR));
    // onError for the last attempt runs just after BullMQ has moved the job to failed.
    await vi.waitFor(
      async () => {
        expect(await counts()).toMatchObject({ failed: 1 });
        expect(errors).toHaveLength(3);
      },
      { timeout: 10_000 },
    );
    expect(calls).toBe(3);
    expect(errors).toEqual(["1: CRM refused (1)", "2: CRM refused (2)", "3: CRM refused (3)"]);
    const job = await close(new Queue(queueName, { connection: { port: redis.port } })).getJob(
      reportJobId(key(DLR)),
    );
    expect(job?.failedReason).toBe("CRM refused (3)");
    expect(job?.attemptsMade).toBe(3);
    // A provider retry of the failed report adds nothing: the job stays for `queue retry`.
    await queue.enqueue(DLR, key(DLR));
    expect(await counts()).toMatchObject({ failed: 1, waiting: 0 });
  });

  it("fails a job at once when the worker has no handler for its type", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    close(createWorker({ connection: redis.url, queueName, onError: quiet, onDelivery: () => {} }));
    await queue.enqueue(CALL, key(CALL));
    await vi.waitFor(async () => expect(await counts()).toMatchObject({ failed: 1 }), {
      timeout: 15_000,
    });
    const job = await close(new Queue(queueName, { connection: { port: redis.port } })).getJob(
      reportJobId(key(CALL)),
    );
    expect(job?.failedReason).toMatch(/no `onCall` handler/);
    expect(job?.attemptsMade).toBe(1);
  });

  it("parks a report until its message is known, then processes it once, right after, on attempt 1", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const known = new Set<string>();
    const parked: { attempt: number; delayMs: number }[] = [];
    const processed: number[] = [];
    close(
      createWorker({
        connection: redis.url,
        queueName,
        onError: quiet,
        parking: { delayMs: 10, maxDelayMs: 40 },
        onParked: (_reason, job, delayMs) => void parked.push({ attempt: job.attempt, delayMs }),
        onDelivery(report, job) {
          if (!known.has(report.id)) throw new RetryLater(`message ${report.id} is not stored yet`);
          processed.push(job.attempt);
        },
      }),
    );
    await queue.enqueue(DLR, key(DLR));
    await vi.waitFor(() => expect(parked.length).toBeGreaterThanOrEqual(3), { timeout: 15_000 });
    expect(await counts()).toMatchObject({ failed: 0 });
    if (DLR.type === "delivery") known.add(DLR.id);
    await vi.waitFor(async () => expect(await counts()).toMatchObject({ completed: 1 }), {
      timeout: 15_000,
    });
    expect(processed).toEqual([1]);
    // Not failed attempts: every run was attempt 1, each wait doubling up to the cap.
    expect(new Set(parked.map((p) => p.attempt))).toEqual(new Set([1]));
    expect(parked.slice(0, 3).map((p) => p.delayMs)).toEqual([10, 20, 40]);
    const job = await close(new Queue(queueName, { connection: { port: redis.port } })).getJob(
      reportJobId(key(DLR)),
    );
    // The one attempt that completed; the parked runs made none.
    expect(job?.attemptsMade).toBe(1);
  });

  it("fails a report parked past the parking limit like any other, then keeps it failed", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    const errors: string[] = [];
    close(
      createWorker({
        connection: redis.url,
        queueName,
        attempts: 2,
        backoff: 20,
        parking: { limitMs: 150, delayMs: 20, maxDelayMs: 20 },
        onParked: () => {},
        onError: (error, job) => void errors.push(`${job?.attempt}: ${error.message}`),
        onDelivery(report) {
          throw new RetryLater(`message ${report.id} is not stored yet`, { afterMs: 20 });
        },
      }),
    );
    await queue.enqueue(DLR, key(DLR));
    // onError for the last attempt runs just after BullMQ has moved the job to failed.
    await vi.waitFor(
      async () => {
        expect(await counts()).toMatchObject({ failed: 1 });
        expect(errors).toHaveLength(2);
      },
      { timeout: 15_000 },
    );
    expect(errors[0]).toMatch(
      /^1: message .* is not stored yet \(parked since .*, past the parking limit of 150 ms\)$/,
    );
    expect(errors[1]).toMatch(/^2: message .* is not stored yet \(parked since /);
  });

  it("close() waits for the running handler", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh() }));
    let started = false;
    let finished = false;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = createWorker({
      connection: redis.url,
      queueName,
      async onDelivery() {
        started = true;
        await released;
        finished = true;
      },
    });
    await queue.enqueue(DLR, key(DLR));
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 15_000 });
    let closed = false;
    const closing = worker.close().then(() => {
      closed = true;
    });
    // close() must still be waiting while the handler is: give it every chance to finish early.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(finished).toBe(true);
    expect(await counts()).toMatchObject({ completed: 1, active: 0 });
  });

  it("rejects enqueue while Redis is down, and adds again once it is back", async () => {
    const queue = close(bullmqQueue({ connection: redis.url, queueName: fresh(), onError: quiet }));
    await queue.enqueue(DLR, key(DLR));
    await redis.stop();
    try {
      await expect(queue.enqueue(CALL, key(CALL))).rejects.toThrow(
        /^bullmqQueue: enqueue failed on Redis at redis:\/\/127\.0\.0\.1:\d+ \(/,
      );
    } finally {
      await redis.start();
    }
    await vi.waitFor(() => queue.enqueue(CALL, key(CALL)), { timeout: 10_000 });
    expect(await admin.exists(`bull:${queueName}:${reportJobId(key(CALL))}`)).toBe(1);
  });

  it("a connection lost after it last said ready is reported as unreachable too", async () => {
    // The race of the test above, made certain: the socket is gone, but ioredis has not yet
    // seen it close, so its status still says "ready" when the add is sent.
    const client = new Redis(redis.url, { maxRetriesPerRequest: null, enableOfflineQueue: false });
    client.on("error", () => {});
    const queue = close(bullmqQueue({ connection: client, queueName: fresh(), onError: quiet }));
    await queue.enqueue(DLR, key(DLR));
    client.stream.destroy();
    expect(client.status).toBe("ready");
    await expect(queue.enqueue(CALL, key(CALL))).rejects.toThrow(
      /^bullmqQueue: enqueue failed on Redis at redis:\/\/127\.0\.0\.1:\d+ \(Stream isn't writeable/,
    );
    client.disconnect();
  });

  it("rejects enqueue when Redis was never reachable, without hanging", async () => {
    const queue = close(
      bullmqQueue({ connection: "redis://127.0.0.1:9", queueName: fresh(), onError: quiet }),
    );
    await expect(queue.enqueue(DLR, key(DLR))).rejects.toThrow(
      "bullmqQueue: enqueue failed on Redis at redis://127.0.0.1:9 (connect ECONNREFUSED 127.0.0.1:9).",
    );
  });

  it("checks its options once, at construction, with messages that say how to fix them", () => {
    expect(() => bullmqQueue({ connection: "localhost:6379" })).toThrow(
      /^bullmqQueue: `connection` must be a redis:\/\/ or rediss:\/\/ \(TLS\) URL/,
    );
    expect(() => bullmqQueue({ connection: redis.url, url: redis.url } as never)).toThrow(
      "bullmqQueue: unknown option `url`; the options are connection, queueName, prefix, onError.",
    );
    expect(() => bullmqQueue({ connection: redis.url, onError: "log" as never })).toThrow(
      'bullmqQueue: `onError` must be a function, got "log".',
    );
    expect(() => bullmqQueue({ connection: redis.url, prefix: "" })).toThrow(
      'bullmqQueue: `prefix` must be a non-empty string, got "".',
    );
    expect(() => bullmqQueue({ connection: redis.url, queueName: "a:b" })).toThrow(
      /`queueName` must be a non-empty string without ":"/,
    );
    expect(() => createWorker({ connection: redis.url })).toThrow(/give at least one handler/);
    expect(() => createWorker({ connection: redis.url, onCall: () => {}, attempts: 0 })).toThrow(
      "createWorker: `attempts` must be a whole number from 1 to 1000, got 0.",
    );
    expect(() =>
      createWorker({
        connection: redis.url,
        onCall: () => {},
        // @ts-expect-error: not a backoff type
        backoff: { type: "linear", delay: 1 },
      }),
    ).toThrow(/`backoff` must be a delay in ms or \{ type: "fixed" \| "exponential"/);
  });
});
