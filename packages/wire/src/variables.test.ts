// The composed {{variables}} as users import them from @reportkit/wire (provider-interface.md
// 2.6), checked against the payload fields they map to.
import { describe, expect, it } from "vitest";
import {
  CALL_FIELDS,
  CALL_VARIABLES,
  DELIVERY_FIELDS,
  DELIVERY_VARIABLES,
  IDENTITY_VARIABLES,
  UNIX_READINGS,
  variablesOf,
} from "./index.js";

describe("variablesOf and the variable tables", () => {
  it("gives each report type its own table", () => {
    expect(variablesOf("delivery")).toBe(DELIVERY_VARIABLES);
    expect(variablesOf("call")).toBe(CALL_VARIABLES);
  });

  it("maps every delivery variable of 2.6 to its payload field; cid and the verification page's fields have none", () => {
    const delivery = variablesOf("delivery");
    expect(Object.keys(delivery)).toEqual([
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
      "custom",
    ]);
    for (const [variable, field] of Object.entries(delivery)) expect(field).toBe(variable);
    // The provider's variable list (v2/sms/webhook.md) ends at custom: no custom1, location...
    expect(DELIVERY_FIELDS.filter((f) => !Object.values(delivery).includes(f))).toEqual([
      "cid",
      "custom1",
      "custom2",
      "location",
      "region",
      "provider",
      "location_code",
      "region_code",
      "provider_code",
    ]);
  });

  it("offers every call field as a variable, and {{id}} for the call's mid", () => {
    const call = variablesOf("call");
    expect(call.id).toBe("mid");
    const { id: _id, ...rest } = call;
    expect(Object.entries(rest).sort()).toEqual(CALL_FIELDS.map((f) => [f, f]).sort());
  });

  it("names only known variables and fields in IDENTITY_VARIABLES and UNIX_READINGS", () => {
    for (const type of ["delivery", "call"] as const) {
      const { all, anyOf } = IDENTITY_VARIABLES[type];
      const known = Object.keys(variablesOf(type));
      expect(
        [...all, ...anyOf].filter((v) => !known.includes(v)),
        type,
      ).toEqual([]);
    }
    expect(Object.entries(UNIX_READINGS)).toEqual([
      ["sent_time", "sent_at"],
      ["submit_time", "submit_at"],
    ]);
  });
});
