import { describe, expect, it } from "vitest";
import { ERROR_RULES, ERROR_STATUS, type ErrorCode, replyHeaders } from "./error-table.js";
import { ReportkitError } from "./errors.js";

const codes = Object.keys(ERROR_RULES) as ErrorCode[];

describe("the error table", () => {
  it("gives every reply of a code the headers its row says, and nothing else", () => {
    for (const code of codes) {
      const rule = ERROR_RULES[code];
      const headers = replyHeaders(code);
      const expected: Record<string, string> = { "content-type": "application/json" };
      if (rule.status === 401) expected["www-authenticate"] = 'Bearer realm="reportkit"';
      if (rule.status === 405) expected.allow = "POST";
      if (rule.status === 408 || rule.status === 413) expected.connection = "close";
      if (rule.status === 409 || rule.status === 503) {
        expected["retry-after"] = code === "no_handler" ? "5" : "30";
      }
      expect(headers, code).toEqual(expected);
    }
  });

  it("keeps the status of each code in one place: ERROR_STATUS and every error agree with the row", () => {
    for (const code of codes) {
      expect(ERROR_STATUS[code]).toBe(ERROR_RULES[code].status);
      const error = new ReportkitError(code, "m");
      expect([error.status, error.headers]).toEqual([ERROR_RULES[code].status, replyHeaders(code)]);
    }
  });

  it("journals only what reached the receiver as a report or failed in the app's code", () => {
    const journaled = codes.filter((code) => "journal" in ERROR_RULES[code]);
    expect(journaled.sort()).toEqual(
      [
        "handler_failed",
        "handler_timeout",
        "internal_error",
        "invalid_form",
        "invalid_json",
        "invalid_report",
        "parked",
        "unrecognized_report",
      ].sort(),
    );
  });

  it("reuses one frozen header object per code and detail", () => {
    expect(replyHeaders("unauthorized", { invalidToken: true })).toBe(
      replyHeaders("unauthorized", { invalidToken: true }),
    );
    expect(Object.isFrozen(replyHeaders("payload_too_large"))).toBe(true);
    expect(replyHeaders("method_not_allowed", { allow: "GET" }).allow).toBe("GET");
  });
});
