// recordStatus on a real PostgreSQL server: its one SQL statement agrees with wire's pure
// `supersedes` on every pair of the status table (both precedences, every way two reports' times
// can stand); a status waiting on another transaction's row is judged against what that one
// committed; conflicts are marked and logged once; it writes only in the caller's transaction.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  classifyDeliveryStatus,
  DELIVERY_STATUSES,
  type DeliveryReport,
  isStatusConflict,
  parseReport,
  type StatusPoint,
  type StatusPrecedence,
  supersedes,
} from "@reportkit/core";
import { postgresInboxSql, recordStatus } from "@reportkit/postgres";
import { storedKey } from "@reportkit/wire/internal";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

const T0 = Date.parse("2021-04-09T10:00:00Z");
const at = (minute: number) => new Date(T0 + minute * 60_000);
/** 9999-12-31, in minutes from T0: a report time no later report can pass, unless bounded. */
const FORGED = (Date.parse("9999-12-31T00:00:00Z") - T0) / 60_000;

/** A delivery report of `status`, with its own time (deliv_at) at `minute` unless null. */
function report(id: string, status: string, minute: number | null): DeliveryReport {
  const payload: Record<string, unknown> = { id, mobile: "919876543210", status };
  // In seconds; FORGED in milliseconds (as seconds past the year 5000 are read).
  if (minute !== null) payload.deliv_at = at(minute).getTime() / (minute === FORGED ? 1 : 1000);
  const result = parseReport(payload);
  if (!result.ok || result.report.type !== "delivery") throw new Error("not a delivery report");
  return result.report;
}

function point(status: string, reported: number | null, received: number): StatusPoint {
  const { final, outcome } = classifyDeliveryStatus(status);
  const reportedAt = reported === null ? null : at(reported);
  return { status, final, outcome, reportedAt, receivedAt: at(received) };
}

// How two reports' times may stand: [current reported, current arrived, next reported, next arrived].
const TIMINGS: readonly [number | null, number, number | null, number][] = [
  [1, 1, 2, 2], // next reported and arrived later
  [2, 1, 1, 2], // next reported earlier, arrived later: its own time decides
  [null, 1, null, 2], // no times of their own: arrival decides
  [5, 3, null, 2], // next without a time, arrived earlier (a clock apart)
  [FORGED, 1, 10, 10], // current dated 9999-12-31: believed only 5 minutes past its arrival
];

// Every status of the table (and a DLT-* one, two unknown ones) against each of a few that stand
// for every class the rule tells apart, both ways round: the rule reads a status only through
// its key (rule 2) and the table's finality and outcome of it, so each status meets a final that
// knows the outcome (two of them undelivered, for rule 6), one that does not, a pending one and
// an unknown one, as the recorded status and as the next. Every pair of 60 statuses would be 4x
// the queries for nothing more.
const STATUSES = [...DELIVERY_STATUSES, "DLT-HEADER", "SOMETHING-NEW", "OTHER-NEW"];
const STAND_INS = new Set([
  "DELIVRD",
  "UNDELIV",
  "HANDSET-BUSY",
  "DLT-HEADER",
  "TIMEOUT-DLR",
  "UNKNOWN",
  "AWAITING-DLR",
  "ENROUTE",
  "SOMETHING-NEW",
  "OTHER-NEW",
]);
const PAIRS = STATUSES.flatMap((current) =>
  STATUSES.filter((next) => STAND_INS.has(current) || STAND_INS.has(next)).map(
    (next) => [current, next] as const,
  ),
);

describe.runIf(requirePostgresServer("record-status.test.ts"))("recordStatus", () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  /** Runs `work` in a transaction of its own, committed. */
  async function inTransaction<T>(work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const tx = await pool.connect();
    try {
      await tx.query("BEGIN");
      const result = await work(tx);
      await tx.query("COMMIT");
      return result;
    } catch (error) {
      await tx.query("ROLLBACK");
      throw error;
    } finally {
      tx.release();
    }
  }

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url });
    await pool.query(postgresInboxSql());
  });

  afterAll(async () => {
    await pool?.end();
    await server?.close();
  });

  it("agrees with supersedes and isStatusConflict on each status of the table", async () => {
    const lines: string[] = [];
    const logger = { warn: (line: string) => lines.push(line) };
    const disagreements: string[] = [];
    let cases = 0;
    let conflicts = 0;
    await inTransaction(async (tx) => {
      for (const precedence of ["first", "latest"] as StatusPrecedence[]) {
        for (const [cReported, cArrived, nReported, nArrived] of TIMINGS) {
          for (const [current, next] of PAIRS) {
            const id = randomUUID();
            const options = { precedence, logger };
            await recordStatus(tx, report(id, current, cReported), {
              ...options,
              receivedAt: at(cArrived),
            });
            const result = await recordStatus(tx, report(id, next, nReported), {
              ...options,
              receivedAt: at(nArrived),
            });
            const n = point(next, nReported, nArrived);
            const c = point(current, cReported, cArrived);
            const applied = supersedes(n, c, precedence);
            const conflict = isStatusConflict(n, c);
            const expected = {
              applied,
              status: applied ? next : current,
              outcome: (applied ? n : c).outcome,
              final: (applied ? n : c).final,
              previous: current,
              conflict,
            };
            const { rows } = await tx.query(
              "SELECT status, applied, conflict FROM reportkit_status_history WHERE message_id = $1 ORDER BY id",
              [id],
            );
            const history = [
              { status: current, applied: true, conflict: false },
              { status: next, applied, conflict },
            ];
            if (
              JSON.stringify(result) !== JSON.stringify(expected) ||
              JSON.stringify(rows) !== JSON.stringify(history)
            ) {
              disagreements.push(
                `${next} after ${current} (${precedence}, times ${[cReported, cArrived, nReported, nArrived]}): SQL ${JSON.stringify(result)}, rule ${JSON.stringify(expected)}`,
              );
            }
            cases += 1;
            if (conflict) conflicts += 1;
          }
        }
      }
    });
    expect(disagreements).toEqual([]);
    expect(STATUSES).toHaveLength(60);
    expect(cases).toBe(2 * TIMINGS.length * (60 * 60 - 50 * 50));
    // Two different finals that know the outcome: 53 such statuses (DELIVRD, and 52 undelivered
    // with DLT-*), 4 of them stand-ins: 4 * 52 ordered pairs with a stand-in recorded first, 49 * 4
    // with one next, under each precedence and timing: one line each.
    expect(conflicts).toBe(2 * TIMINGS.length * (4 * 52 + 49 * 4));
    expect(lines).toHaveLength(conflicts);
  }, 120_000);

  it("docs/statuses.md's SQL statement for other databases agrees with supersedes too", async () => {
    const page = readFileSync(new URL("../../docs/statuses.md", import.meta.url), "utf8");
    const blocks = [...page.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    const create = blocks.find((b) => b.startsWith("CREATE TABLE message_status"));
    const upsert = blocks.find((b) => b.startsWith("INSERT INTO message_status"));
    expect([typeof create, typeof upsert]).toEqual(["string", "string"]);
    const disagreements: string[] = [];
    await inTransaction(async (tx) => {
      await tx.query(create as string);
      const record = async (
        id: string,
        status: string,
        reported: number | null,
        arrived: number,
      ) => {
        const { final, outcome, deliveredAt } = report(id, status, reported);
        const values = [id, status, outcome, final, deliveredAt, at(arrived)];
        return (await tx.query(upsert as string, values)).rowCount === 1;
      };
      for (const [cReported, cArrived, nReported, nArrived] of TIMINGS) {
        for (const [current, next] of PAIRS) {
          const id = randomUUID();
          await record(id, current, cReported, cArrived);
          const applied = await record(id, next, nReported, nArrived);
          const rule = supersedes(
            point(next, nReported, nArrived),
            point(current, cReported, cArrived),
          );
          if (applied !== rule) disagreements.push(`${next} after ${current}: SQL ${applied}`);
        }
      }
      await tx.query("DROP TABLE message_status");
    });
    expect(disagreements).toEqual([]);
  }, 60_000);

  it("keeps every final status of the table when a late AWAITING-DLR or ENROUTE comes", async () => {
    const pending = ["AWAITING-DLR", "ENROUTE", "ACCEPTD"];
    const finals = [...DELIVERY_STATUSES.filter((s) => !pending.includes(s)), "DLT-HEADER"];
    expect(finals).toHaveLength(55);
    const replaced: string[] = [];
    await inTransaction(async (tx) => {
      for (const status of finals) {
        const id = randomUUID();
        const quiet = { logger: false as const };
        const first = await recordStatus(tx, report(id, status, 1), {
          ...quiet,
          receivedAt: at(1),
        });
        expect(first, status).toMatchObject({ applied: true, final: true });
        expect(first.outcome, status).toBe(classifyDeliveryStatus(status).outcome);
        // The provider's retry, 30 minutes later: reported later, and without a time of its own.
        for (const [late, minute] of [
          ["AWAITING-DLR", 30],
          ["ENROUTE", null],
        ] as const) {
          const result = await recordStatus(tx, report(id, late, minute), {
            ...quiet,
            receivedAt: at(31),
          });
          if (result.applied || result.status !== status) replaced.push(`${late} over ${status}`);
        }
      }
    });
    expect(replaced).toEqual([]);
  });

  it("judges a row an older reportkit recorded as not final by the table now", async () => {
    // Before the table knew them, HANDSET-BUSY and the like were recorded not final, outcome
    // unknown: a late intermediate status must not replace them now, nor pass for their outcome.
    const stale = [...DELIVERY_STATUSES.filter((s) => classifyDeliveryStatus(s).final), "dlt-x"];
    const quiet = { logger: false as const };
    /** A new message whose status an older reportkit recorded: not final, outcome unknown. */
    const recordedBefore = async (tx: pg.PoolClient, status: string) => {
      const id = randomUUID();
      await tx.query(
        `INSERT INTO reportkit_message_status (message_id, status, outcome, final, reported_at, updated_at, first_seen)
         VALUES ($1, $2, 'unknown', false, $3, $3, $3)`,
        [id, status, at(1)],
      );
      return id;
    };
    await inTransaction(async (tx) => {
      for (const status of [...stale, " handset-busy "]) {
        const id = await recordedBefore(tx, status);
        const late = await recordStatus(tx, report(id, "AWAITING-DLR", 30), quiet);
        const { final, outcome } = classifyDeliveryStatus(status);
        expect(late, status).toEqual({
          applied: false,
          status,
          outcome,
          final,
          previous: status,
          conflict: false,
        });
      }
      const id = await recordedBefore(tx, "HANDSET-BUSY");
      // Two finals that know the outcome: a conflict, the first stays.
      expect(await recordStatus(tx, report(id, "DELIVRD", 40), quiet)).toMatchObject({
        applied: false,
        status: "HANDSET-BUSY",
        outcome: "undelivered",
        final: true,
        conflict: true,
      });
      // A status the table does not know keeps its row's own reading.
      const other = await recordedBefore(tx, "NEW-ONE");
      expect(await recordStatus(tx, report(other, "ENROUTE", 40), quiet)).toMatchObject({
        applied: true,
        previous: "NEW-ONE",
      });
    });
  });

  it("returns what it did and the status before; the same status again changes nothing", async () => {
    const id = randomUUID();
    const quiet = { logger: false as const };
    await inTransaction(async (tx) => {
      expect(await recordStatus(tx, report(id, "ENROUTE", null), quiet)).toEqual({
        applied: true,
        status: "ENROUTE",
        outcome: "pending",
        final: false,
        previous: null,
        conflict: false,
      });
      expect(await recordStatus(tx, report(id, "delivrd", 3), quiet)).toEqual({
        applied: true,
        status: "delivrd",
        outcome: "delivered",
        final: true,
        previous: "ENROUTE",
        conflict: false,
      });
      expect(await recordStatus(tx, report(id, "DELIVRD", 4), quiet)).toEqual({
        applied: false,
        status: "delivrd",
        outcome: "delivered",
        final: true,
        previous: "delivrd",
        conflict: false,
      });
    });
    const { rows } = await pool.query(
      "SELECT status, reported_at, first_seen <= updated_at AS ordered FROM reportkit_message_status WHERE message_id = $1",
      [id],
    );
    expect(rows).toEqual([{ status: "delivrd", reported_at: at(3), ordered: true }]);
  });

  it("a report dated 9999-12-31 pins no status: its time is believed at most 5 minutes past its arrival (issue 42, finding 9)", async () => {
    const id = randomUUID();
    const latest = { precedence: "latest" as const, logger: false as const };
    const record = (status: string, reported: number, arrived: number) =>
      inTransaction((tx) =>
        recordStatus(tx, report(id, status, reported), { ...latest, receivedAt: at(arrived) }),
      );
    await record("DELIVRD", 1, 1);
    // Taken as dated 2 + 5 minutes: the later one, so it replaces DELIVRD (precedence latest).
    expect(await record("UNDELIV", FORGED, 2)).toMatchObject({ applied: true, status: "UNDELIV" });
    // A report dated before that does not replace it; one dated after it does.
    expect(await record("DELIVRD", 6, 20)).toMatchObject({ applied: false, status: "UNDELIV" });
    expect(await record("DELIVRD", 8, 21)).toMatchObject({ applied: true, status: "DELIVRD" });
    // The report's own time is kept as it came, in the row and the history.
    const { rows } = await pool.query(
      "SELECT status, reported_at FROM reportkit_status_history WHERE message_id = $1 ORDER BY id",
      [id],
    );
    expect(rows.map((row) => row.reported_at.toISOString())).toEqual([
      at(1).toISOString(),
      "9999-12-31T00:00:00.000Z",
      at(6).toISOString(),
      at(8).toISOString(),
    ]);
  });

  it("keeps any id and status it is handed, no two ids in one row: NUL, lone surrogates, 3,000 characters (issue 42, finding 8)", async () => {
    // The parser refuses such ids (issue 42); a report built or changed by hand may hold one.
    const tail = randomUUID();
    const long = randomBytes(2250).toString("base64") + tail;
    const ids = [`nul\u0000${tail}`, `sur\ud800${tail}`, `sur\udbff${tail}`, long, tail];
    const quiet = { logger: false as const };
    await inTransaction(async (tx) => {
      for (const id of ids) {
        const status = id === tail ? "UND\u0000ELIV" : "DELIVRD";
        expect(await recordStatus(tx, { ...report("x", "DELIVRD", 1), id, status }, quiet)).toEqual(
          {
            applied: true,
            status,
            outcome: "delivered",
            final: true,
            previous: null,
            conflict: false,
          },
        );
      }
    });
    const kept = await Promise.all(ids.map(storedKey));
    const { rows } = await pool.query(
      "SELECT message_id, status FROM reportkit_message_status WHERE message_id = ANY($1) ORDER BY message_id",
      [kept],
    );
    expect(rows).toHaveLength(ids.length);
    expect(rows.find((row) => row.message_id === tail)?.status).toBe("UND\\u0000ELIV");
    // An id kept by its hash is the SHA-256 of its UTF-8, as SQL computes it.
    const { rows: hashed } = await pool.query(
      "SELECT 'key-sha256:' || encode(sha256(convert_to($1, 'UTF8')), 'hex') AS key",
      [long],
    );
    expect(hashed[0].key).toBe(kept[3]);
  });

  it("writes only in the caller's transaction: rolled back, nothing is recorded", async () => {
    const id = randomUUID();
    const tx = await pool.connect();
    try {
      await tx.query("BEGIN");
      await recordStatus(tx, report(id, "DELIVRD", 1));
      await tx.query("ROLLBACK");
    } finally {
      tx.release();
    }
    const counts = await pool.query(
      `SELECT (SELECT count(*) FROM reportkit_message_status WHERE message_id = $1)::int AS statuses,
              (SELECT count(*) FROM reportkit_status_history WHERE message_id = $1)::int AS history`,
      [id],
    );
    expect(counts.rows[0]).toEqual({ statuses: 0, history: 0 });
  });

  /**
   * Starts `first` in a transaction left open, then `second` in another (it waits on the
   * message's row), commits the first: what each recordStatus returned.
   */
  async function race(first: DeliveryReport, second: DeliveryReport, lines: string[]) {
    const logger = { warn: (line: string) => lines.push(line) };
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await a.query("BEGIN");
      await b.query("BEGIN");
      const one = await recordStatus(a, first, { logger });
      const waiting = recordStatus(b, second, { logger });
      // The second really waits for the first's row before the first commits.
      await waitFor(async () => {
        const { rows } = await pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO reportkit_message_status%'",
        );
        return rows[0].n >= 1 ? true : undefined;
      }, "the second transaction to wait on the message's row lock");
      await a.query("COMMIT");
      const two = await waiting;
      await b.query("COMMIT");
      return [one, two];
    } finally {
      a.release();
      b.release();
    }
  }

  it("judges a status that waited on another transaction's row by what that one committed", async () => {
    const lines: string[] = [];
    const id = randomUUID();
    const [delivered, enroute] = await race(
      report(id, "DELIVRD", 1),
      report(id, "ENROUTE", null),
      lines,
    );
    expect(delivered).toMatchObject({ applied: true, previous: null });
    // The row did not exist when the second statement began: it still sees DELIVRD.
    expect(enroute).toEqual({
      applied: false,
      status: "DELIVRD",
      outcome: "delivered",
      final: true,
      previous: "DELIVRD",
      conflict: false,
    });
    expect(lines).toEqual([]);

    const other = randomUUID();
    const [, undelivered] = await race(
      report(other, "DELIVRD", 1),
      report(other, "UNDELIV", 2),
      lines,
    );
    expect(undelivered).toMatchObject({ applied: false, status: "DELIVRD", conflict: true });
    expect(lines).toEqual([
      `recordStatus: message "${other}" reported two different final statuses, DELIVRD and then UNDELIV: the provider contradicts itself. DELIVRD is kept (precedence "first"); both are in reportkit_status_history, the later one marked conflict.`,
    ]);
  });

  it("says what was wrong with its arguments, and how to create a missing table", async () => {
    const dlr = report("m-1", "DELIVRD", 1);
    const tx = await pool.connect();
    try {
      await expect(recordStatus({} as pg.PoolClient, dlr)).rejects.toThrow(
        "recordStatus: `tx` must be a pg client in a transaction, e.g. the inbox's ctx.tx",
      );
      const call = parseReport({ mid: "c-1", status: "ANSWER" });
      await expect(
        recordStatus(tx, (call.ok ? call.report : dlr) as DeliveryReport),
      ).rejects.toThrow(
        'recordStatus: `report` must be an SMS delivery report (type "delivery"), got type "call".',
      );
      await expect(recordStatus(tx, dlr, { precedence: "last" as never })).rejects.toThrow(
        'recordStatus: `precedence` must be "first" or "latest", got "last".',
      );
      await expect(recordStatus(tx, dlr, { receivedAt: new Date("x") })).rejects.toThrow(
        "recordStatus: `receivedAt` must be a valid Date (e.g. ctx.receivedAt), got Invalid Date.",
      );
      await expect(recordStatus(tx, dlr, { table: "x" } as never)).rejects.toThrow(
        "recordStatus: unknown option `table`; the options are precedence, receivedAt, logger.",
      );
      await tx.query("BEGIN; CREATE SCHEMA empty; SET LOCAL search_path = empty");
      await expect(recordStatus(tx, dlr)).rejects.toThrow(
        "recordStatus: the table reportkit_message_status does not exist. postgresInbox creates it with its own tables before the first report; without the inbox, run the SQL of postgresInboxSql() in a migration.",
      );
      await tx.query("ROLLBACK");
    } finally {
      tx.release();
    }
  });
});

/** Polls `probe` every 20 ms for up to 10 s until it returns a value. */
async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after 10 s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
