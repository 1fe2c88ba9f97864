import { describe, expect, it } from "vitest";
import { reasonOf, StoreError } from "./store-error.js";

describe("StoreError", () => {
  it("says who, what, where and why, and keeps the cause", () => {
    const cause = new Error("connect ECONNREFUSED 10.0.0.5:6379");
    const error = new StoreError(
      "redisJournal",
      "listing the journal",
      "Redis at redis://10.0.0.5:6379",
      cause,
    );
    expect(error.message).toBe(
      "redisJournal: listing the journal failed on Redis at redis://10.0.0.5:6379 (connect ECONNREFUSED 10.0.0.5:6379).",
    );
    expect(error).toMatchObject({
      name: "StoreError",
      who: "redisJournal",
      what: "listing the journal",
      where: "Redis at redis://10.0.0.5:6379",
      reason: "connect ECONNREFUSED 10.0.0.5:6379",
      cause,
    });
    expect(error).toBeInstanceOf(Error);
  });

  it("a StoreError as the cause gives its reason, not its whole message again", () => {
    const inner = new StoreError(
      "x",
      "waiting",
      "Redis at redis://h:1",
      new Error("no connection within 5 ms"),
    );
    expect(new StoreError("x", "claim", "Redis at redis://h:1", inner).message).toBe(
      "x: claim failed on Redis at redis://h:1 (no connection within 5 ms).",
    );
  });
});

describe("reasonOf", () => {
  it("a message, else the reasons of an AggregateError, else a code, else the name", () => {
    expect(reasonOf(new Error("boom"))).toBe("boom");
    expect(reasonOf("text")).toBe("text");
    const both = Object.assign(new Error(""), { code: "ECONNREFUSED" });
    expect(
      reasonOf(new AggregateError([new Error("connect ECONNREFUSED ::1:6379"), both], "")),
    ).toBe("connect ECONNREFUSED ::1:6379; ECONNREFUSED");
    expect(reasonOf(new TypeError(""))).toBe("TypeError");
  });
});
