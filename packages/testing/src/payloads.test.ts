import { parseReport } from "@reportkit/core";
import { describe, expect, it } from "vitest";
import { callPayload, deliveryPayload } from "./payloads.js";

describe("deliveryPayload", () => {
  it("is the documented DLR: wall-clock times, no unix fields, credits a four-place string, the verification page's extra fields", () => {
    const payload = deliveryPayload();
    expect(payload).toEqual({
      id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}:1$/,
      ),
      mobile: "919876543210",
      status: "DELIVRD",
      credits: "2.0000",
      units: 1,
      deliv_time: "2021-04-09 16:27:51",
      sent_time: "2021-04-09 16:27:48",
      submit_time: "2021-04-09 16:27:49",
      cid: "6789",
      custom: "order-1234",
      custom1: "campaign-3344",
      custom2: "new-campXXX",
      location: "India",
      region: "Bangalore",
      provider: "Jio",
      location_code: "in",
      region_code: "KA",
      provider_code: "RJ",
    });
    for (const unix of ["deliv_at", "sent_at", "submit_at"])
      expect(payload).not.toHaveProperty(unix);
  });

  it("has a new id each time, so a deduplicating receiver handles every one", () => {
    expect(deliveryPayload().id).not.toBe(deliveryPayload().id);
  });

  it("is read by the receiver's parser as the report it stands for", () => {
    const result = parseReport(deliveryPayload({ status: "UNDELIV" }), {
      timeZone: "Asia/Kolkata",
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.report).toMatchObject({
      type: "delivery",
      mobile: "919876543210",
      status: "UNDELIV",
      credits: "2.0000",
      units: 1,
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
      custom1: "campaign-3344",
      custom2: "new-campXXX",
      location: "India",
      region: "Bangalore",
      provider: "Jio",
      locationCode: "in",
      regionCode: "KA",
      providerCode: "RJ",
    });
    expect(result.report.warnings).toEqual([]);
  });

  it("overrides and leaves out the extra fields like any other, and the parser follows", () => {
    const payload = deliveryPayload({
      custom1: "campaign-7",
      provider: "Airtel",
      provider_code: 42,
      region: undefined,
      region_code: undefined,
    });
    expect(payload).toMatchObject({ custom1: "campaign-7", provider: "Airtel", provider_code: 42 });
    expect(payload).not.toHaveProperty("region");
    expect(payload).not.toHaveProperty("region_code");
    const result = parseReport(payload);
    expect(result.ok && result.report).toMatchObject({
      custom1: "campaign-7",
      custom2: "new-campXXX",
      provider: "Airtel",
      providerCode: "42",
      region: null,
      regionCode: null,
      location: "India",
      warnings: [],
    });
  });

  it("takes overrides, extra fields, and undefined to leave a field out", () => {
    const payload = deliveryPayload({
      id: "x:2",
      deliv_at: "1617965871",
      cid: undefined,
      extra: 1,
    });
    expect(payload.id).toBe("x:2");
    expect(payload.deliv_at).toBe("1617965871");
    expect(payload.extra).toBe(1);
    expect(payload).not.toHaveProperty("cid");
    expect(JSON.stringify(payload)).not.toContain("cid");
  });
});

describe("callPayload", () => {
  it("is the documented call report: bare-number phones, digit-string duration, numeric flow_id, no webhook_id", () => {
    const payload = callPayload();
    expect(payload).toEqual({
      bridge: 918068281234,
      from: 918068281235,
      to: 919876543210,
      start_at: "2021-04-09 16:27:51",
      end_at: "2021-04-09 16:28:14",
      duration: "23",
      mid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      flow_id: 4521,
      status: "ANSWER",
      source: "OBD",
      recording_url: `https://recordings.example.com/${payload.mid}.mp3`,
    });
    expect(payload).not.toHaveProperty("webhook_id");
    expect(JSON.stringify(payload)).toContain('"to":919876543210');
    expect(callPayload().mid).not.toBe(payload.mid);
  });

  it("is read by the receiver's parser as the report it stands for", () => {
    const result = parseReport(callPayload({ status: "BUSY", duration: "0" }));
    expect(result.ok && result.report).toMatchObject({
      type: "call",
      status: "BUSY",
      to: "919876543210",
      bridge: "918068281234",
      duration: 0,
      flowId: 4521,
      webhookId: null,
    });
  });

  it("leaves out a field set to undefined", () => {
    const payload = callPayload({ recording_url: undefined, webhook_id: "w-1" });
    expect(payload).not.toHaveProperty("recording_url");
    expect(payload.webhook_id).toBe("w-1");
  });
});
