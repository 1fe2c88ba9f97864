// A journal table made by a version that knew two kinds (`CHECK (kind IN ('delivery', 'call'))`)
// on a real PostgreSQL server: a store that may create its tables brings the check up to date
// on start and keeps an opt-out's or an event's failure; with `createTables: false` it changes
// nothing and answers 503 naming the one ALTER TABLE to run; that statement (postgresInboxSql()
// ends with it) upgrades such a table in a migration.
import { randomUUID } from "node:crypto";
import { createReceiver, type ReportkitError } from "@reportkit/core";
import { postgresInbox, postgresInboxSql, postgresJournal } from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SAMPLES } from "../fixtures/provider-samples.js";
import { TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

/** The journal table as reportkit made it before opt-outs and events were kinds, verbatim. */
const oldJournalSql = (table: string) => `CREATE TABLE IF NOT EXISTS "${table}" (
  key text PRIMARY KEY,
  kind text CHECK (kind IN ('delivery', 'call')),
  status text NOT NULL CHECK (status IN ('failed', 'refused', 'resolved')),
  method text NOT NULL,
  url text NOT NULL,
  content_type text,
  body text NOT NULL,
  body_encoding text NOT NULL CHECK (body_encoding IN ('utf8', 'base64')),
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  attempts integer NOT NULL,
  last_error text NOT NULL
);
CREATE INDEX IF NOT EXISTS "${table}_status_last_seen_idx" ON "${table}" (status, last_seen);
`;

const sample = (name: string) =>
  PROVIDER_SAMPLES.find((s) => s.name === name)?.text ?? `no sample ${name}`;
const OPT_OUT = sample("sms:unsubscription");

const push = (body: string) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body,
  });

describe.runIf(requirePostgresServer("postgres-kind-check.test.ts"))(
  "a journal table made when there were two kinds",
  () => {
    let server: PostgresServer;
    let admin: pg.Pool;
    const pools: pg.Pool[] = [];
    const closing: { close(): Promise<void> }[] = [];
    const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${server.port}/${database}`;

    /** A database of its own, with the old journal table `table` in it. */
    async function oldDatabase(table = "reportkit_journal") {
      const name = `db_${randomUUID().replaceAll("-", "")}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const pool = new pg.Pool({ connectionString: urlOf(name) });
      pool.on("error", () => {});
      pools.push(pool);
      await pool.query(oldJournalSql(table));
      return { name, pool };
    }
    /** The kinds the table's check takes, as Postgres states the check. */
    async function kindCheck(pool: pg.Pool, table = "reportkit_journal") {
      const { rows } = await pool.query(
        "SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = to_regclass($1) AND pg_get_constraintdef(oid) LIKE '%kind%'",
        [`"${table}"`],
      );
      return rows as { conname: string; def: string }[];
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      admin = new pg.Pool({ connectionString: server.url });
      admin.on("error", () => {});
    });
    afterAll(async () => {
      await Promise.all(closing.map((c) => c.close()));
      await Promise.all(pools.map((p) => p.end()));
      await admin?.end();
      await server?.close();
    });

    it("is upgraded on start by an inbox that may create its tables: an opt-out whose handler failed is kept, kind unsubscribe", async () => {
      const { name, pool } = await oldDatabase();
      // The old check, under the name Postgres gave it, refuses an opt-out's entry.
      expect(await kindCheck(pool)).toEqual([
        {
          conname: "reportkit_journal_kind_check",
          def: "CHECK ((kind = ANY (ARRAY['delivery'::text, 'call'::text])))",
        },
      ]);
      await expect(
        pool.query(
          "INSERT INTO reportkit_journal VALUES ('k', 'unsubscribe', 'failed', 'POST', '/', NULL, '{}', 'utf8', now(), now(), 1, 'x')",
        ),
      ).rejects.toMatchObject({ code: "23514" });

      const inbox = postgresInbox({ connectionString: urlOf(name) });
      closing.push(inbox);
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox,
        logger: false,
        onDelivery: () => {},
        onUnsubscribe: () => {
          throw new Error("the suppression list is down");
        },
      });
      expect((await receiver.fetch(push(OPT_OUT))).status).toBe(500);
      const kept = await inbox.journal.list({ kind: "unsubscribe" });
      expect(kept.map((e) => [e.key, e.kind, e.status, e.request.body])).toEqual([
        ["unsubscribe:d105a1ef-6728-4563-8b85-7f5356c8axxx", "unsubscribe", "failed", OPT_OUT],
      ]);
      expect(await kindCheck(pool)).toEqual([
        {
          conname: "reportkit_journal_kind_check",
          def: "CHECK ((kind = ANY (ARRAY['delivery'::text, 'call'::text, 'unsubscribe'::text, 'event'::text])))",
        },
      ]);
    });

    it("is upgraded by a journal of its own, its check found under the name Postgres cut to 63 bytes", async () => {
      const table = `journal_${"x".repeat(52)}`;
      const { name, pool } = await oldDatabase(table);
      expect((await kindCheck(pool, table)).map((c) => c.conname)).toEqual([
        `${table.slice(0, 52)}_kind_check`,
      ]);
      const journal = postgresJournal({ connectionString: urlOf(name), journalTable: table });
      closing.push(journal);
      await journal.record({
        key: "event:whatsapp:message:status:a418d672:read",
        kind: "event",
        status: "failed",
        request: {
          method: "POST",
          url: "/webhooks",
          contentType: "application/json",
          body: "{}",
          bodyEncoding: "utf8",
        },
        error: { code: "handler_failed", message: "down" },
        at: new Date(),
      });
      expect((await journal.list({ kind: "event" })).map((e) => e.kind)).toEqual(["event"]);
      const [check] = await kindCheck(pool, table);
      expect(check?.def).toContain("'event'::text");
    });

    it("with createTables: false changes nothing and answers 503 naming the ALTER TABLE to run; running it upgrades the table", async () => {
      const { name, pool } = await oldDatabase();
      // Every other table is there, as a migration made them with the old version.
      const current = postgresInboxSql().replace(
        /CREATE TABLE IF NOT EXISTS "reportkit_journal"[\s\S]*$/,
        "",
      );
      await pool.query(current);
      const failures: ReportkitError[] = [];
      const inbox = postgresInbox({ connectionString: urlOf(name), createTables: false });
      closing.push(inbox);
      const receiver = createReceiver({
        secret: TOKEN,
        dedupe: inbox,
        logger: false,
        onError: (error) => void failures.push(error),
        onUnsubscribe: () => {},
      });
      const refused = await receiver.fetch(push(OPT_OUT));
      expect(refused.status).toBe(503);
      const alter = `ALTER TABLE "reportkit_journal" DROP CONSTRAINT IF EXISTS "reportkit_journal_kind_check", ADD CONSTRAINT "reportkit_journal_kind_check" CHECK (kind IN ('delivery', 'call', 'unsubscribe', 'event'));`;
      expect(String((failures[0]?.cause as Error | undefined)?.message)).toMatch(
        /^postgresInbox: checking the tables failed on Postgres at 127\.0\.0\.1:\d+ \(/,
      );
      expect(String((failures[0]?.cause as Error | undefined)?.message)).toContain(
        `(the journal table "reportkit_journal" does not take reports of kind unsubscribe, event (its kind check was made by an older reportkit); with \`createTables: false\` the store changes nothing: run ${alter} in a migration (postgresInboxSql() ends with it)).`,
      );
      expect((await kindCheck(pool))[0]?.def).not.toContain("unsubscribe");
      // The migration: that statement, which postgresInboxSql() ends with.
      expect(postgresInboxSql().trimEnd().endsWith(alter)).toBe(true);
      await pool.query(alter);
      const taken = await receiver.fetch(push(OPT_OUT));
      expect([taken.status, await taken.text()]).toEqual([200, '{"ok":true}']);
    });
  },
);
