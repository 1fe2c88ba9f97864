import { describe, expect, it } from "vitest";
import { DEFAULT_JOURNAL_LIMIT, JOURNAL_STATUSES, journalQuery } from "./journal-reader.js";

describe("journalQuery", () => {
  it("every status, any time, the default limit when there is no filter", () => {
    expect(journalQuery("j.list", undefined)).toEqual({
      statuses: undefined,
      kinds: undefined,
      since: undefined,
      limit: DEFAULT_JOURNAL_LIMIT,
    });
    expect(journalQuery("j.list", {})).toEqual(journalQuery("j.list", undefined));
  });

  it("one status or several as a list; since and limit as given", () => {
    const since = new Date("2026-01-02T03:04:05Z");
    expect(journalQuery("j.list", { status: "failed", since, limit: 5 })).toEqual({
      statuses: ["failed"],
      kinds: undefined,
      since,
      limit: 5,
    });
    expect(journalQuery("j.list", { status: ["failed", "refused"] }).statuses).toEqual([
      "failed",
      "refused",
    ]);
  });

  it("one kind or several as a list: any of the four kinds of push", () => {
    expect(journalQuery("j.list", { kind: "unsubscribe" }).kinds).toEqual(["unsubscribe"]);
    expect(journalQuery("j.list", { kind: ["event", "call"] }).kinds).toEqual(["event", "call"]);
  });

  it("the statuses are failed, refused and resolved", () => {
    expect(JOURNAL_STATUSES).toEqual(["failed", "refused", "resolved"]);
  });

  it.each([
    [
      { status: "fail" },
      'j.list: `status` must be failed, refused, resolved or a list of them, got "fail".',
    ],
    [
      { kind: "sms" },
      'j.list: `kind` must be delivery, call, unsubscribe, event or a list of them, got "sms".',
    ],
    [{ since: "2h" }, 'j.list: `since` must be a valid Date, got "2h".'],
    [{ since: new Date(Number.NaN) }, "j.list: `since` must be a valid Date, got an invalid Date."],
    [{ limit: 0 }, "j.list: `limit` must be a whole number above 0, got 0."],
    [
      { statuses: ["failed"] },
      "j.list: unknown option `statuses`; the options are status, kind, since, limit.",
    ],
    ["failed", "j.list: pass an options object"],
  ])("refuses %j, saying what it takes", (filter, message) => {
    expect(() => journalQuery("j.list", filter as never)).toThrow(message);
  });
});
