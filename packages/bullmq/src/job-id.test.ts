import { describe, expect, it } from "vitest";
import { reportJobId } from "./job-id.js";

describe("reportJobId", () => {
  it("is the same in every process and release for the same key (receivers on many hosts)", () => {
    expect(reportJobId("delivery:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1:DELIVRD")).toBe(
      "rk-7srz5aQSORRqXpCZVYOtwyDQ_WBmfykoooDo7hLnfZg",
    );
  });

  it("gives ids BullMQ accepts (no ':', not integer-like) and different ids for different keys", () => {
    const keys = ["delivery:a:1:DELIVRD", "delivery:a:1:ENROUTE", "call:m:91:ANSWER:", "123", ""];
    const ids = keys.map(reportJobId);
    for (const id of ids) {
      expect(id).toMatch(/^rk-[A-Za-z0-9_-]{43}$/);
      expect(id).not.toContain(":");
    }
    expect(new Set(ids).size).toBe(keys.length);
  });
});
