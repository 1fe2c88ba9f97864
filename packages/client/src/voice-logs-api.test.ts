// The voice logs through the client: the provider's own example answers (verbatim, from
// v2/voice/logs.md), then a stand-in server over real HTTP that pages as the page shows, fails
// on demand and checks the bearer; and the lookup of a call's recording over it.
import { afterEach, describe, expect, it } from "vitest";
import {
  DOC_CALL_LOGS_RESPONSE_TEXT,
  DOC_RECORDINGS_RESPONSE_TEXT,
} from "../../../test/fixtures/pull-api.js";
import { textClient } from "../../../test/support/client-fakes.js";
import {
  type PullApiServer,
  type PulledRecording,
  pulledCallLog,
  pulledRecording,
  startPullApiServer,
} from "../../../test/support/pull-api-server.js";
import { createClient } from "./create-client.js";
import { ApiError, InvalidResponseError, RecordingError } from "./errors.js";

const TOKEN = "voice-api-token-8181";
const BASE = "https://api.example.com/api/v2/";

/** A client answering the texts in turn, and the URLs it asked. */
const textFetch = (...texts: string[]) => textClient(TOKEN, ...texts);

/** The day filter a URL carries, decoded. */
const filterOf = (url: string | undefined, name: string) =>
  new URL(url ?? "http://x/").searchParams.get(name);

describe("the provider's example answers, as its page shows them", () => {
  it("Call Logs: lengths of time in seconds, charges a number, raw kept, the page as served", async () => {
    const { client, urls } = textFetch(DOC_CALL_LOGS_RESPONSE_TEXT);
    const page = await client.callLogs.list();
    expect(urls).toEqual([`${BASE}voice/calls`]);
    const { raw, ...call } = page.data[0] ?? ({} as never);
    expect(call).toEqual({
      id: "c839b4c4-8c0d-11e9-bb88-6c2b59c79f5a",
      callFrom: "91798953xxxx",
      callTo: "91806828xxxx",
      service: "IN",
      bridge: "91806828xxxx",
      status: "RECEIVED",
      duration: 12,
      billing: 12,
      pulsing: 30,
      charges: 0.015,
      startAt: "2019-06-11 05:57:24",
      endAt: "2019-06-11 05:57:36",
      hangupBy: "caller",
      dtmf: null,
      location: "IN",
      region: "AP",
      provider: "RJ",
      notes: "Hi laxman final fix",
      audio: null,
      name: "Laxman ka",
    });
    expect(raw).toEqual(JSON.parse(DOC_CALL_LOGS_RESPONSE_TEXT).data[0]);
    expect(page.page).toMatchObject({ current: 1, last: 1, perPage: 15, total: 2 });
    expect(page.links.first).toBe("{{endpoint}}/api/v2/voice/calls?page=1");
  });

  it("Recordings: the date range written as the page writes it, both records, fresh URLs", async () => {
    const { client, urls } = textFetch(DOC_RECORDINGS_RESPONSE_TEXT);
    const page = await client.recordings.list({ from: "2019-08-07", to: "2019-08-13" });
    expect(filterOf(urls[0], "datetime[r.created_at]")).toBe("Aug 07, 2019 - Aug 13, 2019");
    expect(urls[0]?.startsWith(`${BASE}voice/recordings?`)).toBe(true);
    expect(page.data.map(({ raw: _, ...r }) => r)).toEqual([
      {
        id: "c136768e-8c0e-11e9-b795-6c2b59c79f5a",
        callFrom: "918553001122",
        callTo: "918068287601",
        audio: JSON.parse(DOC_RECORDINGS_RESPONSE_TEXT).data[0].audio,
        duration: 93,
        agent: null,
        createdAt: "2019-06-11 06:04:21",
      },
      {
        id: "066f0afa-8c0e-11e9-8b2f-6c2b59c79f5a",
        callFrom: "917989532456",
        callTo: "918068287601",
        audio: JSON.parse(DOC_RECORDINGS_RESPONSE_TEXT).data[1].audio,
        duration: 47,
        agent: null,
        createdAt: "2019-06-11 05:59:07",
      },
    ]);
  });

  it("Call Logs by the request sample's range; one day is written twice", async () => {
    const { client, urls } = textFetch(DOC_CALL_LOGS_RESPONSE_TEXT, DOC_CALL_LOGS_RESPONSE_TEXT);
    await client.callLogs.list({ from: "2021-04-01", to: "2021-04-12" });
    await client.callLogs.list({ from: "2019-08-12", page: 2 });
    expect(filterOf(urls[0], "datetime[end_at]")).toBe("Apr 01, 2021 - Apr 12, 2021");
    expect(filterOf(urls[1], "datetime[end_at]")).toBe("Aug 12, 2019 - Aug 12, 2019");
    expect(filterOf(urls[1], "page")).toBe("2");
  });
});

describe("lenient on format, strict on identity", () => {
  it("reads seconds as numbers, digit strings or a clock, and '' as null", async () => {
    const recordings = [
      { id: 1, audio: "https://h/a.mp3", duration: 95, created_at: "" },
      { id: "2", audio: "https://h/b.mp3", duration: "95", call_from: 918553001122 },
      { id: "3", audio: "", duration: "01:01:05" },
      { id: "4", audio: null, duration: "" },
    ];
    const { client } = textFetch(JSON.stringify({ status: "OK", code: 200, data: recordings }));
    const page = await client.recordings.list();
    expect(page.data.map((r) => [r.id, r.duration, r.audio, r.createdAt, r.callFrom])).toEqual([
      ["1", 95, "https://h/a.mp3", null, null],
      ["2", 95, "https://h/b.mp3", null, "918553001122"],
      ["3", 3665, null, null, null],
      ["4", null, null, null, null],
    ]);
  });

  it("names each wrong field, and refuses a recording without id, a call without status", async () => {
    const { client } = textFetch(
      JSON.stringify({
        status: "OK",
        data: [{ id: "r", duration: "twelve", created_at: "11/06/2019" }],
      }),
      JSON.stringify({ status: "OK", data: [{ call_from: "918553001122" }] }),
    );
    const wrong = await client.recordings.list().catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(InvalidResponseError);
    expect((wrong as InvalidResponseError).issues).toEqual([
      'data[0].duration: expected a length of time such as "00:01:33"',
      "data[0].created_at: expected a wall-clock time such as 2018-07-06 09:57:42, or an empty string",
    ]);
    const anonymous = await client.callLogs.list().catch((e: unknown) => e);
    expect((anonymous as InvalidResponseError).issues).toEqual([
      "data[0].id: expected a string",
      "data[0].status: expected a string",
    ]);
  });

  it("checks the range and the page before sending anything", async () => {
    const { client, urls } = textFetch();
    await expect(client.recordings.list({ from: "2019-02-30" })).rejects.toThrow(
      'reportkit client: recordings.list: `from` must be a day written yyyy-mm-dd, e.g. 2024-06-24; got "2019-02-30".',
    );
    expect(() => client.callLogs.iterate({ from: "2019-08-13", to: "2019-08-07" })).toThrow(
      "reportkit client: callLogs.iterate: `to` (2019-08-07) is before `from` (2019-08-13).",
    );
    await expect(client.callLogs.list({ to: "2019-08-13" })).rejects.toThrow(
      "`from` must be a day written yyyy-mm-dd",
    );
    await expect(client.callLogs.list({ page: 0 })).rejects.toThrow(
      "`page` must be a whole number from 1, got 0.",
    );
    expect(urls).toEqual([]);
  });
});

describe("over HTTP, against a stand-in that pages as the page shows", () => {
  let api: PullApiServer;
  let recordings: PulledRecording[] = [];
  const client = (token = TOKEN) =>
    createClient({ baseUrl: api.baseUrl, token, retries: 2, retryBaseMs: 1, maxRetryDelayMs: 5 });

  async function start(count: number) {
    recordings = Array.from({ length: count }, (_, i) =>
      pulledRecording({ id: `rec-${i + 1}`, call_from: `9180000000${String(i).padStart(2, "0")}` }),
    );
    api = await startPullApiServer({
      apiToken: TOKEN,
      messages: () => [],
      recordings: () => recordings,
      callLogs: () => [pulledCallLog({ id: "call-1" })],
    });
  }
  afterEach(async () => {
    await api?.close();
  });

  it("walks every page by number, 15 a page, each with the range, in order", async () => {
    await start(40);
    const ids = [];
    for await (const r of client().recordings.iterate({ from: "2019-06-11" })) ids.push(r.id);
    expect(ids).toEqual(recordings.map((r) => r.id));
    const range = "datetime%5Br.created_at%5D=Jun+11%2C+2019+-+Jun+11%2C+2019";
    expect(api.requests).toEqual([
      `GET /api/v2/voice/recordings?${range}&page=1`,
      `GET /api/v2/voice/recordings?${range}&page=2`,
      `GET /api/v2/voice/recordings?${range}&page=3`,
    ]);
  });

  it("gives one page as it is, with where it sits; the call logs alike", async () => {
    await start(40);
    const page = await client().recordings.list({ page: 3 });
    expect(page.data.map((r) => r.id)).toEqual(recordings.slice(30).map((r) => r.id));
    expect(page.page).toMatchObject({ current: 3, last: 3, perPage: 15, total: 40, from: 31 });
    expect(page.links.prev).toBe(`${api.baseUrl}voice/recordings?page=2`);
    const calls = [];
    for await (const call of client().callLogs.iterate()) calls.push(call.id);
    expect(calls).toEqual(["call-1"]);
  });

  it("a wrong API token is an ApiError that says so, without the token, not retried", async () => {
    await start(3);
    const wrong = "not-the-voice-token-123";
    const error = await client(wrong)
      .recordings.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(
      "GET voice/recordings failed with 401 Unauthorized: Unauthenticated. Check the access token: it must be the account's current API token, sent as Bearer.",
    );
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(api.requests).toHaveLength(1);
  });

  it("retries 429 (honouring Retry-After, the status APIs' 1,000 a minute) and 503, then reads", async () => {
    await start(3);
    api.failNext(429, 1, { "retry-after": "0" });
    api.failNext(503);
    await expect(client().callLogs.list()).resolves.toMatchObject({ data: [{ id: "call-1" }] });
    expect(api.requests).toHaveLength(3);
  });

  it("a page that fails mid-walk stops the walk with that error", async () => {
    await start(40);
    api.failPage(2, 500);
    const seen: string[] = [];
    const walk = async () => {
      for await (const r of client().recordings.iterate()) seen.push(r.id);
    };
    await expect(walk()).rejects.toMatchObject({ name: "ApiError", status: 500 });
    expect(seen).toHaveLength(15);
  });

  it("finds a call's recording by its URL's file on page 2, and stops walking there", async () => {
    await start(40);
    const wanted = recordings[20] as PulledRecording;
    const expired = `${wanted.audio.split("?")[0]}?X-Amz-Date=20190610T000000Z&X-Amz-Expires=7200&X-Amz-Signature=old`;
    const found = await client().recordings.forCall({
      recordingUrl: expired,
      endedAt: new Date("2019-06-11T00:30:00Z"),
    });
    expect(found?.id).toBe(wanted.id);
    expect(found?.audio).toBe(wanted.audio);
    expect(api.requests).toHaveLength(2);
    // The call ended at 06:00 in the provider's zone (+05:30): its day, with the match margins.
    expect(filterOf(`http://x${api.requests[0]?.slice(4)}`, "datetime[r.created_at]")).toBe(
      "Jun 11, 2019 - Jun 11, 2019",
    );
  });

  it("finds one by the call's numbers and time; null when none fits", async () => {
    await start(3);
    recordings.push(
      pulledRecording({
        id: "by-numbers",
        call_from: "918068281235",
        call_to: "919876543210",
        created_at: "2019-06-11 23:58:30",
      }),
    );
    // 18:28:10 UTC is 23:58:10 in Kolkata; the span runs past midnight: two days asked.
    const call = {
      recordingUrl: "https://youraudiofilelocation/",
      from: "918068281235",
      to: "919876543210",
      bridge: "918068281234",
      startedAt: "2019-06-11T18:27:47.000Z",
      endedAt: "2019-06-11T18:28:10.000Z",
    };
    expect((await client().recordings.forCall(call))?.id).toBe("by-numbers");
    expect(filterOf(`http://x${api.requests[0]?.slice(4)}`, "datetime[r.created_at]")).toBe(
      "Jun 11, 2019 - Jun 12, 2019",
    );
    expect(await client().recordings.forCall({ ...call, to: "919999999999" })).toBeNull();
  });

  it("a call without a time cannot be looked up: a RecordingError that says why, nothing sent", async () => {
    await start(3);
    const error = await client()
      .recordings.forCall({ recordingUrl: "https://h/a.mp3", from: "1", to: "2" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingError);
    expect(error).toMatchObject({ reason: "not-found" });
    expect((error as Error).message).toMatch(/neither startedAt nor endedAt/);
    expect(api.requests).toEqual([]);
  });
});
