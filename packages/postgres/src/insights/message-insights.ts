// The insights of the message ledger (reportkit_message_status, one row per message as
// recordStatus keeps it): how many were delivered, by day, operator, region and tag; why the
// others failed; how long delivery took; what it cost. A message counts on the day it was sent
// (MESSAGE_TIME), in the query's zone.
import { MESSAGE_TIME } from "../ledger-schema.js";
import { MESSAGE_STATUS_TABLE } from "../table-names.js";
import {
  aggregatedByDay,
  everyDay,
  type InsightsQuery,
  inRange,
  type Queryable,
  type ResolvedQuery,
  resolveQuery,
} from "./insights-query.js";
import { numberOf, OUTCOME_COLUMNS, type OutcomeCounts, outcomeCounts } from "./outcome-counts.js";

/** The range's messages that pass the filters. */
function messagesIn(resolved: ResolvedQuery): string {
  return `FROM ${MESSAGE_STATUS_TABLE} WHERE ${inRange(resolved, MESSAGE_TIME)}${resolved.filters}`;
}

/** One query's answer rows. */
async function rowsOf(db: Queryable, text: string, resolved: ResolvedQuery) {
  const { rows } = await db.query<Record<string, unknown>>(text, resolved.parameters.values);
  return rows;
}

/** Messages of the range by outcome, and their credits. */
export interface MessageSummary extends OutcomeCounts {
  /** SMS parts. */
  units: number;
  /** Credits charged, exact ("1234.5000"). */
  credits: string;
  /** Credits per delivered message ("0.2600"); null when none was delivered. */
  creditsPerDelivered: string | null;
}

const CREDIT_COLUMNS = `COALESCE(sum(units), 0) AS units,
  round(COALESCE(sum(credits), 0), 4)::text AS credits,
  round(sum(credits) / NULLIF(count(*) FILTER (WHERE outcome = 'delivered'), 0), 4)::text AS per_delivered`;

function credits(row: Record<string, unknown>) {
  return {
    units: numberOf(row.units) ?? 0,
    credits: (row.credits as string | null) ?? "0.0000",
    creditsPerDelivered: (row.per_delivered as string | null) ?? null,
  };
}

/**
 * The range's messages by outcome, the delivery rate, and what they cost: the alert's number
 * (`reportkit insights --fail-below`).
 *
 * @example
 * const { deliveryRate } = await messageSummary(pool, { from: new Date(Date.now() - 3_600_000), to: new Date() });
 */
export async function messageSummary(db: Queryable, query: InsightsQuery): Promise<MessageSummary> {
  const resolved = resolveQuery("messageSummary", query);
  const [row = {}] = await rowsOf(
    db,
    `SELECT ${OUTCOME_COLUMNS}, ${CREDIT_COLUMNS} ${messagesIn(resolved)}`,
    resolved,
  );
  return { ...outcomeCounts(row), ...credits(row) };
}

/** One day's messages by outcome. */
export interface DayOutcomes extends OutcomeCounts {
  /** "yyyy-mm-dd", in the query's zone. */
  day: string;
}

/** Each day of the range (every day, none left out) with its messages by outcome. */
export async function messagesByDay(db: Queryable, query: InsightsQuery): Promise<DayOutcomes[]> {
  const resolved = resolveQuery("messagesByDay", query);
  const rows = await rowsOf(
    db,
    aggregatedByDay(resolved, MESSAGE_TIME, OUTCOME_COLUMNS, messagesIn(resolved)),
    resolved,
  );
  return rows.map((row) => ({ day: row.day as string, ...outcomeCounts(row) }));
}

/** What the delivery rate is broken down by: the operator, the circle, the country, a tag. */
export type MessageDimension =
  | "provider"
  | "region"
  | "location"
  | "custom"
  | "custom1"
  | "custom2";
export const MESSAGE_DIMENSIONS: readonly MessageDimension[] = [
  "provider",
  "region",
  "location",
  "custom",
  "custom1",
  "custom2",
];
// The column of each, and of its code where the reports carry one.
const DIMENSION_COLUMNS: Record<MessageDimension, [string, string | null]> = {
  provider: ["provider", "provider_code"],
  region: ["region", "region_code"],
  location: ["location", "location_code"],
  custom: ["custom", null],
  custom1: ["custom1", null],
  custom2: ["custom2", null],
};

/** One value of a dimension (an operator, a circle, a tag) with its messages by outcome. */
export interface DimensionOutcomes extends OutcomeCounts {
  /** As the reports carry it ("Jio", "campaign-3344"); null for messages without one. */
  name: string | null;
  /** Its code ("RJ", "KA"), for the operator, the circle and the country; else null. */
  code: string | null;
}

/** How many rows a breakdown gives at most, by default: the values with the most messages. */
export const DEFAULT_BREAKDOWN_LIMIT = 50;

/**
 * The delivery rate of each operator (`provider`), circle (`region`), country (`location`) or
 * tag (`custom`, `custom1`, `custom2`) in the range: the `limit` values with the most messages
 * (default 50), most first.
 *
 * @example
 * await deliveryRateBy(pool, "provider", { from: "2026-11-01", to: "2026-11-30" });
 * // [{ name: "Jio", code: "RJ", messages: 5120, delivered: 4871, …, deliveryRate: 0.962 }, …]
 */
export async function deliveryRateBy(
  db: Queryable,
  dimension: MessageDimension,
  query: InsightsQuery,
  options: { limit?: number } = {},
): Promise<DimensionOutcomes[]> {
  const who = "deliveryRateBy";
  const columns = DIMENSION_COLUMNS[dimension];
  if (columns === undefined || !Object.hasOwn(DIMENSION_COLUMNS, dimension)) {
    throw new TypeError(
      `${who}: the dimension must be one of ${MESSAGE_DIMENSIONS.join(", ")}; got ${JSON.stringify(dimension)}.`,
    );
  }
  const limit = limitOf(who, options.limit);
  const resolved = resolveQuery(who, query);
  const [name, code] = columns;
  const rows = await rowsOf(
    db,
    `SELECT ${name} AS name, ${code === null ? "NULL" : code} AS code, ${OUTCOME_COLUMNS}
    ${messagesIn(resolved)} GROUP BY 1, 2 ORDER BY messages DESC, name NULLS LAST LIMIT ${limit}`,
    resolved,
  );
  return rows.map((row) => ({
    name: row.name as string | null,
    code: row.code as string | null,
    ...outcomeCounts(row),
  }));
}

/** Messages that failed for one reason, or with one status. */
export interface FailureCount {
  /**
   * The status table's reason class (dlt, handset, network, recipient, account, content,
   * expired, unknown); null for a row recorded before the ledger kept reasons.
   */
  reason: string | null;
  /** The status as sent, when counted by status; null when counted by reason. */
  status: string | null;
  messages: number;
  /** How many of them a resend may still deliver (a transient status). */
  transient: number;
}

/**
 * The range's messages that were not delivered (outcome undelivered or unknown), by the
 * reason class of their status, or by the status itself, most first.
 *
 * @example
 * await failuresBy(pool, "reason", { from: "2026-11-28", to: "2026-11-28" });
 * // [{ reason: "dlt", status: null, messages: 312, transient: 0 }, { reason: "handset", … }]
 */
export async function failuresBy(
  db: Queryable,
  by: "reason" | "status",
  query: InsightsQuery,
  options: { limit?: number } = {},
): Promise<FailureCount[]> {
  const who = "failuresBy";
  if (by !== "reason" && by !== "status") {
    throw new TypeError(`${who}: count by "reason" or "status"; got ${JSON.stringify(by)}.`);
  }
  const limit = limitOf(who, options.limit);
  const resolved = resolveQuery(who, query);
  const group = by === "reason" ? "reason, NULL::text AS status" : "max(reason) AS reason, status";
  const rows = await rowsOf(
    db,
    `SELECT ${group}, count(*) AS messages, count(*) FILTER (WHERE transient) AS transient
    ${messagesIn(resolved)} AND outcome IN ('undelivered', 'unknown')
    GROUP BY ${by} ORDER BY messages DESC, ${by} NULLS LAST LIMIT ${limit}`,
    resolved,
  );
  return rows.map((row) => ({
    reason: row.reason as string | null,
    status: row.status as string | null,
    messages: numberOf(row.messages) ?? 0,
    transient: numberOf(row.transient) ?? 0,
  }));
}

/** How long delivery took, from submission to the operator to the handset, in seconds. */
export interface LatencyPercentiles {
  /** Delivered messages with both times. */
  messages: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface DayLatency extends LatencyPercentiles {
  day: string;
}
export interface ProviderLatency extends LatencyPercentiles {
  name: string | null;
  code: string | null;
}

// In seconds, as double precision: extract() answers numeric, whose arithmetic and hashing cost
// twice as much over a million rows.
const LATENCY = "date_part('epoch', delivered_at) - date_part('epoch', submitted_at)";

/**
 * Latency percentiles of `delivered` (a FROM … WHERE over message rows) by `groups` (each an
 * expression and its name), the same as percentile_disc (each one the first latency whose share
 * of the messages, counted from the fastest, reaches p) but from a histogram: the rows counted
 * by group and latency (few distinct latencies), then those counts summed in order. Sorting every
 * delivered message took 0.8 s on a million. The rows are read in a subquery the planner keeps
 * apart (OFFSET 0): grouping by the latency of two columns it would otherwise estimate a group
 * per row, and sort a million rows on disk instead of hashing them.
 */
function percentilesBy(groups: readonly [string, string][], delivered: string): string {
  const names = groups.map(([, name]) => name).join(", ");
  return `WITH histogram AS (
    SELECT ${names}, latency, count(*) AS n FROM (
      SELECT ${groups.map(([expression, name]) => `${expression} AS ${name}`).join(", ")},
        ${LATENCY} AS latency ${delivered} OFFSET 0) measured
    WHERE latency >= 0 GROUP BY ${names}, latency),
  running AS (SELECT ${names}, latency,
    sum(n) OVER (PARTITION BY ${names} ORDER BY latency) AS below,
    sum(n) OVER (PARTITION BY ${names}) AS messages FROM histogram)
  SELECT ${names}, max(messages) AS messages,
    min(latency) FILTER (WHERE below >= 0.5 * messages) AS p50,
    min(latency) FILTER (WHERE below >= 0.9 * messages) AS p90,
    min(latency) FILTER (WHERE below >= 0.99 * messages) AS p99
  FROM running GROUP BY ${names}`;
}

/**
 * Delivery latency (submitted → delivered, in seconds) of the range's delivered messages,
 * p50, p90 and p99 (each one a message's own latency), by day (every day of the range) or by
 * operator (most messages first). Messages without both times, or whose times disagree (a
 * delivery before its submission), are left out.
 */
export async function deliveryLatency(
  db: Queryable,
  by: "day",
  query: InsightsQuery,
): Promise<DayLatency[]>;
export async function deliveryLatency(
  db: Queryable,
  by: "provider",
  query: InsightsQuery,
  options?: { limit?: number },
): Promise<ProviderLatency[]>;
export async function deliveryLatency(
  db: Queryable,
  by: "day" | "provider",
  query: InsightsQuery,
  options: { limit?: number } = {},
): Promise<DayLatency[] | ProviderLatency[]> {
  const who = "deliveryLatency";
  if (by !== "day" && by !== "provider") {
    throw new TypeError(`${who}: group by "day" or "provider"; got ${JSON.stringify(by)}.`);
  }
  const limit = limitOf(who, options.limit);
  const resolved = resolveQuery(who, query);
  // Those without both times give a null latency, and those whose times disagree a negative
  // one: the histogram leaves both out.
  const delivered = `${messagesIn(resolved)} AND outcome = 'delivered'`;
  if (by === "day") {
    const rows = await rowsOf(
      db,
      everyDay(resolved, (day) => percentilesBy([[day(MESSAGE_TIME), "on_day"]], delivered)),
      resolved,
    );
    return rows.map((row) => ({ day: row.day as string, ...percentiles(row) }));
  }
  const rows = await rowsOf(
    db,
    `${percentilesBy(
      [
        ["provider", "name"],
        ["provider_code", "code"],
      ],
      delivered,
    )} ORDER BY messages DESC, name NULLS LAST LIMIT ${limit}`,
    resolved,
  );
  return rows.map((row) => ({
    name: row.name as string | null,
    code: row.code as string | null,
    ...percentiles(row),
  }));
}

function percentiles(row: Record<string, unknown>): LatencyPercentiles {
  return {
    messages: numberOf(row.messages) ?? 0,
    p50: numberOf(row.p50),
    p90: numberOf(row.p90),
    p99: numberOf(row.p99),
  };
}

/** One day's cost. */
export interface DayCredits {
  day: string;
  messages: number;
  delivered: number;
  units: number;
  /** Credits charged that day, exact ("1234.5000"). */
  credits: string;
  /** Credits per delivered message ("0.2600"); null when none was delivered. */
  creditsPerDelivered: string | null;
}

/** Each day of the range with the credits its messages were charged, and per delivered one. */
export async function creditsByDay(db: Queryable, query: InsightsQuery): Promise<DayCredits[]> {
  const resolved = resolveQuery("creditsByDay", query);
  const rows = await rowsOf(
    db,
    aggregatedByDay(
      resolved,
      MESSAGE_TIME,
      `${OUTCOME_COLUMNS}, ${CREDIT_COLUMNS}`,
      messagesIn(resolved),
    ),
    resolved,
  );
  return rows.map((row) => {
    const { messages, delivered } = outcomeCounts(row);
    return { day: row.day as string, messages, delivered, ...credits(row) };
  });
}

/**
 * A breakdown's row limit: whole, 1 to 1000 (default 50).
 * @throws TypeError naming `who`
 */
export function limitOf(who: string, limit: unknown): number {
  if (limit === undefined) return DEFAULT_BREAKDOWN_LIMIT;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new TypeError(`${who}: \`limit\` must be a whole number from 1 to 1000; got ${limit}.`);
  }
  return limit;
}
