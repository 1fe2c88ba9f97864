import { CALL_VARIABLES } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { FieldErrors } from "./field-errors.js";
import { composedValuesOf } from "./render-composed.js";
import { buildClick2CallReport, documentedCall } from "./reports.js";

const NOW = new Date("2021-04-09T10:57:55.600Z"); // 16:27:55 in Asia/Kolkata (+05:30)
const clock = { now: NOW, timeZone: "Asia/Kolkata" };

describe("buildClick2CallReport", () => {
  it("makes the report v2/voice/c2c.md shows: its fields in the sample's order, the report's time now", () => {
    const report = buildClick2CallReport("hook-1", { duration: 16 }, clock);
    expect(report).toEqual({
      webhook_id: "hook-1",
      bridge: 918068281234,
      from: 918068281235,
      to: 919876543210,
      source: "C2C",
      start_at: "2021-04-09 16:27:39",
      end_at: "2021-04-09 16:27:55",
      date: "2021-04-09 16:27:55",
      unixtime: "1617965875",
      duration: "16",
      billing: "23",
      status: "COMPLETED",
      status1: "RECEIVED",
      status2: "ANSWER",
      recording_url: expect.stringMatching(/^https:\/\/recordings\.example\.com\/.+\.mp3$/),
      hangup_by: "caller",
    });
    // Documented: no webhook_id, as the sample.
    expect(Object.keys(documentedCall(report))[0]).toBe("bridge");
  });

  it("takes an IVR flow as `to`, a mid when the request had one, and an unanswered second leg", () => {
    const report = buildClick2CallReport(
      "hook-1",
      { to: "flow:220", mid: "req-9", status2: "NOANSWER", hangupBy: "agent" },
      clock,
    );
    expect(report).toMatchObject({
      to: "flow:220",
      status: "NOANSWER",
      status2: "NOANSWER",
      billing: "0",
      hangup_by: "agent",
      mid: "req-9",
    });
    expect(report.recording_url).toBeUndefined();
    // A composed call webhook's variables carry every field of it.
    const values = composedValuesOf("call", report, "hook-1");
    expect(values).toMatchObject({ to: "flow:220", billing: "0", status2: "NOANSWER" });
    expect(Object.keys(values).sort()).toEqual(Object.keys(CALL_VARIABLES).sort());
  });

  it("ends the call, and dates the report, at `at` when given", () => {
    const at = new Date("2021-04-08T10:00:00.000Z"); // 15:30:00 in Asia/Kolkata
    const report = buildClick2CallReport("hook-1", { at, duration: 30 }, clock);
    expect(report).toMatchObject({
      start_at: "2021-04-08 15:29:30",
      end_at: "2021-04-08 15:30:00",
      date: "2021-04-08 15:30:00",
      unixtime: "1617876000",
    });
  });

  it("refuses bad overrides, naming each field", () => {
    const thrown = (() => {
      try {
        buildClick2CallReport(
          "hook-1",
          { to: "flow:x", billing: -1, hangupBy: "nobody", status1: "a b" },
          clock,
        );
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(FieldErrors);
    expect(Object.keys((thrown as FieldErrors).errors)).toEqual([
      "to",
      "status1",
      "billing",
      "hangup_by",
    ]);
  });
});
