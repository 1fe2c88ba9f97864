// The payload fields as users import them from @reportkit/wire (provider-interface.md 2.4 and
// 2.5), checked against the documentation's samples.
import { describe, expect, it } from "vitest";
import {
  CALL_FIELDS,
  DELIVERY_FIELDS,
  DOCUMENTED_CALL_SAMPLE,
  DOCUMENTED_DELIVERY_SAMPLE,
} from "./index.js";

describe("DELIVERY_FIELDS and CALL_FIELDS", () => {
  it("are the fields of 2.4 (then the verification page's) and 2.5 (then Click2Call's), in the documentation's order", () => {
    expect(DELIVERY_FIELDS).toEqual([
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
      "custom1",
      "custom2",
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]);
    expect(CALL_FIELDS).toEqual([
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
      "billing",
      "status1",
      "status2",
      "hangup_by",
      "unixtime",
      "date",
    ]);
  });

  it("hold every field of the documented samples; the samples leave out only what field-notes says", () => {
    const missing = (fields: readonly string[], sample: object) =>
      fields.filter((f) => !Object.hasOwn(sample, f));
    const unknown = (fields: readonly string[], sample: object) =>
      Object.keys(sample).filter((k) => !fields.includes(k));
    // The DLR sample has no unix fields; the call sample no webhook_id.
    expect(missing(DELIVERY_FIELDS, DOCUMENTED_DELIVERY_SAMPLE)).toEqual([
      "deliv_at",
      "sent_at",
      "submit_at",
    ]);
    // The OBD sample: no webhook_id, and none of Click2Call's own fields.
    expect(missing(CALL_FIELDS, DOCUMENTED_CALL_SAMPLE)).toEqual([
      "webhook_id",
      "billing",
      "status1",
      "status2",
      "hangup_by",
      "unixtime",
      "date",
    ]);
    expect(unknown(DELIVERY_FIELDS, DOCUMENTED_DELIVERY_SAMPLE)).toEqual([]);
    expect(unknown(CALL_FIELDS, DOCUMENTED_CALL_SAMPLE)).toEqual([]);
  });

  it("copy the verification page's values of the fields it adds, all strings", () => {
    expect(DOCUMENTED_DELIVERY_SAMPLE).toMatchObject({
      custom1: "campaign-3344",
      custom2: "new-campXXX",
      location: "India",
      region: "Bangalore",
      provider: "Jio",
      location_code: "in",
      region_code: "KA",
      provider_code: "RJ",
    });
    // In the page's order, after custom: the order a sender's json_encode writes them in.
    expect(Object.keys(DOCUMENTED_DELIVERY_SAMPLE)).toEqual(
      DELIVERY_FIELDS.filter((f) => Object.hasOwn(DOCUMENTED_DELIVERY_SAMPLE, f)),
    );
  });
});
