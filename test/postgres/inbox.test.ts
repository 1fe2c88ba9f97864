// The transactional inbox in one process on a real PostgreSQL server: the handler's writes
// through ctx.tx and the report's key commit together or not at all; copies wait for the first
// attempt (duplicate once it committed, 409 past lockTimeoutMs); an unreachable Postgres gets
// 503; a late success after the deadline still commits; old keys are pruned.
import { randomUUID } from "node:crypto";
import { createReceiver } from "@reportkit/core";
import {
  DEFAULT_RETENTION_MS,
  type PostgresInbox,
  postgresInbox,
  postgresInboxSql,
} from "@reportkit/postgres";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

const post = (id: string) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id }),
  });
const HANDLED = '{"ok":true}';
const DUPLICATE = '{"ok":true,"duplicate":true}';

/** A promise and its resolve, to hold a handler open. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe.runIf(requirePostgresServer("inbox.test.ts"))(
  "postgresInbox as the receiver's store",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const stores: PostgresInbox[] = [];
    const inbox = (options: Partial<Parameters<typeof postgresInbox>[0]> = {}) => {
      const created = postgresInbox({ connectionString: server.url, ...options });
      stores.push(created);
      return created;
    };
    const count = async (sql: string, values: unknown[] = []) =>
      Number((await admin.query(sql, values)).rows[0].count);
    const deliveries = (id: string) =>
      count("SELECT count(*) FROM deliveries WHERE report_id = $1", [id]);
    const keys = (id: string) =>
      count("SELECT count(*) FROM reportkit_inbox WHERE key LIKE $1", [`%${id}%`]);

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {});
      await admin.query("CREATE TABLE deliveries (report_id text NOT NULL, status text NOT NULL)");
    });
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
      await admin?.end();
      await server?.close();
    });

    it("creates its tables on first use, as postgresInboxSql() says", async () => {
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
        },
      });
      const id = `${randomUUID()}:1`;
      const reply = await receiver.fetch(post(id));
      expect([reply.status, await reply.text()]).toEqual([200, HANDLED]);
      expect(await deliveries(id)).toBe(1);
      expect(await keys(id)).toBe(1);
      const { rows } = await admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'reportkit_%' ORDER BY 1",
      );
      expect(rows.map((r) => r.table_name)).toEqual([
        "reportkit_inbox",
        "reportkit_journal",
        "reportkit_message_status",
        "reportkit_status_history",
      ]);
      // The exported SQL runs again over existing tables without error (IF NOT EXISTS).
      await admin.query(postgresInboxSql());
    });

    it("commits the handler's writes with the key; a retry is 200 duplicate without the handler", async () => {
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        onDelivery: async (report, ctx) => {
          calls++;
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
        },
      });
      const id = `${randomUUID()}:1`;
      expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED);
      const retry = await receiver.fetch(post(id));
      expect([retry.status, await retry.text()]).toEqual([200, DUPLICATE]);
      expect(calls).toBe(1);
      expect(await deliveries(id)).toBe(1);
    });

    it("rolls back what a failing handler wrote, and frees the key for the retry", async () => {
      let calls = 0;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        logger: false,
        onDelivery: async (report, ctx) => {
          calls++;
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          if (calls === 1) throw new Error("the mailer is down");
        },
      });
      const id = `${randomUUID()}:1`;
      const failed = await receiver.fetch(post(id));
      expect(failed.status).toBe(500);
      expect(await deliveries(id)).toBe(0);
      expect(await keys(id)).toBe(0);
      // The 500 goes out while the ROLLBACK is on its way; the retry waits for it if need be.
      const retry = await receiver.fetch(post(id));
      expect([retry.status, await retry.text()]).toEqual([200, HANDLED]);
      expect(calls).toBe(2);
      expect(await deliveries(id)).toBe(1);
    });

    it("answers 503 and records nothing when a failed statement on ctx.tx aborted the transaction", async () => {
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        logger: false,
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [report.id, report.status]);
          // The handler swallows a failed statement: Postgres rolls the whole transaction back.
          await ctx.tx.query("SELECT * FROM no_such_table").catch(() => {});
        },
      });
      const id = `${randomUUID()}:1`;
      const reply = await receiver.fetch(post(id));
      expect(reply.status).toBe(503);
      const body = await reply.json();
      expect(body.error.code).toBe("dedupe_unavailable");
      expect(await deliveries(id)).toBe(0);
      expect(await keys(id)).toBe(0);
    });

    it("leaves the session's lock_timeout to the handler's statements, and bounds idle time and each statement by the lease", async () => {
      const settings: string[] = [];
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox({ lockTimeoutMs: 1234, leaseMs: 45_000 }),
        onDelivery: async (_report, ctx) => {
          for (const name of [
            "lock_timeout",
            "idle_in_transaction_session_timeout",
            "statement_timeout",
          ]) {
            const { rows } = await ctx.tx.query(`SHOW ${name}`);
            settings.push(rows[0][name]);
          }
        },
      });
      expect(await (await receiver.fetch(post(`${randomUUID()}:1`))).text()).toBe(HANDLED);
      expect(settings).toEqual(["0", "45s", "45s"]);
    });

    it("keeps a session's statement_timeout that is shorter than the lease", async () => {
      const pool = new pg.Pool({ connectionString: server.url, statement_timeout: 1500 });
      try {
        let setting = "";
        const receiver = createReceiver({
          secret: TOKEN,
          dedupe: postgresInbox({ pool, leaseMs: 45_000 }),
          onDelivery: async (_report, ctx) => {
            setting = (await ctx.tx.query("SHOW statement_timeout")).rows[0].statement_timeout;
          },
        });
        expect(await (await receiver.fetch(post(`${randomUUID()}:1`))).text()).toBe(HANDLED);
        expect(setting).toBe("1500ms");
      } finally {
        await pool.end();
      }
    });

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

    it("runs a Kysely handler on the report's transaction (kysely's pg dialect on ctx.tx)", async () => {
      interface Database {
        deliveries: { report_id: string; status: string };
      }
      /** Kysely on one client: the report's transaction, never released by Kysely. */
      const kyselyOn = (tx: pg.PoolClient) =>
        new Kysely<Database>({
          dialect: new PostgresDialect({
            pool: {
              connect: async () => ({ query: tx.query.bind(tx), release: () => {} }),
              end: async () => {},
              options: {},
            },
          }),
        });
      let fail = true;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox(),
        logger: false,
        onDelivery: async (report, ctx) => {
          const db = kyselyOn(ctx.tx);
          await db
            .insertInto("deliveries")
            .values({ report_id: report.id, status: report.status })
            .execute();
          if (fail) throw new Error("after the insert");
        },
      });
      const id = `${randomUUID()}:1`;
      expect((await receiver.fetch(post(id))).status).toBe(500);
      expect(await deliveries(id)).toBe(0);
      fail = false;
      expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED);
      expect(await deliveries(id)).toBe(1);
    });

    it("borrows a given pool: its writes go through it, and close() leaves it open", async () => {
      const pool = new pg.Pool({ connectionString: server.url, max: 2 });
      try {
        const store = postgresInbox({ pool });
        const receiver = createReceiver({
          secret: TOKEN,
          dedupe: store,
          onDelivery: async (report, ctx) => {
            await ctx.tx.query("INSERT INTO deliveries VALUES ($1, $2)", [
              report.id,
              report.status,
            ]);
          },
        });
        const id = `${randomUUID()}:1`;
        expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED);
        await receiver.close();
        expect(
          (await pool.query("SELECT count(*)::int AS n FROM deliveries WHERE report_id = $1", [id]))
            .rows,
        ).toEqual([{ n: 1 }]);
        // Every connection the store took went back: none is still checked out.
        expect(pool.totalCount - pool.idleCount).toBe(0);
      } finally {
        await pool.end();
      }
    });

    it("prunes keys older than retentionMs in the background, keeping the newer ones", async () => {
      const store = inbox();
      expect(store.retentionMs).toBe(DEFAULT_RETENTION_MS);
      const old = `old:${randomUUID()}`;
      await admin.query(
        "INSERT INTO reportkit_inbox (key, processed_at) VALUES ($1, now() - interval '25 hours')",
        [old],
      );
      const receiver = createReceiver({ secret: TOKEN, dedupe: store, onDelivery: () => {} });
      const id = `${randomUUID()}:1`;
      expect(await (await receiver.fetch(post(id))).text()).toBe(HANDLED);
      await vi.waitFor(async () => expect(await keys(old)).toBe(0), { timeout: 10_000 });
      expect(await keys(id)).toBe(1);
    });
  },
);
