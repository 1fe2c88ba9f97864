// The transactional inbox on a real PostgreSQL server, when a report comes twice or late: copies
// wait for the first attempt (duplicate once it committed, 409 past lockTimeoutMs); a late
// success after the deadline still commits, a late failure still rolls back; an unreachable
// Postgres gets 503.
import { randomUUID } from "node:crypto";
import { createReceiver } from "@reportkit/core";
import { describe, expect, it, vi } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { requirePostgresServer } from "../support/postgres-server.js";
import { DUPLICATE, deferred, HANDLED, inboxRig, post } from "./inbox-rig.js";

describe.runIf(requirePostgresServer("inbox-copies.test.ts"))(
  "postgresInbox as the receiver's store",
  () => {
    const rig = inboxRig();
    const { inbox, count, deliveries, keys } = rig;

    it("makes a copy wait for the first attempt: duplicate once it committed", async () => {
      const gate = deferred();
      const started = deferred();
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox({ lockTimeoutMs: 20_000 }),
        onDelivery: async (report, ctx) => {
          calls++;
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          started.resolve();
          await gate.promise;
        },
      });
      const id = `${randomUUID()}:1`;
      const first = receiver.fetch(post(id));
      await started.promise;
      let copyDone = false;
      const copy = receiver.fetch(post(id)).then((r) => {
        copyDone = true;
        return r;
      });
      // The copy is blocked on the first attempt's uncommitted key: seen by Postgres as waiting.
      await vi.waitFor(
        async () =>
          expect(
            await count(
              "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%ON CONFLICT (key) DO NOTHING%'",
            ),
          ).toBe(1),
        { timeout: 15_000, interval: 50 },
      );
      expect(copyDone).toBe(false);
      gate.resolve();
      expect(await (await first).text()).toBe(HANDLED);
      const copied = await copy;
      expect([copied.status, await copied.text()]).toEqual([200, DUPLICATE]);
      expect(calls).toBe(1);
      expect(await deliveries(id)).toBe(1);
    });

    it("answers a copy 409 in_progress with Retry-After once lockTimeoutMs passed", async () => {
      const gate = deferred();
      const started = deferred();
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox({ lockTimeoutMs: 200 }),
        logger: false,
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          started.resolve();
          await gate.promise;
        },
      });
      const id = `${randomUUID()}:1`;
      const first = receiver.fetch(post(id));
      await started.promise;
      const copy = await receiver.fetch(post(id));
      expect(copy.status).toBe(409);
      expect(copy.headers.get("retry-after")).not.toBeNull();
      expect((await copy.json()).error.code).toBe("in_progress");
      gate.resolve();
      expect(await (await first).text()).toBe(HANDLED);
      expect(await deliveries(id)).toBe(1);
    });

    it("answers 503 handler_timeout past the deadline; the late success still commits", async () => {
      const gate = deferred();
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        journal: false,
        deadlineMs: 100,
        logger: false,
        onDelivery: async (report, ctx) => {
          calls++;
          await gate.promise;
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
        },
      });
      const id = `${randomUUID()}:1`;
      const late = await receiver.fetch(post(id));
      expect(late.status).toBe(503);
      expect((await late.json()).error.code).toBe("handler_timeout");
      gate.resolve();
      await vi.waitFor(async () => expect(await keys(id)).toBe(1), { timeout: 10_000 });
      expect(await (await receiver.fetch(post(id))).text()).toBe(DUPLICATE);
      expect(calls).toBe(1);
      expect(await deliveries(id)).toBe(1);
    });

    it("answers 503 handler_timeout past the deadline; a late failure still rolls back", async () => {
      const gate = deferred();
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        journal: false,
        deadlineMs: 100,
        logger: false,
        onDelivery: async (report, ctx) => {
          calls++;
          if (calls === 1) await gate.promise;
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          if (calls === 1) throw new Error("late and failed");
        },
      });
      const id = `${randomUUID()}:1`;
      expect((await receiver.fetch(post(id))).status).toBe(503);
      gate.resolve();
      // Rolled back: the key comes free, and the provider's retry runs the handler again.
      await vi.waitFor(
        async () => expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED),
        {
          timeout: 15_000,
          interval: 100,
        },
      );
      expect(calls).toBe(2);
      expect(await deliveries(id)).toBe(1);
    });

    it("answers 503 dedupe_unavailable, never 2xx, when Postgres cannot be reached", async () => {
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        // A port nothing listens on (the test server's, plus one, is not a cluster).
        dedupe: inbox({ connectionString: "postgres://postgres@127.0.0.1:1/postgres" }),
        logger: false,
        onDelivery: () => {
          calls++;
        },
      });
      const reply = await receiver.fetch(post(`${randomUUID()}:1`));
      expect(reply.status).toBe(503);
      const body = await reply.json();
      expect(body.error.code).toBe("dedupe_unavailable");
      expect(calls).toBe(0);
    });
  },
);
