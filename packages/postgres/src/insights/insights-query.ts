// What every insight query takes (a range, its zone, filters) and how it becomes SQL: the
// range's bounds as timestamptz expressions, the filters as a WHERE, the days of the range. The
// values are parameters; the only text spliced into a statement is this module's own.
import { PROVIDER_TIME_ZONE } from "@reportkit/core";
import type pg from "pg";

/** What the insights read from: a `pg.Pool`, a client, or the inbox's `ctx.tx`. */
export type Queryable = Pick<pg.ClientBase, "query">;

/**
 * A range of time: `from` included, `to` excluded. A day ("2026-11-28") is that day in
 * `timeZone`: as `from` it starts the range, as `to` it is the range's last day (included).
 */
export interface InsightsRange {
  from: Date | string;
  to: Date | string;
  /**
   * The zone that says what a day is (IANA). Default `PROVIDER_TIME_ZONE` ("Asia/Kolkata"), the
   * provider's, whose own summary (`sms/report`) counts its days.
   */
  timeZone?: string;
}

/** Only the messages whose report said so (exact values, as the reports carry them). */
export interface InsightsFilter {
  /** The operator, as the reports name it (`provider`: "Jio"). */
  provider?: string;
  /** The telecom circle (`region`: "Bangalore"). */
  region?: string;
  /** Your own tags, as sent with the message. */
  custom?: string;
  custom1?: string;
  custom2?: string;
}

/** A range, and the filters the message insights take (calls and opt-outs read the range only). */
export interface InsightsQuery extends InsightsRange, InsightsFilter {}

/** The filters, in the order they are applied: each one a column of the message ledger. */
export const FILTERS = ["provider", "region", "custom", "custom1", "custom2"] as const;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** How many days a range may span: the by-day answers have a row per day. */
export const MAX_RANGE_DAYS = 1096;
const MAX_FILTER_LENGTH = 255;

/** A statement's parameters, numbered as they are added. */
export class Parameters {
  readonly values: unknown[] = [];
  readonly #named = new Map<string, string>();

  /** `$n` for `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /**
   * `$n` for `value`, the same `$n` each time for `name`, added on first use (Postgres cannot
   * type a parameter the statement never reads).
   */
  once(name: string, value: unknown): string {
    let placeholder = this.#named.get(name);
    if (placeholder === undefined) {
      placeholder = this.add(value);
      this.#named.set(name, placeholder);
    }
    return placeholder;
  }
}

/** A query read and checked, its bounds and zone as SQL over `parameters`. */
export interface ResolvedQuery {
  readonly parameters: Parameters;
  /** The range's start and end (excluded), as timestamptz expressions. */
  readonly lower: string;
  readonly upper: string;
  /** The zone's parameter (added to `parameters` on first use). */
  zone(): string;
  /** `AND column = $n` for each filter given, or "". */
  readonly filters: string;
}

/**
 * Reads a query; `who` names the function in errors.
 * @throws TypeError naming what was wrong and what it takes
 */
export function resolveQuery(who: string, query: InsightsQuery, filtered = true): ResolvedQuery {
  if (typeof query !== "object" || query === null) {
    throw new TypeError(
      `${who}: pass a query, e.g. { from: "2026-11-01", to: "2026-11-30" } (days in the provider's zone) or { from: new Date(Date.now() - 3_600_000), to: new Date() }.`,
    );
  }
  const timeZone = query.timeZone ?? PROVIDER_TIME_ZONE;
  if (!knownZone(timeZone)) {
    throw new TypeError(
      `${who}: \`timeZone\` must be an IANA time zone, e.g. "Asia/Kolkata" or "UTC"; got ${JSON.stringify(timeZone)}.`,
    );
  }
  const from = bound(who, "from", query.from);
  const to = bound(who, "to", query.to);
  const parameters = new Parameters();
  const zone = () => parameters.once("zone", timeZone);
  // A day as a bound: its midnight in the zone (the day after `to`'s, to include it).
  const lower =
    from instanceof Date
      ? `${parameters.add(from)}::timestamptz`
      : `(${parameters.add(from)}::date::timestamp AT TIME ZONE ${zone()})`;
  const upper =
    to instanceof Date
      ? `${parameters.add(to)}::timestamptz`
      : `((${parameters.add(to)}::date + 1)::timestamp AT TIME ZONE ${zone()})`;
  const span = spanDays(from, to);
  if (span <= 0) {
    throw new TypeError(`${who}: \`to\` must be after \`from\` (a day \`to\` is included).`);
  }
  if (span > MAX_RANGE_DAYS) {
    throw new TypeError(
      `${who}: a range may span at most ${MAX_RANGE_DAYS} days (3 years); got about ${Math.ceil(span)}.`,
    );
  }
  let filters = "";
  for (const name of FILTERS) {
    const value = query[name];
    if (value === undefined) continue;
    if (!filtered) {
      throw new TypeError(`${who}: \`${name}\` filters messages; calls and opt-outs have none.`);
    }
    if (typeof value !== "string" || value === "" || value.length > MAX_FILTER_LENGTH) {
      throw new TypeError(
        `${who}: \`${name}\` must be a value as the reports carry it (text, 1 to ${MAX_FILTER_LENGTH} characters); got ${JSON.stringify(value)}.`,
      );
    }
    filters += ` AND ${name} = ${parameters.add(value)}`;
  }
  return { parameters, lower, upper, zone, filters };
}

/** `time` in the range: the form an expression index on `time` serves. */
export function inRange(resolved: ResolvedQuery, time: string): string {
  return `${time} >= ${resolved.lower} AND ${time} < ${resolved.upper}`;
}

/** `time`'s day in the zone, as a date. */
export function dayOf(resolved: ResolvedQuery, time: string): string {
  return `((${time}) AT TIME ZONE ${resolved.zone()})::date`;
}

/**
 * A statement answering a row for every day of the range, from its first to its last: the rows
 * `grouped` selects (a SELECT with an `on_day` column, made with the `day` it is given: a time's
 * day, as a number), each day's `day` as "yyyy-mm-dd", nulls for a day without rows. A time's day
 * is found among the days' midnights in the zone (width_bucket, a binary search), not by
 * converting each row's time to the zone: half the cost on a million rows.
 */
export function everyDay(
  resolved: ResolvedQuery,
  grouped: (day: (time: string) => string) => string,
): string {
  const first = dayOf(resolved, resolved.lower);
  const last = dayOf(resolved, `${resolved.upper} - interval '1 microsecond'`);
  const days = `generate_series(${first}, ${last}, interval '1 day')`;
  const day = (time: string) => `width_bucket(${time}, (SELECT at FROM midnights))`;
  return `WITH midnights AS (
  SELECT array_agg(d::timestamp AT TIME ZONE ${resolved.zone()} ORDER BY d) AS at FROM ${days} AS d),
grouped AS (${grouped(day)})
SELECT grouped.*, to_char(days.d, 'YYYY-MM-DD') AS day
FROM ${days} WITH ORDINALITY AS days(d, n)
LEFT JOIN grouped ON grouped.on_day = days.n ORDER BY days.n`;
}

/**
 * everyDay of `columns` (aggregates) over `rows` (a FROM … WHERE), grouped by `time`'s day. The
 * rows are read in a subquery the planner keeps apart (OFFSET 0): grouping by an expression of
 * three columns it would otherwise estimate a group per row, and sort a million rows on disk
 * instead of hashing them into a few dozen days.
 */
export function aggregatedByDay(
  resolved: ResolvedQuery,
  time: string,
  columns: string,
  rows: string,
): string {
  return everyDay(
    resolved,
    (day) =>
      `SELECT on_day, ${columns} FROM (SELECT ${day(time)} AS on_day, * ${rows} OFFSET 0) fenced GROUP BY 1`,
  );
}

function bound(who: string, name: "from" | "to", value: unknown): Date | string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value === "string") {
    const match = DAY.exec(value);
    if (match !== null) {
      const [, y, m, d] = match;
      const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
      if (date.getUTCDate() === Number(d) && date.getUTCMonth() === Number(m) - 1) return value;
    }
  }
  throw new TypeError(
    `${who}: \`${name}\` must be a day, "yyyy-mm-dd" (in the query's zone), or a valid Date; got ${value instanceof Date ? "an invalid Date" : JSON.stringify(value)}.`,
  );
}

/** About how many days a range spans (zones aside: the check bounds it, nothing more). */
function spanDays(from: Date | string, to: Date | string): number {
  const start = from instanceof Date ? from.getTime() : Date.parse(`${from}T00:00:00Z`);
  const end = to instanceof Date ? to.getTime() : Date.parse(`${to}T00:00:00Z`) + 86_400_000;
  return (end - start) / 86_400_000;
}

function knownZone(timeZone: unknown): boolean {
  if (typeof timeZone !== "string" || timeZone === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}
