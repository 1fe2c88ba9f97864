// reconcile's parts: the report a pulled record becomes (the provider's own example records),
// which statuses are final, the default day, the options, and the requests it sends.

import { DELIVERY_STATUSES } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import {
  DOC_CALL_STATUS_RESPONSE_TEXT,
  DOC_DLR_RESPONSE_TEXT,
} from "../../../test/fixtures/pull-api.js";
import { createClientWith } from "./create-client.js";
import { providerDay } from "./provider-day.js";
import { CallStatusRecordSchema, DlrRecordSchema } from "./pull-schemas.js";
import { type ReconcileOptions, reconcile } from "./reconcile.js";
import { callHasEnded, callReportOf, deliveryReportOf } from "./reconciled-report.js";

const SECRET = "webhook-secret-9999";

describe("the report a pulled record becomes", () => {
  it("a message of the Pull DLR page: the DLR the provider would have pushed", () => {
    const record = DlrRecordSchema.parse(JSON.parse(DOC_DLR_RESPONSE_TEXT).data[0]);
    expect(JSON.stringify(deliveryReportOf(record))).toBe(
      JSON.stringify({
        id: "469ea920-ccd1-4a39-b728-c0b6f15f6aa6:1",
        mobile: "9189212693xx",
        status: "DELIVRD",
        credits: "1.0000",
        units: 1,
        deliv_time: "2018-07-06 21:57:42",
        submit_time: "2018-07-06 09:57:42",
      }),
    );
    const full = DlrRecordSchema.parse({
      id: "a:1",
      status: "UNDELIV",
      charges: "0.25",
      delivered_at: "",
      custom: "order-1",
      custom1: "x",
      location: "India",
      provider: "Jio",
      sender: "SENDER",
      service: "T",
    });
    expect(deliveryReportOf(full)).toEqual({
      id: "a:1",
      status: "UNDELIV",
      credits: "0.2500",
      custom: "order-1",
      custom1: "x",
      location: "India",
      provider: "Jio",
    });
  });

  it("a call of the call-status page: the call report, id as mid, duration from the times", () => {
    const record = CallStatusRecordSchema.parse(JSON.parse(DOC_CALL_STATUS_RESPONSE_TEXT).data[0]);
    expect(JSON.stringify(callReportOf(record))).toBe(
      JSON.stringify({
        // Masked in the page ("xxxx"): not digits, so sent as text.
        from: "3589100xxxx",
        to: "91761936xxxx",
        start_at: "2024-07-10 08:27:26",
        end_at: "2024-07-10 08:27:29",
        duration: "3",
        mid: "8456bf26-1b6e-4ac1-adb9-2768258f71d0",
        status: "ANSWER",
      }),
    );
    const digits = CallStatusRecordSchema.parse({
      id: "c",
      from: "918068281235",
      to: 919876543210,
      status: "NOANSWER",
      start_at: "",
      end_at: "",
    });
    expect(callReportOf(digits)).toEqual({
      from: 918068281235,
      to: 919876543210,
      mid: "c",
      status: "NOANSWER",
    });
  });

  it("a call is over once its status is final, an answered one once it has ended", () => {
    const call = (status: string, end_at: string) =>
      CallStatusRecordSchema.parse({ id: "c", status, end_at });
    for (const answered of ["ANSWER", "COMPLETED", "completed"]) {
      expect(callHasEnded(call(answered, "2024-07-10 08:27:29")), answered).toBe(true);
      expect(callHasEnded(call(answered, "")), answered).toBe(false);
    }
    for (const unanswered of ["BUSY", "NOANSWER", "CANCEL", "RECEIVED", "MISSED"]) {
      expect(callHasEnded(call(unanswered, "")), unanswered).toBe(true);
    }
    expect(callHasEnded(call("RINGING", ""))).toBe(false);
  });
});

describe("which pulled messages are sent", () => {
  it("every one whose status is final in wire's table, HANDSET-BUSY among them; pending ones not", async () => {
    const unknown = ["DLT-", "SUBMITTED", ""];
    const pending = ["AWAITING-DLR", "ENROUTE", "ACCEPTD", ...unknown];
    const statuses = [...DELIVERY_STATUSES, "DLT-TEMPLATE-MISMATCH", "delivrd", ...unknown];
    const records = statuses.map((status, i) => ({ id: `m:${i}`, status }));
    const { run, sent } = setup(records);
    const summary = await run({ concurrency: 8 });
    const sentStatuses = sent.map((request) => JSON.parse(request.body).status as string);
    const expected = statuses.filter((status) => !pending.includes(status));
    expect(sentStatuses.sort()).toEqual(expected.sort());
    expect(sentStatuses).toContain("HANDSET-BUSY");
    expect(summary).toMatchObject({ pending: pending.length, final: expected.length });
  });
});

describe("the default day", () => {
  it("is yesterday in the provider's zone, not in UTC", () => {
    // 01:30 on the 25th in Kolkata, still the 24th in UTC.
    expect(providerDay(new Date("2024-06-24T20:00:00Z"), "Asia/Kolkata", -1)).toBe("2024-06-24");
    expect(providerDay(new Date("2024-06-24T20:00:00Z"), "UTC", -1)).toBe("2024-06-23");
    expect(providerDay(new Date("2024-03-01T00:00:00Z"), "UTC", -1)).toBe("2024-02-29");
    expect(() => providerDay(new Date(), "Mars/Olympus")).toThrow(
      'reportkit client: timeZone "Mars/Olympus" is not an IANA time zone this runtime knows',
    );
  });
});

/** A client whose pull API answers with `records` (one unpaginated page) and a recording fetch. */
function setup(records: unknown[], hold = false) {
  const pulls: string[] = [];
  const client = createClientWith({
    baseUrl: "https://api.example.com/api/v2/",
    token: "api-token-1234",
    fetch: (async (input: string | URL | Request) => {
      pulls.push(String(input));
      return new Response(JSON.stringify({ status: "OK", code: 200, data: records }));
    }) as typeof globalThis.fetch,
    timeoutMs: 1000,
    maxResponseBytes: 1_048_576,
    retries: 0,
    retryBaseMs: 1,
    maxRetryDelayMs: 1,
    sleep: async () => {},
    random: () => 1,
  });
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  let open = 0;
  let mostOpen = 0;
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input),
      headers: init?.headers as Record<string, string>,
      body: String(init?.body),
    });
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    // Held a turn so that several are in flight together.
    if (hold) await new Promise((resolve) => setTimeout(resolve, 5));
    open -= 1;
    return new Response('{"ok":true}', { status: 200 });
  }) as typeof globalThis.fetch;
  const run = (options: Partial<ReconcileOptions> = {}) =>
    reconcile({
      client,
      fetch,
      to: "https://my.app/webhooks",
      secret: SECRET,
      date: "2024-06-24",
      ...options,
    });
  return { run, pulls, sent, mostOpen: () => mostOpen };
}

describe("reconcile's requests", () => {
  it("POSTs the report as JSON with the bearer, the reconciled mark and its own user agent", async () => {
    const { run, pulls, sent } = setup([
      { id: "a:1", mobile: "919876543210", status: "DELIVRD", units: 1 },
      { id: "b:1", mobile: "919876543211", status: "AWAITING-DLR", units: 1 },
    ]);
    const summary = await run();
    expect(pulls).toEqual(["https://api.example.com/api/v2/sms/status?date=2024-06-24&page=1"]);
    expect(sent).toEqual([
      {
        url: "https://my.app/webhooks",
        headers: {
          "content-type": "application/json",
          "user-agent": "reportkit-reconcile",
          "x-reportkit-reconciled": "sms/status",
          authorization: `Bearer ${SECRET}`,
        },
        body: '{"id":"a:1","mobile":"919876543210","status":"DELIVRD","units":1}',
      },
    ]);
    expect(summary).toMatchObject({ pulled: 2, pending: 1, final: 1, processed: 1 });
  });

  it("keeps at most `concurrency` requests in flight, and uses them", async () => {
    const records = Array.from({ length: 40 }, (_, i) => ({ id: `m:${i}`, status: "DELIVRD" }));
    const { run, sent, mostOpen } = setup(records, true);
    await run({ concurrency: 3 });
    expect(sent).toHaveLength(40);
    expect(mostOpen()).toBe(3);
  });

  it("pulls yesterday in the provider's zone when no filter is given", async () => {
    const { run, pulls } = setup([]);
    const summary = await run({ date: undefined, now: new Date("2024-06-24T20:00:00Z") });
    expect(summary.query).toEqual({ date: "2024-06-24" });
    expect(pulls).toEqual(["https://api.example.com/api/v2/sms/status?date=2024-06-24&page=1"]);
  });

  it("checks its options before pulling anything", async () => {
    const { run, pulls } = setup([]);
    await expect(run({ to: undefined })).rejects.toThrow(
      "reportkit reconcile: `to` must be the receiver's absolute URL",
    );
    await expect(run({ to: "ftp://my.app/" })).rejects.toThrow(
      "`to` must be an http or https URL.",
    );
    await expect(run({ secret: undefined })).rejects.toThrow("`secret` is required");
    await expect(run({ header: "x api key" })).rejects.toThrow("`header` must be a header name");
    await expect(run({ concurrency: 0 })).rejects.toThrow(
      "`concurrency` must be a whole number from 1",
    );
    await expect(run({ kind: "call", groupId: "g" })).rejects.toThrow("no group filter");
    await expect(run({ date: "24-06-2024" })).rejects.toThrow(
      "`date` must be a day written yyyy-mm-dd",
    );
    expect(pulls).toEqual([]);
  });
});
