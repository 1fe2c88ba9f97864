// A stand-in for the provider's pull APIs on a free port, answering as its pages show
// (test/fixtures/pull-api.ts): GET sms/status in the Pull DLR envelope, 100 records a page by
// `date` or `group_id` with Laravel's `links`/`meta` (the links as the page writes them:
// "<origin>/api/v2/sms/status?page=N", without the query that chose the records), every match
// in one unpaginated answer by `id`, `mobile` or `cid`; GET outgoing/callstatus and
// GET sms/report in their { status: 200, message, data } envelope; GET voice/calls and
// GET voice/recordings (v2/voice/logs.md) in the paginator envelope, 15 a page, the records in
// the order given (their `datetime[...]` day filter is recorded in `requests`, not applied:
// the client's own matching is what the tests exercise). It checks the bearer (a
// wrong one gets Laravel's 401 `{"message":"Unauthenticated."}`: the provider's error shape is
// not documented) and can fail the next requests on demand.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PulledCall, PulledCallLog, PulledMessage, PulledRecording } from "@reportkit/wire";

export type { PulledCall, PulledCallLog, PulledMessage, PulledRecording };

export interface PullApiServer {
  /** http://127.0.0.1:<port>/api/v2/ */
  baseUrl: string;
  /** Every request, as "<METHOD> <path>?<query>", in order. */
  requests: string[];
  /** Answers the next `times` requests with `status` (and a JSON body saying so). */
  failNext(status: number, times?: number, headers?: Record<string, string>): void;
  /** Answers the next request for page `page` (of any list) with `status`. */
  failPage(page: number, status: number): void;
  close(): Promise<void>;
}

export const PER_PAGE = 100;
/** The voice logs' page size, as their page shows (`per_page: 15`). */
export const VOICE_PER_PAGE = 15;

/** A message in the page's shape, fields in its order; `overrides` change any field. */
export function pulledMessage(overrides: Partial<PulledMessage> & { id: string }): PulledMessage {
  const status = overrides.status ?? "DELIVRD";
  const defaults: PulledMessage = {
    id: overrides.id,
    mobile: "919876543210",
    status,
    units: 1,
    service: "T",
    length: 7,
    charges: 1,
    custom: "",
    custom1: "",
    location: "",
    provider: "",
    submitted_at: "2024-06-24 09:51:03",
    delivered_at: status === "AWAITING-DLR" ? "" : "2024-06-24 09:51:09",
    sender: "SENDER",
  };
  // Assigned onto the defaults: the keys keep the page's order.
  return Object.assign(defaults, overrides);
}

/** A call log in the page's shape, fields in its order (the page's sample, unmasked). */
export function pulledCallLog(overrides: Partial<PulledCallLog> & { id: string }): PulledCallLog {
  const defaults: PulledCallLog = {
    id: overrides.id,
    call_from: "917989532456",
    call_to: "918068287601",
    service: "IN",
    bridge: "918068287601",
    status: "RECEIVED",
    duration: "00:00:12",
    billing: "00:00:12",
    pulsing: "30",
    charges: "0.0150",
    start_at: "2019-06-11 05:57:24",
    end_at: "2019-06-11 05:57:36",
    hangup_by: "caller",
    dtmf: null,
    location: "IN",
    region: "AP",
    provider: "RJ",
    notes: null,
    audio: null,
    name: null,
  };
  return Object.assign(defaults, overrides);
}

/** A recording in the page's shape, fields in its order; `audio` a presigned-looking URL. */
export function pulledRecording(
  overrides: Partial<PulledRecording> & { id: string },
): PulledRecording {
  const defaults: PulledRecording = {
    id: overrides.id,
    call_from: "918553001122",
    call_to: "918068287601",
    audio: `https://s30m.s3.ap-southeast-1.amazonaws.com/rc/190611/${overrides.id}.mp3?X-Amz-Date=20190611T003421Z&X-Amz-Expires=3600&X-Amz-Signature=0123456789abcdef`,
    duration: "00:01:33",
    agent: null,
    created_at: "2019-06-11 06:04:21",
  };
  return Object.assign(defaults, overrides);
}

export async function startPullApiServer(options: {
  apiToken: string;
  messages: () => readonly PulledMessage[];
  calls?: () => readonly PulledCall[];
  callLogs?: () => readonly PulledCallLog[];
  recordings?: () => readonly PulledRecording[];
}): Promise<PullApiServer> {
  const requests: string[] = [];
  const failures: { status: number; headers: Record<string, string> }[] = [];
  const pageFailures = new Map<string, number>();
  let origin = "";

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const reply = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        "content-type": "application/json",
        "cache-control": "no-cache, private",
        ...headers,
      });
      res.end(body);
    };
    const pageFailure = pageFailures.get(url.searchParams.get("page") ?? "");
    if (pageFailure !== undefined) {
      pageFailures.delete(url.searchParams.get("page") ?? "");
      failures.unshift({ status: pageFailure, headers: {} });
    }
    const failure = failures.shift();
    if (failure !== undefined) {
      return reply(
        failure.status,
        JSON.stringify({ message: `stand-in failure ${failure.status}` }),
        failure.headers,
      );
    }
    if (req.headers.authorization !== `Bearer ${options.apiToken}`) {
      return reply(401, JSON.stringify({ message: "Unauthenticated." }));
    }
    const path = url.pathname.replace(/^\/api\/v2\//, "");
    const q = url.searchParams;
    if (req.method === "GET" && path === "sms/status") {
      if (!["id", "mobile", "cid", "date", "group_id"].some((k) => q.has(k)))
        return reply(422, JSON.stringify({ message: "The id field is required." }));
      const matches = options.messages().filter((m) => messageMatches(m, q));
      const paged = q.has("date") || q.has("group_id");
      return reply(
        200,
        paged ? pagedEnvelope(matches, q, origin, path, PER_PAGE) : plainEnvelope(matches),
      );
    }
    if (req.method === "GET" && path === "outgoing/callstatus") {
      const calls = (options.calls?.() ?? []).filter((c) => callMatches(c, q));
      return reply(200, JSON.stringify({ status: 200, message: "OK", data: calls }, null, 4));
    }
    if (req.method === "GET" && path === "voice/calls") {
      return reply(200, pagedEnvelope(options.callLogs?.() ?? [], q, origin, path, VOICE_PER_PAGE));
    }
    if (req.method === "GET" && path === "voice/recordings") {
      const all = options.recordings?.() ?? [];
      return reply(200, pagedEnvelope(all, q, origin, path, VOICE_PER_PAGE));
    }
    if (req.method === "GET" && path === "sms/report") {
      return reply(200, summaryEnvelope(options.messages(), q.get("daterange") ?? ""));
    }
    return reply(404, JSON.stringify({ message: `The route ${path} could not be found.` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/api/v2/`,
    requests,
    failNext(status, times = 1, headers = {}) {
      for (let i = 0; i < times; i++) failures.push({ status, headers });
    },
    failPage(page, status) {
      pageFailures.set(String(page), status);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function messageMatches(m: PulledMessage, q: URLSearchParams): boolean {
  const is = (key: string, value: string) => !q.has(key) || q.get(key) === value;
  return (
    is("id", m.id) &&
    is("mobile", m.mobile) &&
    is("cid", m.custom) &&
    is("date", m.submitted_at.slice(0, 10)) &&
    is("group_id", m.id.split(":")[0] as string)
  );
}

function callMatches(c: PulledCall, q: URLSearchParams): boolean {
  const is = (key: string, value: string) => !q.has(key) || q.get(key) === value;
  return (
    is("id", c.id) &&
    is("cid", c.foreign_id) &&
    is("mobile", c.to) &&
    is("date", c.created_at.slice(0, 10))
  );
}

/** The unpaginated answer (by id, mobile or cid), as the page's first example. */
function plainEnvelope(data: readonly PulledMessage[]): string {
  return JSON.stringify({ status: "OK", code: 200, message: "OK", data }, null, 2);
}

/** The paginated answer, key for key as the Pull DLR page's second example (and the voice logs'). */
function pagedEnvelope(
  all: readonly unknown[],
  q: URLSearchParams,
  origin: string,
  route: string,
  perPage: number,
): string {
  const pageText = q.get("page") ?? "1";
  const page = /^\d+$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1;
  const last = Math.max(1, Math.ceil(all.length / perPage));
  const start = (page - 1) * perPage;
  const data = all.slice(start, start + perPage);
  const path = `${origin}/api/v2/${route}`;
  const link = (n: number) => `${path}?page=${n}`;
  const numbered = Array.from({ length: last }, (_, i) => ({
    url: link(i + 1),
    label: String(i + 1),
    active: i + 1 === page,
  }));
  return JSON.stringify(
    {
      status: "OK",
      code: 200,
      message: "OK",
      data,
      links: {
        first: link(1),
        last: link(last),
        prev: page > 1 ? link(page - 1) : null,
        next: page < last ? link(page + 1) : null,
      },
      meta: {
        current_page: page,
        from: data.length === 0 ? null : start + 1,
        last_page: last,
        links: [
          { url: page > 1 ? link(page - 1) : null, label: "&laquo; Previous", active: false },
          ...numbered,
          { url: page < last ? link(page + 1) : null, label: "Next &raquo;", active: false },
        ],
        path,
        per_page: perPage,
        to: data.length === 0 ? null : start + data.length,
        total: all.length,
      },
    },
    null,
    4,
  );
}

/** Per day of `daterange` ("from|to"), newest first, a count per status. */
function summaryEnvelope(messages: readonly PulledMessage[], range: string): string {
  const [from = "", to = from] = range.split("|");
  const days: Record<string, { date: string; status: Record<string, number> }> = {};
  for (const m of [...messages].sort((a, b) => (a.submitted_at < b.submitted_at ? 1 : -1))) {
    const day = m.submitted_at.slice(0, 10);
    if (day < from || day > to) continue;
    days[day] ??= { date: day, status: {} };
    const counts = (days[day] as { status: Record<string, number> }).status;
    counts[m.status] = (counts[m.status] ?? 0) + 1;
  }
  // PHP's json_encode writes an empty array as [].
  const data = Object.keys(days).length === 0 ? [] : days;
  return JSON.stringify({ status: 200, message: "OK", data }, null, 2);
}
