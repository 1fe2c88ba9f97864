// The transactional inbox in one process on a real PostgreSQL server: the handler's writes
// through ctx.tx and the report's key commit together or not at all; the session's timeouts; a
// Kysely handler on the report's transaction; a borrowed pool; old keys are pruned. (Copies,
// deadlines and an unreachable Postgres: inbox-copies.test.ts.)
import { randomUUID } from "node:crypto";
import { createReceiver } from "@reportkit/core";
import { DEFAULT_RETENTION_MS, postgresInbox, postgresInboxSql } from "@reportkit/postgres";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { requirePostgresServer } from "../support/postgres-server.js";
import { DUPLICATE, HANDLED, inboxRig, post } from "./inbox-rig.js";

describe.runIf(requirePostgresServer("inbox.test.ts"))(
  "postgresInbox as the receiver's store",
  () => {
    const rig = inboxRig();
    const { inbox, deliveries, keys } = rig;

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
      const { rows } = await rig.admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'reportkit_%' ORDER BY 1",
      );
      expect(rows.map((r) => r.table_name)).toEqual([
        "reportkit_calls",
        "reportkit_inbox",
        "reportkit_journal",
        "reportkit_message_status",
        "reportkit_opt_outs",
        "reportkit_status_history",
      ]);
      // The exported SQL runs again over existing tables without error (IF NOT EXISTS).
      await rig.admin.query(postgresInboxSql());
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
      const pool = new pg.Pool({ connectionString: rig.server.url, statement_timeout: 1500 });
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
      const pool = new pg.Pool({ connectionString: rig.server.url, max: 2 });
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
      await rig.admin.query(
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
