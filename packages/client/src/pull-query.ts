// The pull APIs' filters: which one the caller gave, checked before anything is sent.

/** At least one of the keys `K` (a string each), the others optional. */
export type AtLeastOne<K extends string> = {
  [P in K]: { [Q in P]: string } & { [Q in Exclude<K, P>]?: string };
}[K];

/** `sms/status` asked by message id, mobile, your custom id, day or message group. */
export type DlrQuery = AtLeastOne<"id" | "mobile" | "cid" | "date" | "groupId">;

/** `outgoing/callstatus` asked by call id, your custom id, day or mobile. */
export type CallStatusQuery = AtLeastOne<"id" | "cid" | "date" | "mobile">;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Whether `text` is a calendar day written yyyy-mm-dd (2024-02-30 is not).
 */
export function isDay(text: string): boolean {
  const match = DAY.exec(text);
  if (match === null) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Days from `from` to `to` (both included; `to` defaults to `from`), each written yyyy-mm-dd. */
export interface DayRange {
  from: string;
  to?: string;
}

/**
 * A day range checked: both real days, `to` not before `from`.
 * @throws TypeError saying which end is wrong and what it must be
 */
export function dayRange(api: string, range: unknown): { from: string; to: string } {
  const given = (typeof range === "object" && range !== null ? range : {}) as Record<
    string,
    unknown
  >;
  const from = given.from;
  const to = given.to ?? from;
  for (const [name, day] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (typeof day !== "string" || !isDay(day)) {
      throw new TypeError(
        `reportkit client: ${api}: \`${name}\` must be a day written yyyy-mm-dd, e.g. 2024-06-24; got ${JSON.stringify(day)}.`,
      );
    }
  }
  if ((to as string) < (from as string)) {
    throw new TypeError(`reportkit client: ${api}: \`to\` (${to}) is before \`from\` (${from}).`);
  }
  return { from: from as string, to: to as string };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A day range as the voice logs' `datetime[...]` filters take it (v2/voice/logs.md):
 * "Aug 07, 2019 - Aug 13, 2019"; one day is "Aug 12, 2019 - Aug 12, 2019", as the page writes it.
 */
export function writtenDayRange(range: { from: string; to: string }): string {
  const written = (day: string) =>
    `${MONTHS[Number(day.slice(5, 7)) - 1]} ${day.slice(8, 10)}, ${day.slice(0, 4)}`;
  return `${written(range.from)} - ${written(range.to)}`;
}

/**
 * The query parameters of a filter: `names` maps each option to its wire name (groupId →
 * group_id). At least one must be given; each a non-empty single line; `date` a calendar day.
 * @throws TypeError saying which option is wrong and what it must be
 */
export function filterParams(
  api: string,
  query: unknown,
  names: Readonly<Record<string, string>>,
): Record<string, string> {
  const options = Object.keys(names);
  if (typeof query !== "object" || query === null) {
    throw new TypeError(
      `reportkit client: ${api} needs one of ${options.join(", ")}, e.g. { date: "2024-06-24" }.`,
    );
  }
  const given = query as Record<string, unknown>;
  const params: Record<string, string> = {};
  for (const option of options) {
    const value = given[option];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "" || /[\r\n]/.test(value)) {
      throw new TypeError(
        `reportkit client: ${api}: \`${option}\` must be a non-empty single-line string, got ${JSON.stringify(value)}.`,
      );
    }
    if (option === "date" && !isDay(value.trim())) {
      throw new TypeError(
        `reportkit client: ${api}: \`date\` must be a day written yyyy-mm-dd, e.g. 2024-06-24; got ${JSON.stringify(value)}.`,
      );
    }
    params[names[option] as string] = value.trim();
  }
  if (Object.keys(params).length === 0) {
    throw new TypeError(
      `reportkit client: ${api} needs one of ${options.join(", ")}, e.g. { date: "2024-06-24" }.`,
    );
  }
  return params;
}

/**
 * A 1-based page number, or undefined.
 * @throws TypeError for anything else
 */
export function pageParam(page: unknown): number | undefined {
  if (page === undefined) return undefined;
  if (typeof page !== "number" || !Number.isSafeInteger(page) || page < 1) {
    throw new TypeError(
      `reportkit client: \`page\` must be a whole number from 1, got ${String(page)}.`,
    );
  }
  return page;
}
