import { CALL_VARIABLES, DELIVERY_VARIABLES } from "@reportkit/wire";
import { describe, expect, it } from "vitest";
import { FieldErrors } from "./field-errors.js";
import { composedValuesOf } from "./render-composed.js";
import {
  buildCallReport,
  buildDeliveryReport,
  documentedCall,
  documentedDelivery,
  withoutDeliveryTime,
} from "./reports.js";

const NOW = new Date("2021-04-09T10:57:51.600Z"); // 16:27:51 in Asia/Kolkata (+05:30)
const clock = { now: NOW, timeZone: "Asia/Kolkata" };

describe("buildDeliveryReport", () => {
  it("makes a realistic DLR with matching unix and wall-clock times", () => {
    const report = buildDeliveryReport({ custom: "order-1234" }, clock);
    expect(report.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}:1$/,
    );
    expect(report).toMatchObject({
      mobile: "919876543210",
      status: "DELIVRD",
      credits: "0.2500",
      units: 1,
      deliv_at: "1617965871",
      submit_at: "1617965869",
      sent_at: "1617965868",
      deliv_time: "2021-04-09 16:27:51",
      submit_time: "2021-04-09 16:27:49",
      sent_time: "2021-04-09 16:27:48",
      custom: "order-1234",
      location: "India",
      location_code: "in",
    });
    expect(report.cid).toMatch(/^\d+$/);
    expect(Object.keys(report)).toEqual([
      "id",
      "mobile",
      "status",
      "credits",
      "units",
      "deliv_at",
      "sent_at",
      "submit_at",
      "deliv_time",
      "sent_time",
      "submit_time",
      "cid",
      "custom",
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]);
  });

  it("pushes custom1 and custom2 when given, after custom, in the verification page's order", () => {
    const report = buildDeliveryReport(
      { custom: "order-1", custom1: "campaign-3344", custom2: "new-camp" },
      clock,
    );
    expect(report).toMatchObject({ custom1: "campaign-3344", custom2: "new-camp" });
    expect(Object.keys(report).slice(-9)).toEqual([
      "custom",
      "custom1",
      "custom2",
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]);
    expect(buildDeliveryReport({}, clock)).not.toHaveProperty("custom1");
    expect(buildDeliveryReport({}, clock)).not.toHaveProperty("custom2");
    expect(() => buildDeliveryReport({ custom1: "a\nb" }, clock)).toThrow(/The custom1 field/);
    expect(() => buildDeliveryReport({ custom2: "x".repeat(256) }, clock)).toThrow(
      /The custom2 field/,
    );
  });

  it("says where an Indian number is registered, and nothing for another country's", () => {
    const indian = buildDeliveryReport({ mobile: "919876543210" }, clock);
    expect(indian).toMatchObject({ location: "India", location_code: "in" });
    expect(indian.region).toEqual(expect.any(String));
    expect(indian.provider_code).toMatch(/^[A-Z]{2}$/);
    const british = buildDeliveryReport({ mobile: "447700900123" }, clock);
    for (const field of [
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]) {
      expect(british).not.toHaveProperty(field);
    }
  });

  it("writes the wall clock in the zone asked for", () => {
    const report = buildDeliveryReport({}, { now: NOW, timeZone: "UTC" });
    expect(report.deliv_time).toBe("2021-04-09 10:57:51");
    expect(report).not.toHaveProperty("custom");
  });

  it("counts parts from a message and charges per part with four decimals", () => {
    expect(buildDeliveryReport({ message: "x".repeat(160) }, clock).units).toBe(1);
    const long = buildDeliveryReport({ message: "x".repeat(161) }, clock);
    expect(long).toMatchObject({ units: 2, credits: "0.5000" });
    expect(buildDeliveryReport({ credits: 2, units: 3 }, clock)).toMatchObject({
      credits: "2.0000",
      units: 3,
    });
    expect(buildDeliveryReport({ credits: "0.12345" }, clock).credits).toBe("0.1235");
  });

  it("passes unknown statuses through", () => {
    expect(buildDeliveryReport({ status: "UNDELIV" }, clock).status).toBe("UNDELIV");
  });

  it("names every invalid override", () => {
    let error: unknown;
    try {
      buildDeliveryReport({ mobile: "12ab", units: 0, credits: "lots", status: "not ok!" }, clock);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FieldErrors);
    expect(Object.keys((error as FieldErrors).errors).sort()).toEqual([
      "credits",
      "mobile",
      "status",
      "units",
    ]);
    expect((error as FieldErrors).message).toMatch(/\(and 3 more errors\)$/);
  });
});

describe("buildCallReport", () => {
  it("makes a realistic call report: numbers as JSON numbers, digit-string duration", () => {
    const report = buildCallReport("hook-1", {}, clock);
    expect(report).toMatchObject({
      webhook_id: "hook-1",
      bridge: 918068281234,
      from: 918068281235,
      to: 919876543210,
      start_at: "2021-04-09 16:27:28",
      end_at: "2021-04-09 16:27:51",
      duration: "23",
      flow_id: 4521,
      status: "ANSWER",
      source: "OBD",
    });
    expect(report.recording_url).toBe(`https://recordings.example.com/${report.mid}.mp3`);
    expect(Object.keys(report)).toEqual([
      "webhook_id",
      "bridge",
      "from",
      "to",
      "start_at",
      "end_at",
      "duration",
      "mid",
      "flow_id",
      "status",
      "source",
      "recording_url",
    ]);
  });

  it("gives an unanswered call no duration and no recording", () => {
    const report = buildCallReport("hook-1", { status: "NOANSWER", to: "14155550100" }, clock);
    expect(report).toMatchObject({ duration: "0", to: 14155550100, start_at: report.end_at });
    expect(report).not.toHaveProperty("recording_url");
  });

  it("rejects a phone number that is not 3 to 15 digits", () => {
    expect(() => buildCallReport("h", { to: "+91 98" }, clock)).toThrow(/The to field/);
    expect(() => buildCallReport("h", { from: "1234567890123456" }, clock)).toThrow(/from/);
  });
});

describe("documented shapes (field-notes.md: the documentation's samples)", () => {
  it("a delivered DLR: no unix fields, wall-clock times in the documentation's order", () => {
    const complete = buildDeliveryReport({ custom: "c" }, clock);
    const documented = documentedDelivery(complete);
    expect(Object.keys(documented)).toEqual([
      "id",
      "mobile",
      "status",
      "credits",
      "units",
      "deliv_time",
      "sent_time",
      "submit_time",
      "cid",
      "custom",
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]);
    expect(documented).toMatchObject({
      id: complete.id,
      deliv_time: "2021-04-09 16:27:51",
      sent_time: "2021-04-09 16:27:48",
    });
    // The complete report is left as it was.
    expect(complete.deliv_at).toBe("1617965871");
  });

  it.each(["UNDELIV", "EXPIRED", "REJECTD", "ENROUTE", "delivered"])(
    "a %s DLR has no delivery time",
    (status) => {
      const complete = buildDeliveryReport({ status }, clock);
      expect(documentedDelivery(complete)).not.toHaveProperty("deliv_time");
      expect(withoutDeliveryTime(complete)).not.toHaveProperty("deliv_time");
      expect(withoutDeliveryTime(complete)).not.toHaveProperty("deliv_at");
      expect(withoutDeliveryTime(complete)).toHaveProperty("sent_at");
    },
  );

  it("DELIVRD in any letter case keeps its delivery time", () => {
    const report = buildDeliveryReport({ status: "Delivrd" }, clock);
    expect(documentedDelivery(report).deliv_time).toBe("2021-04-09 16:27:51");
  });

  it("a call report: no webhook_id, numbers and the digit-string duration as they were", () => {
    const complete = buildCallReport("hook-1", {}, clock);
    const documented = documentedCall(complete);
    expect(documented).not.toHaveProperty("webhook_id");
    expect(documented).toEqual({ ...complete, webhook_id: undefined });
    expect(documented).toMatchObject({ bridge: 918068281234, duration: "23", flow_id: 4521 });
  });

  it("variables of an undelivered DLR leave the delivery time empty", () => {
    const vars = composedValuesOf(
      "delivery",
      withoutDeliveryTime(buildDeliveryReport({ status: "UNDELIV" }, clock)),
      "hook-1",
    );
    expect(vars).toMatchObject({ deliv_time: "", deliv_at: "", sent_at: "1617965868" });
  });
});

describe("composed values", () => {
  it("gives every documented delivery variable as a string", () => {
    const vars = composedValuesOf("delivery", buildDeliveryReport({}, clock), "hook-1");
    expect(Object.keys(vars)).toEqual(Object.keys(DELIVERY_VARIABLES));
    expect(vars).toMatchObject({ units: "1", custom: "" });
    // No variable carries the verification page's fields (the provider's list ends at custom).
    expect(vars).not.toHaveProperty("location");
    for (const value of Object.values(vars)) expect(typeof value).toBe("string");
  });

  it("gives every call field plus id (the mid) as strings, {{webhook_id}} always filled", () => {
    const report = buildCallReport("hook-1", {}, clock);
    const vars = composedValuesOf("call", report, "hook-1");
    expect(Object.keys(vars).sort()).toEqual(Object.keys(CALL_VARIABLES).sort());
    expect(vars).toMatchObject({ id: report.mid, to: "919876543210", flow_id: "4521" });
    const { webhook_id: _, ...withoutId } = report;
    expect(composedValuesOf("call", withoutId, "hook-2").webhook_id).toBe("hook-2");
  });
});
