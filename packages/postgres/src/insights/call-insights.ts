// The insights of the call ledger (reportkit_calls, one row per call as recordCall keeps it):
// calls answered by day, and how long they lasted. A call counts on the day it started
// (CALL_TIME), in the query's zone.
import { CALL_TIME } from "../ledger-schema.js";
import { CALLS_TABLE } from "../table-names.js";
import {
  aggregatedByDay,
  type InsightsRange,
  inRange,
  type Queryable,
  resolveQuery,
} from "./insights-query.js";
import { numberOf } from "./outcome-counts.js";

/** One day's calls. */
export interface DayCalls {
  day: string;
  calls: number;
  answered: number;
  unanswered: number;
  /** A status reportkit does not know. */
  unknown: number;
  /** answered / (answered + unanswered), from 0 to 1; null without such calls. */
  answerRate: number | null;
  /** Seconds of the answered calls (`duration`: the first call's), summed. */
  duration: number;
  /** Their mean, in seconds; null without answered calls that give one. */
  averageDuration: number | null;
  /** Billed seconds (a Click2Call's `billing`: the second call's), summed. */
  billing: number;
}

const CALL_COLUMNS = `count(*) AS calls,
  count(*) FILTER (WHERE outcome = 'answered') AS answered,
  count(*) FILTER (WHERE outcome = 'unanswered') AS unanswered,
  count(*) FILTER (WHERE outcome = 'unknown') AS unknown,
  COALESCE(sum(duration) FILTER (WHERE outcome = 'answered'), 0) AS duration,
  avg(duration) FILTER (WHERE outcome = 'answered') AS average_duration,
  COALESCE(sum(billing), 0) AS billing`;

/** Each day of the range (every day) with its calls, how many were answered, and their length. */
export async function callsByDay(db: Queryable, range: InsightsRange): Promise<DayCalls[]> {
  const resolved = resolveQuery("callsByDay", range, false);
  const { rows } = await db.query<Record<string, unknown>>(
    aggregatedByDay(
      resolved,
      CALL_TIME,
      CALL_COLUMNS,
      `FROM ${CALLS_TABLE} WHERE ${inRange(resolved, CALL_TIME)}`,
    ),
    resolved.parameters.values,
  );
  return rows.map((row) => {
    const answered = numberOf(row.answered) ?? 0;
    const unanswered = numberOf(row.unanswered) ?? 0;
    const average = numberOf(row.average_duration);
    return {
      day: row.day as string,
      calls: numberOf(row.calls) ?? 0,
      answered,
      unanswered,
      unknown: numberOf(row.unknown) ?? 0,
      answerRate: answered + unanswered > 0 ? answered / (answered + unanswered) : null,
      duration: numberOf(row.duration) ?? 0,
      averageDuration: average === null ? null : Math.round(average * 10) / 10,
      billing: numberOf(row.billing) ?? 0,
    };
  });
}
