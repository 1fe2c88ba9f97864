// The ledger on a real PostgreSQL server: what recordStatus keeps of a message besides its
// status (and when a late report changes none of it), recordCall's and recordOptOut's rows,
// mayMessage's answers, and a ledger an older reportkit made: migrated by the inbox, by
// postgresInboxSql(), and refused with what to run under `createTables: false`.
import { randomUUID } from "node:crypto";
import {
  createReceiver,
  type DeliveryReport,
  parseReport,
  type Report,
  type ReportkitError,
} from "@reportkit/core";
import {
  mayMessage,
  numberKey,
  postgresInbox,
  postgresInboxSql,
  recordCall,
  recordOptOut,
  recordStatus,
} from "@reportkit/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SAMPLES } from "../fixtures/provider-samples.js";
import { TOKEN } from "../fixtures/samples.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";
import { post } from "./inbox-rig.js";

/** What reportkit created before the ledger kept what insights read (its 0.1 SQL). */
const OLDER_LEDGER_SQL = `CREATE TABLE reportkit_message_status (
  message_id text PRIMARY KEY,
  status text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'undelivered', 'pending', 'unknown')),
  final boolean NOT NULL,
  reported_at timestamptz,
  updated_at timestamptz NOT NULL,
  first_seen timestamptz NOT NULL,
  previous_status text
);
CREATE TABLE reportkit_status_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id text NOT NULL,
  status text NOT NULL,
  outcome text NOT NULL,
  final boolean NOT NULL,
  reported_at timestamptz,
  received_at timestamptz NOT NULL,
  applied boolean NOT NULL,
  conflict boolean NOT NULL
);
CREATE INDEX reportkit_status_history_message_id_idx ON reportkit_status_history (message_id, id);
INSERT INTO reportkit_message_status VALUES ('older:1', 'DELIVRD', 'delivered', true, null, now(), now(), null);`;

function parsed<K extends Report["type"]>(
  kind: K,
  payload: Record<string, unknown>,
): Extract<Report, { type: K }> {
  const result = parseReport(payload);
  if (!result.ok || result.report.type !== kind) throw new Error(`not a ${kind} report`);
  return result.report as Extract<Report, { type: K }>;
}

/** A body the provider's pages show, read as JSON (the pages' trailing commas dropped). */
const sample = (name: string): Record<string, unknown> => {
  const found = PROVIDER_SAMPLES.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no sample ${name}`);
  return JSON.parse(found.text.replace(/,(\s*})/g, "$1"));
};

/** The verification page's DLR: every field the ledger keeps. */
function dlr(id: string, status: string, extra: Record<string, unknown> = {}): DeliveryReport {
  return parsed("delivery", {
    id,
    mobile: "919876543210",
    status,
    credits: "2.0000",
    units: 2,
    sent_time: "2021-04-09 16:27:35",
    submit_time: "2021-04-09 16:27:39",
    custom: "9882",
    custom1: "campaign-3344",
    custom2: "new-camp",
    location: "India",
    region: "Bangalore",
    provider: "Jio",
    location_code: "in",
    region_code: "KA",
    provider_code: "RJ",
    ...extra,
  });
}

describe.runIf(requirePostgresServer("ledger.test.ts"))("the ledger", () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const closers: (() => Promise<void>)[] = [];

  /** A database of its own, and a pool on it. */
  async function database(): Promise<{ name: string; pool: pg.Pool; url: string }> {
    const name = `db_${randomUUID().replaceAll("-", "")}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = `postgres://postgres@127.0.0.1:${server.port}/${name}`;
    const pool = new pg.Pool({ connectionString: url });
    pool.on("error", () => {});
    pools.push(pool);
    return { name, pool, url };
  }

  /** `fn` in a transaction of `pool`, committed. */
  async function inTransaction<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
  }

  let ledger: pg.Pool;
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Pool({ connectionString: server.url });
    admin.on("error", () => {});
    ({ pool: ledger } = await database());
    await ledger.query(postgresInboxSql());
  });
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await Promise.all(pools.map((p) => p.end()));
    await admin?.end();
    await server?.close();
  });

  const messageRow = async (id: string) =>
    (
      await ledger.query(
        `SELECT status, outcome, reason, transient, sent_at, submitted_at, delivered_at, credits,
          units, provider, provider_code, region, region_code, location, location_code, custom,
          custom1, custom2 FROM reportkit_message_status WHERE message_id = $1`,
        [id],
      )
    ).rows[0];

  it("keeps what the reports say of a message, and its status's reason and transient", async () => {
    const id = `${randomUUID()}:1`;
    await inTransaction(ledger, (tx) => recordStatus(tx, dlr(id, "ENROUTE")));
    expect(await messageRow(id)).toEqual({
      status: "ENROUTE",
      outcome: "pending",
      reason: null,
      transient: false,
      // Wall clocks in the provider's zone, Asia/Kolkata (UTC+5:30).
      sent_at: new Date("2021-04-09T10:57:35Z"),
      submitted_at: new Date("2021-04-09T10:57:39Z"),
      delivered_at: null,
      credits: "2.0000",
      units: 2,
      provider: "Jio",
      provider_code: "RJ",
      region: "Bangalore",
      region_code: "KA",
      location: "India",
      location_code: "in",
      custom: "9882",
      custom1: "campaign-3344",
      custom2: "new-camp",
    });

    // The final status moves the row; what its report lacks is kept from the first.
    const final = parsed("delivery", {
      id,
      mobile: "919876543210",
      status: "HANDSET-BUSY",
      deliv_time: "2021-04-09 16:29:00",
    });
    expect(final).toMatchObject({ reason: "handset", transient: true });
    await inTransaction(ledger, (tx) => recordStatus(tx, final));
    expect(await messageRow(id)).toMatchObject({
      status: "HANDSET-BUSY",
      outcome: "undelivered",
      reason: "handset",
      transient: true,
      sent_at: new Date("2021-04-09T10:57:35Z"),
      delivered_at: new Date("2021-04-09T10:59:00Z"),
      provider: "Jio",
      custom1: "campaign-3344",
      credits: "2.0000",
    });

    // A late intermediate status moves nothing, and changes none of the details.
    const late = dlr(id, "ENROUTE", { provider: "Airtel", custom1: "other", credits: "9.0000" });
    const { applied } = await inTransaction(ledger, (tx) => recordStatus(tx, late));
    expect(applied).toBe(false);
    expect(await messageRow(id)).toMatchObject({
      status: "HANDSET-BUSY",
      reason: "handset",
      provider: "Jio",
      custom1: "campaign-3344",
      credits: "2.0000",
    });
  });

  it("takes reason and transient from the status table for a report an older receiver queued", async () => {
    const id = `${randomUUID()}:1`;
    const { reason: _r, transient: _t, ...older } = dlr(id, "DLT-TM-INACTIVE");
    await inTransaction(ledger, (tx) => recordStatus(tx, older as DeliveryReport));
    expect(await messageRow(id)).toMatchObject({ reason: "dlt", transient: false });
  });

  it("refuses an opt-out (or a call) and writes no message row", async () => {
    const optOut = parsed("unsubscribe", sample("sms:unsubscription"));
    const call = parsed("call", sample("Click2Call report"));
    for (const report of [optOut, call]) {
      await expect(
        inTransaction(ledger, (tx) => recordStatus(tx, report as unknown as DeliveryReport)),
      ).rejects.toThrow(
        /^recordStatus: `report` must be an SMS delivery report \(type "delivery"\), got type "(unsubscribe|call)"\. Record a call report with recordCall\(ctx\.tx, report\) and an opt-out with recordOptOut\(ctx\.tx, report\)\.$/,
      );
    }
    const { rows } = await ledger.query(
      "SELECT count(*)::int AS n FROM reportkit_message_status WHERE message_id = $1",
      [optOut.id],
    );
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("records a call once per call: status, outcome, duration, billed seconds, source, times", async () => {
    const c2c = parsed("call", sample("Click2Call report"));
    const obd = parsed("call", sample("outbound-dial (OBD) report"));
    const busy = parsed("call", { ...sample("outbound-dial (OBD) report"), status: "BUSY" });
    const recorded = await inTransaction(ledger, async (tx) => [
      await recordCall(tx, c2c),
      await recordCall(tx, obd),
      await recordCall(tx, busy),
      // The provider's retry of the same push.
      await recordCall(tx, c2c),
    ]);
    expect(recorded.map((r) => r.recorded)).toEqual([true, true, true, false]);
    const { rows } = await ledger.query(
      `SELECT mid, status, outcome, transient, source, duration, billing, started_at, ended_at,
        reported_at, flow_id, hangup_by, status1, status2 FROM reportkit_calls ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        mid: null,
        status: "COMPLETED",
        outcome: "answered",
        transient: false,
        source: "C2C",
        duration: 23,
        billing: 23,
        started_at: new Date("2021-04-09T10:57:39Z"),
        ended_at: new Date("2021-04-09T10:57:55Z"),
        reported_at: new Date(1653455555 * 1000),
        flow_id: null,
        hangup_by: "caller",
        status1: "RECEIVED",
        status2: "ANSWER",
      },
      expect.objectContaining({
        mid: "1234-1333-XXXXX",
        status: "ANSWER",
        outcome: "answered",
        source: "OBD",
        duration: 23,
        billing: null,
        flow_id: 123,
      }),
      expect.objectContaining({ status: "BUSY", outcome: "unanswered", transient: true }),
    ]);
    // No phone number is kept.
    const text = JSON.stringify((await ledger.query("SELECT * FROM reportkit_calls")).rows);
    expect(text).not.toMatch(/9188671|9189195|9180682/);
  });

  it("records opt-outs once, and mayMessage answers by sender id and by the last 10 digits", async () => {
    const optOut = (receiver: string, type: string, value: string) =>
      parsed("unsubscribe", {
        id: randomUUID(),
        receiver,
        type,
        value,
        created_at: "2023-07-08T12:52:54.000000Z",
        status: "Unsubscriber created successfully",
      });
    const sender = optOut("917002088123", "sender", "Demo12");
    const everyone = optOut("919812345678", "all", "*");
    const star = optOut("+91 99000 11122", "sender", "*");
    const category = optOut("919700000001", "category", "WUC");
    const recorded = await inTransaction(ledger, async (tx) => [
      await recordOptOut(tx, sender),
      await recordOptOut(tx, everyone),
      await recordOptOut(tx, star),
      await recordOptOut(tx, category),
      await recordOptOut(tx, sender),
    ]);
    expect(recorded.map((r) => r.recorded)).toEqual([true, true, true, true, false]);

    const answers = await Promise.all(
      [
        ["917002088123", "Demo12"],
        ["7002088123", "DEMO12"], // the same number without 91, the sender id in another case
        ["+91 70020 88123", " demo12 "],
        ["917002088123", "OTHER1"], // another sender may still message it
        ["919812345678", "ANYONE"],
        ["9812345678", "DEMO12"],
        ["919900011122", "ANY"],
        ["919700000001", "WUC"], // a WhatsApp category blocks no SMS sender
        ["918000000000", "DEMO12"], // never opted out
      ].map(([number, senderId]) => mayMessage(ledger, number as string, senderId as string)),
    );
    expect(answers).toEqual([false, false, false, true, false, false, false, true, true]);

    const { rows } = await ledger.query(
      "SELECT receiver, receiver_key, type, value, created_at FROM reportkit_opt_outs WHERE id = $1",
      [sender.id],
    );
    expect(rows).toEqual([
      {
        receiver: "917002088123",
        receiver_key: "7002088123",
        type: "sender",
        value: "Demo12",
        created_at: new Date("2023-07-08T12:52:54Z"),
      },
    ]);
    expect(numberKey("+91 70020 88123")).toBe("7002088123");
    await expect(mayMessage(ledger, "no digits", "DEMO12")).rejects.toThrow(
      /^mayMessage: `number` must be a phone number with digits/,
    );
    await expect(mayMessage(ledger, "917002088123", " ")).rejects.toThrow(
      /^mayMessage: `senderId` must be the sender id/,
    );
  });

  it("keeps text with NUL (which Postgres cannot store) written out, instead of failing the report", async () => {
    const id = `${randomUUID()}:1`;
    const message = dlr(id, "DELIVRD", { custom1: "camp\u0000aign", provider: "J\u0000io" });
    const call = parsed("call", {
      ...sample("Click2Call report"),
      start_at: "2021-04-10 10:00:00", // another call than the earlier test's
      hangup_by: "call\u0000er",
      status1: "RECEIVED\u0000",
    });
    const optOut = parsed("unsubscribe", {
      ...sample("sms:unsubscription"),
      id: randomUUID(),
      value: "Demo\u000012",
    });
    await inTransaction(ledger, async (tx) => {
      await recordStatus(tx, message);
      await recordCall(tx, call);
      await recordOptOut(tx, optOut);
    });
    expect(await messageRow(id)).toMatchObject({
      custom1: "camp\\u0000aign",
      provider: "J\\u0000io",
    });
    const calls = await ledger.query(
      "SELECT hangup_by, status1 FROM reportkit_calls WHERE started_at = '2021-04-10 04:30:00Z'",
    );
    expect(calls.rows).toEqual([{ hangup_by: "call\\u0000er", status1: "RECEIVED\\u0000" }]);
    const optOuts = await ledger.query("SELECT value FROM reportkit_opt_outs WHERE id = $1", [
      optOut.id,
    ]);
    expect(optOuts.rows).toEqual([{ value: "Demo\\u000012" }]);
  });

  it("says which table to create when the ledger's are not there", async () => {
    const { pool } = await database();
    const optOut = parsed("unsubscribe", sample("sms:unsubscription"));
    const call = parsed("call", sample("outbound-dial (OBD) report"));
    await expect(inTransaction(pool, (tx) => recordOptOut(tx, optOut))).rejects.toThrow(
      /^recordOptOut: the table reportkit_opt_outs does not exist\. .*run the SQL of postgresInboxSql\(\) in a migration\.$/,
    );
    await expect(inTransaction(pool, (tx) => recordCall(tx, call))).rejects.toThrow(
      /^recordCall: the table reportkit_calls does not exist\./,
    );
    await expect(mayMessage(pool, "917002088123", "Demo12")).rejects.toThrow(
      /^mayMessage: the table reportkit_opt_outs does not exist\./,
    );
  });

  describe("a ledger an older reportkit made", () => {
    it("recordStatus says to run postgresInboxSql(), which adds the columns and keeps the rows", async () => {
      const { pool } = await database();
      await pool.query(OLDER_LEDGER_SQL);
      const id = `${randomUUID()}:1`;
      await expect(
        inTransaction(pool, (tx) => recordStatus(tx, dlr(id, "DELIVRD"))),
      ).rejects.toThrow(
        /^recordStatus: the table reportkit_message_status lacks columns it now keeps \(column "reason" of relation "reportkit_message_status" does not exist\): it was made by an older reportkit\. .*run the SQL of postgresInboxSql\(\) in a migration: its ALTER TABLE … ADD COLUMN IF NOT EXISTS adds them\.$/,
      );
      await pool.query(postgresInboxSql());
      await pool.query(postgresInboxSql()); // again: nothing more to do
      await inTransaction(pool, (tx) => recordStatus(tx, dlr(id, "DELIVRD")));
      const row = async (messageId: string) =>
        (
          await pool.query(
            "SELECT status, provider, custom1 FROM reportkit_message_status WHERE message_id = $1",
            [messageId],
          )
        ).rows;
      expect(await row("older:1")).toEqual([{ status: "DELIVRD", provider: null, custom1: null }]);
      expect(await row(id)).toEqual([
        { status: "DELIVRD", provider: "Jio", custom1: "campaign-3344" },
      ]);
    });

    it("the inbox adds the columns itself, or with createTables: false answers 503 naming postgresInboxSql()", async () => {
      const { pool, url } = await database();
      await pool.query(OLDER_LEDGER_SQL);
      await pool.query(
        "CREATE TABLE reportkit_inbox (key text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now())",
      );
      const failures: ReportkitError[] = [];
      const receiverOn = (createTables: boolean) => {
        const store = postgresInbox({ connectionString: url, createTables });
        closers.push(() => store.close());
        return createReceiver({
          secret: TOKEN,
          dedupe: store,
          logger: false,
          onError: (error) => void failures.push(error),
          onDelivery: async (report, ctx) => {
            await recordStatus(ctx.tx, report);
          },
        });
      };
      const id = `${randomUUID()}:1`;
      const refused = await receiverOn(false).fetch(post(id));
      expect(refused.status).toBe(503);
      expect(String((failures[0]?.cause as Error | undefined)?.message)).toMatch(
        /missing .*reportkit_message_status\.reason, reportkit_message_status\.transient, .*reportkit_message_status\.custom2; with `createTables: false` the store creates nothing: run the SQL postgresInboxSql\(\) returns in a migration/,
      );
      const taken = await receiverOn(true).fetch(post(id));
      expect(taken.status).toBe(200);
      const { rows } = await pool.query(
        "SELECT status, reason FROM reportkit_message_status WHERE message_id = $1",
        [id],
      );
      expect(rows).toEqual([{ status: "DELIVRD", reason: null }]);
    });
  });
});
