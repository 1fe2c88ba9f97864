import { describe, expect, it } from "vitest";
import { SAMPLE_CALL, SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import { parseReport } from "./parse-report.js";
import { reportFromJson } from "./report-json.js";
import type { Report } from "./schemas.js";

function parsed(payload: unknown): Report {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(result.error.message);
  return result.report;
}

const roundTrip = (report: Report) => reportFromJson(JSON.parse(JSON.stringify(report)));

describe("reportFromJson", () => {
  it("gives back the same delivery report, dates as Dates, raw untouched", () => {
    const report = parsed(SAMPLE_DLR);
    const again = roundTrip(report);
    expect(again).toEqual(report);
    expect(again.type === "delivery" && again.deliveredAt).toBeInstanceOf(Date);
  });

  it("gives back the same call report, dates as Dates", () => {
    const report = parsed(SAMPLE_CALL);
    const again = roundTrip(report);
    expect(again).toEqual(report);
    if (again.type !== "call") throw new Error("expected a call report");
    expect(again.startedAt).toBeInstanceOf(Date);
    expect(again.endedAt).toEqual(report.type === "call" ? report.endedAt : undefined);
    expect(again.endedAt).toBeInstanceOf(Date);
  });

  it("keeps null dates null", () => {
    const report = parsed({ id: "x:1", mobile: "91987", status: "UNDELIV" });
    const again = roundTrip(report);
    expect(again).toEqual(report);
    expect(again).toMatchObject({ deliveredAt: null, sentAt: null, submittedAt: null });
  });

  it("reads a report queued before the extra DLR fields existed with them null", () => {
    const json = JSON.parse(JSON.stringify(parsed(SAMPLE_DLR)));
    const extra = [
      "custom1",
      "custom2",
      "location",
      "region",
      "provider",
      "locationCode",
      "regionCode",
      "providerCode",
    ];
    for (const name of extra) delete json[name];
    const again = reportFromJson(json);
    expect(again).toMatchObject(Object.fromEntries(extra.map((name) => [name, null])));
    expect(again).toMatchObject({ id: SAMPLE_DLR.id, custom: "order-1234" });
    // A field that is not nullable is still required.
    const { id: _id, ...withoutId } = json;
    expect(() => reportFromJson(withoutId)).toThrow(/at `id`/);
  });

  it("refuses what is not a report's JSON form, saying where", () => {
    expect(() => reportFromJson(null)).toThrow(/needs the JSON object of a report/);
    expect(() => reportFromJson({ type: "fax" })).toThrow(
      /`type` must be "delivery", "call", "unsubscribe" or "event"/,
    );
    const json = JSON.parse(JSON.stringify(parsed(SAMPLE_DLR)));
    expect(() => reportFromJson({ ...json, deliveredAt: "not a date" })).toThrow(
      /delivery report at `deliveredAt`/,
    );
    expect(() => reportFromJson({ ...json, id: 7 })).toThrow(/at `id`/);
  });
});
