// The inbox's tables on a real PostgreSQL server, at start-up and under roles that may not run
// DDL: a freshly started store's first report does not wait behind another process's open
// report transaction (the tables are looked up in the catalog, not created again); a role that
// may only read and write the tables works, with `createTables: false` and with the default once
// the tables exist; a read-only role can list the journal with the CLI; a migrated schema that
// lacks a table gets a 503 whose message names postgresInboxSql().
import { randomUUID } from "node:crypto";
import { main } from "@reportkit/cli";
import { createReceiver, type ReportkitError } from "@reportkit/core";
import { type PostgresInbox, postgresInbox, postgresInboxSql } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { answeredWithin, HANDLED, post } from "./inbox-rig.js";

describe.runIf(requirePostgresServer("tables.test.ts"))("the inbox's tables", () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const stores: PostgresInbox[] = [];
  const urlOf = (database: string, user = "postgres") =>
    `postgres://${user}@127.0.0.1:${server.port}/${database}`;
  const inbox = (options: Parameters<typeof postgresInbox>[0]) => {
    const store = postgresInbox(options);
    stores.push(store);
    return store;
  };
  /** A pool on `database` as the server's superuser, for the test's own statements. */
  const poolOn = (database: string) => {
    const pool = new pg.Pool({ connectionString: urlOf(database) });
    pool.on("error", () => {});
    pools.push(pool);
    return pool;
  };
  async function database(): Promise<{ name: string; pool: pg.Pool }> {
    const name = `db_${randomUUID().replaceAll("-", "")}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const pool = poolOn(name);
    await pool.query("CREATE TABLE deliveries (report_id text NOT NULL)");
    return { name, pool };
  }

  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
    await admin?.end();
    await server?.close();
  });

  it("answers a fresh store's first report while another store holds a report's transaction open", async () => {
    const { name, pool } = await database();
    // The tables are there (a store made them at an earlier start, or a migration did).
    await pool.query(postgresInboxSql());
    let release = () => {};
    const open = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const holdingOne = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const slow = createReceiver({
      secret: TOKEN,
      dedupe: inbox({ connectionString: urlOf(name) }),
      onDelivery: async (report, ctx) => {
        await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        holding();
        await open;
      },
    });
    const pending = slow.fetch(post(`${randomUUID()}:1`));
    try {
      await answeredWithin(holdingOne, 15_000, "the slow report's insert");
      // A store just started (a new process at a deploy): its first report must not wait.
      const fresh = createReceiver({
        secret: TOKEN,
        dedupe: inbox({ connectionString: urlOf(name) }),
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
        },
      });
      const reply = await answeredWithin(
        fresh.fetch(post(`${randomUUID()}:1`)),
        15_000,
        "a fresh store's first report while another report's transaction is open",
      );
      expect([reply.status, await reply.text()]).toEqual([200, HANDLED]);
    } finally {
      release();
    }
    expect(await (await pending).text()).toBe(HANDLED);
  });

  it("works for a role that may only read and write the migrated tables, with createTables: false and by default", async () => {
    const { name, pool } = await database();
    await pool.query(postgresInboxSql());
    const role = `rw_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await pool.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON reportkit_inbox, reportkit_journal, reportkit_message_status, reportkit_status_history, deliveries TO ${role}`,
    );
    // Postgres 15: no CREATE on schema public for other roles than its owner.
    const failures: ReportkitError[] = [];
    for (const createTables of [false, undefined]) {
      let fail = true;
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox({
          connectionString: urlOf(name, role),
          ...(createTables === false && { createTables }),
        }),
        logger: false,
        onError: (error) => void failures.push(error),
        onDelivery: async (report, ctx) => {
          await ctx.tx.query("INSERT INTO deliveries VALUES ($1)", [report.id]);
          if (fail) throw new Error("the mailer is down");
        },
      });
      const id = `${randomUUID()}:1`;
      const failed = await receiver.fetch(post(id));
      expect(failed.status, `createTables ${createTables}`).toBe(500);
      fail = false;
      const retry = await receiver.fetch(post(id));
      expect([retry.status, await retry.text()], `createTables ${createTables}`).toEqual([
        200,
        HANDLED,
      ]);
      const { rows } = await pool.query(
        "SELECT status, attempts FROM reportkit_journal WHERE key = $1",
        [`delivery:${id}:DELIVRD`],
      );
      // The failure was journaled, and resolved by the retry's commit.
      expect(rows).toEqual([{ status: "resolved", attempts: 1 }]);
    }
    expect(failures.map((f) => f.code)).toEqual(["handler_failed", "handler_failed"]);
  });

  it("lets a read-only role list the journal with the CLI (it never creates anything)", async () => {
    const { name, pool } = await database();
    await pool.query(postgresInboxSql());
    await pool.query(
      `INSERT INTO reportkit_journal (key, kind, status, method, url, content_type, body, body_encoding, first_seen, last_seen, attempts, last_error)
       VALUES ('delivery:ro:1:DELIVRD', 'delivery', 'failed', 'POST', '/webhooks', 'application/json', '{}', 'utf8', now(), now(), 1, 'handler_failed: down')`,
    );
    const role = `ro_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await pool.query(`GRANT SELECT ON reportkit_journal TO ${role}`);
    let stdout = "";
    let stderr = "";
    const code = await main(
      ["node", "reportkit", "journal", "list", "--db", urlOf(name, role), "--json"],
      {
        stdout: (text: string) => {
          stdout += text;
        },
        stderr: (text: string) => {
          stderr += text;
        },
        env: {},
        stopSignal: () => new Promise(() => {}),
      },
    );
    expect(code, stderr).toBe(0);
    const keys = (JSON.parse(stdout).data as { key: string }[]).map((e) => e.key);
    expect(keys).toEqual(["delivery:ro:1:DELIVRD"]);
  });

  it("answers 503 naming postgresInboxSql() when createTables is false and a table is missing", async () => {
    const { name, pool } = await database();
    const failures: ReportkitError[] = [];
    const receiver = createReceiver({
      secret: TOKEN,
      dedupe: inbox({ connectionString: urlOf(name), createTables: false }),
      logger: false,
      onError: (error) => void failures.push(error),
      onDelivery: () => {},
    });
    const reply = await receiver.fetch(post(`${randomUUID()}:1`));
    expect(reply.status).toBe(503);
    expect((await reply.json()).error.code).toBe("dedupe_unavailable");
    expect(String((failures[0]?.cause as Error | undefined)?.message)).toMatch(
      /^postgresInbox: checking the tables failed on Postgres at 127\.0\.0\.1:\d+ \(missing "reportkit_inbox", .*with `createTables: false` the store creates nothing: run the SQL postgresInboxSql\(\) returns in a migration\)\.$/,
    );
    // Nothing was created.
    const { rows } = await pool.query("SELECT to_regclass('reportkit_inbox') AS inbox");
    expect(rows).toEqual([{ inbox: null }]);
  });
});
