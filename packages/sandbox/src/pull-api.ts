import { fail, type JsonReply, paginate } from "./laravel.js";
import type { ApiRequest } from "./management-api.js";
import { notAllowed } from "./management-api.js";
import type { MessageLog, PulledMessage, PullFilter } from "./message-log.js";

// The provider's pull APIs over the sandbox's simulated messages and calls, in the envelopes
// its pages show: GET sms/status (v2/sms/pull-dlr.md), GET outgoing/callstatus
// (v2/reach/status.md), GET sms/report (v2/sms/status-report.md). What the pages leave out
// (errors, an empty summary) is the sandbox's choice, said where it is made.

/** The Pull DLR API pages by `date` or `group_id`, 100 records a page. */
export const PULL_DLR_PER_PAGE = 100;

type Route = ((request: ApiRequest) => JsonReply) | JsonReply | undefined;

export function pullRoute(log: MessageLog, request: ApiRequest): Route {
  const { method, path } = request;
  const get = (handler: (r: ApiRequest) => JsonReply): Route =>
    method === "GET" || method === "HEAD" ? handler : notAllowed(method, path, "GET, HEAD");
  switch (path) {
    case "sms/status":
      return get((r) => pullDlr(log, r));
    case "outgoing/callstatus":
      return get((r) => callStatus(log, r));
    case "sms/report":
      return get((r) => statusSummary(log, r));
  }
  return undefined;
}

const DLR_FILTERS: Record<string, keyof PullFilter> = {
  id: "id",
  mobile: "mobile",
  cid: "cid",
  date: "date",
  group_id: "groupId",
};
const CALL_FILTERS: Record<string, keyof PullFilter> = {
  id: "id",
  cid: "cid",
  date: "date",
  mobile: "mobile",
};

/**
 * The filter a request gives, or the 422 that says what is missing or wrong (Laravel's
 * required_without_all and date_format messages: the provider's are not documented).
 */
function filterOf(
  query: URLSearchParams,
  names: Record<string, keyof PullFilter>,
): { filter: PullFilter } | { refused: JsonReply } {
  const filter: PullFilter = {};
  for (const [param, key] of Object.entries(names)) {
    const value = query.get(param);
    if (value !== null && value.trim() !== "") filter[key] = value.trim();
  }
  const params = Object.keys(names);
  if (Object.keys(filter).length === 0) {
    const others = params.slice(1).join(" / ").replace("group_id", "group id");
    const message = `The ${params[0]} field is required when none of ${others} are present.`;
    return { refused: fail(422, message, { [params[0] as string]: [message] }) };
  }
  if (filter.date !== undefined && !isDay(filter.date)) {
    const message = "The date does not match the format Y-m-d.";
    return { refused: fail(422, message, { date: [message] }) };
  }
  return { filter };
}

export function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

export function pageOf(query: URLSearchParams): number {
  const text = query.get("page") ?? "1";
  // Laravel reads a page it cannot use as page 1.
  return /^\d+$/.test(text) && Number(text) >= 1 ? Number(text) : 1;
}

/**
 * GET sms/status: by `date` or `group_id` one page of 100 with Laravel's `links` and `meta`,
 * the links without the query that chose the records (as the page shows them); by `id`,
 * `mobile` or `cid` every match, without the paginator. Filters given together all apply.
 */
function pullDlr(log: MessageLog, request: ApiRequest): JsonReply {
  const asked = filterOf(request.query, DLR_FILTERS);
  if ("refused" in asked) return asked.refused;
  const { filter } = asked;
  const found: PulledMessage[] = log.findMessages(filter);
  const envelope = { status: "OK", code: 200, message: "OK" };
  if (filter.date === undefined && filter.groupId === undefined) {
    return { status: 200, body: { ...envelope, data: found } };
  }
  const path = new URL("sms/status", request.baseUrl).href;
  const page = paginate(found, pageOf(request.query), path, [], PULL_DLR_PER_PAGE);
  return { status: 200, body: { ...envelope, ...page } };
}

/** GET outgoing/callstatus: `{ status: 200, message: "OK", data }`, every match (no paginator). */
function callStatus(log: MessageLog, request: ApiRequest): JsonReply {
  const asked = filterOf(request.query, CALL_FILTERS);
  if ("refused" in asked) return asked.refused;
  return { status: 200, body: { status: 200, message: "OK", data: log.findCalls(asked.filter) } };
}

/**
 * GET sms/report?daterange=yyyy-mm-dd|yyyy-mm-dd: per day, newest first, keyed by the day, a
 * count per status. A range without messages is `data: []`, as PHP's json_encode writes an
 * empty array (the page shows no empty answer).
 */
function statusSummary(log: MessageLog, request: ApiRequest): JsonReply {
  const range = request.query.get("daterange") ?? "";
  const [from = "", to = from] = range.split("|");
  if (!isDay(from) || !isDay(to) || to < from) {
    const message =
      range === ""
        ? "The daterange field is required."
        : "The daterange must be two days, yyyy-mm-dd|yyyy-mm-dd, the first not after the second.";
    return fail(422, message, { daterange: [message] });
  }
  const days: Record<string, { date: string; status: Record<string, number> }> = {};
  const messages = log
    .findMessages({})
    .filter((m) => m.submitted_at.slice(0, 10) >= from && m.submitted_at.slice(0, 10) <= to)
    .sort((a, b) =>
      a.submitted_at < b.submitted_at ? 1 : a.submitted_at > b.submitted_at ? -1 : 0,
    );
  for (const m of messages) {
    const date = m.submitted_at.slice(0, 10);
    // No prototype: a status named "__proto__" is a status like any other.
    days[date] ??= { date, status: Object.create(null) };
    const counts = (days[date] as { status: Record<string, number> }).status;
    counts[m.status] = (counts[m.status] ?? 0) + 1;
  }
  const data = Object.keys(days).length === 0 ? [] : days;
  return { status: 200, body: { status: 200, message: "OK", data } };
}
