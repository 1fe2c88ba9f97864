// parseReport on call reports: the field-notes call sample and every field's readings.
import { describe, expect, it } from "vitest";
import { failure, ok } from "../../../../test/fixtures/parsed-reports.js";
import { SAMPLE_CALL } from "../../../../test/fixtures/samples.js";
import type { CallReport } from "./schemas.js";

/** The call report `payload` is read as. */
const call = (payload: Record<string, unknown>) => ok(payload) as CallReport;

describe("parseReport: call reports", () => {
  it("normalizes the field-notes call sample, its times read in Asia/Kolkata", () => {
    expect(ok(SAMPLE_CALL)).toEqual({
      type: "call",
      webhookId: null,
      mid: "5f2b1a9c-3d4e-4f60-8a7b-9c0d1e2f3a4b",
      bridge: "918068281234",
      from: "918068281235",
      to: "919876543210",
      startedAt: new Date("2021-04-09T10:57:51Z"),
      endedAt: new Date("2021-04-09T10:58:14Z"),
      duration: 23,
      flowId: 4521,
      status: "ANSWER",
      final: true,
      outcome: "answered",
      transient: false,
      source: "OBD",
      recordingUrl: "https://recordings.example.com/5f2b1a9c.mp3",
      // An outbound-dial report has no time of its own: the call's end plus the 2 hours.
      recordingExpiresAt: new Date("2021-04-09T12:58:14Z"),
      // Click2Call's own fields, which an outbound-dial report does not carry.
      billing: null,
      status1: null,
      status2: null,
      hangupBy: null,
      reportedAt: null,
      warnings: [],
      raw: SAMPLE_CALL,
    });
  });

  it("says when the recording URL stops working: its presigned expiry, else the report's time plus 2 hours", () => {
    const presigned =
      "https://s3.example.com/rec.wav?X-Amz-Date=20190813T124618Z&X-Amz-Expires=3600&X-Amz-Signature=abc";
    expect(call({ ...SAMPLE_CALL, recording_url: presigned }).recordingExpiresAt).toEqual(
      new Date("2019-08-13T13:46:18Z"),
    );
    // Click2Call: its unixtime is when the report was made.
    const c2c = call({ ...SAMPLE_CALL, unixtime: "1653455555" });
    expect(c2c.recordingExpiresAt).toEqual(new Date((1653455555 + 7200) * 1000));
    const { end_at: _, ...started } = SAMPLE_CALL;
    expect(call(started).recordingExpiresAt).toEqual(new Date("2021-04-09T12:57:51Z"));
    expect(call({ ...SAMPLE_CALL, recording_url: null }).recordingExpiresAt).toBeNull();
    const { end_at: __, start_at: ___, ...timeless } = SAMPLE_CALL;
    expect(call(timeless).recordingExpiresAt).toBeNull();
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

  it("needs only a status and a mid, a webhook_id or the call's numbers (a Click2Call has no mid)", () => {
    expect(ok({ status: "ANSWER", to: 919876543210 })).toMatchObject({
      type: "call",
      mid: null,
      to: "919876543210",
    });
    expect(ok({ mid: "m-1", status: "NOANSWER" })).toMatchObject({
      type: "call",
      status: "NOANSWER",
      to: null,
      startedAt: null,
      warnings: [],
    });
    expect(ok({ webhook_id: "w-1", status: "BUSY" })).toMatchObject({
      webhookId: "w-1",
      mid: null,
    });
  });

  it.each([
    [
      { status: "ANSWER", duration: "23" },
      "mid",
      /no usable "mid" \(missing\) nor "webhook_id" \(missing\), and none of "bridge", "from" and "to"/,
    ],
    [{ status: "ANSWER", mid: "", webhook_id: null }, "mid", /\(empty\)/],
    [{ status: "ANSWER", mid: { id: 1 } }, "mid", /an object/],
    [{ status: "ANSWER", webhook_id: " " }, "webhook_id", /"webhook_id" \(empty\)/],
    [{ mid: "m-1", to: 1 }, "status", /required but missing/],
  ])("refuses the call %o: it has no identity", (payload, field, message) => {
    const error = failure(payload);
    expect(error).toMatchObject({ code: "invalid_report", field });
    expect(error.message).toMatch(message);
  });

  it("an unreadable mid next to a usable webhook_id is a warning", () => {
    const report = ok({ ...SAMPLE_CALL, mid: { id: 1 }, webhook_id: "w-1" });
    expect(report).toMatchObject({ mid: null, webhookId: "w-1" });
    expect(report.warnings).toEqual([
      { field: "mid", message: expect.stringMatching(/an object/) },
    ]);
  });

  it("reads a fractional phone number, a bad duration and an unreadable time as null with warnings", () => {
    const report = ok({
      ...SAMPLE_CALL,
      to: 91.5,
      duration: "23s",
      start_at: "N/A",
      recording_url: { url: "x" },
    });
    expect(report).toMatchObject({
      to: null,
      duration: null,
      startedAt: null,
      recordingUrl: null,
      endedAt: new Date("2021-04-09T10:58:14Z"),
    });
    expect(report.warnings.map((w) => w.field)).toEqual([
      "to",
      "start_at",
      "duration",
      "recording_url",
    ]);
  });

  it('reads "23.0" as 23 and a flow_id "4521.0" as 4521', () => {
    expect(ok({ ...SAMPLE_CALL, duration: "23.0", flow_id: "4521.0" })).toMatchObject({
      duration: 23,
      flowId: 4521,
      warnings: [],
    });
  });

  it("reads start_at and end_at sent as unix digits", () => {
    expect(ok({ ...SAMPLE_CALL, start_at: "1617965871", end_at: 1617965894000 })).toMatchObject({
      startedAt: new Date(1617965871_000),
      endedAt: new Date(1617965894_000),
      warnings: [],
    });
  });
});
