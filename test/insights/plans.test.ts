// The insights' queries on a generated ledger (test/bench/insights-ledger.ts, 20,000 messages
// over 30 days; the benchmark times a million): a day's range is read through the index on the
// message's time, and the answers of the faster forms (days found among midnights, percentiles
// from a histogram) are those of the plain SQL (AT TIME ZONE, percentile_disc). No timings.
import {
  callsByDay,
  deliveryLatency,
  messageSummary,
  messagesByDay,
  type Queryable,
} from "@reportkit/postgres/insights";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLedger } from "../bench/insights-ledger.js";
import {
  type PostgresServer,
  requirePostgresServer,
  startPostgresServer,
} from "../support/postgres-server.js";

const LAST_DAY = "2026-11-30";
const MONTH = { from: "2026-11-01", to: LAST_DAY } as const;
const TIME = "COALESCE(sent_at, submitted_at, first_seen)";

describe.runIf(requirePostgresServer("test/insights/plans.test.ts"))(
  "the insights on a generated ledger",
  () => {
    let server: PostgresServer;
    let pool: pg.Pool;

    /** The plan of the statement `run` makes, as text. */
    async function planOf(run: (db: Queryable) => Promise<unknown>): Promise<string> {
      let plan = "";
      const explaining = {
        query: async (text: string, values: unknown[]) => {
          const { rows } = await pool.query(`EXPLAIN ${text}`, values);
          plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
          return { rows: [] };
        },
      } as unknown as Queryable;
      await run(explaining).catch(() => {});
      return plan;
    }

    beforeAll(async () => {
      server = await startPostgresServer();
      pool = new pg.Pool({ connectionString: server.url });
      pool.on("error", () => {});
      await generateLedger(pool, { messages: 20_000, days: 30, lastDay: LAST_DAY });
    });
    afterAll(async () => {
      await pool?.end();
      await server?.close();
    });

    it("reads a day's messages and calls through the indexes on their time", async () => {
      const day = { from: LAST_DAY, to: LAST_DAY };
      expect(await planOf((db) => messageSummary(db, day))).toContain(
        "reportkit_message_status_sent_idx",
      );
      expect(await planOf((db) => messagesByDay(db, day))).toContain(
        "reportkit_message_status_sent_idx",
      );
      expect(await planOf((db) => callsByDay(db, day))).toContain("reportkit_calls_started_idx");
    });

    it("counts the days as AT TIME ZONE does, in Asia/Kolkata and in New York", async () => {
      for (const timeZone of ["Asia/Kolkata", "America/New_York"]) {
        const { rows } = await pool.query(
          `SELECT to_char((${TIME}) AT TIME ZONE $1, 'YYYY-MM-DD') AS day, count(*)::int AS messages,
            count(*) FILTER (WHERE outcome = 'delivered')::int AS delivered
          FROM reportkit_message_status
          WHERE (${TIME} AT TIME ZONE $1)::date BETWEEN '2026-11-01' AND $2::date
          GROUP BY 1 ORDER BY 1`,
          [timeZone, LAST_DAY],
        );
        const answered = await messagesByDay(pool, { ...MONTH, timeZone });
        expect(
          answered
            .filter((d) => d.messages > 0)
            .map(({ day, messages, delivered }) => ({
              day,
              messages,
              delivered,
            })),
          timeZone,
        ).toEqual(rows);
        expect(answered).toHaveLength(30);
      }
    });

    it("gives the percentiles percentile_disc gives, by day and by operator", async () => {
      const plain = async (group: string) =>
        (
          await pool.query(
            `SELECT ${group} AS key, count(*)::int AS messages,
              percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP
                (ORDER BY extract(epoch FROM delivered_at - submitted_at)) AS p
            FROM reportkit_message_status
            WHERE outcome = 'delivered' AND delivered_at >= submitted_at
              AND (${TIME} AT TIME ZONE 'Asia/Kolkata')::date BETWEEN '2026-11-01' AND '${LAST_DAY}'
            GROUP BY 1 ORDER BY 1`,
          )
        ).rows.map((row) => ({
          key: row.key as string,
          messages: row.messages as number,
          p50: Number(row.p[0]),
          p90: Number(row.p[1]),
          p99: Number(row.p[2]),
        }));
      const byDay = await deliveryLatency(pool, "day", MONTH);
      expect(byDay.map(({ day: key, ...rest }) => ({ key, ...rest }))).toEqual(
        await plain(`to_char((${TIME}) AT TIME ZONE 'Asia/Kolkata', 'YYYY-MM-DD')`),
      );
      const byProvider = await deliveryLatency(pool, "provider", MONTH);
      expect(
        byProvider
          .map(({ name, code: _, ...rest }) => ({ key: name as string, ...rest }))
          .sort((a, b) => (a.key < b.key ? -1 : 1)),
      ).toEqual(await plain("provider"));
      // A spread of latencies, not one value.
      expect(byDay.some((d) => d.p99 !== null && d.p50 !== null && d.p99 > d.p50)).toBe(true);
    });
  },
);
