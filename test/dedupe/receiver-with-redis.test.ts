// The receiver's claim/complete/release protocol with the Redis store in place of the default
// memory one, in one process on a real redis-server: a failed handler's retry runs again, the
// deadline's late success is found by the retry, a Redis never reached gets 503 at once.
import { randomUUID } from "node:crypto";
import { createReceiver, type ReportkitError } from "@reportkit/core";
import { type RedisDedupeStore, redisDedupe } from "@reportkit/redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { type RedisServer, requireRedisServer, startRedisServer } from "../support/redis-server.js";

const post = (id: string) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
  });

describe.runIf(requireRedisServer("receiver-with-redis.test.ts"))(
  "createReceiver with redisDedupe",
  () => {
    let redis: RedisServer;
    const stores: RedisDedupeStore[] = [];
    const store = (options: Partial<Parameters<typeof redisDedupe>[0]> = {}) => {
      const created = redisDedupe({ connection: redis.url, ...options });
      stores.push(created);
      return created;
    };

    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
      await redis?.close();
    });

    it("runs the handler again on the retry of a report whose handler failed", async () => {
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: store(),
        logger: false,
        onDelivery: () => {
          calls++;
          if (calls === 1) throw new Error("database down");
        },
      });
      const id = `${randomUUID()}:1`;
      expect((await receiver.fetch(post(id))).status).toBe(500);
      // The receiver answers 500 without waiting for the release to reach Redis; the
      // provider's retry (30 minutes later) finds the key free. Until then: 409, not run.
      await vi.waitFor(
        async () => {
          const retry = await receiver.fetch(post(id));
          expect(await retry.text()).toBe('{"ok":true}');
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(await (await receiver.fetch(post(id))).text()).toBe('{"ok":true,"duplicate":true}');
      expect(calls).toBe(2);
    });

    it("answers 503 at the deadline; the resend after the handler finished is a duplicate", async () => {
      let calls = 0;
      let finished = false;
      // The handler runs until the test lets it finish: the resend below must find it running
      // however slow the machine is.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: store(),
        deadlineMs: 200,
        logger: false,
        onDelivery: async (_report, ctx) => {
          calls++;
          expect(ctx.dedupeKey).toMatch(/^delivery:.+:1:DELIVRD$/);
          await released;
          finished = true;
        },
      });
      const id = `${randomUUID()}:1`;
      const first = await receiver.fetch(post(id));
      expect(first.status).toBe(503);
      expect(((await first.json()) as { error: { code: string } }).error.code).toBe(
        "handler_timeout",
      );
      expect(first.headers.get("retry-after")).not.toBeNull();
      const early = await receiver.fetch(post(id));
      expect(early.status).toBe(409);
      release();
      await vi.waitFor(() => expect(finished).toBe(true), { timeout: 10_000 });
      await vi.waitFor(
        async () =>
          expect(await (await receiver.fetch(post(id))).text()).toBe(
            '{"ok":true,"duplicate":true}',
          ),
        { timeout: 10_000 },
      );
      expect(calls).toBe(1);
    });

    it("answers 503 dedupe_unavailable, handler not run, for a Redis it never reached", async () => {
      const errors: ReportkitError[] = [];
      let calls = 0;
      const stopped = await startRedisServer();
      await stopped.close();
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: store({ connection: stopped.url, timeoutMs: 300 }),
        logger: false,
        onError: (error) => {
          errors.push(error);
        },
        onDelivery: () => {
          calls++;
        },
      });
      const reply = await receiver.fetch(post(`${randomUUID()}:1`));
      expect(reply.status).toBe(503);
      expect(((await reply.json()) as { error: { code: string } }).error.code).toBe(
        "dedupe_unavailable",
      );
      expect(calls).toBe(0);
      expect(errors.map((e) => e.code)).toEqual(["dedupe_unavailable"]);
      expect(String((errors[0]?.cause as Error | undefined)?.message)).toMatch(
        /redisDedupe: claim failed/,
      );
    });
  },
);
