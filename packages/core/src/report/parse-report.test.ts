// parseReport on delivery reports (the field-notes sample and every field's readings), on what
// is not a report, and its options.
import { describe, expect, it } from "vitest";
import { failure, ok, warningsOf } from "../../../../test/fixtures/parsed-reports.js";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import { PROVIDER_TIME_ZONE } from "../index.js";
import { parseReport } from "./parse-report.js";

describe("parseReport: delivery reports", () => {
  it("normalizes the field-notes DLR sample, its wall-clock times read in Asia/Kolkata", () => {
    expect(ok(SAMPLE_DLR)).toEqual({
      type: "delivery",
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      mobile: "919876543210",
      status: "DELIVRD",
      final: true,
      outcome: "delivered",
      reason: null,
      transient: false,
      credits: "2.0000",
      units: 1,
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
      sentAt: new Date("2021-04-09T10:57:48Z"),
      submittedAt: new Date("2021-04-09T10:57:49Z"),
      cid: "6789",
      custom: "order-1234",
      custom1: "campaign-3344",
      custom2: "new-campXXX",
      location: "India",
      region: "Bangalore",
      provider: "Jio",
      locationCode: "in",
      regionCode: "KA",
      providerCode: "RJ",
      warnings: [],
      raw: SAMPLE_DLR,
    });
  });

  it("reads wall-clock times in PROVIDER_TIME_ZONE unless told another zone", () => {
    expect(PROVIDER_TIME_ZONE).toBe("Asia/Kolkata");
    expect(ok(SAMPLE_DLR, PROVIDER_TIME_ZONE)).toEqual(ok(SAMPLE_DLR));
    expect(ok(SAMPLE_DLR, "UTC")).toMatchObject({
      deliveredAt: new Date("2021-04-09T16:27:51Z"),
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

  it("needs id, status and one field of its own (id and status alone are also an opt-out's); everything else is null", () => {
    expect(failure({ id: "x:1", status: "UNDELIV" }).code).toBe("unrecognized_report");
    expect(ok({ id: "x:1", mobile: null, status: "UNDELIV" })).toEqual({
      type: "delivery",
      id: "x:1",
      mobile: null,
      status: "UNDELIV",
      final: true,
      outcome: "undelivered",
      reason: "network",
      transient: false,
      credits: null,
      units: null,
      deliveredAt: null,
      sentAt: null,
      submittedAt: null,
      cid: null,
      custom: null,
      custom1: null,
      custom2: null,
      location: null,
      region: null,
      provider: null,
      locationCode: null,
      regionCode: null,
      providerCode: null,
      warnings: [],
      raw: { id: "x:1", mobile: null, status: "UNDELIV" },
    });
    expect(ok({ id: "x:1", mobile: "91987", status: "UNDELIV" })).toMatchObject({
      mobile: "91987",
      warnings: [],
    });
  });

  it("reads empty strings, zero unix times and MySQL zero dates as absent, without a warning", () => {
    const report = ok({
      ...SAMPLE_DLR,
      units: "",
      credits: "",
      mobile: "",
      deliv_at: "0",
      deliv_time: "0000-00-00 00:00:00",
      sent_time: "",
      submit_time: "0",
    });
    expect(report).toMatchObject({
      units: null,
      credits: null,
      mobile: null,
      deliveredAt: null,
      sentAt: null,
      submittedAt: null,
      warnings: [],
    });
  });

  it.each([
    [{ units: "2.0" }, { units: 2 }],
    [{ units: " 3 " }, { units: 3 }],
    [{ units: "+4" }, { units: 4 }],
    [{ credits: ".25" }, { credits: "0.2500" }],
    [{ credits: "2" }, { credits: "2.0000" }],
    [{ credits: "2.5" }, { credits: "2.5000" }],
    [{ credits: "+002.50" }, { credits: "2.5000" }],
    [{ credits: "0.12345" }, { credits: "0.12345" }],
    [{ credits: "-0.5" }, { credits: "-0.5000" }],
    [{ credits: "1.5e-3" }, { credits: "0.0015" }],
    [{ credits: 1e21 }, { credits: "1000000000000000000000.0000" }],
    [{ credits: 1e-7 }, { credits: "0.0000001" }],
    [{ deliv_time: "0000-00-00 00:00:00" }, { deliveredAt: null }],
    [{ deliv_time: "" }, { deliveredAt: null }],
  ])("reads the obvious equivalent %o without a warning", (patch, expected) => {
    expect(ok({ ...SAMPLE_DLR, ...patch })).toMatchObject({ ...expected, warnings: [] });
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

  it("says which zone a unix field and its disagreeing wall-clock twin imply; unix wins", () => {
    // 1617985671 is 16:27:51 UTC: the pair was written in UTC, not in Asia/Kolkata.
    const report = ok({ ...SAMPLE_DLR, deliv_at: "1617985671", sent_at: "1617965868" });
    expect(report).toMatchObject({
      deliveredAt: new Date(1617985671_000),
      sentAt: new Date(1617965868_000),
    });
    expect(report.warnings).toEqual([
      {
        field: "deliv_time",
        message:
          'deliv_time "2021-04-09 16:27:51" is 5 h 30 min off deliv_at in Asia/Kolkata: the pair implies UTC+00:00; deliv_at is used',
      },
    ]);
    // The same pair agrees when the receiver is told UTC.
    expect(warningsOf({ ...SAMPLE_DLR, deliv_at: "1617985671" }, "UTC")).toEqual([]);
    // Read in New York, the Kolkata pair is 9 h 30 min off and still implies +05:30.
    expect(warningsOf({ ...SAMPLE_DLR, sent_at: 1617965868 }, "America/New_York")).toEqual([
      {
        field: "sent_time",
        message: expect.stringContaining(
          "is 9 h 30 min off sent_at in America/New_York: the pair implies UTC+05:30",
        ),
      },
    ]);
  });

  it("says when no zone explains a pair, and compares a twin that names its zone as an instant", () => {
    const [odd] = warningsOf({ ...SAMPLE_DLR, deliv_at: "1617965874" });
    expect(odd?.message).toMatch(/is 3 s off deliv_at in Asia\/Kolkata: no time zone explains/);
    const [zoned] = warningsOf({
      ...SAMPLE_DLR,
      deliv_at: "1617965871",
      deliv_time: "2021-04-09T16:27:51Z",
    });
    expect(zoned?.message).toBe(
      'deliv_time "2021-04-09T16:27:51Z" is 5 h 30 min off deliv_at; deliv_at is used',
    );
    // Within the same second: no warning (wall clocks have no fraction).
    expect(warningsOf({ ...SAMPLE_DLR, deliv_at: "1617965871.8" })).toEqual([]);
  });

  it("reads unix digits in a wall-clock field as a unix time (the documentation's second {{sent_time}})", () => {
    const report = ok({
      ...SAMPLE_DLR,
      deliv_time: "1617965871",
      sent_time: "1617965868000",
      submit_time: 1617965869,
    });
    expect(report).toMatchObject({
      deliveredAt: new Date(1617965871_000),
      sentAt: new Date(1617965868_000),
      submittedAt: new Date(1617965869_000),
      warnings: [],
    });
    // Next to its unix twin, a digits twin that disagrees is compared as an instant.
    const [warning] = warningsOf({ ...SAMPLE_DLR, deliv_at: 1617965871, deliv_time: "1617965931" });
    expect(warning?.message).toBe(
      'deliv_time "1617965931" is 1 min off deliv_at; deliv_at is used',
    );
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
    [{ units: "abc" }, "units", "units", /whole number, got "abc"/],
    [{ units: -1 }, "units", "units", /whole number/],
    [{ units: "2.5" }, "units", "units", /whole number/],
    [{ units: "99999999999999999999" }, "units", "units", /whole number/],
    [{ units: { n: 1 } }, "units", "units", /an object/],
    [{ credits: "2,00" }, "credits", "credits", /decimal/],
    [{ credits: "1e999" }, "credits", "credits", /decimal/],
    [{ credits: true }, "credits", "credits", /a boolean/],
    [{ deliv_at: "yesterday", deliv_time: undefined }, "deliv_at", "deliveredAt", /unix timestamp/],
    [
      { deliv_at: "9000000000000000", deliv_time: undefined },
      "deliv_at",
      "deliveredAt",
      /past any date/,
    ],
    [{ deliv_at: 1e300, deliv_time: undefined }, "deliv_at", "deliveredAt", /past any date/],
    [{ deliv_at: -5, deliv_time: undefined }, "deliv_at", "deliveredAt", /unix timestamp/],
    [{ deliv_time: "N/A" }, "deliv_time", "deliveredAt", /date and time/],
    [{ deliv_time: "2021-02-30 10:00:00" }, "deliv_time", "deliveredAt", /date and time/],
    // Date.UTC rolled a 13th month into the next year; no such month is read now.
    [{ deliv_time: "2021-13-09 10:00:00" }, "deliv_time", "deliveredAt", /date and time/],
    [{ deliv_time: "2021-00-09 10:00:00" }, "deliv_time", "deliveredAt", /date and time/],
    [{ deliv_time: "2021-04-09 24:00:00" }, "deliv_time", "deliveredAt", /date and time/],
    [{ deliv_time: "2021-04-09 10:00:60" }, "deliv_time", "deliveredAt", /date and time/],
    [{ sent_time: "09/04/2021" }, "sent_time", "sentAt", /date and time/],
    [{ sent_time: 12345 }, "sent_time", "sentAt", /date and time/],
    [{ submit_time: ["2021-04-09 16:27:49"] }, "submit_time", "submittedAt", /an array/],
    [{ mobile: {} }, "mobile", "mobile", /phone number, got an object/],
    [{ mobile: 9.5 }, "mobile", "mobile", /phone number/],
    [{ cid: { a: 1 } }, "cid", "cid", /an object/],
    // What JSON.parse makes of digits past 2^53: already another number.
    [{ custom: JSON.parse("12345678901234567891") }, "custom", "custom", /send it as a string/],
  ])(
    "reads %o as null with a warning naming the field, the value kept in raw",
    (patch, field, key, message) => {
      const payload = { ...SAMPLE_DLR, ...patch };
      const report = ok(payload);
      expect(report).toMatchObject({ type: "delivery", id: SAMPLE_DLR.id, [key]: null });
      expect(report.warnings).toEqual([{ field, message: expect.stringMatching(message) }]);
      expect(report.raw).toEqual(payload);
    },
  );

  it("falls back on the wall-clock twin of an unreadable unix field", () => {
    const report = ok({ ...SAMPLE_DLR, deliv_at: "9000000000000000" });
    expect(report).toMatchObject({ deliveredAt: new Date("2021-04-09T10:57:51Z") });
    expect(report.warnings).toEqual([
      { field: "deliv_at", message: expect.stringMatching(/"9000000000000000" is past any date/) },
    ]);
  });

  it("collects one warning per unreadable value, and none for the rest", () => {
    const report = ok({ ...SAMPLE_DLR, units: "abc", credits: "n/a", deliv_time: "N/A" });
    expect(report.warnings.map((w) => w.field)).toEqual(["credits", "units", "deliv_time"]);
    expect(report).toMatchObject({ mobile: "919876543210", sentAt: expect.any(Date) });
  });

  it("gives every report its own warnings array", () => {
    const a = ok(SAMPLE_DLR);
    const b = ok(SAMPLE_DLR);
    expect(a.warnings).not.toBe(b.warnings);
    a.warnings.push({ field: "custom", message: "added by the handler" });
    expect(b.warnings).toEqual([]);
  });

  it.each([
    [{ id: JSON.parse("9007199254740993") }, "id", /too large to be exact/],
    [{ status: null }, "status", /empty/],
    [{ status: "  " }, "status", /empty/],
    [{ id: "" }, "id", /empty/],
    [{ id: ["x"] }, "id", /an array/],
    [{ status: { s: "DELIVRD" } }, "status", /an object/],
  ])(
    "refuses %o: without a usable id and status a report has no identity",
    (patch, field, message) => {
      const error = failure({ ...SAMPLE_DLR, ...patch });
      expect(error.code).toBe("invalid_report");
      expect(error.field).toBe(field);
      expect(error.message).toContain(`"${field}"`);
      expect(error.message).toMatch(message);
    },
  );

  it("hands phone numbers over as digits, whatever punctuation they were written with", () => {
    expect(ok({ ...SAMPLE_DLR, mobile: "+91 98765-43210" })).toMatchObject({
      mobile: "919876543210",
    });
    expect(ok({ ...SAMPLE_DLR, mobile: "(0) 98765.43210" })).toMatchObject({
      mobile: "09876543210",
    });
    // Not a number at all: kept as sent rather than refused (and the report lost).
    expect(ok({ ...SAMPLE_CALL, from: "anonymous" })).toMatchObject({ from: "anonymous" });
    // An empty mobile is still a report (its id says which), without a mobile.
    expect(ok({ ...SAMPLE_DLR, mobile: "" })).toMatchObject({ mobile: null, warnings: [] });
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

  it("says an identity field is missing", () => {
    const { status: _, ...noStatus } = SAMPLE_DLR;
    const error = failure(noStatus);
    expect(error).toMatchObject({ code: "invalid_report", field: "status" });
    expect(error.message).toMatch(/required but missing/);
    const { id: __, ...noId } = SAMPLE_DLR;
    expect(failure(noId)).toMatchObject({ code: "invalid_report", field: "id" });
  });

  it("refuses an identity no store could keep as it is: a control character, a lone surrogate, over 255 characters (issue 42, 8)", () => {
    for (const [id, cause] of [
      ["m-1\u0000x", /control character/],
      ["m-1\nDELIVRD", /control character/],
      ["sur\ud800", /lone UTF-16 surrogate/],
      ["m".repeat(256), /255/],
    ] as const) {
      const error = failure({ ...SAMPLE_DLR, id });
      expect(error).toMatchObject({ code: "invalid_report", field: "id" });
      expect(error.message).toMatch(cause);
    }
    expect(failure({ ...SAMPLE_DLR, status: "DELIV\u0000RD" })).toMatchObject({ field: "status" });
    // The longest kept, and any well-formed text (an emoji's surrogate pair) is an identity.
    expect(ok({ ...SAMPLE_DLR, id: "m".repeat(255) })).toMatchObject({ id: "m".repeat(255) });
    expect(ok({ ...SAMPLE_DLR, id: "m-\u{1f600}" })).toMatchObject({ id: "m-\u{1f600}" });
  });
});

describe("parseReport: what is not a report", () => {
  it.each([[{}], [[]], [[SAMPLE_DLR]], ["DELIVRD"], [42], [null], [{ hello: "world" }]])(
    "rejects %j as unrecognized",
    (payload) => {
      expect(failure(payload).code).toBe("unrecognized_report");
    },
  );

  it("reads an event named after an Object.prototype member as an event (found by the property test)", () => {
    for (const event of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      expect(ok({ event, payload: { id: "e-1" } })).toMatchObject({
        type: "event",
        event,
        id: "e-1",
      });
    }
  });

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
