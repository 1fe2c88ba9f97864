import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../test/fixtures/samples.js";
import { parseReport } from "./parse-report.js";

function ok(payload: unknown, timeZone?: string) {
  const result = parseReport(payload, timeZone === undefined ? undefined : { timeZone });
  if (!result.ok) throw new Error(`expected a report, got ${result.error.message}`);
  return result.report;
}

function failure(payload: unknown) {
  const result = parseReport(payload);
  if (result.ok) throw new Error("expected a failure");
  return result.error;
}

describe("parseReport: delivery reports", () => {
  it("normalizes the field-notes DLR sample", () => {
    expect(ok(SAMPLE_DLR)).toEqual({
      type: "delivery",
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      mobile: "919876543210",
      status: "DELIVRD",
      credits: "2.0000",
      units: 1,
      deliveredAt: new Date("2021-04-09T16:27:51Z"),
      sentAt: new Date("2021-04-09T16:27:48Z"),
      submittedAt: new Date("2021-04-09T16:27:49Z"),
      cid: "6789",
      custom: "order-1234",
      raw: SAMPLE_DLR,
    });
  });

  it("accepts numbers sent as strings and strings sent as numbers", () => {
    const report = ok({ ...SAMPLE_DLR, units: "3", mobile: 919876543210, credits: 2, cid: 6789 });
    expect(report).toMatchObject({
      units: 3,
      mobile: "919876543210",
      credits: "2.0000",
      cid: "6789",
    });
    expect(ok({ ...SAMPLE_DLR, credits: 0.0125 })).toMatchObject({ credits: "0.0125" });
  });

  it("needs only id, mobile and status; everything else is null", () => {
    expect(ok({ id: "x:1", mobile: "91987", status: "UNDELIV" })).toEqual({
      type: "delivery",
      id: "x:1",
      mobile: "91987",
      status: "UNDELIV",
      credits: null,
      units: null,
      deliveredAt: null,
      sentAt: null,
      submittedAt: null,
      cid: null,
      custom: null,
      raw: { id: "x:1", mobile: "91987", status: "UNDELIV" },
    });
  });

  it("reads empty strings, zero unix times and MySQL zero dates as absent", () => {
    const report = ok({
      ...SAMPLE_DLR,
      units: "",
      deliv_at: "0",
      deliv_time: "0000-00-00 00:00:00",
    });
    expect(report).toMatchObject({ units: null, deliveredAt: null });
  });

  it("passes unknown statuses through and keeps unknown fields in raw", () => {
    const report = ok({ ...SAMPLE_DLR, status: "SOMETHING_NEW", operator: "Jio", extra: { a: 1 } });
    expect(report.status).toBe("SOMETHING_NEW");
    expect(report.raw).toMatchObject({ operator: "Jio", extra: { a: 1 } });
  });

  it.each([
    ["Asia/Kolkata", "2021-04-09T10:57:49Z"], // UTC+05:30
    ["America/New_York", "2021-04-09T20:27:49Z"], // EDT, UTC-4
  ])("prefers the unix fields over the wall-clock strings (%s)", (zone, submitted) => {
    const report = ok({ ...SAMPLE_DLR, deliv_at: "1617965871", sent_at: 1617965868 }, zone);
    if (report.type !== "delivery") throw new Error("wrong kind");
    // Whatever the zone, the unix fields are the instant.
    expect(report.deliveredAt).toEqual(new Date(1617965871_000));
    expect(report.sentAt).toEqual(new Date(1617965868_000));
    // submit_at is absent: the wall-clock string is read in the zone.
    expect(report.submittedAt).toEqual(new Date(submitted));
  });

  it("reads wall-clock strings in the configured zone, DST included", () => {
    const kolkata = ok(SAMPLE_DLR, "Asia/Kolkata");
    const newYork = ok({ ...SAMPLE_DLR, deliv_time: "2021-01-09 16:27:51" }, "America/New_York");
    if (kolkata.type !== "delivery" || newYork.type !== "delivery") throw new Error("wrong kind");
    expect(kolkata.deliveredAt).toEqual(new Date("2021-04-09T10:57:51Z"));
    expect(newYork.deliveredAt).toEqual(new Date("2021-01-09T21:27:51Z")); // EST, UTC-5
    expect(newYork.sentAt).toEqual(new Date("2021-04-09T20:27:48Z")); // EDT, UTC-4
  });

  it("reads a wall-clock string that carries its own zone as given", () => {
    const report = ok({ ...SAMPLE_DLR, deliv_time: "2021-04-09T16:27:51+05:30" }, "UTC");
    expect(report).toMatchObject({ deliveredAt: new Date("2021-04-09T10:57:51Z") });
  });

  it.each([
    [{ units: "abc" }, "units", /whole number/],
    [{ units: -1 }, "units", /whole number/],
    [{ credits: "2,00" }, "credits", /decimal/],
    [{ deliv_at: "yesterday" }, "deliv_at", /unix timestamp/],
    [{ deliv_time: "2021-02-30 10:00:00" }, "deliv_time", /date and time/],
    [{ sent_time: "09/04/2021" }, "sent_time", /date and time/],
    [{ mobile: {} }, "mobile", /./],
    [{ units: "99999999999999999999" }, "units", /whole number/],
    // What JSON.parse makes of digits past 2^53: already another number.
    [{ id: JSON.parse("9007199254740993") }, "id", /too large to be exact/],
    [{ custom: JSON.parse("12345678901234567891") }, "custom", /send it as a string/],
    [{ status: null }, "status", /./],
    [{ id: ["x"] }, "id", /./],
  ])("rejects %o naming the field", (patch, field, message) => {
    const error = failure({ ...SAMPLE_DLR, ...patch });
    expect(error.code).toBe("invalid_report");
    expect(error.field).toBe(field);
    expect(error.message).toContain(`"${field}"`);
    expect(error.message).toMatch(message);
  });

  it("hands phone numbers over as digits, whatever punctuation they were written with", () => {
    expect(ok({ ...SAMPLE_DLR, mobile: "+91 98765-43210" })).toMatchObject({
      mobile: "919876543210",
    });
    expect(ok({ ...SAMPLE_DLR, mobile: "(0) 98765.43210" })).toMatchObject({
      mobile: "09876543210",
    });
    // Not a number at all: kept as sent rather than refused (and the report lost).
    expect(ok({ ...SAMPLE_CALL, from: "anonymous" })).toMatchObject({ from: "anonymous" });
    // An empty mobile is still a report (its id says which): kept as "".
    expect(ok({ ...SAMPLE_DLR, mobile: "" })).toMatchObject({ mobile: "" });
  });

  it("writes credits sent as a JSON number in plain decimals", () => {
    expect(ok({ ...SAMPLE_DLR, credits: 2 })).toMatchObject({ credits: "2.0000" });
    expect(ok({ ...SAMPLE_DLR, credits: 0.12345 })).toMatchObject({ credits: "0.12345" });
    expect(ok({ ...SAMPLE_DLR, credits: 1e-7 })).toMatchObject({ credits: "0.0000001" });
  });

  it("reads a unix timestamp sent in milliseconds by its size", () => {
    const seconds = ok({ ...SAMPLE_DLR, deliv_at: "1617985671" });
    const millis = ok({ ...SAMPLE_DLR, deliv_at: 1617985671000 });
    expect(millis).toMatchObject({ deliveredAt: new Date("2021-04-09T16:27:51Z") });
    expect(seconds).toMatchObject({ deliveredAt: new Date("2021-04-09T16:27:51Z") });
  });

  it("says a required field is missing", () => {
    const { status: _, ...noStatus } = SAMPLE_DLR;
    const error = failure(noStatus);
    expect(error).toMatchObject({ code: "invalid_report", field: "status" });
    expect(error.message).toMatch(/required but missing/);
  });
});

describe("parseReport: call reports", () => {
  it("normalizes the field-notes call sample", () => {
    expect(ok(SAMPLE_CALL)).toEqual({
      type: "call",
      webhookId: null,
      mid: "5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b",
      bridge: "918068281234",
      from: "918068281235",
      to: "919876543210",
      startedAt: new Date("2021-04-09T16:27:51Z"),
      endedAt: new Date("2021-04-09T16:28:14Z"),
      duration: 23,
      flowId: 4521,
      status: "ANSWER",
      source: "OBD",
      recordingUrl: "https://recordings.example.com/5f2b1a9c.mp3",
      raw: SAMPLE_CALL,
    });
  });

  it("accepts phone numbers as strings and numbers as digits", () => {
    const report = ok({
      ...SAMPLE_CALL,
      to: "919876543210",
      duration: 23,
      flow_id: "4521",
      webhook_id: "w-1",
    });
    expect(report).toMatchObject({
      to: "919876543210",
      duration: 23,
      flowId: 4521,
      webhookId: "w-1",
    });
  });

  it("needs only a status", () => {
    const report = ok({ mid: "m-1", status: "NOANSWER" });
    expect(report).toMatchObject({ type: "call", status: "NOANSWER", to: null, startedAt: null });
  });

  it("rejects a fractional phone number and a bad duration", () => {
    expect(failure({ ...SAMPLE_CALL, to: 91.5 })).toMatchObject({
      code: "invalid_report",
      field: "to",
    });
    expect(failure({ ...SAMPLE_CALL, duration: "23s" })).toMatchObject({ field: "duration" });
  });
});

describe("parseReport: what is not a report", () => {
  it.each([[{}], [[]], [[SAMPLE_DLR]], ["DELIVRD"], [42], [null], [{ hello: "world" }]])(
    "rejects %j as unrecognized",
    (payload) => {
      expect(failure(payload).code).toBe("unrecognized_report");
    },
  );

  it("is not fooled by __proto__ or constructor keys", () => {
    const payload = JSON.parse(
      '{"__proto__":{"polluted":true,"mobile":"1"},"constructor":{"prototype":{"polluted":true}}}',
    );
    expect(failure(payload).code).toBe("unrecognized_report");
    const report = ok(
      JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(SAMPLE_DLR).slice(1)}`),
    );
    expect(report.type).toBe("delivery");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(report.raw)).toBe(Object.prototype);
  });
});

describe("parseReport options", () => {
  it("throws at once on an unknown time zone, naming it", () => {
    expect(() => parseReport(SAMPLE_DLR, { timeZone: "Mars/Olympus" })).toThrow(/Mars\/Olympus/);
  });
});
