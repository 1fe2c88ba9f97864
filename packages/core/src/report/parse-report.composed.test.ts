// parseWith: the payload a composed template's request gives, read with the template's needs.
import { describe, expect, it } from "vitest";
import { parseWith } from "./parse-report.js";
import { wallClockReader } from "./read-value.js";

describe("parseWith: a composed template's payload", () => {
  const read = wallClockReader("Asia/Kolkata");

  it("a call template that carries {{id}} needs it filled", () => {
    expect(parseWith({ status: "ANSWER", mid: "" }, read, "call")).toMatchObject({
      ok: false,
      error: { code: "invalid_report", field: "mid" },
    });
    expect(parseWith({ status: "ANSWER", mid: "", webhook_id: "w-1" }, read, "call")).toMatchObject(
      { ok: true, report: { mid: null, webhookId: "w-1" } },
    );
  });

  it("a delivery template's payload may lack mobile; an empty {{status}} is refused", () => {
    expect(parseWith({ id: "x:1", status: "DELIVRD" }, read, "delivery")).toMatchObject({
      ok: true,
      report: { mobile: null, warnings: [] },
    });
    expect(parseWith({ id: "x:1", status: "" }, read, "delivery")).toMatchObject({
      ok: false,
      error: { field: "status" },
    });
  });
});
