// The insights of the opt-out ledger (reportkit_opt_outs, as recordOptOut keeps it): opt-outs by
// day, and by the sender id opted out of. An opt-out counts on the day it was made (OPT_OUT_TIME).
import { OPT_OUT_TIME } from "../ledger-schema.js";
import { EVERY_SENDER } from "../record-opt-out.js";
import { OPT_OUTS_TABLE } from "../table-names.js";
import {
  aggregatedByDay,
  type InsightsRange,
  inRange,
  type Queryable,
  resolveQuery,
} from "./insights-query.js";
import { limitOf } from "./message-insights.js";
import { numberOf } from "./outcome-counts.js";

/** One day's opt-outs. */
export interface DayOptOuts {
  day: string;
  optOuts: number;
  /** Those of every sender (type "all", or "sender" with the value "*"). */
  allSenders: number;
}

/** Opt-outs of one sender id (or of every sender: type "all"). */
export interface SenderOptOuts {
  /** As the opt-out said: "sender", "all", or another channel's ("category"). */
  type: string | null;
  /** The sender id opted out of ("DEMOCO"), or "*". */
  value: string | null;
  optOuts: number;
}

function optOutsIn(range: ReturnType<typeof resolveQuery>): string {
  return `FROM ${OPT_OUTS_TABLE} WHERE ${inRange(range, OPT_OUT_TIME)}`;
}

/** Each day of the range (every day) with its opt-outs. */
export async function optOutsByDay(db: Queryable, range: InsightsRange): Promise<DayOptOuts[]> {
  const resolved = resolveQuery("optOutsByDay", range, false);
  const { rows } = await db.query<Record<string, unknown>>(
    aggregatedByDay(
      resolved,
      OPT_OUT_TIME,
      `count(*) AS opt_outs, count(*) FILTER (WHERE ${EVERY_SENDER}) AS all_senders`,
      optOutsIn(resolved),
    ),
    resolved.parameters.values,
  );
  return rows.map((row) => ({
    day: row.day as string,
    optOuts: numberOf(row.opt_outs) ?? 0,
    allSenders: numberOf(row.all_senders) ?? 0,
  }));
}

/** The range's opt-outs by what they opted out of, most first (at most `limit`, default 50). */
export async function optOutsBySender(
  db: Queryable,
  range: InsightsRange,
  options: { limit?: number } = {},
): Promise<SenderOptOuts[]> {
  const limit = limitOf("optOutsBySender", options.limit);
  const resolved = resolveQuery("optOutsBySender", range, false);
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT type, value, count(*) AS opt_outs ${optOutsIn(resolved)}
    GROUP BY 1, 2 ORDER BY opt_outs DESC, value NULLS LAST LIMIT ${limit}`,
    resolved.parameters.values,
  );
  return rows.map((row) => ({
    type: row.type as string | null,
    value: row.value as string | null,
    optOuts: numberOf(row.opt_outs) ?? 0,
  }));
}
