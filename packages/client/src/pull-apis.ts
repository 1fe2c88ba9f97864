import {
  type CallStatusQuery,
  type DayRange,
  type DlrQuery,
  dayRange,
  filterParams,
  pageParam,
} from "./pull-query.js";
import {
  type CallStatusPage,
  CallStatusPageSchema,
  type CallStatusRecord,
  type DlrPage,
  DlrPageSchema,
  type DlrRecord,
  type StatusSummary,
  StatusSummarySchema,
} from "./pull-schemas.js";
import { request, type Transport, validate } from "./transport.js";
import { walkPages } from "./walk-pages.js";

/** The Pull DLR API (v2/sms/pull-dlr.md) and the status summary (v2/sms/status-report.md). */
export interface DlrApi {
  /**
   * One page of messages with their current status. By `date` or `groupId` the API pages them,
   * 100 a page (`page`, default 1); by `id`, `mobile` or `cid` one page holds them all.
   */
  list(query: DlrQuery & { page?: number }): Promise<DlrPage>;
  /** Every message the query matches, page after page. */
  iterate(query: DlrQuery): AsyncIterableIterator<DlrRecord>;
  /** Per day from `from` to `to` (default `from`), a count per status. */
  summary(range: DayRange): Promise<StatusSummary>;
}

/** The call-status API (v2/reach/status.md). */
export interface CallsApi {
  /** The calls the query matches (one page: the API does not paginate them). */
  list(query: CallStatusQuery & { page?: number }): Promise<CallStatusPage>;
  /** Every call the query matches (page after page, should the API ever paginate). */
  iterate(query: CallStatusQuery): AsyncIterableIterator<CallStatusRecord>;
}

const SMS_STATUS = "sms/status";
const SMS_REPORT = "sms/report";
const CALL_STATUS = "outgoing/callstatus";
const DLR_FILTERS = { id: "id", mobile: "mobile", cid: "cid", date: "date", groupId: "group_id" };
const CALL_FILTERS = { id: "id", cid: "cid", date: "date", mobile: "mobile" };

export function dlrApi(t: Transport): DlrApi {
  async function list(query: DlrQuery & { page?: number }): Promise<DlrPage> {
    const params = filterParams("dlr.list", query, DLR_FILTERS);
    const page = pageParam(query.page);
    const body = await request(t, { method: "GET", path: SMS_STATUS, query: { ...params, page } });
    return validate(t, DlrPageSchema, `GET ${SMS_STATUS}`, body);
  }

  function iterate(query: DlrQuery): AsyncIterableIterator<DlrRecord> {
    // Checked now, not at the first next(): a wrong filter is the caller's mistake, at the call.
    filterParams("dlr.iterate", query, DLR_FILTERS);
    const { page: _, ...filter } = query as DlrQuery & { page?: number };
    return walkPages(`GET ${SMS_STATUS}`, (page) => list({ ...(filter as DlrQuery), page }));
  }

  async function summary(range: DayRange): Promise<StatusSummary> {
    const { from, to } = dayRange("dlr.summary", range);
    const body = await request(t, {
      method: "GET",
      path: SMS_REPORT,
      query: { daterange: `${from}|${to}` },
    });
    return validate(t, StatusSummarySchema, `GET ${SMS_REPORT}`, body);
  }

  return { list, iterate, summary };
}

export function callsApi(t: Transport): CallsApi {
  async function list(query: CallStatusQuery & { page?: number }): Promise<CallStatusPage> {
    const params = filterParams("calls.list", query, CALL_FILTERS);
    const page = pageParam(query.page);
    const body = await request(t, { method: "GET", path: CALL_STATUS, query: { ...params, page } });
    return validate(t, CallStatusPageSchema, `GET ${CALL_STATUS}`, body);
  }

  function iterate(query: CallStatusQuery): AsyncIterableIterator<CallStatusRecord> {
    filterParams("calls.iterate", query, CALL_FILTERS);
    const { page: _, ...filter } = query as CallStatusQuery & { page?: number };
    return walkPages(`GET ${CALL_STATUS}`, (page) =>
      list({ ...(filter as CallStatusQuery), page }),
    );
  }

  return { list, iterate };
}
