import { describe, expect, it } from "vitest";
import { signedDateMs, utcMsOf } from "./date-time.js";

describe("utcMsOf", () => {
  it("reads six numbers as a UTC instant, and refuses one that is not real", () => {
    expect(utcMsOf(["2019", "08", "13", "12", "46", "18"])).toBe(Date.UTC(2019, 7, 13, 12, 46, 18));
    expect(utcMsOf(["2024", "02", "29", "00", "00", "00"])).toBe(Date.UTC(2024, 1, 29));
    for (const wrong of [
      ["2019", "02", "29", "00", "00", "00"],
      ["2019", "13", "01", "00", "00", "00"],
      ["2019", "08", "13", "24", "00", "00"],
      ["2019", "08", "13", "12", "60", "00"],
    ]) {
      expect(utcMsOf(wrong), wrong.join(" ")).toBeUndefined();
    }
  });
});

describe("signedDateMs", () => {
  it("reads SigV4's basic ISO 8601, in UTC, and nothing else", () => {
    expect(signedDateMs("20190813T124618Z")).toBe(Date.UTC(2019, 7, 13, 12, 46, 18));
    for (const wrong of ["2019-08-13T12:46:18Z", "20190813T124618", "20190230T124618Z", ""]) {
      expect(signedDateMs(wrong), wrong).toBeUndefined();
    }
  });
});
