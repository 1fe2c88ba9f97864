// Every insight of a range at once, as `reportkit insights` prints and draws them, after a
// look at the catalog (read-only) that says what is missing when the ledger is not there.
import { PROVIDER_TIME_ZONE } from "@reportkit/core";
import { LEDGER_COLUMNS } from "../ledger-schema.js";
import { MISSING_SQL, missingParameters } from "../table-check.js";
import { CALLS_TABLE, MESSAGE_STATUS_TABLE, OPT_OUTS_TABLE } from "../table-names.js";
import { callsByDay, type DayCalls } from "./call-insights.js";
import { type InsightsQuery, type Queryable, resolveQuery } from "./insights-query.js";
import {
  creditsByDay,
  type DayCredits,
  type DayLatency,
  type DayOutcomes,
  type DimensionOutcomes,
  deliveryLatency,
  deliveryRateBy,
  type FailureCount,
  failuresBy,
  limitOf,
  type MessageSummary,
  messageSummary,
  messagesByDay,
  type ProviderLatency,
} from "./message-insights.js";
import {
  type DayOptOuts,
  optOutsByDay,
  optOutsBySender,
  type SenderOptOuts,
} from "./opt-out-insights.js";

/** The tag a campaign is told by: one of the three the provider carries back. */
export type TagField = "custom" | "custom1" | "custom2";
export const TAG_FIELDS: readonly TagField[] = ["custom", "custom1", "custom2"];

export interface ReadInsightsOptions {
  /** The tag the delivery rate "by campaign" reads. Default "custom1" (the provider's sample: "campaign-3344"). */
  tagField?: TagField;
  /** Rows at most per breakdown (operators, circles, tags, statuses, senders). Default 50. */
  limit?: number;
}

/** Everything `readInsights` answers, plain data. */
export interface Insights {
  query: InsightsQuery & { timeZone: string };
  tagField: TagField;
  summary: MessageSummary;
  messagesByDay: DayOutcomes[];
  deliveryRateByProvider: DimensionOutcomes[];
  deliveryRateByRegion: DimensionOutcomes[];
  deliveryRateByTag: DimensionOutcomes[];
  failuresByReason: FailureCount[];
  failuresByStatus: FailureCount[];
  latencyByDay: DayLatency[];
  latencyByProvider: ProviderLatency[];
  creditsByDay: DayCredits[];
  callsByDay: DayCalls[];
  optOutsByDay: DayOptOuts[];
  optOutsBySender: SenderOptOuts[];
}

/**
 * What the ledger lacks for the insights: its tables (and the columns a ledger an older
 * reportkit made lacks), as "table" or "table.column"; empty when all is there. Reads the
 * catalog only: a role that may only read can ask.
 */
export async function missingFromLedger(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    MISSING_SQL,
    missingParameters({
      relations: [MESSAGE_STATUS_TABLE, CALLS_TABLE, OPT_OUTS_TABLE],
      columns: LEDGER_COLUMNS,
    }),
  );
  return rows.map((row) => row.name);
}

/**
 * Every insight of the range: the summary, messages by day and outcome, the delivery rate by
 * operator, circle and campaign tag, failures by reason and status, delivery latency by day and
 * operator, credits by day, calls by day, opt-outs by day and sender id. The message insights
 * take the query's filters; calls and opt-outs its range.
 * @throws Error naming what the ledger lacks, and how to make it, before any query
 */
export async function readInsights(
  db: Queryable,
  query: InsightsQuery,
  options: ReadInsightsOptions = {},
): Promise<Insights> {
  const who = "readInsights";
  resolveQuery(who, query);
  const tagField = options.tagField ?? "custom1";
  if (!TAG_FIELDS.includes(tagField)) {
    throw new TypeError(
      `${who}: \`tagField\` must be ${TAG_FIELDS.join(", ")}; got ${JSON.stringify(tagField)}.`,
    );
  }
  const limit = { limit: limitOf(who, options.limit) };
  const missing = await missingFromLedger(db);
  if (missing.length > 0) {
    throw new Error(
      `${who}: the ledger lacks ${missing.join(", ")}. recordStatus, recordCall and recordOptOut keep it in the tables postgresInbox creates (postgresInboxSql() gives their SQL, and adds the columns a ledger an older reportkit made lacks): is this the receiver's database, and has it recorded anything yet?`,
    );
  }
  const range = { from: query.from, to: query.to, timeZone: query.timeZone };
  const [
    summary,
    days,
    byProvider,
    byRegion,
    byTag,
    byReason,
    byStatus,
    latencyDays,
    latencyProviders,
    credits,
    calls,
    optOutDays,
    optOutSenders,
  ] = await Promise.all([
    messageSummary(db, query),
    messagesByDay(db, query),
    deliveryRateBy(db, "provider", query, limit),
    deliveryRateBy(db, "region", query, limit),
    deliveryRateBy(db, tagField, query, limit),
    failuresBy(db, "reason", query, limit),
    failuresBy(db, "status", query, limit),
    deliveryLatency(db, "day", query),
    deliveryLatency(db, "provider", query, limit),
    creditsByDay(db, query),
    callsByDay(db, range),
    optOutsByDay(db, range),
    optOutsBySender(db, range, limit),
  ]);
  return {
    query: { ...query, timeZone: query.timeZone ?? PROVIDER_TIME_ZONE },
    tagField,
    summary,
    messagesByDay: days,
    deliveryRateByProvider: byProvider,
    deliveryRateByRegion: byRegion,
    deliveryRateByTag: byTag,
    failuresByReason: byReason,
    failuresByStatus: byStatus,
    latencyByDay: latencyDays,
    latencyByProvider: latencyProviders,
    creditsByDay: credits,
    callsByDay: calls,
    optOutsByDay: optOutDays,
    optOutsBySender: optOutSenders,
  };
}
