// A generated ledger for the insights: `messages` message rows (and a tenth as many calls, a
// hundredth as many opt-outs) spread over `days` days ending on `lastDay` in Asia/Kolkata, with
// INSERT … SELECT generate_series, statuses drawn from wire's table by weight, four operators,
// 22 circles, 20 campaign tags, a custom id per message, 1-3 parts, latencies of seconds to
// minutes, written in the order they were sent (as a receiver writes them, give or take the
// receipts' delays). The benchmark (insights-bench.ts) times the queries on a million messages; the
// suite's test (test/insights/plans.test.ts) reads the plans on a small one.
import { classifyDeliveryStatus } from "@reportkit/core";
import { postgresInboxSql } from "@reportkit/postgres";
import type pg from "pg";

export interface GeneratedLedger {
  messages: number;
  days: number;
  /** "yyyy-mm-dd", the last day of the ledger in Asia/Kolkata. */
  lastDay: string;
}

// Status weights (per thousand): mostly delivered, a few pending, every reason of the table.
const WEIGHTS: readonly [string, number][] = [
  ["DELIVRD", 850],
  ["ENROUTE", 20],
  ["AWAITING-DLR", 10],
  ["DLT-REJECTED", 25],
  ["MOB-OFF", 25],
  ["INVALID-SUB", 10],
  ["NET-ERR", 10],
  ["DNDNUMB", 15],
  ["NO-CREDITS", 5],
  ["SPAM", 5],
  ["EXPIRED", 10],
  ["TIMEOUT-DLR", 15],
];
const PROVIDERS = [
  ["Jio", "RJ"],
  ["Airtel", "AT"],
  ["Vi", "VI"],
  ["BSNL", "BS"],
];
const CIRCLES = [
  ["Andhra Pradesh", "AP"],
  ["Assam", "AS"],
  ["Bihar", "BR"],
  ["Chennai", "CH"],
  ["Delhi", "DL"],
  ["Gujarat", "GJ"],
  ["Haryana", "HR"],
  ["Himachal Pradesh", "HP"],
  ["Jammu and Kashmir", "JK"],
  ["Karnataka", "KA"],
  ["Kerala", "KL"],
  ["Kolkata", "KO"],
  ["Madhya Pradesh", "MP"],
  ["Maharashtra", "MH"],
  ["Mumbai", "MU"],
  ["North East", "NE"],
  ["Odisha", "OR"],
  ["Punjab", "PB"],
  ["Rajasthan", "RJ"],
  ["Tamil Nadu", "TN"],
  ["Uttar Pradesh", "UP"],
  ["West Bengal", "WB"],
];

const literal = (text: string | null) => (text === null ? "NULL" : `'${text.replace(/'/g, "''")}'`);
const array = (values: readonly string[]) => `ARRAY[${values.map(literal).join(", ")}]`;

/** The statuses with their row of wire's table and their share of [0, 1), as SQL VALUES. */
function statusValues(): string {
  const total = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  let low = 0;
  return WEIGHTS.map(([status, weight]) => {
    const row = classifyDeliveryStatus(status);
    const high = low + weight / total;
    const values = `(${literal(status)}, ${literal(row.outcome)}, ${row.final}, ${literal(row.reason)}, ${row.transient}, ${low}, ${high})`;
    low = high;
    return values;
  }).join(",\n  ");
}

/** Creates the ledger's tables (as postgresInboxSql makes them) and fills them. */
export async function generateLedger(db: pg.Pool, ledger: GeneratedLedger): Promise<void> {
  const { messages, days, lastDay } = ledger;
  await db.query(postgresInboxSql());
  await db.query("SELECT setseed(0.45)");
  // The first day's midnight in Asia/Kolkata; a message's time is anywhere in the days after.
  const start = `(('${lastDay}'::date - ${days - 1})::timestamp AT TIME ZONE 'Asia/Kolkata')`;
  await db.query(`INSERT INTO reportkit_message_status (message_id, status, outcome, final,
    reported_at, updated_at, first_seen, reason, transient, sent_at, submitted_at, delivered_at,
    credits, units, provider, provider_code, region, region_code, location, location_code,
    custom, custom1, custom2)
  WITH statuses(status, outcome, final, reason, transient, low, high) AS (VALUES
  ${statusValues()}),
  drawn AS (
    SELECT g, random() AS s, ${start} + random() * interval '${days} days' AS sent,
      (2 + floor(-ln(1 - random()) * 20)) * interval '1 second' AS latency,
      1 + floor(random() * 3)::int AS units, floor(random() * ${PROVIDERS.length})::int + 1 AS p,
      floor(random() * ${CIRCLES.length})::int + 1 AS c, floor(random() * 20)::int AS tag,
      floor(random() * 10)::int AS tag2
    FROM generate_series(1, ${messages}) AS g)
  SELECT 'gen-' || g || ':1', st.status, st.outcome, st.final,
    CASE WHEN st.final THEN sent + interval '1 second' + latency END,
    sent + interval '1 second' + latency, sent + interval '1 second' + latency,
    st.reason, st.transient, sent, sent + interval '1 second',
    CASE WHEN st.outcome = 'delivered' THEN sent + interval '1 second' + latency END,
    units * 0.25, units,
    (${array(PROVIDERS.map(([name]) => name as string))})[p],
    (${array(PROVIDERS.map(([, code]) => code as string))})[p],
    (${array(CIRCLES.map(([name]) => name as string))})[c],
    (${array(CIRCLES.map(([, code]) => code as string))})[c],
    'India', 'in', 'order-' || g, 'campaign-' || tag, 'segment-' || tag2
  FROM drawn JOIN statuses st ON drawn.s >= st.low AND drawn.s < st.high
  ORDER BY sent`);
  const calls = Math.max(1, Math.floor(messages / 10));
  await db.query(`INSERT INTO reportkit_calls (call_key, mid, status, outcome, transient, source,
    duration, billing, started_at, ended_at, reported_at, received_at)
  WITH drawn AS (SELECT g, random() AS s, ${start} + random() * interval '${days} days' AS started,
    floor(random() * 300)::int AS seconds FROM generate_series(1, ${calls}) AS g)
  SELECT 'call:gen-' || g, 'gen-' || g,
    CASE WHEN s < 0.6 THEN 'ANSWER' WHEN s < 0.8 THEN 'NOANSWER' ELSE 'BUSY' END,
    CASE WHEN s < 0.6 THEN 'answered' ELSE 'unanswered' END, s >= 0.6,
    CASE WHEN g % 4 = 0 THEN 'C2C' ELSE 'OBD' END,
    CASE WHEN s < 0.6 THEN seconds ELSE 0 END, CASE WHEN g % 4 = 0 AND s < 0.6 THEN seconds END,
    started, started + seconds * interval '1 second', NULL, started + seconds * interval '1 second'
  FROM drawn`);
  const optOuts = Math.max(1, Math.floor(messages / 100));
  await db.query(`INSERT INTO reportkit_opt_outs (id, receiver, receiver_key, type, value,
    created_at, received_at)
  WITH drawn AS (SELECT g, random() AS s, ${start} + random() * interval '${days} days' AS at
    FROM generate_series(1, ${optOuts}) AS g)
  SELECT 'opt-out-' || g, '91' || (7000000000 + g), (7000000000 + g)::text,
    CASE WHEN s < 0.1 THEN 'all' ELSE 'sender' END,
    CASE WHEN s < 0.1 THEN '*' ELSE 'SENDR' || floor(s * 10)::int END, at, at
  FROM drawn`);
  await db.query("VACUUM ANALYZE reportkit_message_status");
  await db.query("VACUUM ANALYZE reportkit_calls");
  await db.query("VACUUM ANALYZE reportkit_opt_outs");
}
