// The fields the provider's verification page adds to a DLR (field-notes.md, "Fields a real
// push carries beyond the interface"): each typed on the report as text or null, read like
// `custom` and `cid`, an unusable value null with a warning, and everything kept in raw.
import { describe, expect, it } from "vitest";
import { SAMPLE_DLR } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../index.js";
import { parseReport } from "./parse-report.js";
import type { DeliveryReport } from "./schemas.js";

function ok(payload: unknown) {
  const result = parseReport(payload);
  if (!result.ok) throw new Error(`expected a report, got ${result.error.message}`);
  return result.report;
}

function delivery(payload: unknown): DeliveryReport {
  const report = ok(payload);
  if (report.type !== "delivery") throw new Error(`expected a DLR, got a ${report.type} report`);
  return report;
}

// Wire name, report field, and the value of the page's sample.
const EXTRA_FIELDS = [
  ["custom1", "custom1", "campaign-3344"],
  ["custom2", "custom2", "new-campXXX"],
  ["location", "location", "India"],
  ["region", "region", "Bangalore"],
  ["provider", "provider", "Jio"],
  ["location_code", "locationCode", "in"],
  ["region_code", "regionCode", "KA"],
  ["provider_code", "providerCode", "RJ"],
] as const;

// The DLR of the page without any of them: what provider-interface.md 2.4 shows.
const WITHOUT_EXTRAS: Record<string, unknown> = Object.fromEntries(
  Object.entries(SAMPLE_DLR).filter(([key]) => !EXTRA_FIELDS.some(([wire]) => wire === key)),
);

/** The verification page's DLR as it sends it, trailing comma and all (help/verify-webhook.md). */
const VERIFICATION_PAGE_DLR = `{
      "id": "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      "mobile": "918921269xxx",
      "status": "DELIVRD",
      "credits": "2.0000",
      "units": 2,
      "deliv_time": "2021-04-09 16:27:51",
      "sent_time": "2021-04-09 16:27:35",
      "submit_time": "2021-04-09 16:27:39",
      "cid": "1234444XXXX",
      "custom": "9882XXXX",
      "custom1": "campaign-3344",
      "custom2": "new-campXXX",
      "location": "India",
      "region" : "Bangalore",
      "provider": "Jio",
      "location_code": "in",
      "region_code": "KA",
      "provider_code": "RJ",
    }`;

describe("parseReport: the verification page's extra DLR fields", () => {
  it("types every one of them from the page's own sample, through the receiver", async () => {
    const received: unknown[] = [];
    const receiver = createReceiver({
      secret: "t",
      onDelivery(report) {
        received.push(report);
      },
    });
    const reply = await receiver.fetch(
      new Request("http://localhost/webhooks", {
        method: "POST",
        headers: { authorization: "Bearer t", "content-type": "application/json" },
        body: VERIFICATION_PAGE_DLR,
      }),
    );
    expect(reply.status).toBe(200);
    expect(received).toEqual([
      expect.objectContaining({
        custom1: "campaign-3344",
        custom2: "new-campXXX",
        location: "India",
        region: "Bangalore",
        provider: "Jio",
        locationCode: "in",
        regionCode: "KA",
        providerCode: "RJ",
        warnings: [],
      }),
    ]);
  });

  it.each(EXTRA_FIELDS)("reads %s as %s, text as sent", (wire, field, value) => {
    const report = ok({ ...WITHOUT_EXTRAS, [wire]: value });
    expect(report).toMatchObject({ [field]: value, warnings: [] });
    expect(report.raw[wire]).toBe(value);
  });

  it.each(EXTRA_FIELDS)("gives %s as %s null when it is absent", (wire, field) => {
    const report = ok(WITHOUT_EXTRAS);
    expect(report).toMatchObject({ [field]: null, warnings: [] });
    expect(report.raw).not.toHaveProperty(wire);
  });

  it.each(EXTRA_FIELDS)(
    "gives %s as %s null for null or an empty string (a composed sender's empty value)",
    (wire, field) => {
      expect(ok({ ...WITHOUT_EXTRAS, [wire]: null })).toMatchObject({
        [field]: null,
        warnings: [],
      });
      expect(ok({ ...WITHOUT_EXTRAS, [wire]: "" })).toMatchObject({ [field]: null, warnings: [] });
    },
  );

  it.each(EXTRA_FIELDS)("reads a number in %s as its decimal text in %s", (wire, field) => {
    expect(ok({ ...WITHOUT_EXTRAS, [wire]: 3344 })).toMatchObject({
      [field]: "3344",
      warnings: [],
    });
  });

  it.each(
    EXTRA_FIELDS.flatMap(([wire, field]) => [
      [wire, field, { a: 1 }, /expected text or a number, got an object/],
      [wire, field, ["Jio"], /expected text or a number, got an array/],
      [wire, field, true, /expected text or a number, got a boolean/],
      // What JSON.parse makes of digits past 2^53: already another number.
      [wire, field, JSON.parse("12345678901234567891"), /too large to be exact/],
    ]),
  )(
    "reads an unusable %s as %s null with a warning naming the wire field (%o)",
    (wire, field, value, message) => {
      const payload = { ...SAMPLE_DLR, [wire]: value };
      const report = delivery(payload);
      expect(report).toMatchObject({ id: SAMPLE_DLR.id, status: "DELIVRD", [field]: null });
      expect(report.warnings).toEqual([{ field: wire, message: expect.stringMatching(message) }]);
      expect(report.warnings[0]?.message).toMatch(/; set to null, the value is kept in raw$/);
      expect(report.raw).toEqual(payload);
      // The other extra fields are read as usual.
      for (const [otherWire, otherField, sample] of EXTRA_FIELDS) {
        if (otherWire !== wire) expect(report[otherField]).toBe(sample);
      }
    },
  );

  it("lists one warning per unusable extra field, in the order of the report's fields", () => {
    const report = ok({ ...SAMPLE_DLR, provider_code: [], custom1: {}, region: false });
    expect(report.warnings.map((w) => w.field)).toEqual(["custom1", "region", "provider_code"]);
    expect(report).toMatchObject({ custom1: null, region: null, providerCode: null });
  });

  it("tells a DLR by them when it has nothing else of one (an id-less body is an invalid DLR)", () => {
    const result = parseReport({ status: "DELIVRD", provider: "Jio" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("delivery");
    expect(result.error.code).toBe("invalid_report");
    expect(result.error.message).toMatch(/Field "id" of the SMS delivery report is unusable/);
  });

  it("keeps them out of a call report, where they stay in raw only", () => {
    const call = ok({ mid: "m-1", status: "ANSWER", to: 919876543210, provider: "Jio" });
    expect(call.type).toBe("call");
    expect(call).not.toHaveProperty("provider");
    expect(call.raw.provider).toBe("Jio");
  });
});
