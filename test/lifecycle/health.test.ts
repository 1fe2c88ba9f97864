// health() against a real Redis: one check per store and queue, a round trip each; false with
// a message naming Redis once it is stopped; the same through every adapter's object.
import { bullmqQueue } from "@reportkit/bullmq";
import { createReceiver, type HealthReport } from "@reportkit/core";
import { webhookReceiver as expressReceiver } from "@reportkit/express";
import { webhookReceiver as fastifyReceiver } from "@reportkit/fastify";
import { webhookReceiver as honoReceiver } from "@reportkit/hono";
import { redisDedupe } from "@reportkit/redis";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const run = requireRedisServer("test/lifecycle/health.test.ts");

describe.runIf(run)("health(): a round trip to each store and queue", () => {
  let redis: RedisServer;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await redis?.close();
  });

  /** Every way to ask: core's receiver, Express's and Hono's handler, fastify.reportkit. */
  async function everyAdapter(options: Parameters<typeof createReceiver>[0]) {
    const core = createReceiver(options);
    const express = expressReceiver(options);
    const hono = honoReceiver(options);
    const app = Fastify();
    await app.register(fastifyReceiver, options as never);
    await app.ready();
    closers.push(() => app.close());
    return {
      core: () => core.health(),
      express: () => express.health(),
      hono: () => hono.health(),
      fastify: () => app.reportkit.health(),
    };
  }

  it("ok with Redis up, not ok with a message naming Redis once it is stopped, ok again once back (dedupe store and queue)", async () => {
    const dedupe = redisDedupe({ connection: redis.url, timeoutMs: 500 });
    const queue = bullmqQueue({ connection: redis.url });
    closers.push(
      () => dedupe.close(),
      () => queue.close(),
    );
    const withStore = await everyAdapter({ secret: TOKEN, dedupe, onDelivery() {} });
    const withQueue = await everyAdapter({ secret: TOKEN, queue });

    const up: Record<string, HealthReport> = {};
    for (const [name, health] of Object.entries(withStore)) up[`${name} dedupe`] = await health();
    for (const [name, health] of Object.entries(withQueue)) up[`${name} queue`] = await health();
    for (const [name, report] of Object.entries(up)) {
      // redisDedupe keeps its failure journal in the same Redis: checked on its own line.
      const checks = name.endsWith("dedupe")
        ? { dedupe: { ok: true }, journal: { ok: true } }
        : { queue: { ok: true } };
      expect(report, name).toEqual({ ok: true, checks });
    }

    await redis.stop();
    const down = {
      dedupe: await withStore.express(),
      queue: await withQueue.fastify(),
      hono: await withStore.hono(),
    };
    expect(down.dedupe.ok).toBe(false);
    expect(down.dedupe.checks.dedupe?.ok).toBe(false);
    expect(down.dedupe.checks.journal?.ok).toBe(false);
    expect(down.dedupe.checks.dedupe?.message).toMatch(
      new RegExp(
        `^redis: redisDedupe: ping failed on Redis at redis://127\\.0\\.0\\.1:${redis.port} `,
      ),
    );
    expect(down.hono.checks.dedupe?.message).toContain(`Redis at redis://127.0.0.1:${redis.port}`);
    expect(down.queue.ok).toBe(false);
    expect(down.queue.checks.queue?.message).toMatch(
      new RegExp(
        `^queue "reportkit": bullmqQueue: ping failed on Redis at redis://127\\.0\\.0\\.1:${redis.port} \\(`,
      ),
    );

    await redis.start();
    await expect
      .poll(async () => (await withStore.core()).ok && (await withQueue.core()).ok, {
        timeout: 15_000,
      })
      .toBe(true);
  });

  it("the default memory store is one check, always ok; a closing receiver says so", async () => {
    const receiver = createReceiver({ secret: TOKEN, onDelivery() {} });
    expect(await receiver.health()).toEqual({ ok: true, checks: { dedupe: { ok: true } } });
    await receiver.close();
    expect(await receiver.health()).toEqual({
      ok: false,
      checks: { dedupe: { ok: true }, receiver: { ok: false, message: "shutting down" } },
    });
  });
});
