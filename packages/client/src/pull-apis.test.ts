// The pull APIs through the client: the provider's own example answers (verbatim, from its
// pages), then a stand-in server over real HTTP that pages as the Pull DLR API does, fails on
// demand and checks the bearer.
import { afterEach, describe, expect, it } from "vitest";
import {
  DOC_CALL_STATUS_RESPONSE_TEXT,
  DOC_DLR_PAGED_RESPONSE_TEXT,
  DOC_DLR_RESPONSE_TEXT,
  DOC_STATUS_SUMMARY_RESPONSE_TEXT,
} from "../../../test/fixtures/pull-api.js";
import { textClient } from "../../../test/support/client-fakes.js";
import {
  type PullApiServer,
  type PulledMessage,
  pulledMessage,
  startPullApiServer,
} from "../../../test/support/pull-api-server.js";
import { type Client, createClient, createClientWith } from "./create-client.js";
import { ApiError, ClientError, InvalidResponseError, RequestFailedError } from "./errors.js";
import type { DlrQuery } from "./pull-query.js";

const TOKEN = "pull-api-token-5151";
const BASE = "https://api.example.com/api/v2/";

/** A client answering the texts in turn, and the URLs it asked. */
const textFetch = (...texts: string[]) => textClient(TOKEN, ...texts);

describe("the provider's example answers, as its pages show them", () => {
  it("Pull DLR by id: one record, '' read as null, numbers as numbers, raw kept", async () => {
    const { client, urls } = textFetch(DOC_DLR_RESPONSE_TEXT);
    const page = await client.dlr.list({ id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1" });
    expect(urls).toEqual([`${BASE}sms/status?id=469ea920-ccd1-4a39-b728-c0b6f15f6aa6%3A1`]);
    expect(page.page).toEqual({
      current: 1,
      last: 1,
      perPage: 1,
      total: 1,
      from: 1,
      to: 1,
      path: null,
    });
    const { raw, ...record } = page.data[0] ?? ({} as never);
    expect(record).toEqual({
      id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1",
      mobile: "9189212693xx",
      status: "DELIVRD",
      units: 1,
      service: "T",
      length: 7,
      charges: 1,
      custom: null,
      custom1: null,
      location: null,
      provider: null,
      submittedAt: "2018-07-06 09:57:42",
      deliveredAt: "2018-07-06 21:57:42",
      sender: "SENDER",
    });
    expect(raw).toEqual(JSON.parse(DOC_DLR_RESPONSE_TEXT).data[0]);
  });

  it("Pull DLR by date: the paginator, delivered_at '' as null while AWAITING-DLR", async () => {
    const text = DOC_DLR_PAGED_RESPONSE_TEXT.replaceAll("{endpoint}", "https://api.example.com");
    const { client, urls } = textFetch(text);
    const all = [];
    for await (const record of client.dlr.iterate({ date: "2024-06-24" })) all.push(record);
    expect(urls).toEqual([`${BASE}sms/status?date=2024-06-24&page=1`]);
    expect(all.map((r) => [r.id, r.status, r.deliveredAt])).toEqual([
      ["6bb5da1a-b53e-4fbd-b0ae-6926cad4540b:1", "AWAITING-DLR", null],
      ["6bb5da1a-b53e-4fbd-b0ae-6926cad4540b:2", "AWAITING-DLR", null],
    ]);
  });

  it("call status: the { status: 200 } envelope without code", async () => {
    const { client, urls } = textFetch(DOC_CALL_STATUS_RESPONSE_TEXT);
    const page = await client.calls.list({ id: "8456bf26-1b6e-4ac1-adb9-2768258f71d0" });
    expect(urls).toEqual([`${BASE}outgoing/callstatus?id=8456bf26-1b6e-4ac1-adb9-2768258f71d0`]);
    const { raw: _, ...call } = page.data[0] ?? ({} as never);
    expect(call).toEqual({
      id: "8456bf26-1b6e-4ac1-adb9-2768258f71d0",
      channel: "outgoing",
      from: "3589100xxxx",
      to: "91761936xxxx",
      createdAt: "2024-07-10 08:27:14",
      foreignId: null,
      status: "ANSWER",
      startAt: "2024-07-10 08:27:26",
      endAt: "2024-07-10 08:27:29",
      dtmf: null,
    });
  });

  it("status summary: days in date order, with their totals", async () => {
    const { client, urls } = textFetch(DOC_STATUS_SUMMARY_RESPONSE_TEXT);
    const summary = await client.dlr.summary({ from: "2019-07-01", to: "2019-07-02" });
    expect(urls).toEqual([`${BASE}sms/report?daterange=2019-07-01%7C2019-07-02`]);
    expect(summary.days.map((d) => [d.date, d.total])).toEqual([
      ["2019-07-01", 3555],
      ["2019-07-02", 152803],
    ]);
    expect(summary.days[1]?.statuses).toEqual({
      "TIMEOUT-DLR": 572,
      DELIVRD: 150781,
      UNDELIV: 1450,
    });
  });
});

describe("lenient on format, strict on identity", () => {
  it("reads digit strings for numbers and numbers for text, PHP's [] for an empty summary", async () => {
    const record = {
      ...pulledMessage({ id: "a:1" }),
      units: "2",
      charges: "0.2500",
      length: "",
      mobile: 919876543210,
    };
    const { client } = textFetch(
      JSON.stringify({ status: "OK", code: 200, data: [record] }),
      JSON.stringify({ status: 200, message: "OK", data: [] }),
      JSON.stringify({ status: 200, data: { "2024-06-24": { date: "2024-06-24", status: [] } } }),
      JSON.stringify({
        status: 200,
        data: [{ id: 7, from: 918068281235, to: 919876543210, status: "BUSY", start_at: "" }],
      }),
    );
    const [read] = (await client.dlr.list({ id: "a:1" })).data;
    expect(read).toMatchObject({ units: 2, charges: 0.25, length: null, mobile: "919876543210" });
    expect((await client.dlr.summary({ from: "2024-06-24" })).days).toEqual([]);
    expect((await client.dlr.summary({ from: "2024-06-24" })).days).toEqual([
      { date: "2024-06-24", statuses: {}, total: 0 },
    ]);
    expect((await client.calls.list({ id: "7" })).data[0]).toMatchObject({
      id: "7",
      from: "918068281235",
      to: "919876543210",
      startAt: null,
      endAt: null,
    });
  });

  it("names each wrong field, and refuses a record without id or status", async () => {
    const { client } = textFetch(
      JSON.stringify({
        status: "OK",
        data: [{ ...pulledMessage({ id: "a:1" }), units: "many", submitted_at: "yesterday" }],
      }),
      JSON.stringify({ status: "OK", data: [{ mobile: "919876543210" }] }),
    );
    const wrong = await client.dlr.list({ id: "a:1" }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(InvalidResponseError);
    expect((wrong as InvalidResponseError).issues).toEqual([
      "data[0].units: Invalid input",
      "data[0].submitted_at: expected a wall-clock time such as 2018-07-06 09:57:42, or an empty string",
    ]);
    const anonymous = await client.dlr.list({ id: "a:1" }).catch((e: unknown) => e);
    expect((anonymous as InvalidResponseError).issues).toEqual([
      "data[0].id: expected a string",
      "data[0].status: expected a string",
    ]);
  });

  it("checks the filter before sending anything", async () => {
    const { client, urls } = textFetch();
    await expect(client.dlr.list({} as DlrQuery)).rejects.toThrow(
      "reportkit client: dlr.list needs one of id, mobile, cid, date, groupId",
    );
    // iterate checks at the call, before the first next().
    expect(() => client.dlr.iterate({ date: "2024-02-30" })).toThrow(
      'reportkit client: dlr.iterate: `date` must be a day written yyyy-mm-dd, e.g. 2024-06-24; got "2024-02-30".',
    );
    await expect(client.calls.list({ mobile: "" })).rejects.toThrow(
      "`mobile` must be a non-empty single-line string",
    );
    await expect(client.dlr.summary({ from: "2024-06-24", to: "2024-06-01" })).rejects.toThrow(
      "`to` (2024-06-01) is before `from` (2024-06-24)",
    );
    await expect(client.dlr.list({ date: "2024-06-24", page: 0 })).rejects.toThrow(
      "`page` must be a whole number from 1, got 0.",
    );
    expect(urls).toEqual([]);
  });
});

describe("over HTTP, against a stand-in that pages as the Pull DLR API does", () => {
  let api: PullApiServer;
  let messages: PulledMessage[] = [];
  const client = (token = TOKEN) =>
    createClient({ baseUrl: api.baseUrl, token, retries: 2, retryBaseMs: 1, maxRetryDelayMs: 5 });

  async function start(count: number) {
    messages = Array.from({ length: count }, (_, i) =>
      pulledMessage({
        id: `6bb5da1a-b53e-4fbd-b0ae-6926cad4540b:${i + 1}`,
        status: i % 10 === 0 ? "AWAITING-DLR" : "DELIVRD",
      }),
    );
    api = await startPullApiServer({ apiToken: TOKEN, messages: () => messages });
  }
  afterEach(async () => {
    await api?.close();
  });

  it("walks every page by number, each with the date, 100 records a page, in order", async () => {
    await start(250);
    const ids = [];
    for await (const record of client().dlr.iterate({ date: "2024-06-24" })) ids.push(record.id);
    expect(ids).toEqual(messages.map((m) => m.id));
    // Not links.next: those links drop `date` (Laravel's paginator, as the page shows).
    expect(api.requests).toEqual([
      "GET /api/v2/sms/status?date=2024-06-24&page=1",
      "GET /api/v2/sms/status?date=2024-06-24&page=2",
      "GET /api/v2/sms/status?date=2024-06-24&page=3",
    ]);
  });

  it("gives one page as it is, with where it sits; by group too", async () => {
    await start(250);
    const page = await client().dlr.list({
      groupId: "6bb5da1a-b53e-4fbd-b0ae-6926cad4540b",
      page: 3,
    });
    expect(page.data.map((r) => r.id)).toEqual(messages.slice(200).map((m) => m.id));
    expect(page.page).toMatchObject({ current: 3, last: 3, perPage: 100, total: 250, from: 201 });
    expect(page.links.next).toBeNull();
    expect(page.links.prev).toBe(`${api.baseUrl}sms/status?page=2`);
    expect(api.requests).toEqual([
      "GET /api/v2/sms/status?group_id=6bb5da1a-b53e-4fbd-b0ae-6926cad4540b&page=3",
    ]);
  });

  it("an empty day is one empty page", async () => {
    await start(3);
    const all = [];
    for await (const record of client().dlr.iterate({ date: "2024-06-23" })) all.push(record);
    expect(all).toEqual([]);
    expect(api.requests).toHaveLength(1);
  });

  it("a wrong API token is a ClientError that says so, without the token", async () => {
    await start(3);
    const wrong = "not-the-api-token-123";
    const error = await client(wrong)
      .dlr.list({ date: "2024-06-24" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).message).toBe(
      "GET sms/status failed with 401 Unauthorized: Unauthenticated. Check the access token: it must be the account's current API token, sent as Bearer.",
    );
    expect(JSON.stringify(error)).not.toContain(wrong);
    // Not retried: another try cannot fix a token.
    expect(api.requests).toHaveLength(1);
  });

  it("retries 429, 502, 503 and 504 (honouring Retry-After), then reads the page", async () => {
    await start(3);
    api.failNext(503);
    api.failNext(429, 1, { "retry-after": "0" });
    await expect(client().calls.list({ date: "2024-06-24" })).resolves.toMatchObject({ data: [] });
    expect(api.requests).toHaveLength(3);
  });

  it("gives up after the retries with the last status; a 500 is not retried", async () => {
    await start(3);
    api.failNext(502, 3);
    const error = await client()
      .dlr.list({ date: "2024-06-24" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ApiError", status: 502 });
    expect(api.requests).toHaveLength(3);
    api.failNext(500);
    await expect(client().dlr.summary({ from: "2024-06-24" })).rejects.toMatchObject({
      status: 500,
    });
    expect(api.requests).toHaveLength(4);
  });

  it("a page that fails mid-walk stops the walk with that error", async () => {
    await start(250);
    const seen: string[] = [];
    const walk = async () => {
      for await (const record of client().dlr.iterate({ date: "2024-06-24" })) {
        seen.push(record.id);
        if (seen.length === 100) api.failNext(500);
      }
    };
    await expect(walk()).rejects.toMatchObject({ name: "ApiError", status: 500 });
    expect(seen).toHaveLength(100);
  });

  it("an unreachable API is a RequestFailedError naming the host", async () => {
    await start(0);
    const baseUrl = api.baseUrl;
    await api.close();
    const error = await createClient({ baseUrl, token: TOKEN, retries: 1, retryBaseMs: 1 })
      .dlr.list({ date: "2024-06-24" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestFailedError);
    expect((error as Error).message).toMatch(
      /^GET sms\/status failed: could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\) \(after 2 attempts\)\.$/,
    );
  });

  it("an envelope whose numeric status says failure is an ApiError with that code", async () => {
    const { client: c } = textFetch(JSON.stringify({ status: 404, message: "No calls found" }));
    const error = await c.calls.list({ id: "x" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ApiError", status: 200, code: 404 });
    expect((error as Error).message).toBe(
      "GET outgoing/callstatus failed with 404 (the response envelope's code; HTTP status 200): No calls found",
    );
  });
});

describe.each([
  ["GET sms/status", (c: Client) => c.dlr.list({ date: "2024-06-24" })],
  ["GET sms/report", (c: Client) => c.dlr.summary({ from: "2024-06-24" })],
  ["GET outgoing/callstatus", (c: Client) => c.calls.list({ mobile: "919876543210" })],
  ["GET developer/subscriptions", (c: Client) => c.subscriptions.list()],
  ["GET developer/subscriptions/3", (c: Client) => c.subscriptions.get(3)],
  ["GET voice/calls", (c: Client) => c.callLogs.list({ from: "2024-06-24" })],
  ["GET voice/recordings", (c: Client) => c.recordings.list()],
])("%s", (label, call) => {
  /** A client whose fetch answers `statuses` in turn (then an empty OK list), counting requests. */
  function answering(...statuses: number[]) {
    let requests = 0;
    const fetch = (async () => {
      const status = statuses[requests++] ?? 200;
      const body =
        status === 401
          ? { message: "Unauthenticated." }
          : status === 200
            ? { status: "OK", code: 200, data: label.endsWith("/3") ? SUBSCRIPTION : [] }
            : { message: "busy" };
      const statusText = status === 401 ? "Unauthorized" : "";
      return new Response(JSON.stringify(body), { status, statusText });
    }) as typeof globalThis.fetch;
    const client = createClientWith({
      baseUrl: BASE,
      token: TOKEN,
      fetch,
      timeoutMs: 1000,
      maxResponseBytes: 1_048_576,
      retries: 2,
      retryBaseMs: 1,
      maxRetryDelayMs: 1,
      sleep: async () => {},
      random: () => 1,
    });
    return { client, requests: () => requests };
  }

  it("a wrong token: an ApiError saying to check it, not retried", async () => {
    const { client, requests } = answering(401);
    const error = await call(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toBe(
      `${label} failed with 401 Unauthorized: Unauthenticated. Check the access token: it must be the account's current API token, sent as Bearer.`,
    );
    expect(requests()).toBe(1);
  });

  it("429 and 503 retried, then answered", async () => {
    const { client, requests } = answering(429, 503);
    await expect(call(client)).resolves.toBeDefined();
    expect(requests()).toBe(3);
  });
});

const SUBSCRIPTION = {
  id: 3,
  event: "sms:message:status",
  identity: "all",
  payload: null,
  webhook_id: "w",
  created_at: "2022-12-07T06:20:09.000000Z",
};
